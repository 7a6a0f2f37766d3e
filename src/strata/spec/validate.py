"""Validate merged spec data against the core model plus every pack's section, turning
pydantic errors into located, readable problems."""

from __future__ import annotations

import dataclasses
import difflib
import re
import types
import typing
from collections.abc import Iterable
from functools import cache
from typing import Any

from pydantic import BaseModel, ValidationError, create_model

from strata import nested, rules
from strata.errors import PackError
from strata.packs.contract import LegacyField, Pack
from strata.problems import Path, Problem, format_path
from strata.spec.model import CoreSpec
from strata.spec.sources import SourceMap

_CORE_KEYS = {f.alias or n for n, f in CoreSpec.model_fields.items()}


@cache
def spec_model(packs: tuple[Pack, ...]) -> type[CoreSpec]:
    """The Platform model for this set of packs: the core plus one optional section per pack."""
    clashes = sorted(p.name for p in packs if p.field_name in CoreSpec.model_fields or p.field_name in _CORE_KEYS)
    if clashes:
        raise PackError(f"pack names {', '.join(clashes)} clash with core spec sections; rename the pack")
    fields: dict[str, Any] = {p.field_name: (p.config | None, None) for p in packs}
    return create_model("PlatformSpec", __base__=CoreSpec, **fields)


def _data_path(data: Any, loc: tuple) -> Path:
    """Map a pydantic loc (which may hold union/validator tags) onto the real data path."""
    path: list[str | int] = []
    node = data
    for i, part in enumerate(loc):
        if isinstance(node, dict) and part in node or isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
            path.append(part)
        elif i == len(loc) - 1 and isinstance(part, str) and isinstance(node, dict):
            path.append(part)  # a missing or unknown key
    return tuple(path)


def _model_at(model: type[BaseModel], path: Path) -> type[BaseModel] | None:
    """The model class that validates the mapping at ``path`` (for 'did you mean')."""
    current: Any = model
    for part in path:
        current = _unwrap(current)
        if isinstance(part, int):
            args = typing.get_args(current)
            current = args[0] if args else None
            continue
        if isinstance(current, type) and issubclass(current, BaseModel):
            field = next((f for n, f in current.model_fields.items() if (f.alias or n) == part), None)
            current = field.annotation if field else None
        elif typing.get_origin(current) is dict:
            current = typing.get_args(current)[1]
        else:
            return None
    current = _unwrap(current)
    return current if isinstance(current, type) and issubclass(current, BaseModel) else None


def _unwrap(tp: Any) -> Any:
    while True:
        origin = typing.get_origin(tp)
        if origin is typing.Annotated:
            tp = typing.get_args(tp)[0]
        elif origin in (typing.Union, types.UnionType):
            non_none = [a for a in typing.get_args(tp) if a is not type(None)]
            models = [a for a in non_none if isinstance(a, type) and issubclass(a, BaseModel)]
            tp = (models or non_none)[0]
        else:
            return tp


def _message(err: dict, model: type[BaseModel], parent: Path) -> str:
    kind = err["type"]
    if kind == "extra_forbidden":
        key = err["loc"][-1]
        known = _model_at(model, parent)
        names = [f.alias or n for n, f in known.model_fields.items()] if known else []
        close = difflib.get_close_matches(str(key), names, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        return f"unknown field {key!r}{hint}"
    if kind == "missing":
        return f"required field {err['loc'][-1]!r} is missing"
    if kind == "literal_error":
        return f"{err.get('input')!r} is not one of {err['ctx']['expected']}"
    if kind == "string_pattern_mismatch":
        return f"{err.get('input')!r} does not match the pattern {err['ctx']['pattern']}"
    msg = err["msg"]
    msg = msg.removeprefix("Value error, ")
    return msg[0].lower() + msg[1:] if msg else msg


def _legacy(path: Path, legacy: Iterable[LegacyField]) -> LegacyField | None:
    generic = re.sub(r"\[[0-9]+\]", "[*]", format_path(path))
    return next((f for f in legacy if f.pattern == generic), None)


def validate(data: dict, sources: SourceMap, packs: tuple[Pack, ...]) -> tuple[CoreSpec | None, list[Problem]]:
    model = spec_model(packs)
    # pydantic does not show inputs (hide_input_in_errors) but literal errors need them.
    try:
        return model.model_validate(data), []
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
    legacy = [f for p in packs for f in p.legacy_fields]
    problems = []
    for details in errors:
        err: dict[str, Any] = dict(details)
        path = _data_path(data, err["loc"])
        if err["type"] == "too_short" and len(nested.get(data, path) or ()) >= err["ctx"].get("min_length", 0):
            continue  # the list is long enough: pydantic counts only items that validated, whose errors follow
        if err["type"] in ("literal_error", "string_pattern_mismatch"):
            err = dict(err, input=nested.get(data, path))
        old = _legacy(path, legacy) if err["type"] == "extra_forbidden" else None
        if old:
            problem = old.rule.problem(path, old.message)
        else:
            problem = rules.SPEC.problem(path, _message(err, model, path[:-1]))
        if err["type"] == "missing":  # point at the key of the mapping that lacks the field
            mark = sources.keys.get(path[:-1]) or sources.lookup(path[:-1])
        else:
            mark = sources.lookup(path, prefer_key=err["type"] == "extra_forbidden")
        problems.append(dataclasses.replace(problem, mark=mark))
    return None, problems


