"""The bundled examples render to their golden trees, and those trees pass kubeconform
(strict, core + reference CRDs) and kustomize build with the real binaries."""

from __future__ import annotations

import pytest

from conftest import EXAMPLES, VALUES


@pytest.mark.parametrize("example", EXAMPLES)
def test_example_renders_validated_tree_matching_golden(example, strata, tmp_path, golden):
    out = tmp_path / example
    result = strata("render", "-f", VALUES / f"{example}.yaml", "-o", out)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == "", "the bundled examples must not trigger any rule or warning"
    tree = {p.relative_to(out).as_posix(): p.read_text() for p in sorted(out.rglob("*")) if p.is_file()}
    assert tree == golden


@pytest.mark.parametrize("example", EXAMPLES)
def test_validate_accepts_rendered_example(example, strata, tmp_path):
    out = tmp_path / example
    assert strata("render", "-f", VALUES / f"{example}.yaml", "-o", out, "--no-validate").returncode == 0
    result = strata("validate", out)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "objects valid" in result.stderr
