"""Outside linters judge what strata writes: kube-score and checkov, with their default checks,
on every golden tree (each bundled example exactly as strata renders it), the pod templates inside RayCluster,
RayJob, Workflow and WorkflowTemplate objects included as stand-in Pods. Every finding is
either fixed in the packs or waived in lint/waivers.yaml with its reason; a waiver that no
longer matches anything fails too, so the file stays true. Installed by
scripts/install-linters.sh (`make test` runs it)."""

from __future__ import annotations

import fnmatch
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from golden_tree import GOLDEN, golden_tree_names
from reference import REPO_ROOT
from stand_ins import stand_ins

from strata import pipeline, tools

WAIVERS = REPO_ROOT / "lint" / "waivers.yaml"
INSTALLER = REPO_ROOT / "scripts" / "install-linters.sh"


def tree_objects(tree: str) -> list[dict[str, Any]]:
    """The Kubernetes objects of a golden tree (tests/test_golden.py holds it equal to a render)."""
    root = GOLDEN / tree
    files = [p.relative_to(root).as_posix() for p in root.rglob("*.yaml")]
    return [yaml.safe_load((root / f).read_text()) for f in pipeline.manifest_files(files)]


def _pin(name: str) -> str:
    for line in INSTALLER.read_text().splitlines():
        if line.startswith(f"{name}="):
            return line.partition("=")[2].strip('"')
    raise AssertionError(f"{name} is not pinned in {INSTALLER.name}")


def _linter(*parts: str) -> Path:
    path = tools.project_tools_dir().parent.joinpath(*parts)
    if not (path.is_file() and os.access(path, os.X_OK)):
        message = f"{path} is not installed: run scripts/install-linters.sh"
        if os.environ.get("STRATA_REQUIRE_TOOLS") == "1":
            pytest.fail(f"{message} (and STRATA_REQUIRE_TOOLS=1)", pytrace=False)
        pytest.skip(message)
    return path


# --- stand-in Pods (tests/stand_ins.py) ---------------------------------------------------

def test_stand_ins_cover_every_pod_template_strata_writes():
    bodies = tree_objects("jark")
    names = sorted(p["metadata"]["name"] for b in bodies for p in stand_ins(b))
    assert "raycluster-research-head" in names and "raycluster-research-worker-h100" in names
    assert "rayjob-finetune-llm-worker-l4" in names and "rayjob-finetune-llm-submitter" in names
    assert {"workflowtemplate-dataflow-step-train", "workflowtemplate-dataflow-step-register"} <= set(names)
    # Every stand-in inherits the pod-level security context its owner sets.
    assert all(p["spec"].get("securityContext") for b in bodies for p in stand_ins(b))


# --- running the linters -----------------------------------------------------------------

