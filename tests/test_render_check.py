"""`render --check` proves a tree current *and* valid: it runs the same validation as
`render` (kubeconform, kustomize) besides the drift check, so wherever `render` fails on a
tree, `--check` fails too; only an explicit --no-validate skips it."""

from __future__ import annotations

import json

from conftest import VALUES

MINIMAL = VALUES / "minimal.yaml"


def _rendered(strata, tmp_path):
    out = tmp_path / "out"
    result = strata("render", "-f", MINIMAL, "-o", out)
    assert result.returncode == 0, result.stdout + result.stderr
    return out


def _snapshot(root):
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_clean_check_validated_the_tree(strata, tmp_path):
    out = _rendered(strata, tmp_path)
    result = strata("render", "-f", MINIMAL, "-o", out, "--check", "--format", "json")
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["validated"] is True and report["diff"] == [] and report["errors"] == 0
    assert strata("render", "-f", MINIMAL, "-o", out, "--check", "--no-validate", "--format", "json").returncode == 0
    assert json.loads(strata("render", "-f", MINIMAL, "-o", out, "--check", "--no-validate", "--format", "json").stdout)["validated"] is False


def test_check_fails_without_kubeconform_as_render_does(strata, tmp_path):
    out = _rendered(strata, tmp_path)
    before = _snapshot(out)
    no_tools = tmp_path / "no-tools"
    (no_tools / "bin").mkdir(parents=True)
    env = {"STRATA_TOOLS_DIR": str(no_tools), "PATH": str(no_tools / "bin"), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    render = strata("render", "-f", MINIMAL, "-o", out, env=env)
    check = strata("render", "-f", MINIMAL, "-o", out, "--check", env=env)
    for result in (render, check):
        assert result.returncode == 1, result.stdout + result.stderr
        assert "strata: error: kubeconform, kustomize are not installed: run strata tools install (builds them with Go into " in result.stderr
        assert "Traceback" not in result.stderr
    assert strata("render", "-f", MINIMAL, "-o", out, "--check", "--no-validate", env=env).returncode == 0, "skipped only when asked"
    assert _snapshot(out) == before


def test_check_fails_without_a_schema_for_a_kind_as_render_does(strata, tmp_path, without_shipped_schemas):
    out = _rendered(strata, tmp_path)
    empty = tmp_path / "no-schemas"
    empty.mkdir()
    before = _snapshot(out)
    for args in ((), ("--check",)):
        result = strata("render", "-f", MINIMAL, "-o", out, "--schema-store", empty, *args)
        assert result.returncode == 1, args
        assert "compute/karpenter/nodepool-gpu.yaml: NodePool/gpu: no schema for karpenter.sh/v1 NodePool" in result.stdout, args
        assert "[validate/missing-schema]" in result.stdout
    assert _snapshot(out) == before, "neither wrote anything"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")], "no staging directory is left beside the output"


def test_check_reports_drift_and_invalid_output_together(strata, tmp_path, without_shipped_schemas):
    out = _rendered(strata, tmp_path)
    nodepool = out / "compute" / "karpenter" / "nodepool-gpu.yaml"
    nodepool.write_text(nodepool.read_text().replace('nvidia.com/gpu: "8"', 'nvidia.com/gpu: "80"'))
    empty = tmp_path / "no-schemas"
    empty.mkdir()
    result = strata("render", "-f", MINIMAL, "-o", out, "--check", "--schema-store", empty)
    assert result.returncode == 1
    assert "[validate/missing-schema]" in result.stdout
    assert "modified: compute/karpenter/nodepool-gpu.yaml (NodePool/gpu)" in result.stdout
    assert "1 file(s) differ from the spec" in result.stderr
    drift_only = strata("render", "-f", MINIMAL, "-o", out, "--check", "--format", "json")
    assert drift_only.returncode == 1
    report = json.loads(drift_only.stdout)
    assert [d["path"] for d in report["diff"]] == ["compute/karpenter/nodepool-gpu.yaml"]
    assert [p["rule"] for p in report["problems"]] == ["render/drift"] and report["validated"] is True


def test_a_crashing_validator_fails_the_check_with_the_tool_named(strata, tmp_path):
    out = _rendered(strata, tmp_path)
    broken = tmp_path / "broken"
    (broken / "bin").mkdir(parents=True)
    kubeconform = broken / "bin" / "kubeconform"
    kubeconform.write_text("#!/bin/sh\nkill -ABRT $$\n")
    kubeconform.chmod(0o755)
    from strata import tools

    (broken / "bin" / "kustomize").symlink_to(tools.find("kustomize"))  # only kubeconform is broken
    result = strata("render", "-f", MINIMAL, "-o", out, "--check", env={"STRATA_TOOLS_DIR": str(broken)})
    assert result.returncode == 1
    assert "strata: error: kubeconform" in result.stderr and "crashed (SIGABRT)" in result.stderr
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr


def test_spec_warnings_are_reported_by_render_and_by_check(strata, tmp_path):
    spec = tmp_path / "spec.yaml"
    spec.write_text(MINIMAL.read_text() + "teams:\n  - name: solo\n")
    out = tmp_path / "out"
    for args in ((), ("--check",)):
        result = strata("render", "-f", spec, "-o", out, *args)
        assert result.returncode == 0, result.stdout + result.stderr
        assert f"{spec}:20:5: teams[0]: warning: team 'solo' has no groups [tenancy/team-without-groups]" in result.stdout, args
