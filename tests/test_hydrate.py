"""`strata hydrate` runs the real helm template offline against a chart cache the test
builds itself (charts named and versioned like the pinned releases), writes owned,
validated manifests, is byte-identical on re-run, and survives re-renders only while the
release's values are unchanged."""

from __future__ import annotations

import pytest
import yaml
from charts import package_chart
from conftest import VALUES, require_tool

from strata import tools

MINIMAL = VALUES / "minimal.yaml"
DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
  labels: {app: {{ .Release.Name }}}
spec:
  replicas: 1
  selector: {matchLabels: {app: {{ .Release.Name }}}}
  template:
    metadata: {labels: {app: {{ .Release.Name }}}}
    spec:
      containers:
        - name: main
          image: example.invalid/{{ .Chart.Name }}:{{ .Chart.Version }}
          env:
            - {name: CLUSTER, value: {{ (.Values.settings | default dict).clusterName | default "none" | quote }}}
            - {name: KUBE, value: {{ .Capabilities.KubeVersion.Version | quote }}}
"""


def _chart(tmp_path, name: str, version: str, cache):
    return package_chart(tmp_path, name, version, cache, {
        "templates/deployment.yaml": DEPLOYMENT,
        "templates/serviceaccount.yaml": "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: {{ .Release.Name }}\n",
        "templates/clusterrole.yaml":
            "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: {{ .Release.Name }}\nrules: []\n",
    })


def _chart_cache(tmp_path, out):
    """Small charts named and versioned like every release of a rendered tree's lock."""
    cache = tmp_path / "charts"
    cache.mkdir()
    for release in yaml.safe_load((out / "strata.lock").read_text())["helmReleases"]:
        archive = _chart(tmp_path, release["chart"], release["version"].removeprefix("v"), cache)
        archive.rename(cache / f"{release['chart']}-{release['version']}.tgz")  # helm pull keeps the "v"
    return cache


@pytest.fixture
def rendered(strata, tmp_path):
    require_tool("helm")
    out = tmp_path / "out"
    assert strata("render", "-f", MINIMAL, "-o", out).returncode == 0
    return out, _chart_cache(tmp_path, out)