@pytest.fixture(scope="module")
def trees(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Each golden tree's objects, one per file, plus the stand-in Pods: <root>/<tree>/*.yaml."""
    root = tmp_path_factory.mktemp("lint")
    trees = golden_tree_names()
    assert trees, "no golden trees: run pytest tests/test_golden.py --snapshot-update"
    for tree in trees:
        out = root / tree.replace("/", "-")
        out.mkdir()
        docs = [doc for body in tree_objects(tree) for doc in (body, *stand_ins(body))]
        for n, doc in enumerate(docs):
            (out / f"{n:04d}.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
    return root


def _key(kind: str, namespace: str | None, name: str) -> str:
    return f"{kind}/{namespace or ''}/{name}"


def kube_score_findings(tree: Path) -> set[tuple[str, str, str]]:
    binary = _linter("bin", "kube-score")
    findings = set()
    for example in sorted(p for p in tree.iterdir() if p.is_dir()):
        files = sorted(str(f) for f in example.glob("*.yaml"))
        result = subprocess.run([str(binary), "score", "--output-format", "json", *files], capture_output=True, text=True, check=False)
        assert result.returncode in (0, 1), result.stderr
        for obj in json.loads(result.stdout) or ():  # null when no object is of a kind it scores
            meta = obj["object_meta"]
            for check in obj["checks"]:
                # Grades: 10 ok, 5 warning, 1 critical; skipped checks do not apply.
                if not check["skipped"] and check["grade"] < 10:
                    findings.add((example.name, check["check"]["id"], _key(obj["type_meta"]["kind"], meta.get("namespace"), meta["name"])))
    return findings


def checkov_findings(tree: Path) -> set[tuple[str, str, str]]:
    binary = _linter("checkov", "bin", "checkov")
    # The script through its virtualenv's python: its shebang is an absolute path, stale once
    # the shared tool dir was created from another checkout.
    result = subprocess.run([str(binary.with_name("python")), str(binary), "--directory", str(tree), "--framework", "kubernetes", "--output", "json",
                             "--quiet", "--compact", "--skip-download"],
                            capture_output=True, text=True, check=False, env=dict(os.environ, BC_SKIP_MAPPING="TRUE"))
    assert result.returncode in (0, 1), result.stderr[-2000:]
    reports = json.loads(result.stdout)
    findings = set()
    for report in reports if isinstance(reports, list) else [reports]:
        for failed in report["results"]["failed_checks"]:
            kind, namespace, name = failed["resource"].split(".", 2)
            example = Path(failed["file_path"]).parts[1]
            findings.add((example, failed["check_id"], _key(kind, namespace, name)))
    return findings


def unwaived(findings: set[tuple[str, str, str]], waivers: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    """Findings no waiver covers, and waiver object patterns that cover no finding (each
    pattern of an entry must still match something, so a fixed object leaves the list)."""
    used: set[tuple[int, str]] = set()
    left = []
    for example, check, key in sorted(findings):
        hits = [(i, o) for i, w in enumerate(waivers) if w["check"] == check for o in w["objects"] if fnmatch.fnmatchcase(key, o)]
        used.update(hits)
        if not hits:
            left.append(f"{example}: {check} {key}")
    stale = [f"{w['check']} {o}" for i, w in enumerate(waivers) for o in w["objects"] if (i, o) not in used]
    return left, stale


def load_waivers() -> dict[str, list[dict[str, Any]]]:
    waivers = yaml.safe_load(WAIVERS.read_text())
    for tool in ("kube-score", "checkov"):
        for w in waivers[tool]:
            assert set(w) == {"check", "objects", "reason"} and w["reason"].strip(), f"{tool} waiver {w} needs check, objects and a reason"
    return waivers


def test_linters_are_the_pinned_versions():
    # go install stamps the module version into the binary (kube-score itself says "development").
    built = subprocess.run(["go", "version", "-m", str(_linter("bin", "kube-score"))], capture_output=True, text=True, check=False)
    module = _pin("kube_score_module")
    assert f"\tpath\t{module}\n" in built.stdout
    assert f"\tmod\t{module.removesuffix('/cmd/kube-score')}\t{_pin('kube_score_version')}\t" in built.stdout
    # The installed distribution's metadata (checkov --version takes as long as a scan to start).
    venv = _linter("checkov", "bin", "checkov").parents[1]
    installed = sorted(p.name for p in venv.glob("lib/python*/site-packages/checkov-*.dist-info"))
    assert installed == [f"checkov-{_pin('checkov_version')}.dist-info"]


def test_kube_score_reports_nothing_unwaived(trees):
    left, stale = unwaived(kube_score_findings(trees), load_waivers()["kube-score"])
    assert left == [], "kube-score findings neither fixed nor waived in lint/waivers.yaml:\n" + "\n".join(left)
    assert stale == [], f"waivers that match no kube-score finding any more: {stale}"


def test_checkov_reports_nothing_unwaived(trees):
    left, stale = unwaived(checkov_findings(trees), load_waivers()["checkov"])
    assert left == [], "checkov findings neither fixed nor waived in lint/waivers.yaml:\n" + "\n".join(left)
    assert stale == [], f"waivers that match no checkov finding any more: {stale}"


def test_waivers_catch_what_they_do_not_name():
    findings = {("jark", "CKV_K8S_20", "Pod/research/raycluster-research-head")}
    assert unwaived(findings, [{"check": "CKV_K8S_20", "objects": ["Pod/cv/*"], "reason": "x"}]) == (
        ["jark: CKV_K8S_20 Pod/research/raycluster-research-head"], ["CKV_K8S_20 Pod/cv/*"])
    assert unwaived(findings, [{"check": "CKV_K8S_20", "objects": ["Pod/*/raycluster-*"], "reason": "x"}]) == ([], [])
    # one pattern of an entry that matches nothing is stale, though the entry's other one is used
    assert unwaived(findings, [{"check": "CKV_K8S_20", "objects": ["Pod/*/raycluster-*", "Job/*/*"], "reason": "x"}]) == (
        [], ["CKV_K8S_20 Job/*/*"])
