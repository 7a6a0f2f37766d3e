"""The pack contract holds for every built-in pack: pack code imports nothing from strata but
the public ``strata.pack`` module, and no pack reads another pack's spec section."""

from __future__ import annotations

import ast

import pytest
from reference import REPO_ROOT

import strata.pack

PACKS = REPO_ROOT / "packs"
MODULES = sorted(PACKS.rglob("*.py"))


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


@pytest.mark.parametrize("module", MODULES, ids=lambda p: p.relative_to(PACKS).as_posix())
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


# --- no pack reads another pack's spec section ---------------------------------------------

PACK_NAMES = {p.name for p in PACKS.iterdir() if (p / "pack.yaml").is_file()}


def _section_reads(tree: ast.AST, own: str) -> list[tuple[int, str]]:
    """Reads of another pack's section: ``spec.<pack>``, ``getattr(x, "<pack>")``, or
    introspection of the spec model (``type(spec).model_fields``)."""
    found = []
    others = PACK_NAMES - {own}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in others and isinstance(node.value, ast.Name) and node.value.id == "spec":
            found.append((node.lineno, f"spec.{node.attr}"))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr" and len(node.args) >= 2
              and isinstance(node.args[1], ast.Constant) and node.args[1].value in others):
            found.append((node.lineno, f"getattr(..., {node.args[1].value!r})"))
        elif isinstance(node, ast.Attribute) and node.attr == "model_fields" and isinstance(node.value, ast.Call):
            found.append((node.lineno, "introspects a model's fields"))
    return sorted(found)


@pytest.mark.parametrize("module", MODULES, ids=lambda p: p.relative_to(PACKS).as_posix())
def test_no_pack_reads_another_packs_section(module):
    own = module.relative_to(PACKS).parts[0]
    wrong = [f"{module.relative_to(REPO_ROOT)}:{line}: {what}" for line, what in _section_reads(ast.parse(module.read_text()), own)]
    assert not wrong, "packs read other packs' facts (pack.yaml uses + exports), not their sections:\n" + "\n".join(wrong)


def test_the_section_lint_sees_each_back_door():
    tree = ast.parse('jark = getattr(spec, "jark", None)\nx = spec.storage.claims\nf = type(spec).model_fields.get("compute")\n'
                     'ok = config.kuberay\nown = spec.tenancy\n')
    assert [what for _, what in _section_reads(tree, "tenancy")] == ["getattr(..., 'jark')", "spec.storage", "introspects a model's fields"]
