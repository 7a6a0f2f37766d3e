"""What the spec models say about themselves, for people and editors: each field's
description (the comment on its line in the model's source, or the comment lines right above
it; a model's own docstring), and the JSON Schema of the whole Platform spec, third-party
packs' sections included (``strata schema``, docs/spec-reference.md)."""

from __future__ import annotations

import inspect
import re
from functools import cache
from typing import Any

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
