"""Load YAML spec layers keeping the file:line:col of every key and value, and merge
them left to right: maps merge key by key, lists of named items (every item a mapping with a
``name``) merge by name, anything else is replaced by the later layer. A ``$patch: replace`` or
``$patch: delete`` marker in a later layer replaces or removes a key or a named item."""

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


# The marker a later layer writes into a map or a named list item, as in Kubernetes strategic
# merge patches: "replace" takes the layer's value instead of merging it, "delete" removes the
# key or the named item. A list item {"$patch": "replace"} alone replaces the whole list.
PATCH = "$patch"
PATCH_VALUES = ("replace", "delete")
_DELETE = object()  # what merging a "$patch: delete" yields


def _children(sources: SourceMap) -> tuple[SourceMap, dict[Any, SourceMap]]:
    """Split the marks of one value into its own (path ()) and each child's, re-rooted at ()."""
    own = SourceMap()
    children: dict[Any, SourceMap] = {}
    for table in ("values", "keys"):
        for p, m in getattr(sources, table).items():
            if not p:
                getattr(own, table)[p] = m
            else:
                getattr(children.setdefault(p[0], SourceMap()), table)[p[1:]] = m
    return own, children


def _join(own: SourceMap, children: dict[Any, SourceMap]) -> SourceMap:
    joined = SourceMap(dict(own.values), dict(own.keys))
    for name, child in children.items():
        for p, m in child.values.items():
            joined.values[(name,) + p] = m
        for p, m in child.keys.items():
            joined.keys[(name,) + p] = m
    return joined


def _is_list_replace(item: Any) -> bool:
    return isinstance(item, dict) and item.keys() == {PATCH} and item[PATCH] == "replace"


def _is_named(items: list[Any], *, allow_list_replace: bool = False) -> bool:
    return bool(items) and all(
        (isinstance(item, dict) and isinstance(item.get("name"), str)) or (allow_list_replace and _is_list_replace(item))
        for item in items)


def _patch(value: Any, sources: SourceMap, where: Path, problems: list[Problem]) -> str | None:
    """The value's $patch marker ("replace", "delete" or None); anything else is a problem."""
    if not isinstance(value, dict) or PATCH not in value:
        return None
    marker = value[PATCH]
    if marker in PATCH_VALUES:
        return marker
    problems.append(dataclasses.replace(
        rules.LAYER_PATCH.problem(where + (PATCH,), f"unknown {PATCH} value {marker!r}: write replace or delete"),
        mark=sources.lookup((PATCH,), prefer_key=True)))
    return None


def _without_patch(value: dict, sources: SourceMap) -> tuple[dict, SourceMap]:
    own, children = _children(sources)
    children.pop(PATCH, None)
    return {k: v for k, v in value.items() if k != PATCH}, _join(own, children)


def _nothing_to_delete(sources: SourceMap, where: Path, what: str) -> Problem:
    return dataclasses.replace(
        rules.LAYER_PATCH.problem(where, f"{PATCH}: delete, but no earlier layer sets {what}"),
        mark=sources.lookup((PATCH,), prefer_key=True))


def _place(value: Any, sources: SourceMap, where: Path, problems: list[Problem]) -> tuple[Any, SourceMap]:
    """A layer's value taken as it is (nothing earlier to merge with), its markers consumed."""
    if not any(p and p[-1] == PATCH for p in sources.keys):
        return value, sources
    own, children = _children(sources)
    if isinstance(value, dict):  # its own marker, if any, was read by the caller
        out: dict[str, Any] = {}
        placed: dict[Any, SourceMap] = {}
        for key, child in value.items():
            if key == PATCH:
                continue
            child_sources = children.get(key, SourceMap())
            if _patch(child, child_sources, where + (key,), problems) == "delete":
                problems.append(_nothing_to_delete(child_sources, where + (key,), key))
                continue
            out[key], placed[key] = _place(child, child_sources, where + (key,), problems)
        return out, _join(own, placed)
    if isinstance(value, list):
        items: list[Any] = []
        placed_items: dict[Any, SourceMap] = {}
        for index, item in enumerate(value):
            item_sources = children.get(index, SourceMap())
            if _is_list_replace(item):
                continue
            if _patch(item, item_sources, where + (index,), problems) == "delete":
                name = item.get("name")
                problems.append(_nothing_to_delete(item_sources, where + (index,), f"an item named {name!r}") if isinstance(name, str) else
                                dataclasses.replace(rules.LAYER_PATCH.problem(
                                    where + (index,), f"only items with a name can be deleted by {PATCH}; write the whole list instead"),
                                    mark=item_sources.lookup((PATCH,), prefer_key=True)))
                continue
            item_value, placed_items[len(items)] = _place(item, item_sources, where + (index,), problems)
            items.append(item_value)
        return items, _join(own, placed_items)
    return value, sources


