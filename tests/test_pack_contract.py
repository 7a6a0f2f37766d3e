"""The pack contract holds for every built-in pack: pack code imports nothing from strata but
the public ``strata.pack`` module, and no pack reads another pack's spec section."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import strata.pack
from reference import REPO_ROOT

PACKS = REPO_ROOT / "packs"
MODULES = sorted(PACKS.rglob("*.py"))
# Back doors into the loader that typed facts between packs replace (issue 9, next step).
LOADER_BACK_DOORS = {"tenancy/checks.py", "observability/context.py"}


def _strata_imports(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.split(".")[0] == "strata"]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == "strata":
            found.append((node.lineno, node.module or ""))
    return sorted(found)


def test_pack_modules_exist():
    assert len(MODULES) > 30 and {p.parent.name for p in MODULES} >= {"compute", "tenancy", "jark", "gitops"}


@pytest.mark.parametrize("module", [
    pytest.param(m, marks=pytest.mark.xfail(strict=True, reason="calls the loader")) if m.relative_to(PACKS).as_posix() in LOADER_BACK_DOORS else m
    for m in MODULES], ids=lambda p: p.relative_to(PACKS).as_posix())
def test_pack_code_imports_only_the_public_pack_module(module):
    wrong = [f"{module.relative_to(REPO_ROOT)}:{line}: imports {name}"
             for line, name in _strata_imports(ast.parse(module.read_text(), str(module))) if name != "strata.pack"]
    assert not wrong, "packs import strata only through strata.pack:\n" + "\n".join(wrong)


def test_the_scan_sees_every_kind_of_strata_import():
    tree = ast.parse("import strata\nimport strata.rules as r\nfrom strata.spec import base\nfrom strata import pack\n"
                     "def f():\n    from strata.packs.loader import discover\nfrom strata.pack import Rule\nfrom . import strata\n")
    assert [name for _, name in _strata_imports(tree)] == ["strata", "strata.rules", "strata.spec", "strata", "strata.packs.loader", "strata.pack"]


def test_the_public_module_names_what_it_exports():
    assert strata.pack.__all__ and len(set(strata.pack.__all__)) == len(strata.pack.__all__)
    assert all(hasattr(strata.pack, name) for name in strata.pack.__all__)
    public = {n for n in vars(strata.pack) if not n.startswith("_") and n != "annotations"}
    assert public == set(strata.pack.__all__), "everything strata.pack holds is in __all__"
