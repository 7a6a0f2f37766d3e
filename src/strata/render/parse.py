"""Parse rendered template output. libyaml composes the nodes in C; turning nodes into
Python objects is done here by one tight function instead of PyYAML's generic constructor,
which was the largest cost of a render. Anything but the plain core tags goes through
PyYAML's SafeConstructor, so the result is exactly what yaml.safe_load_all would return."""

from __future__ import annotations

from typing import Any

import yaml

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_fallback = _Loader("")
_STR, _MAP, _SEQ = "tag:yaml.org,2002:str", "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"
_BOOL, _NULL, _INT = "tag:yaml.org,2002:bool", "tag:yaml.org,2002:null", "tag:yaml.org,2002:int"


def _convert(node: yaml.Node) -> Any:
    tag = node.tag
    if tag == _STR:
        return node.value
    if tag == _MAP:
        if any(k.tag == "tag:yaml.org,2002:merge" for k, _ in node.value):
            return _fallback.construct_object(node, deep=True)
        return {_convert(k): _convert(v) for k, v in node.value}
    if tag == _SEQ:
        return [_convert(item) for item in node.value]
    if tag == _INT and node.value.isdigit():
        return int(node.value)
    if tag == _BOOL and node.value in ("true", "false"):
        return node.value == "true"
    if tag == _NULL and node.value in ("null", "~", ""):
        return None
    return _fallback.construct_object(node, deep=True)


def load_all(text: str) -> list[Any]:
    """The non-empty documents of a YAML stream."""
    docs = (_convert(node) for node in yaml.compose_all(text, Loader=_Loader) if node is not None)
    return [doc for doc in docs if doc is not None]
