"""docs/spec-reference.md is what scripts/build-spec-reference.py makes of the models: every
field of the core spec and of every built-in pack, with type, default and description."""

from __future__ import annotations

import subprocess
import sys

from reference import REPO_ROOT

from strata.packs.loader import discover
from strata.spec import describe
from strata.spec.model import CoreSpec, NodePool

SCRIPT = REPO_ROOT / "scripts" / "build-spec-reference.py"
REFERENCE = REPO_ROOT / "docs" / "spec-reference.md"


def test_the_reference_is_current():
    result = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr


def test_every_field_of_every_section_is_listed():
    text = REFERENCE.read_text()
    packs = tuple(p for p in discover() if p.source == "builtin")
    queue = [CoreSpec, *(p.config for p in packs)]
    seen = set()
    while queue:
        model = queue.pop()
        if model in seen:
            continue
        seen.add(model)
        for name, info in model.model_fields.items():
            assert f"| `{info.alias or name}` |" in text, (model.__name__, name)
            queue += [m for m, _ in describe._models_in(info.annotation)]
    for pack in packs:
        assert f"## `{pack.field_name}`" in text


def test_rows_carry_type_default_and_the_models_comment():
    text = REFERENCE.read_text()
    assert "| `expireAfter` | string matching `^(([0-9]+(s\\|m\\|h))+\\|Never)$` | `\"720h\"` | the node lifetime" in text
    assert "| `name` | string matching `^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$` | required | the NodePool and EC2NodeClass name |" in text
    assert describe.field_descriptions(NodePool)["replicas"] == "a static pool (Karpenter staticCapacity gate)"


def test_comments_above_a_field_describe_it_too():
    from strata.spec.model import Waiver

    assert describe.field_descriptions(Waiver)["path"].startswith("Where: a spec path as problems print it")


def test_project_urls_name_the_repository_internal_errors_point_at():
    import tomllib

    from strata.cli import REPORT_URL

    urls = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["urls"]
    assert urls["Issues"] == REPORT_URL
    assert all(u.startswith(urls["Repository"]) for u in urls.values())
    for name in ("Documentation", "Changelog"):
        assert (REPO_ROOT / urls[name].split("/blob/main/", 1)[1]).is_file(), name
