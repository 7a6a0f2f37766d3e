"""What the spec models say about themselves, for people and editors: each field's
description (the comment on its line in the model's source, or the comment lines right above
it; a model's own docstring), and the JSON Schema of the whole Platform spec, third-party
packs' sections included (``strata schema``, docs/spec-reference.md)."""

from __future__ import annotations

import inspect
import re
from functools import cache
from typing import Annotated, Any

from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema

from strata.packs.contract import Pack
from strata.spec.model import API_VERSION

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
_FIELD = re.compile(r"^(\s*)([a-z_][a-z0-9_]*)\s*:")


@cache
def field_descriptions(model: type[BaseModel]) -> dict[str, str]:
    """Field name -> description, from the source of the model and of the models it extends."""
    found: dict[str, str] = {}
    for cls in reversed(model.__mro__):
        if isinstance(cls, type) and issubclass(cls, BaseModel) and cls is not BaseModel:
            found.update(_comments(cls))
    return {name: text for name, text in found.items() if name in model.model_fields}


def _comments(cls: type) -> dict[str, str]:
    try:
        lines, _ = inspect.getsourcelines(cls)
    except (OSError, TypeError):
        return {}
    body = [line for line in lines[1:] if line.strip()]
    if not body:
        return {}
    indent = len(body[0]) - len(body[0].lstrip())
    found: dict[str, str] = {}
    above: list[str] = []
    for line in lines[1:]:
        stripped = line.strip()
        depth = len(line) - len(line.lstrip())
        if stripped.startswith("#") and depth == indent:
            above.append(stripped.lstrip("#").strip())
            continue
        match = _FIELD.match(line)
        if match and len(match[1]) == indent:
            trailing = line.partition("  # ")[2].strip() if "  # " in line else ""
            text = " ".join([*above, trailing]).strip()
            if text:
                found[match[2]] = text
        above = []
    return found


class _Describing(GenerateJsonSchema):
    def model_schema(self, schema: core_schema.ModelSchema) -> JsonSchemaValue:
        json_schema = super().model_schema(schema)
        cls = schema["cls"]
        properties = json_schema.get("properties")
        if isinstance(properties, dict) and issubclass(cls, BaseModel):
            for name, text in field_descriptions(cls).items():
                info = cls.model_fields[name]
                key = info.alias or name
                if key in properties and "description" not in properties[key]:
                    properties[key] = {**properties[key], "description": text}
        return json_schema


def platform_schema(packs: tuple[Pack, ...]) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a Platform spec with these packs' sections."""
    from strata.spec.validate import spec_model

    model = spec_model(packs)
    schema = model.model_json_schema(by_alias=True, mode="validation", schema_generator=_Describing)
    properties = schema.get("properties", {})
    for pack in packs:
        if pack.field_name in properties:
            properties[pack.field_name] = {**properties[pack.field_name],
                                           "description": f"The {pack.name} pack ({pack.source}): {pack.manifest.summary}"}
    return {"$schema": SCHEMA_DIALECT, "$id": f"https://strata.dev/schemas/{API_VERSION.replace('/', '-')}/platform.json",
            **schema, "title": "strata Platform spec"}


# --- the spec reference (docs/spec-reference.md) --------------------------------------------


