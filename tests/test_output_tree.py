"""The output tree: byte-identical renders, owned-file pruning, unowned files never touched,
--check drift detection, and nothing written when any error exists."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from conftest import VALUES

REALISTIC = VALUES / "realistic.yaml"
MINIMAL = VALUES / "minimal.yaml"


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_renders_are_byte_identical_across_hash_seeds_and_locales(strata_process, tmp_path):
    """Two processes (a hash seed is fixed per process), through the installed entry point."""
    a, b = tmp_path / "a", tmp_path / "b"
    assert strata_process("render", "-f", REALISTIC, "-o", a, "--no-validate", env={"PYTHONHASHSEED": "1", "LC_ALL": "C"}).returncode == 0
    assert strata_process("render", "-f", REALISTIC, "-o", b, "--no-validate", env={"PYTHONHASHSEED": "4242", "LC_ALL": "C.UTF-8", "TZ": "Asia/Tokyo"}).returncode == 0
    assert _snapshot(a) == _snapshot(b)


def test_lock_lists_every_file_and_the_helm_releases(strata, tmp_path):
    out = tmp_path / "out"
    assert strata("render", "-f", REALISTIC, "-o", out, "--no-validate").returncode == 0
    lock = yaml.safe_load((out / "strata.lock").read_text())
    assert lock["files"] == sorted(_snapshot(out))
    assert {r["name"]: r["version"] for r in lock["helmReleases"]} == {"karpenter": "1.14.1", "gpu-operator": "v26.7.0"}
    for release in lock["helmReleases"]:
        assert (out / release["valuesFile"]).is_file()
    assert lock["kubernetesVersion"] == "1.36" and lock["specDigest"].startswith("sha256:")


def test_rerender_of_a_smaller_spec_prunes_only_owned_files(strata, tmp_path):
    out = tmp_path / "out"
    assert strata("render", "-f", REALISTIC, "-o", out).returncode == 0
    (out / "README.md").write_text("ours\n")
    (out / "compute" / "karpenter" / "notes.txt").write_text("also ours\n")
    before = set(_snapshot(out))
    result = strata("render", "-f", MINIMAL, "-o", out)
    assert result.returncode == 0, result.stdout + result.stderr
    after = _snapshot(out)
    assert "compute/karpenter/nodepool-gpu-training.yaml" in before and "compute/karpenter/nodepool-gpu-training.yaml" not in after
    assert not (out / "compute" / "gpu-smoke-test").exists(), "emptied owned directories are removed"
    assert after["README.md"] == b"ours\n" and after["compute/karpenter/notes.txt"] == b"also ours\n"
    lock = yaml.safe_load(after["strata.lock"])
    assert set(lock["files"]) == set(after) - {"README.md", "compute/karpenter/notes.txt"}


def test_unowned_file_in_the_way_stops_the_render_and_is_untouched(strata, tmp_path):
    out = tmp_path / "out"
    mine = out / "compute" / "karpenter" / "nodepool-gpu.yaml"
    mine.parent.mkdir(parents=True)
    mine.write_text("hand-written\n")
    result = strata("render", "-f", MINIMAL, "-o", out)
    assert result.returncode == 1
    assert "does not own" in result.stderr and "compute/karpenter/nodepool-gpu.yaml" in result.stderr
    assert _snapshot(out) == {"compute/karpenter/nodepool-gpu.yaml": b"hand-written\n"}
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")], "the staging directory is cleaned up"


def test_check_passes_on_a_fresh_tree_and_catches_a_hand_edit(strata, tmp_path):
    out = tmp_path / "out"
    assert strata("render", "-f", MINIMAL, "-o", out).returncode == 0
    clean = strata("render", "-f", MINIMAL, "-o", out, "--check")
    assert clean.returncode == 0 and clean.stdout == ""
    nodepool = out / "compute" / "karpenter" / "nodepool-gpu.yaml"
    nodepool.write_text(nodepool.read_text().replace('nvidia.com/gpu: "8"', 'nvidia.com/gpu: "80"'))
    before = _snapshot(out)
    drift = strata("render", "-f", MINIMAL, "-o", out, "--check")
    assert drift.returncode == 1
    assert "modified: compute/karpenter/nodepool-gpu.yaml (NodePool/gpu)" in drift.stdout
    assert '-    nvidia.com/gpu: "80"\n+    nvidia.com/gpu: "8"\n' in drift.stdout
    assert _snapshot(out) == before, "--check writes nothing"


def test_check_reports_files_that_would_be_removed(strata, tmp_path):
    out = tmp_path / "out"
    assert strata("render", "-f", REALISTIC, "-o", out, "--no-validate").returncode == 0
    drift = strata("render", "-f", MINIMAL, "-o", out, "--check", "--format", "json")
    assert drift.returncode == 1
    report = json.loads(drift.stdout)
    removed = {d["path"]: d for d in report["diff"] if d["status"] == "removed"}
    assert removed["compute/karpenter/nodepool-gpu-training.yaml"]["object"] == "NodePool/gpu-training"
    assert removed["compute/karpenter/nodepool-gpu-training.yaml"]["diff"].startswith("--- a/compute/karpenter/nodepool-gpu-training.yaml")
    assert any(p["rule"] == "render/drift" for p in report["problems"])


def test_spec_errors_write_nothing(strata, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(MINIMAL.read_text().replace("limits:\n      gpus: 8\n", ""))
    out = tmp_path / "out"
    result = strata("render", "-f", bad, "-o", out)
    assert result.returncode == 1
    assert "[compute/gpu-pool-without-gpu-limit]" in result.stdout
    assert not out.exists()


def test_validation_errors_write_nothing(strata, tmp_path, without_shipped_schemas):
    empty_store = tmp_path / "no-schemas"
    empty_store.mkdir()
    out = tmp_path / "out"
    result = strata("render", "-f", MINIMAL, "-o", out, "--schema-store", empty_store)
    assert result.returncode == 1
    assert "[validate/missing-schema]" in result.stdout and "karpenter.sh/v1" in result.stdout
    assert not out.exists()


def test_usage_errors_exit_2_without_traceback(strata, tmp_path):
    missing = strata("render", "-f", tmp_path / "nope.yaml", "-o", tmp_path / "out")
    assert missing.returncode == 2 and "Traceback" not in missing.stderr
    unknown_rule = strata("explain", "compute/gpu-label-mismatc")
    assert unknown_rule.returncode == 2 and "did you mean compute/gpu-label-mismatch" in unknown_rule.stderr


def test_an_output_path_the_machine_refuses_is_a_clear_error_not_a_crash(strata, tmp_path):
    in_the_way = tmp_path / "notes.txt"
    in_the_way.write_text("mine\n")
    result = strata("render", "-f", MINIMAL, "-o", in_the_way / "out", "--no-validate")
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"strata: error: {in_the_way}: " in result.stderr
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr
    assert in_the_way.read_text() == "mine\n" and sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"], "nothing left behind"


def test_explain_prints_reason_and_fix(strata):
    result = strata("explain", "compute/disruption-consolidate-after")
    assert result.returncode == 0
    assert "why: Karpenter v1 requires consolidateAfter" in result.stdout and "fix: add disruption.consolidateAfter" in result.stdout


def test_pre_commit_hooks_run_the_check(strata, tmp_path):
    from reference import REPO_ROOT

    hooks = yaml.safe_load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text())
    out = tmp_path / "out"
    assert strata("render", "-f", MINIMAL, "-o", out).returncode == 0
    for hook in hooks:
        program, *args = hook["entry"].split()
        assert program == "strata" and hook["pass_filenames"] is False
        assert strata(*args, "-f", MINIMAL, "-o", out).returncode == 0, hook["id"]
    (out / "compute" / "karpenter" / "nodepool-gpu.yaml").write_text("edited\n")
    assert strata(*hooks[0]["entry"].split()[1:], "-f", MINIMAL, "-o", out).returncode == 1


def test_a_credential_in_free_form_values_stops_the_render(strata, tmp_path):
    from reference import REPO_ROOT

    out = tmp_path / "out"
    result = strata("render", "-f", REPO_ROOT / "tests" / "cases" / "secret-in-output.yaml", "-o", out)
    assert result.returncode == 1
    assert "compute/helm/karpenter/values.yaml: an AWS access key id would be committed to Git [render/secret-in-output]" in result.stdout
    assert "AKIAIOSFODNN7EXAMPLE" not in result.stdout + result.stderr, "the report must not repeat the secret"
    assert not out.exists()


def test_secret_scan_recognises_secret_objects_and_keys():
    from strata.secrets import scan

    files = {
        "a.yaml": b"# header\napiVersion: v1\nkind: Secret\nmetadata: {name: x}\n",
        "b.yaml": b"key: |\n  -----BEGIN RSA PRIVATE KEY-----\n",
        "c.yaml": b"apiVersion: v1\nkind: ConfigMap\ndata: {secretName: jupyterhub-oauth}\n",
    }
    assert sorted((p.where, p.rule) for p in scan(files)) == [("a.yaml", "render/secret-in-output"), ("b.yaml", "render/secret-in-output")]


@pytest.mark.parametrize("secret", [b"AKIAIOSFODNN7EXAMPLE", b"ghp_" + b"a1" * 18, b"xoxb-1234567890-abc",
                                    b"AWS_Secret_Access_Key: " + b"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"[:40]])
def test_secret_scan_finds_each_credential_in_one_file_among_many(secret):
    """The scan first searches all files at once; a credential in one file is still named there."""
    from strata.secrets import scan

    files = {f"clean-{i}.yaml": b"apiVersion: v1\nkind: ConfigMap\ndata: {a: b}\n" for i in range(50)}
    files["held.yaml"] = b"data:\n  note: " + secret + b"\n"
    assert [p.where for p in scan(files)] == ["held.yaml"]
    assert list(scan({k: v for k, v in files.items() if k != "held.yaml"})) == []


def test_secret_scan_does_not_name_a_file_for_a_match_across_two_files():
    from strata.secrets import scan

    files = {"a.yaml": b"x: 1\napiVersion: v1", "b.yaml": b"kind: Secret\n"}
    assert list(scan(files)) == []
