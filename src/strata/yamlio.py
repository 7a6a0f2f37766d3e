"""strata's one YAML module: every load and dump goes through here.

Loading uses libyaml's C loader when PyYAML has it (the Argo CRDs are ~3 MB each), always
with the safe constructors. :func:`load_all` turns the composed nodes into Python objects
with one tight function instead of PyYAML's generic constructor, which was the largest cost
of a render; anything but the plain core tags goes through PyYAML's SafeConstructor, so the
result is exactly what ``yaml.safe_load_all`` would return.

Dumping is a small, fast emitter for the plain data strata writes (dicts, lists, strings,
numbers, booleans, null). PyYAML's representer runs in Python per node and dominated render
time; this one produces Kubernetes-style block YAML (sequences indented under their key),
quotes every string another YAML parser could read as something else (YAML 1.1 booleans
such as `on` or `y`, numbers, timestamps), and writes multi-line strings as literal blocks.
tests/test_emit.py checks that PyYAML reads back exactly what was written."""

from __future__ import annotations

import json
import math
import re
from typing import Any

import yaml

_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class Loader(_BaseLoader):  # type: ignore[misc,valid-type]
    """The safe loader with a memo of plain scalars' tags. The resolver tries a list of
    regular expressions in Python for every plain scalar (a third of a render's parse time),
    though a plain scalar's tag depends on its text alone (no path resolvers are registered
    on the safe loader); Kubernetes YAML repeats the same keys and values thousands of times."""

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        if kind is yaml.ScalarNode and implicit[0]:
            tag = _PLAIN_TAGS.get(value)
            if tag is None:
                tag = super().resolve(kind, value, implicit)
                if len(value) <= _MEMO_LENGTH:
                    _PLAIN_TAGS[value] = tag
            return tag
        return super().resolve(kind, value, implicit)


assert not _BaseLoader.yaml_path_resolvers, "plain scalar tags would depend on their path"
_PLAIN_TAGS: dict[str, str] = {}
_MEMO_LENGTH = 80  # long scalars rarely repeat; the memo stays small
YAMLError = yaml.YAMLError
MarkedYAMLError = yaml.MarkedYAMLError

# Plain (unquoted) strings: start with a letter, '_' or '/', then a conservative character set;
# single inner spaces and colons only between word characters (never ': ' or ' #'), so no
# YAML parser can read a key, a comment or another type into them.
_WORD = r"[A-Za-z0-9_./@+=-]+"
_PLAIN = re.compile(rf"[A-Za-z_/][A-Za-z0-9_./@+=-]*(:{_WORD})*( {_WORD}(:{_WORD})*)*\Z")
# Quantities and durations are plain too: no YAML resolves these as numbers or dates.
_UNITS = re.compile(r"[0-9]+(\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P)\Z|([0-9]+(ms|s|m|h))+\Z")
_WORDS = frozenset(["y", "yes", "n", "no", "true", "false", "on", "off", "null"])
# Characters YAML does not allow unescaped or reads as line breaks (JSON escapes those below 0x20).
_UNPRINTABLE = re.compile("[\x7f-\x9f\u2028\u2029\ud800-\udfff\ufffe\uffff]")
_PRINTABLE_BLOCK = re.compile(r"[\t\n\x20-\x7e\u00a0-\ud7ff\ue000-\ufffd]*\Z")


def scalar(value: Any) -> str:
    if isinstance(value, str):
        text = _SCALARS.get(value)
        if text is None:
            text = _string(value)
            if len(value) <= _MEMO_LENGTH:
                _SCALARS[value] = text
        return text
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return ".nan"
        if math.isinf(value):
            return ".inf" if value > 0 else "-.inf"
        text = repr(value)  # YAML 1.1 floats need a dot, also before an exponent
        if "." not in text:
            text = text.replace("e", ".0e") if "e" in text else text + ".0"
        return text
    raise TypeError(f"cannot write {type(value).__name__} as YAML")


_SCALARS: dict[str, str] = {}  # a string's YAML form, memoized: keys and labels repeat thousands of times


def _string(value: str) -> str:
    if (_PLAIN.match(value) or _UNITS.match(value)) and value.lower() not in _WORDS:
        return value
    return _UNPRINTABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(value, ensure_ascii=False))


