"""Problem paths of packs. A pack points at its own section with a plain tuple relative to it,
written with its model's field names (``("pod_security", "enforce")``); ``spec_path(...)``
points from the spec root instead (core sections such as teams or nodePools, or a path
another pack exported). The engine turns both into the spec path the user wrote:
``tenancy.podSecurity.enforce``. Keys below a mapping field (chart values) stay as given."""

from __future__ import annotations

import types
import typing
from typing import Any

from pydantic import BaseModel

from strata.problems import Path


class SpecPath(tuple):
    """A problem path from the spec root; stays one when extended with ``+``."""

    def __add__(self, other: tuple) -> SpecPath:
        return SpecPath((*self, *other))

    def __repr__(self) -> str:
        return f"spec_path{tuple.__repr__(self)}"


def spec_path(*parts: str | int) -> SpecPath:
    """A path from the spec root, e.g. ``spec_path("teams", i, "quota")``."""
    return SpecPath(parts)


def resolve(path: Path, section: str, model: type[BaseModel]) -> Path:
    """The spec path of a pack's problem: from the root, with every field by its YAML name."""
    parts = tuple(path) if isinstance(path, SpecPath) else (section, *path)
    out: list[str | int] = []
    current: Any = model
    for part in parts:
        if isinstance(part, int):
            out.append(part)
            current = _item(current)
            continue
        field = _field(current, part)
        if field is None:
            out.append(part)
            current = _value(current)
        else:
            name, info = field
            out.append(info.alias or name)
            current = info.annotation
    return tuple(out)


def unknown_field(path: Path, model: type[BaseModel]) -> str | None:
    """The first part of a spec path that names no field of the model it walks through
    (None when the path only names real fields, or leaves the models for mapping keys)."""
    current: Any = model
    for part in path:
        if isinstance(part, int):
            current = _item(current)
        elif (field := _field(current, part)) is not None:
            current = field[1].annotation
        elif any(isinstance(o, type) and issubclass(o, BaseModel) for o in _unwrap(current)):
            return part
        else:
            current = _value(current)
    return None


def _unwrap(tp: Any) -> list[Any]:
    """The alternatives of a type: Annotated and Optional/Union taken apart."""
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        return _unwrap(typing.get_args(tp)[0])
    if origin in (typing.Union, types.UnionType):
        return [t for a in typing.get_args(tp) if a is not type(None) for t in _unwrap(a)]
    return [tp]


def _field(tp: Any, part: str) -> tuple[str, Any] | None:
    for option in _unwrap(tp):
        if isinstance(option, type) and issubclass(option, BaseModel):
            for name, info in option.model_fields.items():
                if part in (name, info.alias):
                    return name, info
    return None


def _item(tp: Any) -> Any:
    for option in _unwrap(tp):
        if typing.get_origin(option) in (tuple, list) and typing.get_args(option):
            return typing.get_args(option)[0]
    return None


def _value(tp: Any) -> Any:
    for option in _unwrap(tp):
        if typing.get_origin(option) is dict and len(typing.get_args(option)) == 2:
            return typing.get_args(option)[1]
    return None
