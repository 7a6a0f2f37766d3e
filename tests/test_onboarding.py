"""Onboarding: `strata init` (starter specs that render and validate, the editor schema line,
never over a file), `strata schema` (the whole spec, third-party packs included, described
from the models), `strata explain` (reason, fix, the case a rule fires on, a good example)
and progress lines."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import jsonschema
import pytest
import yaml
from conftest import EXAMPLES, VALUES, run_cli
from test_third_party_pack import site, strata_with_pack  # noqa: F401 - fixtures

from strata import pipeline, progress, rules as core_rules
from strata.explain import _case_index
from strata.packs.loader import discover
from strata.spec.describe import field_descriptions, platform_schema
from strata.spec.model import Team


@pytest.mark.parametrize("preset", ["minimal", "jark"])
def test_init_writes_a_starter_that_renders_and_validates(strata, tmp_path, preset):
    spec = tmp_path / "platform.yaml"
    result = run_cli(["init", spec, "--preset", preset])
    assert result.returncode == 0, result.stderr
    text = spec.read_text()
    assert text.startswith("# yaml-language-server: $schema=./strata.schema.json\n")
    assert text.count("\n#") >= 3, "a commented starter"
    schema = json.loads((tmp_path / "strata.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(yaml.safe_load(text))
    assert pipeline.load([(str(spec), spec.read_bytes())]).problems == []
    rendered = strata("render", "-f", spec, "-o", tmp_path / "deploy")
    assert rendered.returncode == 0, rendered.stdout + rendered.stderr
    if preset == "jark":
        assert (tmp_path / "deploy" / "jark").is_dir()


def test_init_never_overwrites(tmp_path):
    spec = tmp_path / "platform.yaml"
    spec.write_text("mine\n")
    result = run_cli(["init", spec])
    assert result.returncode == 2 and "exists; strata init never overwrites a file" in result.stderr
    assert spec.read_text() == "mine\n" and not (tmp_path / "strata.schema.json").exists()
    (tmp_path / "strata.schema.json").write_text("{}")
    other = tmp_path / "other.yaml"
    result = run_cli(["init", other])
    assert result.returncode == 0 and (tmp_path / "strata.schema.json").read_text() == "{}", "an existing schema file is kept"
    assert "refresh it with: strata schema -o" in result.stderr


def test_schema_describes_the_whole_spec_from_the_models():
    result = run_cli(["schema"])
    assert result.returncode == 0
    schema = json.loads(result.stdout)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert {"cluster", "nodePools", "teams", *(p.name for p in discover())} <= set(schema["properties"])
    assert schema["$defs"]["Team"]["properties"]["namespace"]["description"] == field_descriptions(Team)["namespace"]
    assert field_descriptions(Team)["namespace"] == "defaults to the team name"
    assert schema["$defs"]["NodePool"]["properties"]["name"]["type"] == "string"
    validator = jsonschema.Draft202012Validator(schema)
    for example in EXAMPLES:
        errors = list(validator.iter_errors(yaml.safe_load((VALUES / f"{example}.yaml").read_text())))
        assert errors == [], (example, [e.message for e in errors[:3]])
    bad = yaml.safe_load((VALUES / "minimal.yaml").read_text())
    bad["nodePools"][0]["capacityType"] = ["spot"]  # the editor flags the typo, as strata does
    assert not validator.is_valid(bad)


def test_schema_includes_an_installed_third_party_pack(strata_with_pack):  # noqa: F811
    result = strata_with_pack("schema")
    assert result.returncode == 0, result.stderr
    schema = json.loads(result.stdout)
    section = schema["properties"]["hello"]
    assert "strata-pack-hello 0.1.0" in section["description"]
    definition = next(d for d in schema["$defs"].values() if "message" in d.get("properties", {}))
    assert definition["properties"]["message"]["description"] == "the greeting every team's ConfigMap carries"


def test_platform_schema_is_stable():
    assert platform_schema(discover()) == platform_schema(discover())


@pytest.mark.parametrize("rule_id", sorted(_case_index()))
def test_explain_shows_the_case_and_a_good_example(rule_id):
    rule = next(r for r in core_rules.registry() if r.id == rule_id)
    result = run_cli(["explain", rule_id])
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert f"why: {rule.summary}\nfix: {rule.fix}\n" in out
    case = _case_index()[rule_id]
    assert f"bad (tests/cases/invalid/{case.name}, the case its tests fire on):" in out
    assert f"[{rule_id}]" in out, "the message the rule really gives on its case"
    assert "\n> " in out.split("good (")[0], "the line the rule points at is marked"
    if "good (" in out:
        good = out.split("good (")[1]
        assert good.startswith("values/") and "\n> " in good


def test_explain_a_rule_without_a_spec_case():
    result = run_cli(["explain", "validate/kubeconform"])
    assert result.returncode == 0 and "not a spec field" in result.stdout


def test_most_rules_get_a_good_example():
    with_good = [r for r in sorted(_case_index()) if "good (" in run_cli(["explain", r]).stdout]
    assert len(with_good) >= 0.9 * len(_case_index())


def test_progress_lines_for_slow_steps_only(capsys, monkeypatch):
    monkeypatch.setenv("STRATA_PROGRESS", "1")
    progress.configure(quiet=False)
    with progress.step("quick", threshold=0.2):
        pass
    with progress.step("slow", threshold=0.05):
        time.sleep(0.2)
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "strata: slow ..." and err[1].startswith("strata: slow: done in ") and len(err) == 2
    progress.configure(quiet=True)
    try:
        with progress.step("slow", threshold=0.05):
            time.sleep(0.1)
    finally:
        progress.configure(quiet=False)
    monkeypatch.delenv("STRATA_PROGRESS")
    with progress.step("slow", threshold=0.05):  # stderr is no terminal here
        time.sleep(0.1)
    assert capsys.readouterr().err == ""


def test_render_prints_progress_on_a_terminal_unless_quiet(strata, tmp_path, monkeypatch):
    monkeypatch.setattr(progress, "THRESHOLD_SECONDS", 0.0)  # every step counts as slow
    spec = VALUES / "realistic.yaml"
    shown = strata("render", "-f", spec, "-o", tmp_path / "a", env={"STRATA_PROGRESS": "1"})
    assert shown.returncode == 0
    lines = [line for line in shown.stderr.splitlines() if line.startswith("strata: validating")]
    objects = len([p for p in (tmp_path / "a").rglob("*.yaml") if p.name != "kustomization.yaml" and "helm" not in p.parts])
    assert re.fullmatch(r"strata: validating (\d+) files \(kubeconform, kustomize build\) \.\.\.", lines[0])
    assert int(lines[0].split()[2]) <= objects
    assert re.fullmatch(r"strata: validating \d+ files \(kubeconform, kustomize build\): done in \d+\.\d s", lines[1])
    quiet = strata("-q", "render", "-f", spec, "-o", tmp_path / "b", env={"STRATA_PROGRESS": "1"})
    assert quiet.returncode == 0 and "strata: validating" not in quiet.stderr
    assert Path(tmp_path / "b" / "strata.lock").is_file()
