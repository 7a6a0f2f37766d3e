"""A pack may add values to a Helm release another pack declares (pack.yaml `releaseValues`):
the observability pack labels the GPU Operator's DCGM ServiceMonitor for the chosen
Prometheus. The owning pack's user overrides still win, and a release that is not rendered
takes nothing."""

from __future__ import annotations

import yaml
from conftest import render_clean

HEAD = """apiVersion: strata.dev/v1alpha1
kind: Platform
cluster: {name: c1, region: us-east-1, kubernetesVersion: "1.36"}
"""
GPU_POOL = """nodePools:
  - {name: gpu, instanceFamilies: [g6], taints: [{key: nvidia.com/gpu, effect: NoSchedule}], limits: {gpus: 4}}
"""
VALUES = "compute/helm/gpu-operator/values.yaml"


def _render(text: str) -> dict[str, bytes]:
    return render_clean(("spec.yaml", text.encode()))


def _service_monitor(tree: dict[str, bytes]) -> dict:
    return yaml.safe_load(tree[VALUES])["dcgmExporter"]["serviceMonitor"]


def test_another_pack_adds_values_to_a_release():
    monitor = _service_monitor(_render(HEAD + GPU_POOL + "observability: {}\n"))
    assert monitor["additionalLabels"] == {"release": "kube-prometheus-stack"}
    assert {"action": "labeldrop", "regex": "pod|namespace|container"} in monitor["relabelings"]
    assert monitor["enabled"] is True  # the owner's own value stays


def test_without_the_contributing_pack_the_release_is_the_owners_alone():
    assert "additionalLabels" not in _service_monitor(_render(HEAD + GPU_POOL))


def test_the_owners_overrides_win_over_contributed_values():
    spec = HEAD + GPU_POOL + """compute:
  gpuOperator:
    valuesOverrides:
      dcgmExporter: {serviceMonitor: {interval: 60s, additionalLabels: {team: gpu}}}
observability: {}
"""
    monitor = _service_monitor(_render(spec))
    assert monitor["interval"] == "60s"
    assert monitor["additionalLabels"] == {"release": "kube-prometheus-stack", "team": "gpu"}


def test_a_release_that_is_not_rendered_takes_nothing():
    tree = _render(HEAD + "observability: {}\n")  # no NVIDIA pool: no GPU Operator release
    assert VALUES not in tree
