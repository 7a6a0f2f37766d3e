"""README's rule table is the rule registry: every rule with its severity, reason and fix."""

from __future__ import annotations

from pathlib import Path

from reference import REPO_ROOT, load_script

from strata import pipeline, rules

SCRIPT = REPO_ROOT / "scripts" / "build-rule-table.py"


def _script():
    return load_script("build-rule-table.py")


def test_readme_rule_table_is_current() -> None:
    text = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    assert _script().replaced(text) == text, "README.md's rule table is stale: run scripts/build-rule-table.py"


def test_table_lists_every_rule_once_with_its_severity() -> None:
    table = rules.markdown_table(rules.registry())
    rows = [line.split(" | ") for line in table.splitlines()[2:]]
    assert [r[0].strip("| `") for r in rows] == sorted({r.id for r in rules.registry()})
    severity = {r.id: r.severity.value for r in rules.registry()}
    assert all(r[1] == severity[r[0].strip("| `")] for r in rows)


# Mistakes the domain notes (design seeds) call wrong: errors, not warnings.
SEED_MISTAKES = ["storage/fsx-capacity", "dra/sharing-not-isolation", "storage/s3-posix-semantics",
                 "compute/unknown-instance-type", "cluster/unknown-region",
                 # the agent section: MCP behind a real gateway, GPU indexing, Langfuse 4
                 "agents/mcp-url-without-gateway", "agents/mcp-without-authentication", "agents/tool-input-unchecked",
                 "agents/milvus-gpu-without-gpu-index", "agents/embedding-mismatch", "agents/langfuse-v2-layout"]
# Warnings on purpose: choices some platforms make knowingly; no seed calls them wrong.
WARNINGS = {"compute/gpu-pool-untainted", "tenancy/privileged-namespace", "tenancy/team-without-groups",
            "jark/unstable-username-claim", "jark/team-groups-overlap", "jark/open-load-balancer"}


def test_seed_mistakes_are_errors_and_warnings_are_the_listed_ones() -> None:
    by_id = {r.id: r for r in rules.registry()}
    assert all(by_id[rid].severity is rules.Severity.ERROR for rid in SEED_MISTAKES)
    assert {rid for rid, r in by_id.items() if r.severity is rules.Severity.WARNING} == WARNINGS


def test_the_issue_severity_probes_are_errors() -> None:
    cases = Path(__file__).parent / "cases" / "invalid"
    for name, rule in (("fsx-capacity-10ti", "storage/fsx-capacity"), ("sharing-not-isolation", "dra/sharing-not-isolation")):
        loaded = pipeline.load([(name, (cases / f"{name}.yaml").read_bytes())])
        severities = [p.severity for p in loaded.problems if p.rule == rule]
        assert severities and set(severities) == {rules.Severity.ERROR}, name