def _snapshot(root):
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_hydrate_writes_validated_owned_manifests_and_is_repeatable(strata, rendered):
    out, cache = rendered
    result = strata("hydrate", out, "--charts", cache)
    assert result.returncode == 0, result.stdout + result.stderr
    deployment = yaml.safe_load((out / "compute/hydrated/karpenter/deployment-kube-system-karpenter.yaml").read_text())
    env = {e["name"]: e["value"] for e in deployment["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert env == {"CLUSTER": "ml-dev", "KUBE": "v1.36.0"}, "values and the spec's Kubernetes version reach helm"
    assert deployment["metadata"]["namespace"] == "kube-system", "namespaced objects get the release namespace"
    role = yaml.safe_load((out / "compute/hydrated/karpenter/clusterrole-karpenter.yaml").read_text())
    assert "namespace" not in role["metadata"], "cluster-scoped objects stay without one"
    lock = yaml.safe_load((out / "strata.lock").read_text())
    hydrated_files = {f for h in lock["hydrated"] for f in h["files"]}
    assert "compute/hydrated/gpu-operator/deployment-gpu-operator-gpu-operator.yaml" in hydrated_files
    assert hydrated_files <= set(lock["files"])
    assert strata("validate", out).returncode == 0
    before = _snapshot(out)
    assert strata("hydrate", out, "--charts", cache).returncode == 0
    assert _snapshot(out) == before
    kustomize = tools.run("kustomize", ["build", str(out / "compute/hydrated/karpenter")])
    assert kustomize.returncode == 0 and "namespace: kube-system" in kustomize.stdout


def test_rerender_keeps_hydration_until_values_change(strata, rendered, tmp_path):
    out, cache = rendered
    assert strata("hydrate", out, "--charts", cache).returncode == 0
    assert strata("render", "-f", MINIMAL, "-o", out).returncode == 0
    assert (out / "compute/hydrated/karpenter/deployment-kube-system-karpenter.yaml").is_file()
    assert strata("render", "-f", MINIMAL, "-o", out, "--check").returncode == 0
    changed = tmp_path / "changed.yaml"
    changed.write_text(MINIMAL.read_text().replace("name: ml-dev", "name: ml-dev2"))
    assert strata("render", "-f", changed, "-o", out).returncode == 0
    assert not (out / "compute/hydrated/karpenter").exists(), "karpenter's values changed: its helm output is pruned"
    assert (out / "compute/hydrated/gpu-operator/deployment-gpu-operator-gpu-operator.yaml").is_file(), "unchanged values keep theirs"
    assert [h["release"] for h in yaml.safe_load((out / "strata.lock").read_text())["hydrated"]] == ["gpu-operator"]


def test_missing_chart_names_the_helm_pull_command(strata, rendered, tmp_path):
    out, _ = rendered
    empty = tmp_path / "empty"
    empty.mkdir()
    result = strata("hydrate", out, "--charts", empty)
    assert result.returncode == 1
    assert f"run: helm pull oci://public.ecr.aws/karpenter/karpenter --version 1.14.1 --destination {empty}" in result.stdout
    assert f"run: helm pull gpu-operator --repo https://helm.ngc.nvidia.com/nvidia --version v26.7.0 --destination {empty}" in result.stdout
    assert "[hydrate/missing-chart]" in result.stdout
    assert not (out / "compute/hydrated").exists()


@pytest.mark.parametrize(("template", "finding"), [
    ("apiVersion: v1\nkind: Secret\nmetadata: {name: generated}\nstringData: {cookie: {{ randAlphaNum 32 | quote }}}\n",
     "the chart renders Secret generated; hydrating would commit its values to Git"),
    # A credential the chart was given, in an object that is not a Secret (AWS's documented example key id).
    ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {id: AKIAIOSFODNN7EXAMPLE}\n",
     "ConfigMap settings holds an AWS access key id; hydrating would commit it to Git"),
])
def test_hydrate_refuses_secrets_in_chart_output_and_writes_nothing(strata, rendered, tmp_path, template, finding):
    out, cache = rendered
    karpenter = next(cache.glob("karpenter-*.tgz"))
    version = karpenter.name.removeprefix("karpenter-").removesuffix(".tgz")
    karpenter.unlink()
    archive = package_chart(tmp_path / "leaky", "karpenter", version, tmp_path / "leaky", {"templates/leak.yaml": template})
    archive.rename(karpenter)
    before = _snapshot(out)
    result = strata("hydrate", out, "--charts", cache)
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"compute/helm/karpenter/values.yaml: release karpenter: {finding} [hydrate/secret-in-chart-output]" in result.stdout
    assert "AKIA" not in result.stdout, "the finding names what, never the value"
    assert _snapshot(out) == before, "nothing is written"


def test_hydrate_without_a_lock_is_a_usage_error(strata, tmp_path):
    result = strata("hydrate", tmp_path)
    assert result.returncode == 2 and "run strata render first" in result.stderr


def test_render_hydrate_points_argo_cd_at_the_helm_output(strata, tmp_path):
    require_tool("helm")
    realistic = VALUES / "realistic.yaml"
    prefix = yaml.safe_load(realistic.read_text())["gitops"]["argocd"]["path"]
    out = tmp_path / "out"
    assert strata("render", "-f", realistic, "-o", out, "--no-validate").returncode == 0
    cache = _chart_cache(tmp_path, out)
    result = strata("render", "-f", realistic, "-o", out, "--hydrate", "--charts", cache)
    assert result.returncode == 0, result.stdout + result.stderr
    app = yaml.safe_load((out / "argocd/apps/application-argocd-ml-prod-karpenter.yaml").read_text())
    assert app["spec"]["source"]["path"] == f"{prefix}/compute/hydrated/karpenter"
    assert (out / "compute/hydrated/karpenter/kustomization.yaml").is_file()
    project = yaml.safe_load((out / "argocd/root/appproject-argocd-ml-platform.yaml").read_text())
    assert project["spec"]["sourceRepos"] == ["https://github.com/example-org/ml-platform.git"], "no chart repository is needed"
    before = _snapshot(out)
    assert strata("render", "-f", realistic, "-o", out, "--check", "--hydrate", "--charts", cache).returncode == 0
    assert strata("render", "-f", realistic, "-o", out, "--check").returncode == 0, "a plain render keeps current hydration"
    assert strata("render", "-f", realistic, "-o", out, "--hydrate", "--charts", cache).returncode == 0
    assert _snapshot(out) == before


def test_custom_kinds_take_their_scope_from_the_charts_crds():
    from strata.hydrate import CLUSTER_SCOPED, _cluster_scoped_crds, _place

    crd = {"kind": "CustomResourceDefinition", "spec": {"scope": "Cluster", "names": {"kind": "ClusterPolicy"}}}
    scoped = CLUSTER_SCOPED | _cluster_scoped_crds([crd, {"kind": "ConfigMap"}])
    policy, monitor = {"kind": "ClusterPolicy", "metadata": {"name": "p"}}, {"kind": "ServiceMonitor", "metadata": {"name": "m"}}
    for doc in (policy, monitor):
        _place(doc, "gpu-operator", scoped)
    assert "namespace" not in policy["metadata"] and monitor["metadata"]["namespace"] == "gpu-operator"
