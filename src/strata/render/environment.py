"""The Jinja2 environment packs render with: StrictUndefined, no autoescape, templates
compiled once per pack directory, and two filters that print values as valid YAML."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import jinja2

from strata.packs.entry import shared_templates_dir

# Characters JSON leaves raw but YAML does not accept in a document (DEL, C1 controls, lone
# surrogates, the two non-characters): JSON's \uXXXX escape means the same in YAML.
_NOT_YAML_PRINTABLE = re.compile("[\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def _dumps(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=False)
    return _NOT_YAML_PRINTABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _json(value: Any) -> str:
    # JSON is YAML: one-line flow output that the bundle re-dumps in block style.
    return _dumps(value)


def _quote(value: Any) -> str:
    return _dumps(str(value))


@cache
def environment(pack_root: Path) -> jinja2.Environment:
    loader = jinja2.ChoiceLoader([
        jinja2.FileSystemLoader(str(pack_root)),
        jinja2.PrefixLoader({"strata": jinja2.FileSystemLoader(str(shared_templates_dir()))}),
    ])
    env = jinja2.Environment(
        loader=loader,
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        auto_reload=False,
        cache_size=-1,  # never evict: every template is compiled once per process
    )
    env.filters["json"] = _json
    env.filters["q"] = _quote
    return env
