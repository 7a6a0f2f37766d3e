"""Load YAML spec layers keeping the file:line:col of every key and value, and merge
them left to right (maps merge, everything else is replaced by the later layer)."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import yaml

from strata import rules, yamlio
from strata.problems import Mark, Path, Problem


@dataclasses.dataclass
class SourceMap:
    """Where each spec path was written: the value's position, and the key's for map entries."""

    values: dict[Path, Mark] = dataclasses.field(default_factory=dict)
    keys: dict[Path, Mark] = dataclasses.field(default_factory=dict)

    def lookup(self, path: Path, *, prefer_key: bool = False) -> Mark | None:
        if prefer_key and path in self.keys:
            return self.keys[path]
        while True:
            if path in self.values:
                return self.values[path]
            if not path:
                return None
            path = path[:-1]

    def drop_under(self, path: Path) -> None:
        n = len(path)
        for table in (self.values, self.keys):
            for p in [p for p in table if p[:n] == path and len(p) > n]:
                del table[p]


@dataclasses.dataclass
class Layers:
    data: dict[str, Any]
    sources: SourceMap
    problems: list[Problem]
    texts: dict[str, bytes]  # file name -> raw bytes, for the spec digest


def _mark(file: str, m: yaml.Mark) -> Mark:
    return Mark(file, m.line + 1, m.column + 1)


_LINE_BREAK = re.compile(r"\r\n|[\r\n\x85\u2028\u2029]")  # YAML 1.1's line breaks


def _inside(mark: Mark, text: bytes) -> Mark:
    """libyaml puts an error at the end of a file without a final newline on the line after
    the last one; point at the end of the last line instead, where an editor can jump."""
    lines = _LINE_BREAK.split(text.decode("utf-8", errors="replace"))
    if mark.line <= len(lines):
        return mark
    return Mark(mark.file, len(lines), len(lines[-1]) + 1)


def _build(node: yaml.Node, file: str, path: Path, sources: SourceMap, problems: list[Problem]) -> Any:
    sources.values[path] = _mark(file, node.start_mark)
    if isinstance(node, yaml.MappingNode):
        out: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = _scalar(key_node, file, path, problems) if isinstance(key_node, yaml.ScalarNode) else None
            if not isinstance(key, (str, int, float, bool)) or key is None:
                problems.append(dataclasses.replace(
                    rules.SPEC.problem(path, "mapping keys must be plain strings"),
                    mark=_mark(file, key_node.start_mark)))
                continue
            key = str(key)
            child = path + (key,)
            if key in out:
                problems.append(dataclasses.replace(
                    rules.DUPLICATE_KEY.problem(child, f"duplicate key {key!r}"),
                    mark=_mark(file, key_node.start_mark)))
            sources.keys[child] = _mark(file, key_node.start_mark)
            out[key] = _build(value_node, file, child, sources, problems)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_build(item, file, path + (i,), sources, problems) for i, item in enumerate(node.value)]
    return _scalar(node, file, path, problems)


def _scalar(node: yaml.Node, file: str, path: Path, problems: list[Problem]) -> Any:
    try:
        return yamlio.construct(node)
    except yaml.YAMLError as exc:  # an unknown tag such as !python/object or YAML's '=' value key
        reason = getattr(exc, "problem", None) or str(exc)
        problems.append(dataclasses.replace(rules.YAML.problem(path, reason), mark=_mark(file, node.start_mark)))
        return None


def load_file(name: str, text: bytes) -> tuple[Any, SourceMap, list[Problem]]:
    sources = SourceMap()
    problems: list[Problem] = []
    try:
        docs = yamlio.compose_all(text)
    except yaml.MarkedYAMLError as exc:
        mark = _inside(_mark(name, exc.problem_mark), text) if exc.problem_mark else Mark(name, 1, 1)
        reason = exc.problem or str(exc)
        problems.append(dataclasses.replace(rules.YAML.problem((), reason), mark=mark))
        return {}, sources, problems
    except yaml.YAMLError as exc:  # e.g. a reader error on non-UTF-8 bytes
        problems.append(dataclasses.replace(rules.YAML.problem((), str(exc)), mark=Mark(name, 1, 1)))
        return {}, sources, problems
    docs = [d for d in docs if d is not None]
    if not docs:
        return {}, sources, problems
    if len(docs) > 1:
        problems.append(dataclasses.replace(
            rules.YAML.problem((), "a spec file holds one YAML document; split the layers into files"),
            mark=_mark(name, docs[1].start_mark)))
    data = _build(docs[0], name, (), sources, problems)
    if not isinstance(data, dict):
        problems.append(dataclasses.replace(
            rules.SPEC.problem((), "a spec file must be a mapping (apiVersion, kind, cluster, ...)"),
            mark=_mark(name, docs[0].start_mark)))
        return {}, sources, problems
    return data, sources, problems


def merge_into(base: dict, base_sources: SourceMap, layer: dict, layer_sources: SourceMap, path: Path = ()) -> None:
    """Merge ``layer`` into ``base`` in place: maps merge key by key, anything else is replaced."""
    for key, value in layer.items():
        child = path + (key,)
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            merge_into(base[key], base_sources, value, layer_sources, child)
            if child in layer_sources.keys:
                base_sources.keys[child] = layer_sources.keys[child]
            continue
        base[key] = value
        base_sources.drop_under(child)
        n = len(child)
        for table_name in ("values", "keys"):
            src, dst = getattr(layer_sources, table_name), getattr(base_sources, table_name)
            for p, m in src.items():
                if p[:n] == child:
                    dst[p] = m


def load_layers(files: list[tuple[str, bytes]]) -> Layers:
    data: dict[str, Any] = {}
    sources = SourceMap()
    problems: list[Problem] = []
    texts: dict[str, bytes] = {}
    for name, text in files:
        texts[name] = text
        layer, layer_sources, layer_problems = load_file(name, text)
        problems.extend(layer_problems)
        if not data:  # the first layer is taken as it is
            data, sources = layer, layer_sources
            sources.values.setdefault((), Mark(name, 1, 1))
            continue
        merge_into(data, sources, layer, layer_sources)
    return Layers(data, sources, problems, texts)
