"""`kustomize build --enable-helm` of a rendered release directory (helm/<release>/) works with
the pinned kustomize and Helm 4, offline: the chart comes from a local cache (an archive the test
builds with `helm package`, unpacked where kustomize looks before it would pull), and every proxy
points at a closed port so any attempt to reach a chart repository fails the build."""

from __future__ import annotations

import os
import subprocess
import tarfile

import pytest
import yaml
from charts import package_chart
from conftest import VALUES, require_tool

from strata import tools

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
  namespace: {{ .Release.Namespace }}
spec:
  selector: {matchLabels: {app: {{ .Release.Name }}}}
  template:
    metadata: {labels: {app: {{ .Release.Name }}}}
    spec:
      containers:
        - name: main
          image: example.invalid/{{ .Chart.Name }}:{{ .Chart.Version }}
          env:
            - {name: CLUSTER, value: {{ (.Values.settings | default dict).clusterName | default "none" | quote }}}
"""
CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.invalid}
spec:
  group: example.invalid
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]
"""
# Any chart download would go through these and fail: the build must not need the network.
NO_NETWORK = {name: "http://127.0.0.1:9" for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy")}


def _packaged_chart(tmp_path, name: str, version: str):
    """A chart archive as `helm pull` would cache it: <name>-<version>.tgz."""
    files = {"templates/deployment.yaml": DEPLOYMENT, "crds/widgets.yaml": CRD}
    return package_chart(tmp_path, name, version.removeprefix("v"), tmp_path / "cache", files)


def _kustomize_build(release_dir):
    env = {**os.environ, **NO_NETWORK, "NO_PROXY": "", "no_proxy": ""}
    return subprocess.run(
        [str(tools.find("kustomize")), "build", "--enable-helm", "--helm-command", str(tools.find("helm")), str(release_dir)],
        capture_output=True, text=True, env=env, timeout=120, check=False)


@pytest.fixture
def karpenter_release(strata, tmp_path):
    require_tool("helm")
    require_tool("kustomize")
    out = tmp_path / "out"
    assert strata("render", "-f", VALUES / "minimal.yaml", "-o", out, "--no-validate").returncode == 0
    release = next(r for r in yaml.safe_load((out / "strata.lock").read_text())["helmReleases"] if r["name"] == "karpenter")
    release_dir = out / "compute" / "helm" / "karpenter"
    assert yaml.safe_load((release_dir / "kustomization.yaml").read_text())["helmCharts"][0]["repo"].startswith("oci://")
    return release, release_dir


def test_enable_helm_builds_a_release_directory_offline_from_a_cached_chart(karpenter_release, tmp_path):
    release, release_dir = karpenter_release
    archive = _packaged_chart(tmp_path, release["chart"], release["version"])
    # kustomize's chart home for a versioned chart from a repository: charts/<chart>-<version>/<chart>
    with tarfile.open(archive) as tgz:
        tgz.extractall(release_dir / "charts" / f"{release['chart']}-{release['version']}", filter="data")

    result = _kustomize_build(release_dir)

    assert result.returncode == 0, result.stderr
    objects = {(o["kind"], o["metadata"]["name"]): o for o in yaml.safe_load_all(result.stdout)}
    assert set(objects) == {("Deployment", "karpenter"), ("CustomResourceDefinition", "widgets.example.invalid")}, "includeCRDs: true"
    deployment = objects[("Deployment", "karpenter")]
    assert deployment["metadata"]["namespace"] == release["namespace"]
    env = deployment["spec"]["template"]["spec"]["containers"][0]["env"]
    rendered_values = yaml.safe_load((release_dir / "values.yaml").read_text())
    assert env == [{"name": "CLUSTER", "value": rendered_values["settings"]["clusterName"]}], "valuesFile is strata's values.yaml"


def test_without_the_cached_chart_the_build_tries_to_pull_and_fails(karpenter_release):
    """The counter-check: the proxies above really cut the network, so the green build is offline."""
    _, release_dir = karpenter_release
    result = _kustomize_build(release_dir)
    assert result.returncode != 0
    assert "helm" in result.stderr and "pull" in result.stderr, result.stderr
