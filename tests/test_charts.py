"""The spec's charts: section: a release's chart version (within the range its pack declares)
and repository (an OCI registry or HTTP mirror) go into the release directory, the GitOps
Application, strata.lock, `charts pull` and hydration; outside the range is an error."""

from __future__ import annotations

import pytest
import yaml
from conftest import VALUES, require_tool
from test_hydrate import _chart

from strata import charts, hydrate, pipeline
from strata.output.lock import Lock

PINS = """\
charts:
  karpenter:
    version: 1.14.2
    repo: oci://registry.example.internal/charts
  gpu-operator:
    repo: https://mirror.example.internal/nvidia
"""


@pytest.fixture
def layered(tmp_path):
    layer = tmp_path / "mirror.yaml"
    layer.write_text(PINS)
    return ["-f", VALUES / "realistic.yaml", "-f", layer]


def test_pins_go_into_the_release_the_application_and_the_lock(strata, tmp_path, layered):
    out = tmp_path / "out"
    result = strata("render", *layered, "-o", out)
    assert result.returncode == 0, result.stdout + result.stderr
    lock = Lock.model_validate(yaml.safe_load((out / "strata.lock").read_text()))
    used = {r.name: (r.repo, r.version) for r in lock.helm_releases}
    assert used["karpenter"] == ("oci://registry.example.internal/charts", "1.14.2")
    assert used["gpu-operator"] == ("https://mirror.example.internal/nvidia", "v26.7.0"), "the pinned version, mirrored"
    kustomization = yaml.safe_load(next(out.rglob("helm/karpenter/kustomization.yaml")).read_text())
    assert {k: kustomization["helmCharts"][0][k] for k in ("repo", "version")} == {
        "repo": "oci://registry.example.internal/charts", "version": "1.14.2"}
    applications = [yaml.safe_load(p.read_text()) for p in out.rglob("application-*karpenter*.yaml")]
    sources = [s for a in applications for s in a["spec"].get("sources", [a["spec"].get("source", {})])]
    charted = [s for s in sources if s.get("chart") == "karpenter"]
    assert charted and all(s["targetRevision"] == "1.14.2" and s["repoURL"] == "registry.example.internal/charts"
                           for s in charted), charted
    # charts pull fetches from the mirror, at the chosen version
    release = next(r for r in lock.helm_releases if r.name == "karpenter")
    assert hydrate.pull_command(tmp_path / "cache", release)[:4] == [
        "pull", "oci://registry.example.internal/charts/karpenter", "--version", "1.14.2"]


def test_hydration_uses_the_chosen_version(strata, tmp_path, layered):
    require_tool("helm")
    out = tmp_path / "out"
    assert strata("render", *layered, "-o", out).returncode == 0
    cache = tmp_path / "charts"
    cache.mkdir()
    missing = strata("hydrate", out, "--charts", cache)
    assert missing.returncode == 1
    assert "helm pull oci://registry.example.internal/charts/karpenter --version 1.14.2" in missing.stdout
    for entry in yaml.safe_load((out / "strata.lock").read_text())["helmReleases"]:
        archive = _chart(tmp_path / entry["name"], entry["chart"], entry["version"].removeprefix("v"), cache)
        archive.rename(cache / f"{entry['chart']}-{entry['version']}.tgz")
    hydrated = strata("hydrate", out, "--charts", cache)
    assert hydrated.returncode == 0, hydrated.stdout + hydrated.stderr
    entries = {h["release"]: h["version"] for h in yaml.safe_load((out / "strata.lock").read_text())["hydrated"]}
    assert entries["karpenter"] == "1.14.2"
    deployment = next((out / "compute" / "hydrated" / "karpenter").glob("deployment-*.yaml")).read_text()
    assert "example.invalid/karpenter:1.14.2" in deployment


def test_a_version_outside_the_packs_range_is_refused(strata, tmp_path):
    layer = tmp_path / "newer.yaml"
    layer.write_text("charts:\n  karpenter: {version: 1.15.0}\n  kuberay-operator: {version: 1.7.3}\n")
    result = strata("render", "-f", VALUES / "realistic.yaml", "-f", layer, "-o", tmp_path / "out")
    assert result.returncode == 1
    assert (f"{layer}:2:24: charts.karpenter.version: karpenter 1.15.0 is outside what pack compute 0.1.0 supports "
            "(>=1.14.1 <1.15.0; pinned 1.14.1) [charts/version-out-of-range]") in result.stdout
    assert "kuberay" not in result.stdout, "a patch release of the pinned minor is accepted"
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(("version", "supported", "expected"), [
    ("1.14.2", ">=1.14.1 <1.15.0", True), ("1.15.0", ">=1.14.1 <1.15.0", False), ("1.14.0", ">=1.14.1 <1.15.0", False),
    ("v26.7.1", ">=v26.7.0 <v26.8.0", True), ("1.14.2-rc.1", ">=1.14.1 <1.15.0", False), ("1.14.1", "=1.14.1", True),
    ("1.14.1", "<=1.14", False), ("2.0.0", ">1", True),
])
def test_version_ranges(version, supported, expected):
    assert charts.in_range(version, supported) is expected


def test_every_pack_release_declares_a_range_holding_its_pin():
    from strata.packs.loader import discover

    for pack in discover():
        for release in pack.manifest.helm_releases:
            assert release.supported_versions and charts.in_range(release.version, release.supported_versions), release.name


def test_a_spec_without_charts_renders_as_before():
    loaded = pipeline.load([("realistic.yaml", (VALUES / "realistic.yaml").read_bytes())])
    assert loaded.problems == [] and loaded.spec.charts == {}