def _merge(base: Any, base_sources: SourceMap, layer: Any, layer_sources: SourceMap,
           where: Path, problems: list[Problem]) -> tuple[Any, SourceMap] | object:
    """``layer`` over ``base``: maps merge key by key, lists of named items merge by name,
    anything else is the layer's. ``where`` is the layer's own spec path, for its problems."""
    marker = _patch(layer, layer_sources, where, problems)
    if marker == "delete":
        return _DELETE
    if marker == "replace":
        return _place(*_without_patch(layer, layer_sources), where, problems)
    if isinstance(layer, dict) and isinstance(base, dict):
        own, children = _children(base_sources)
        _, layer_children = _children(layer_sources)
        out = dict(base)
        for key, value in layer.items():
            if key == PATCH:
                continue
            value_sources = layer_children.get(key, SourceMap())
            if key in out:
                merged = _merge(out[key], children.get(key, SourceMap()), value, value_sources, where + (key,), problems)
            elif _patch(value, value_sources, where + (key,), problems) == "delete":
                problems.append(_nothing_to_delete(value_sources, where + (key,), key))
                continue
            else:
                merged = _place(value, value_sources, where + (key,), problems)
            if merged is _DELETE:
                del out[key]
                children.pop(key, None)
                continue
            out[key], children[key] = merged  # type: ignore[misc]
            if () in value_sources.keys:  # the key as the later layer wrote it
                children[key].keys[()] = value_sources.keys[()]
        return out, _join(own, children)
    if isinstance(layer, list) and isinstance(base, list) and _is_named(base) and _is_named(layer, allow_list_replace=True):
        return _merge_named(base, base_sources, layer, layer_sources, where, problems)
    return _place(layer, layer_sources, where, problems)


def _merge_named(base: list, base_sources: SourceMap, layer: list, layer_sources: SourceMap,
                 where: Path, problems: list[Problem]) -> tuple[list, SourceMap]:
    """Items merge with the earlier item of the same name, in the earlier order; new names are
    appended in the layer's order; a {"$patch": "replace"} item drops the earlier items."""
    own, children = _children(base_sources)
    layer_own, layer_children = _children(layer_sources)
    items: list[Any] = [] if any(_is_list_replace(item) for item in layer) else [
        [item, children.get(index, SourceMap())] for index, item in enumerate(base)]
    if not items:
        own = layer_own
    for index, item in enumerate(layer):
        if _is_list_replace(item):
            continue
        item_sources = layer_children.get(index, SourceMap())
        earlier = next((entry for entry in items if entry[0]["name"] == item["name"]), None)
        if earlier is None:
            if _patch(item, item_sources, where + (index,), problems) == "delete":
                problems.append(_nothing_to_delete(item_sources, where + (index,), f"an item named {item['name']!r}"))
                continue
            items.append(list(_place(item, item_sources, where + (index,), problems)))
            continue
        merged = _merge(earlier[0], earlier[1], item, item_sources, where + (index,), problems)
        if merged is _DELETE:
            items = [entry for entry in items if entry is not earlier]
        else:
            earlier[:] = merged
    return [value for value, _ in items], _join(own, {index: sources for index, (_, sources) in enumerate(items)})


def merge_into(base: dict, base_sources: SourceMap, layer: dict, layer_sources: SourceMap,
               problems: list[Problem]) -> tuple[dict, SourceMap]:
    """The spec ``layer`` over ``base``: maps merge key by key, lists of named items merge by
    ``name``, anything else is replaced by the later layer; ``$patch`` markers replace or delete."""
    merged = _merge(base, base_sources, layer, layer_sources, (), problems)
    assert merged is not _DELETE, "the top level of a spec file is a mapping"
    return merged  # type: ignore[return-value]


def load_layers(files: list[tuple[str, bytes]]) -> Layers:
    data: dict[str, Any] = {}
    sources = SourceMap()
    problems: list[Problem] = []
    texts: dict[str, bytes] = {}
    for name, text in files:
        texts[name] = text
        layer, layer_sources, layer_problems = load_file(name, text)
        problems.extend(layer_problems)
        if PATCH in layer:
            problems.append(dataclasses.replace(
                rules.LAYER_PATCH.problem((PATCH,), f"a {PATCH} marker belongs in a map or a named list item, not at the top of a spec file"),
                mark=layer_sources.lookup((PATCH,), prefer_key=True)))
            layer = {k: v for k, v in layer.items() if k != PATCH}
        if not data:  # the first layer is taken as it is, its markers consumed
            data, sources = _place(layer, layer_sources, (), problems)
            sources.values.setdefault((), Mark(name, 1, 1))
            continue
        data, sources = merge_into(data, sources, layer, layer_sources, problems)
    return Layers(data, sources, problems, texts)
