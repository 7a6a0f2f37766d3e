"""Waivers (strata.waivers): a named error becomes a reported, recorded exception; expired,
unknown, unwaivable and unused waivers are errors (their cases are in tests/cases/invalid)."""

from __future__ import annotations

import datetime
import json

import yaml
from conftest import VALUES

from strata import pipeline
from strata.problems import Severity

EXAMPLE = VALUES / "waivers" / "platform.yaml"
WAIVED_LINE = ("values/waivers/platform.yaml:34:72: storage.claims[0].size: waived: 2000Gi is not a PERSISTENT_2 size; "
               "the driver creates 2400Gi, so request 2400Gi (waived until 2099-12-31: PLAT-412: the loader requests "
               "2000Gi; finance accepts the 2400Gi FSx bill until the loader is fixed) [storage/fsx-capacity]")


def _load(text: str) -> pipeline.Loaded:
    return pipeline.load([("spec.yaml", text.encode())])


def test_example_renders_prints_the_waiver_and_locks_it(strata, tmp_path):
    """The tree itself is golden (golden/waivers, tests/test_golden.py)."""
    out = tmp_path / "waivers"
    result = strata("render", "-f", EXAMPLE.relative_to(VALUES.parent), "-o", out)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == [WAIVED_LINE]
    assert "0 error(s), 0 warning(s), 1 waived" in result.stderr
    lock = yaml.safe_load((out / "strata.lock").read_text())
    assert lock["waivers"] == [{
        "rule": "storage/fsx-capacity", "where": "storage.claims/scratch",
        "reason": "PLAT-412: the loader requests 2000Gi; finance accepts the 2400Gi FSx bill until the loader is fixed",
        "expires": "2099-12-31", "waived": ["storage.claims[0].size"]}]


def test_waiver_is_printed_on_check_too_and_counted_in_json(strata, tmp_path):
    out = tmp_path / "waivers"
    assert strata("render", "-f", EXAMPLE, "-o", out).returncode == 0
    result = strata("render", "-f", EXAMPLE, "-o", out, "--check", "--format", "json")
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert (report["errors"], report["waived"]) == (0, 1)
    assert report["problems"][0]["severity"] == "waived" and report["problems"][0]["rule"] == "storage/fsx-capacity"


def _spec(waivers: str) -> str:
    text = EXAMPLE.read_text()
    return text[: text.index("waivers:")] + waivers


def test_without_the_waiver_the_error_stops_the_render():
    loaded = _load(_spec(""))
    assert [(p.rule, p.severity) for p in loaded.problems] == [("storage/fsx-capacity", Severity.ERROR)]
    assert loaded.waivers == ()


def test_a_path_waiver_covers_what_is_below_it_and_nothing_else():
    loaded = _load(_spec("""waivers:
  - {rule: storage/fsx-capacity, path: "storage.claims[0]", reason: "PLAT-412: accepted for now"}
"""))
    assert [p.severity for p in loaded.problems] == [Severity.WAIVED]
    elsewhere = _load(_spec("""waivers:
  - {rule: storage/fsx-capacity, path: "storage.claims[1]", reason: "PLAT-412: accepted for now"}
"""))
    assert sorted((p.rule, p.severity.value) for p in elsewhere.problems) == [
        ("storage/fsx-capacity", "error"), ("waiver/unused", "error")]


def test_rules_about_the_spec_or_the_output_cannot_be_waived():
    loaded = _load(_spec("""waivers:
  - {rule: storage/fsx-capacity, object: storage.claims/scratch, reason: "PLAT-412: accepted for now"}
  - {rule: render/secret-in-output, path: storage, reason: "nobody may waive a leaked credential"}
"""))
    (problem,) = [p for p in loaded.problems if p.rule == "waiver/unknown-rule"]
    assert problem.path == ("waivers", 1, "rule") and "cannot be waived" in problem.message


def test_a_waiver_needs_a_reason_and_one_place():
    no_reason = _load(_spec("""waivers:
  - {rule: storage/fsx-capacity, object: storage.claims/scratch, reason: ok}
"""))
    assert [p.rule for p in no_reason.problems] == ["spec"] and "at least 10 characters" in no_reason.problems[0].message
    two_places = _load(_spec("""waivers:
  - {rule: storage/fsx-capacity, object: storage.claims/scratch, path: storage, reason: "PLAT-412: accepted"}
"""))
    assert [p.rule for p in two_places.problems] == ["spec"] and "exactly one of path and object" in two_places.problems[0].message


def test_expiry_is_inclusive_of_its_day():
    today = datetime.date.today().isoformat()
    loaded = _load(_spec(f"""waivers:
  - {{rule: storage/fsx-capacity, object: storage.claims/scratch, reason: "PLAT-412: last day", expires: {today}}}
"""))
    assert [p.severity for p in loaded.problems] == [Severity.WAIVED]
