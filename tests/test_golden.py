"""Every bundled example renders exactly its golden tree (golden/<tree>/, plain files, compared as
a directory), and every golden tree passes kubeconform and kustomize build with the real binaries.

A failure prints which files are missing, extra or changed, with a diff; when the change is
intended: ``pytest tests/test_golden.py --snapshot-update`` and review ``git diff golden/``."""

from __future__ import annotations

import pytest
from conftest import VALUES, require_tool, run_cli
from golden_tree import GOLDEN, LOCK, TEST_NAME, golden_tree_names, read_tree

from strata import tools

FLEET = VALUES / "fleet"

# golden tree -> the spec layers rendered into it, in order (later layers override earlier ones)
TREES: dict[str, list] = {
    **{p.stem: [p] for p in sorted(VALUES.glob("*.yaml"))},
    # The layered fleet, one tree per cluster, as values/fleet/base.yaml documents it.
    **{f"fleet/{p.stem}": [FLEET / "base.yaml", p] for p in sorted(FLEET.glob("*.yaml")) if p.stem != "base"},
    # A waiver: the error it accepts is printed on every render and recorded in the tree's lock.
    "waivers": [VALUES / "waivers" / "platform.yaml"],
}
# Trees whose render prints waived errors by design (and nothing else): how many.
WAIVED = {"waivers": 1}


@pytest.mark.parametrize("tree", TREES)
def test_example_renders_its_golden_tree(tree, tmp_path, golden):
    """Validation is left to test_validate_accepts_golden_tree, which checks the same bytes."""
    out = tmp_path / "out"
    result = run_cli(["render", *(arg for layer in TREES[tree] for arg in ("-f", layer)), "-o", out, "--no-validate"])
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == WAIVED.get(tree, 0) and all(": waived: " in line for line in lines), (
        "the bundled examples must not trigger any rule or warning, only the waivers they show")
    assert read_tree(out) == golden


assert TEST_NAME == test_example_renders_its_golden_tree.__name__, "golden_tree.py names the snapshots after this test"


def test_every_golden_tree_belongs_to_an_example(request):
    """Syrupy fails a full run with unused snapshots too; this also holds for a partial run."""
    if request.config.option.update_snapshots:
        pytest.skip("syrupy deletes the trees no test claims when this --snapshot-update run ends")
    stored = golden_tree_names()
    assert stored, f"no golden trees under {GOLDEN}: run pytest tests/test_golden.py --snapshot-update"
    assert set(stored) == set(TREES), "golden/ and the examples disagree: run pytest tests/test_golden.py --snapshot-update"


@pytest.mark.parametrize("tree", TREES)
def test_kustomize_builds_golden_tree(tree):
    """The committed tree itself (not a fresh render) is what a GitOps controller builds."""
    require_tool("kustomize")
    root = GOLDEN / tree
    assert (root / LOCK).is_file(), f"golden/{tree} is missing: run pytest tests/test_golden.py --snapshot-update"
    result = tools.run("kustomize", ["build", str(root)])
    assert result.returncode == 0, result.stderr
    assert "kind: " in result.stdout


@pytest.mark.parametrize("tree", TREES)
def test_validate_accepts_golden_tree(tree, strata):
    """`strata validate` (kubeconform strict, core + reference CRDs, kustomize build) on the
    committed tree."""
    result = strata("validate", GOLDEN / tree)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "objects valid" in result.stderr
