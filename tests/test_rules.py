"""Every rule fires on a spec that breaks it (tests/cases/invalid, one file per rule, the
expected id in its first line) and the valid cases and bundled examples stay silent."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import EXAMPLES, VALUES

from strata import pipeline, rules as core_rules
from strata.packs.loader import discover

CASES = Path(__file__).parent / "cases"
INVALID = sorted((CASES / "invalid").glob("*.yaml"))
VALID = sorted((CASES / "valid").glob("*.yaml"))
# Rules that no spec can trigger: they report on rendering, output trees or validation.
NOT_SPEC_RULES = {"pack/kubernetes-range", "tenancy/cross-team-network-policy", "render/drift", "render/repo-path", "render/secret-in-output", "render/duplicate-object", "render/template", "validate/kubeconform",
                  "validate/missing-schema", "validate/kustomize", "yaml", "spec"}


def _expectation(case: Path) -> tuple[str, int | None]:
    """The rule id of '# expect: <rule-id> [line N]' and the line it must point at, if given."""
    first = case.read_text().splitlines()[0]
    assert first.startswith("# expect: "), f"{case.name} must start with '# expect: <rule-id>'"
    rule, _, line = first.removeprefix("# expect: ").strip().partition(" line ")
    return rule, int(line) if line else None


def _expected(case: Path) -> str:
    return _expectation(case)[0]


def _load(path: Path) -> pipeline.Loaded:
    rel = path.relative_to(CASES.parent.parent).as_posix()
    return pipeline.load([(rel, path.read_bytes())])


@pytest.mark.parametrize("case", INVALID, ids=lambda p: p.stem)
def test_rule_fires_on_its_case_with_a_location(case):
    rule, line = _expectation(case)
    loaded = _load(case)
    fired = [p for p in loaded.problems if p.rule == rule]
    assert fired, f"{rule} did not fire; got {[p.format() for p in loaded.problems]}"
    for problem in fired:
        assert problem.mark is not None and problem.mark.file.endswith(case.name)
        assert problem.mark.line >= 4, "the problem must point into the case, not at its first line"
        assert problem.format().endswith(f"[{rule}]")
    if line is not None:
        assert [p.mark.line for p in fired] == [line], [p.format() for p in fired]


@pytest.mark.parametrize("case", VALID, ids=lambda p: p.stem)
def test_valid_case_is_silent_and_renders(case):
    loaded = _load(case)
    assert loaded.problems == []
    tree, problems = pipeline.render(loaded)
    assert problems == [] and tree


@pytest.mark.parametrize("example", EXAMPLES)
def test_examples_trigger_no_rule(example):
    assert _load(VALUES / f"{example}.yaml").problems == []


def test_every_policy_rule_has_a_case():
    covered = {_expected(case) for case in INVALID}
    all_rules = {r.id for r in core_rules.CORE_RULES} | {r.id for p in discover() for r in p.rules}
    missing = all_rules - covered - NOT_SPEC_RULES
    assert not missing, f"rules without a case in tests/cases/invalid: {sorted(missing)}"


def test_rules_have_reason_and_fix():
    for rule in [*core_rules.CORE_RULES, *(r for p in discover() for r in p.rules)]:
        assert rule.summary and rule.fix and "\n" not in rule.summary + rule.fix, rule.id


def test_gpu_label_mismatch_names_the_real_memory():
    loaded = _load(CASES / "invalid" / "gpu-label-mismatch.yaml")
    message = next(p.message for p in loaded.problems if p.rule == "compute/gpu-label-mismatch")
    assert "p4d.24xlarge has 8 x a100 40960 MiB" in message