def _block(text: str, indent: str) -> str | None:
    """A literal block for multi-line text, or None if it cannot be one."""
    if "\n" not in text or not _PRINTABLE_BLOCK.match(text) or _UNPRINTABLE.search(text) or text.startswith((" ", "\t", "\n")):
        return None
    if any(line != line.rstrip(" \t") for line in text.split("\n")):
        return None  # trailing blanks survive only in quoted form
    stripped = text.rstrip("\n")
    trailing = len(text) - len(stripped)
    chomp = "-" if trailing == 0 else ("" if trailing == 1 else "+")
    lines = text.split("\n") if chomp == "+" else stripped.split("\n")
    if chomp == "+":
        lines = lines[:-1]
    body = "".join(f"{indent}{line}\n" if line else "\n" for line in lines)
    return f"|{chomp}\n{body}"


def _value(value: Any, indent: str, out: list[str]) -> None:
    """Append ' <scalar>\\n' or a nested block for the value of a key or sequence item."""
    if isinstance(value, dict) and value:
        out.append("\n")
        _mapping(value, indent, out)
    elif isinstance(value, list) and value:
        out.append("\n")
        _sequence(value, indent, out)
    elif isinstance(value, dict):
        out.append(" {}\n")
    elif isinstance(value, list):
        out.append(" []\n")
    elif isinstance(value, str) and "\n" in value and (block := _block(value, indent)) is not None:
        out.append(" " + block)
    else:
        out.append(f" {scalar(value)}\n")


def _mapping(data: dict, indent: str, out: list[str], first_prefix: str | None = None) -> None:
    child = indent + "  "
    for i, (key, value) in enumerate(data.items()):
        out.append(first_prefix if i == 0 and first_prefix is not None else indent)
        out.append(scalar(key) + ":")
        _value(value, child, out)


def _sequence(items: list, indent: str, out: list[str]) -> None:
    child = indent + "  "
    for item in items:
        if isinstance(item, dict) and item:
            _mapping(item, child, out, first_prefix=indent + "- ")
        elif isinstance(item, str) and "\n" not in item:  # the common item (a lock's files): what _value writes
            out.append(f"{indent}- {scalar(item)}\n")
        else:
            out.append(indent + "-")
            _value(item, child, out)


def dump(data: Any) -> str:
    """One YAML document (no leading '---'), ending in a newline."""
    out: list[str] = []
    if isinstance(data, dict) and data:
        _mapping(data, "", out)
    elif isinstance(data, list) and data:
        _sequence(data, "", out)
    elif isinstance(data, (dict, list)):
        out.append("{}\n" if isinstance(data, dict) else "[]\n")
    else:
        out.append(scalar(data) + "\n")  # a top-level scalar stays on one line
    return "".join(out)


# --- loading ----------------------------------------------------------------------------

_constructor = Loader("")  # its safe constructors turn single nodes into Python objects
_STR, _MAP, _SEQ = "tag:yaml.org,2002:str", "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"
_BOOL, _NULL, _INT = "tag:yaml.org,2002:bool", "tag:yaml.org,2002:null", "tag:yaml.org,2002:int"


def load(text: str | bytes) -> Any:
    """One YAML document, as ``yaml.safe_load`` reads it (the packs' chart key indexes are
    read on every run: composed in C and converted by :func:`_convert`, not constructed)."""
    node = yaml.compose(text, Loader=Loader)
    if node is None:
        return None
    try:
        return _convert(node)
    except RecursionError:  # an alias inside itself: only the constructor builds that
        return yaml.load(text, Loader=Loader)


def compose_all(text: str | bytes) -> list[yaml.Node]:
    """The node trees of a YAML stream (with their marks), for loaders that track positions."""
    return list(yaml.compose_all(text, Loader=Loader))


def construct(node: yaml.Node) -> Any:
    """The Python value of one node, with the safe constructors."""
    return _constructor.construct_object(node, deep=True)


def _convert(node: yaml.Node) -> Any:
    tag = node.tag
    if tag == _STR:
        return node.value
    if tag == _MAP:
        if any(k.tag == "tag:yaml.org,2002:merge" for k, _ in node.value):
            return construct(node)
        return {_convert(k): _convert(v) for k, v in node.value}
    if tag == _SEQ:
        return [_convert(item) for item in node.value]
    if tag == _INT and node.value.isdigit():
        return int(node.value)
    if tag == _BOOL and node.value in ("true", "false"):
        return node.value == "true"
    if tag == _NULL and node.value in ("null", "~", ""):
        return None
    return construct(node)


def load_all(text: str | bytes) -> list[Any]:
    """The non-empty documents of a YAML stream."""
    docs = (_convert(node) for node in yaml.compose_all(text, Loader=Loader) if node is not None)
    return [doc for doc in docs if doc is not None]
