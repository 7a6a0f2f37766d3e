"""Argo CD output: every CRD provider and Namespace owner syncs in an earlier wave than the
Applications that need it, and every Application points at paths that exist in the tree."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from conftest import VALUES, run_cli
from golden_tree import GOLDEN, golden_tree_names

from strata.packs.loader import discover

EXAMPLES_WITH_GITOPS = [p.stem for p in sorted(VALUES.glob("*.yaml")) if "gitops" in yaml.safe_load(p.read_text())]


def _objects(directory: Path) -> list[dict]:
    return [yaml.safe_load(p.read_text()) for p in sorted(directory.glob("*.yaml")) if p.name != "kustomization.yaml"]


def _group(obj: dict) -> str:
    return obj["apiVersion"].rpartition("/")[0]


@pytest.fixture(scope="module", params=EXAMPLES_WITH_GITOPS)
def tree(request, tmp_path_factory):
    """The rendered example (unvalidated: tests/test_golden.py validates the same trees)."""
    out = tmp_path_factory.mktemp(request.param) / "out"
    spec = VALUES / f"{request.param}.yaml"
    result = run_cli(["render", "-f", spec, "-o", out, "--no-validate"])
    assert result.returncode == 0, result.stdout + result.stderr
    return out, yaml.safe_load(spec.read_text())["gitops"]["argocd"]["path"]


def _applications(out: Path) -> list[dict]:
    return [o for o in _objects(out / "argocd" / "apps") if o["kind"] == "Application"]


def test_examples_with_gitops_exist():
    assert "realistic" in EXAMPLES_WITH_GITOPS


def test_applications_point_at_existing_paths(tree):
    out, prefix = tree
    apps = _applications(out)
    assert apps
    roots = [o for o in _objects(out / "argocd" / "root") if o["kind"] == "Application"]
    for app in apps + roots:
        spec = app["spec"]
        for source in spec.get("sources") or [spec["source"]]:
            if "path" in source:
                directory = out / source["path"].removeprefix(prefix + "/")
                assert (directory / "kustomization.yaml").is_file(), (app["metadata"]["name"], source["path"])
            for values in source.get("helm", {}).get("valueFiles", []):
                assert values.startswith(f"$values/{prefix}/")
                assert (out / values.removeprefix(f"$values/{prefix}/")).is_file(), values


def test_sync_waves_put_providers_before_consumers(tree):
    out, prefix = tree
    releases = {r.chart: r for p in discover() for r in p.manifest.helm_releases}
    provides: dict[str, set[str]] = {}  # app name -> CRD groups
    owns_namespaces: dict[str, set[str]] = {}
    uses_groups: dict[str, set[str]] = {}
    uses_namespaces: dict[str, set[str]] = {}
    wave = {}
    for app in _applications(out):
        name = app["metadata"]["name"]
        wave[name] = int(app["metadata"]["annotations"]["argocd.argoproj.io/sync-wave"])
        sources = app["spec"].get("sources") or [app["spec"]["source"]]
        chart = next((s["chart"] for s in sources if "chart" in s), None)
        if chart:
            provides[name] = set(releases[chart].crd_groups)
            uses_groups[name] = set(releases[chart].needs_crd_groups)
            uses_namespaces[name] = {app["spec"]["destination"]["namespace"]}
            continue
        objects = _objects(out / sources[0]["path"].removeprefix(prefix + "/"))
        uses_groups[name] = {_group(o) for o in objects}
        uses_namespaces[name] = {o["metadata"]["namespace"] for o in objects if "namespace" in o["metadata"]}
        owns_namespaces[name] = {o["metadata"]["name"] for o in objects if o["kind"] == "Namespace"}
    assert provides, "the example has CRD-providing Helm releases"
    checked = 0
    for consumer, groups in uses_groups.items():
        for provider, provided in provides.items():
            if provider != consumer and groups & provided:
                assert wave[provider] < wave[consumer], (provider, consumer)
                checked += 1
        for owner, namespaces in owns_namespaces.items():
            if owner != consumer and uses_namespaces[consumer] & namespaces:
                assert wave[owner] < wave[consumer], (owner, consumer)
    assert checked, "at least one Application consumes a provider's CRDs"


def test_project_allows_exactly_the_platform(tree):
    out, _ = tree
    projects = {o["metadata"]["name"]: o for o in _objects(out / "argocd" / "root") if o["kind"] == "AppProject"}
    root = next(o for o in _objects(out / "argocd" / "root") if o["kind"] == "Application")
    bootstrap = projects.pop(root["spec"]["project"])
    (project,) = projects.values()
    destinations = {d["namespace"] for d in project["spec"]["destinations"]}
    # Only the bootstrap project writes into Argo CD's namespace, and only Applications there.
    assert "argocd" not in destinations
    assert [d["namespace"] for d in bootstrap["spec"]["destinations"]] == ["argocd"]
    assert bootstrap["spec"]["namespaceResourceWhitelist"] == [{"group": "argoproj.io", "kind": "Application"}]
    assert bootstrap["spec"]["clusterResourceWhitelist"] == []
    for app in _applications(out):
        namespace = app["spec"]["destination"].get("namespace")
        assert namespace is None or namespace in destinations
        for source in app["spec"].get("sources") or [app["spec"]["source"]]:
            assert source["repoURL"] in project["spec"]["sourceRepos"]
    whitelisted = {(k["group"], k["kind"]) for k in project["spec"]["clusterResourceWhitelist"]}
    for directory in out.rglob("kustomization.yaml"):
        for obj in _objects(directory.parent):
            if ("apiVersion" in obj and "namespace" not in obj.get("metadata", {})
                    and obj.get("kind") not in ("Application", "AppProject", "Kustomization")):
                assert (_group(obj), obj["kind"]) in whitelisted, obj["kind"]
    assert "*" not in project["spec"]["sourceRepos"]


def test_fleet_trees_render_separately_and_the_hub_deploys_them(strata, tmp_path):
    fleet = VALUES / "fleet"
    repo = tmp_path / "repo"
    for cluster in ("prod", "staging"):
        path = yaml.safe_load((fleet / f"{cluster}.yaml").read_text())["gitops"]["argocd"]["path"]
        result = strata("render", "-f", fleet / "base.yaml", "-f", fleet / f"{cluster}.yaml", "-o", repo / path, "--no-validate")
        assert result.returncode == 0, result.stdout + result.stderr
    (appset,) = _objects(repo / "clusters/ml-prod/argocd/fleet")
    assert appset["kind"] == "ApplicationSet"
    assert not (repo / "clusters/ml-staging/argocd/fleet").exists(), "only the hub renders the ApplicationSet"
    template_path = appset["spec"]["template"]["spec"]["source"]["path"]
    projects = set()
    for element in appset["spec"]["generators"][0]["list"]["elements"]:
        root = repo / template_path.replace("{{ .path }}", element["path"])
        assert (root / "kustomization.yaml").is_file()
        projects |= {o["metadata"]["name"] for o in _objects(root) if o["kind"] == "AppProject"}
    assert projects == {"ml-prod", "ml-prod-bootstrap", "ml-staging", "ml-staging-bootstrap"}, "each cluster has its own AppProjects on the hub"
    assert appset["spec"]["template"]["spec"]["project"] == "ml-prod-bootstrap"
    staging_apps = _applications(repo / "clusters/ml-staging")
    assert {a["spec"]["destination"]["server"] for a in staging_apps} == {"https://ml-staging.eks.us-east-2.example.internal"}


def test_jobs_run_once_per_change():
    """A synced Job with a TTL is re-created by selfHeal after the TTL deletes it (launching a GPU
    node each time): every Job strata writes is an Argo CD hook replaced only by the next sync,
    or has no TTL."""
    jobs = []
    for tree in golden_tree_names():
        for path in (GOLDEN / tree).rglob("job-*.yaml"):
            body = yaml.safe_load(path.read_text())
            if body.get("kind") == "Job":
                jobs.append((f"{tree}/{path.name}", body))
    smoke = [(where, job) for where, job in jobs if "smoke-test" in job["metadata"]["name"]]
    assert len(smoke) >= 2, "the realistic and ml-storage-dra trees hold the GPU smoke tests"
    for where, job in jobs:
        assert "ttlSecondsAfterFinished" not in job["spec"], where
    for where, job in smoke:
        annotations = job["metadata"].get("annotations", {})
        assert annotations.get("argocd.argoproj.io/hook") == "PostSync", where
        assert annotations.get("argocd.argoproj.io/hook-delete-policy") == "BeforeHookCreation", where