def markdown_reference(packs: tuple[Pack, ...]) -> str:
    """Every field of the spec, section by section: YAML name, type, default, description.
    A model that appears at several places is described once, where it appears first."""
    from strata.spec.model import CoreSpec

    out = ["# Platform spec reference", "",
           "Generated from the models by `scripts/build-spec-reference.py` (tests/test_spec_reference.py fails while it is stale).",
           "Every field with its YAML name, type, default and description; `strata schema` gives the same as JSON Schema.",
           "A field without a default is required when its section is given.", ""]
    seen: dict[type[BaseModel], str] = {}
    core = "The core of the Platform spec: cluster, node pools, teams, waivers and chart pins."
    queue: list[tuple[str, type[BaseModel], str]] = [("spec", CoreSpec, core)]
    queue += [(p.field_name, p.config, f"The `{p.name}` pack ({p.source}): {p.manifest.summary}.") for p in packs]
    while queue:
        path, model, intro = queue.pop(0)
        if model in seen:
            continue
        seen[model] = path
        out += [f"## `{path}`", "", f"<a id=\"{_anchor(path)}\"></a>", ""]
        doc = intro or (inspect.cleandoc(model.__doc__) if model.__doc__ else "")
        if doc:
            out += [" ".join(doc.split()), ""]
        out += ["| field | type | default | description |", "|---|---|---|---|"]
        descriptions = field_descriptions(model)
        nested: list[tuple[str, type[BaseModel], str]] = []
        for name, info in model.model_fields.items():
            key = info.alias or name
            child_path = f"{path}.{key}" if path != "spec" else key
            models = _models_in(info.annotation)
            for child, many in models:
                suffix = "[]" if many else ""
                nested.append((child_path + suffix, child, ""))
            annotation = Annotated[(info.annotation, *info.metadata)] if info.metadata else info.annotation
            type_text = _type_text(annotation, {m: (seen.get(m) or f"{child_path}{'[]' if many else ''}") for m, many in models})
            default = "required" if info.is_required() else _default_text(info.get_default(call_default_factory=True))
            described = info.description or descriptions.get(name, "")
            out.append(f"| `{key}` | {type_text} | {default} | {_cell(described)} |")
        out.append("")
        queue[0:0] = [n for n in nested if n[1] not in seen]
    return "\n".join(out).rstrip() + "\n"


def _anchor(path: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", path.lower()).strip("-")


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _models_in(annotation: Any) -> list[tuple[type[BaseModel], bool]]:
    """The models a field's type holds, each with whether it is inside a list or map."""
    import typing

    found: list[tuple[type[BaseModel], bool]] = []

    def walk(tp: Any, many: bool) -> None:
        origin = typing.get_origin(tp)
        if isinstance(tp, type) and issubclass(tp, BaseModel):
            found.append((tp, many))
        elif origin is not None:
            inner_many = many or origin in (tuple, list, dict, set, frozenset)
            for arg in typing.get_args(tp):
                if arg is not Ellipsis:
                    walk(arg, inner_many)

    walk(annotation, False)
    return list(dict.fromkeys(found))


def _type_text(annotation: Any, links: dict[type[BaseModel], str]) -> str:
    import types
    import typing

    def text(tp: Any) -> str:
        origin = typing.get_origin(tp)
        args = typing.get_args(tp)
        if origin is typing.Annotated:
            base, *meta = args
            pattern = next((getattr(m, "pattern", None) for m in meta if getattr(m, "pattern", None)), None)
            bounds = [f"{op} {getattr(m, attr)}" for m in meta for attr, op in (("ge", ">="), ("gt", ">"), ("le", "<="), ("lt", "<"))
                      if getattr(m, attr, None) is not None]
            extra = f" matching `{_cell(pattern)}`" if pattern else ""
            extra += f" ({', '.join(bounds)})" if bounds else ""
            return text(base) + extra
        if origin in (typing.Union, types.UnionType):
            parts = [text(a) for a in args if a is not type(None)]
            return " or ".join(parts)
        if origin is typing.Literal:
            return " \\| ".join(f"`{a}`" for a in args)
        if origin in (tuple, list):
            return f"list of {text(args[0])}" if args else "list"
        if origin is dict:
            return f"map of {text(args[0])} to {text(args[1])}" if args else "map"
        if isinstance(tp, type) and issubclass(tp, BaseModel):
            target = links.get(tp, tp.__name__)
            return f"[{tp.__name__}](#{_anchor(target)})"
        if tp is Any:
            return "any"
        return {str: "string", int: "integer", float: "number", bool: "boolean"}.get(tp, getattr(tp, "__name__", str(tp)))

    return text(annotation)


def _default_text(value: Any) -> str:
    import json

    if value is None:
        return "—"
    if isinstance(value, BaseModel):
        value = value.model_dump(by_alias=True, mode="json", exclude_defaults=True) or {}
    if isinstance(value, tuple):
        value = list(value)
    try:
        return f"`{_cell(json.dumps(value, default=str))}`"
    except (TypeError, ValueError):
        return f"`{_cell(str(value))}`"
