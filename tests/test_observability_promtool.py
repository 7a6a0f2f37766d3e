"""The rules strata emits, proven with the real promtool: every rendered rule group passes
`promtool check rules`, and `promtool test rules` feeds synthetic series to the rules of the
bundled example and checks which alerts fire and which stay silent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import VALUES, render_clean, require_tool

from strata import tools

EXAMPLE = VALUES / "observability.yaml"
RULE_FILE = "observability/gpu-alerts/prometheusrule-monitoring-strata-gpu-platform.yaml"
# The example's labels: cluster label "cluster", cluster ml-obs, thresholds from the spec.
GPU = 'node="ip-10-0-1-5.eu-west-1.compute.internal", gpu="0", UUID="GPU-a1", modelName="NVIDIA H100 80GB HBM3", cluster="ml-obs"'
GPU_LABELS = {"node": "ip-10-0-1-5.eu-west-1.compute.internal", "gpu": "0", "UUID": "GPU-a1",
              "modelName": "NVIDIA H100 80GB HBM3", "cluster": "ml-obs"}


def _groups(spec: bytes, name: str = "spec.yaml") -> list[dict[str, Any]]:
    return yaml.safe_load(render_clean((name, spec))[RULE_FILE])["spec"]["groups"]


def _without_annotations(groups: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Unit tests compare labels; `promtool check rules` already checks the annotation templates."""
    return [{**g, "rules": [{k: v for k, v in r.items() if k != "annotations"} for r in g["rules"]]} for g in groups]


def _promtool(args: list[str], cwd: Path):
    require_tool("promtool")
    return tools.run("promtool", args, cwd=cwd)


SPECS = {
    "example": EXAMPLE.read_bytes(),
    # Defaults: no cluster label, no XID counter, no Ray, chart-sourced exporter.
    "single-cluster-chart": b"""apiVersion: strata.dev/v1alpha1
kind: Platform
cluster: {name: c1, region: us-east-1, kubernetesVersion: "1.36"}
nodePools:
  - {name: gpu, instanceFamilies: [g6], taints: [{key: nvidia.com/gpu, effect: NoSchedule}], limits: {gpus: 4}}
compute:
  gpuOperator: {dcgmExporter: {enabled: false}}
observability:
  dcgmExporter: {source: chart}
""",
}


@pytest.mark.parametrize("name", sorted(SPECS))
def test_every_rule_group_passes_promtool_check(name, tmp_path):
    (tmp_path / "rules.yaml").write_text(yaml.safe_dump({"groups": _groups(SPECS[name])}))
    result = _promtool(["check", "rules", "rules.yaml"], tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS" in result.stdout


def test_promtool_check_rejects_a_broken_expression(tmp_path):
    groups = _groups(SPECS["example"])
    groups[0]["rules"][0]["expr"] = "DCGM_FI_DEV_FB_USED / (DCGM_FI_DEV_FB_USED +"
    (tmp_path / "rules.yaml").write_text(yaml.safe_dump({"groups": groups}))
    assert _promtool(["check", "rules", "rules.yaml"], tmp_path).returncode != 0


def _alert(name: str, at: str, *firing: dict[str, str]) -> dict[str, Any]:
    return {"eval_time": at, "alertname": name, "exp_alerts": [{"exp_labels": labels} for labels in firing]}


def _labels(**extra: str) -> dict[str, str]:
    return {**GPU_LABELS, **extra}


UNIT_TESTS: list[dict[str, Any]] = [
    {   # XID 31 then 13: a new code, still an error. Never a counter reset, never silent.
        "interval": "1m",
        "input_series": [{"series": f"DCGM_FI_DEV_XID_ERRORS{{{GPU}}}", "values": "0 0 31 31 31 13 13 13 13 13 13 13 13 13 13 13"}],
        "alert_rule_test": [
            _alert("GPUXidErrorReported", "1m"),
            _alert("GPUXidErrorReported", "3m", _labels(severity="warning")),
            _alert("GPUXidErrorReported", "6m", _labels(severity="warning")),
            _alert("GPUXidErrorReported", "15m", _labels(severity="warning")),
        ],
    },
    {   # The windowed XID count (enabled in the example) fires while the window holds an XID.
        "interval": "1m",
        "input_series": [{"series": f'DCGM_EXP_XID_ERRORS_COUNT{{{GPU}, xid="79"}}', "values": "0 0 2 2 0 0"}],
        "alert_rule_test": [
            _alert("GPUXidErrorsCounted", "1m"),
            _alert("GPUXidErrorsCounted", "3m", _labels(xid="79", severity="warning")),
            _alert("GPUXidErrorsCounted", "5m"),
        ],
    },
    {   # Framebuffer: a 0-1 ratio from two MiB gauges; 0.9 (the example's threshold) is not above it.
        "interval": "1m",
        "input_series": [
            {"series": f"DCGM_FI_DEV_FB_USED{{{GPU}}}", "values": "72000x5 79000x20"},
            {"series": f"DCGM_FI_DEV_FB_FREE{{{GPU}}}", "values": "8000x5 1000x20"},
            {"series": 'DCGM_FI_DEV_FB_USED{node="n2", gpu="1", UUID="GPU-b2", modelName="NVIDIA L4", cluster="ml-obs"}', "values": "0x25"},
            {"series": 'DCGM_FI_DEV_FB_FREE{node="n2", gpu="1", UUID="GPU-b2", modelName="NVIDIA L4", cluster="ml-obs"}', "values": "22000x25"},
        ],
        "promql_expr_test": [
            {"expr": "gpu:framebuffer_used:ratio", "eval_time": "2m", "exp_samples": [
                {"labels": f"gpu:framebuffer_used:ratio{{{GPU}}}", "value": 0.9},
                {"labels": 'gpu:framebuffer_used:ratio{node="n2", gpu="1", UUID="GPU-b2", modelName="NVIDIA L4", cluster="ml-obs"}', "value": 0}]},
            {"expr": "gpu:framebuffer_used:ratio > 1 or gpu:framebuffer_used:ratio < 0", "eval_time": "20m", "exp_samples": []},
            {"expr": "node:gpu_framebuffer_used:max_ratio", "eval_time": "20m", "exp_samples": [
                {"labels": 'node:gpu_framebuffer_used:max_ratio{node="ip-10-0-1-5.eu-west-1.compute.internal", cluster="ml-obs"}', "value": 0.9875},
                {"labels": 'node:gpu_framebuffer_used:max_ratio{node="n2", cluster="ml-obs"}', "value": 0}]},
        ],
        "alert_rule_test": [
            _alert("GPUFramebufferNearlyFull", "5m"),
            _alert("GPUFramebufferNearlyFull", "10m"),  # above since 6m, not yet for 10m
            _alert("GPUFramebufferNearlyFull", "17m", _labels(severity="warning")),
        ],
    },
    {   # Pending GPU Pods: one Pod with two GPU containers counts once; CPU-only and running
        # GPU Pods do not count; the cluster label survives the aggregation (two clusters).
        "interval": "1m",
        "input_series": [
            {"series": 'kube_pod_container_resource_requests{cluster="ml-obs", namespace="ml", pod="trainer-0", container="main", resource="nvidia_com_gpu", unit="integer"}', "values": "4x30"},
            {"series": 'kube_pod_container_resource_requests{cluster="ml-obs", namespace="ml", pod="trainer-0", container="sidecar", resource="nvidia_com_gpu", unit="integer"}', "values": "1x30"},
            {"series": 'kube_pod_status_phase{cluster="ml-obs", namespace="ml", pod="trainer-0", phase="Pending"}', "values": "1x30"},
            {"series": 'kube_pod_container_resource_requests{cluster="ml-obs", namespace="ml", pod="web-0", container="web", resource="cpu", unit="core"}', "values": "1x30"},
            {"series": 'kube_pod_status_phase{cluster="ml-obs", namespace="ml", pod="web-0", phase="Pending"}', "values": "1x30"},
            {"series": 'kube_pod_container_resource_requests{cluster="ml-obs", namespace="ml", pod="infer-0", container="main", resource="nvidia_com_gpu", unit="integer"}', "values": "1x30"},
            {"series": 'kube_pod_status_phase{cluster="ml-obs", namespace="ml", pod="infer-0", phase="Pending"}', "values": "0x30"},
            {"series": 'kube_pod_container_resource_requests{cluster="other", namespace="ml", pod="trainer-0", container="main", resource="nvidia_com_gpu", unit="integer"}', "values": "8x30"},
            {"series": 'kube_pod_status_phase{cluster="other", namespace="ml", pod="trainer-0", phase="Pending"}', "values": "1x30"},
        ],
        "promql_expr_test": [{"expr": "cluster:gpu_pods_pending:count", "eval_time": "5m", "exp_samples": [
            {"labels": 'cluster:gpu_pods_pending:count{cluster="ml-obs"}', "value": 1},
            {"labels": 'cluster:gpu_pods_pending:count{cluster="other"}', "value": 1}]}],
        "alert_rule_test": [
            _alert("GPUPodsPending", "10m"),
            _alert("GPUPodsPending", "20m", {"cluster": "ml-obs", "severity": "warning"}, {"cluster": "other", "severity": "warning"}),
        ],
    },
    {   # Idle while allocated: below 10 % for 2h with a Pod on it; a free GPU (no pod label) never counts.
        "interval": "5m",
        "input_series": [
            {"series": f'DCGM_FI_DEV_GPU_UTIL{{{GPU}, namespace="ml", pod="notebook-0", container="main"}}', "values": "3x40"},
            {"series": 'DCGM_FI_DEV_GPU_UTIL{node="n2", gpu="1", UUID="GPU-b2", modelName="NVIDIA L4", cluster="ml-obs"}', "values": "0x40"},
            {"series": 'DCGM_FI_DEV_GPU_UTIL{node="n3", gpu="0", UUID="GPU-c3", modelName="NVIDIA L4", cluster="ml-obs", namespace="ml", pod="busy-0", container="main"}', "values": "3x20 90 3x19"},
        ],
        "alert_rule_test": [
            _alert("GPUIdleWhileAllocated", "1h"),
            _alert("GPUIdleWhileAllocated", "2h10m", _labels(namespace="ml", pod="notebook-0", container="main", severity="info")),
        ],
    },
    {   # Karpenter: launch failures in every window for 30m fire; a single burst does not.
        "interval": "1m",
        "input_series": [
            {"series": 'karpenter_cloudprovider_instance_launch_failures_total{cluster="ml-obs", zone="eu-west-1a", zone_id="euw1-az1", capacity_type="on-demand", reason="InsufficientInstanceCapacity"}', "values": "0+1x60"},
            {"series": 'karpenter_cloudprovider_instance_launch_failures_total{cluster="ml-obs", zone="eu-west-1b", zone_id="euw1-az2", capacity_type="spot", reason="MaxSpotInstanceCountExceeded"}', "values": "0 3 3x58"},
        ],
        "alert_rule_test": [
            _alert("KarpenterInstanceLaunchFailing", "20m"),
            _alert("KarpenterInstanceLaunchFailing", "45m", {"cluster": "ml-obs", "capacity_type": "on-demand",
                                                             "reason": "InsufficientInstanceCapacity", "severity": "warning"}),
        ],
    },
    {   # Ray head: a scraped head that goes down, and a provisioned cluster whose head Pod is gone.
        "interval": "1m",
        "input_series": [
            {"series": 'up{job="ray-head", cluster="ml-obs", namespace="ml-serving", ray_io_cluster="chat", instance="10.0.0.1:8080"}', "values": "1x3 0x20"},
            {"series": 'up{job="ray-head", cluster="ml-obs", namespace="ml-serving", ray_io_cluster="embed", instance="10.0.0.2:8080"}', "values": "1x23"},
            {"series": 'kuberay_cluster_condition_provisioned{cluster="ml-obs", namespace="ml-serving", name="embed", condition="true"}', "values": "1x23"},
            {"series": 'kuberay_cluster_condition_provisioned{cluster="ml-obs", namespace="ml-research", name="sweep", condition="true"}', "values": "1x23"},
            {"series": 'kuberay_cluster_condition_provisioned{cluster="ml-obs", namespace="ml-research", name="new", condition="false"}', "values": "1x23"},
        ],
        "alert_rule_test": [
            _alert("RayHeadUnavailable", "3m"),  # pending for 5m first: a restarting head is not an outage
            _alert("RayHeadUnavailable", "7m", {"cluster": "ml-obs", "namespace": "ml-research", "ray_io_cluster": "sweep", "severity": "critical"}),
            _alert("RayHeadUnavailable", "15m",
                   {"cluster": "ml-obs", "namespace": "ml-research", "ray_io_cluster": "sweep", "severity": "critical"},
                   {"cluster": "ml-obs", "namespace": "ml-serving", "ray_io_cluster": "chat", "severity": "critical"}),
        ],
    },
]


def _run_unit_tests(groups: list[dict[str, Any]], tmp_path: Path):
    (tmp_path / "rules.yaml").write_text(yaml.safe_dump({"groups": _without_annotations(groups)}))
    (tmp_path / "tests.yaml").write_text(yaml.safe_dump(
        {"rule_files": ["rules.yaml"], "evaluation_interval": "1m", "tests": UNIT_TESTS}, sort_keys=False))
    return _promtool(["test", "rules", "tests.yaml"], tmp_path)


def test_alerts_fire_when_they_should_and_stay_silent_otherwise(tmp_path):
    result = _run_unit_tests(_groups(SPECS["example"]), tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS" in result.stdout


def test_every_alert_and_recording_rule_is_unit_tested():
    names = {r.get("alert") or r.get("record") for g in _groups(SPECS["example"]) if g["name"] != "strata-extra" for r in g["rules"]}
    tested = {t["alertname"] for u in UNIT_TESTS for t in u.get("alert_rule_test", [])}
    tested |= {name for u in UNIT_TESTS for t in u.get("promql_expr_test", []) for name in names if name in t["expr"]}
    untested = names - tested - {"pod:gpu_utilization:avg", "node:gpu_utilization:avg", "pod:gpu_framebuffer_used:max_ratio",
                                 "nodepool:karpenter_nodes:count"}  # dashboard aggregations, checked by promtool check
    assert not untested


@pytest.mark.parametrize("wrong", [
    "increase(DCGM_FI_DEV_XID_ERRORS[5m]) > 0",  # reads 31 -> 13 as a reset and goes silent on a steady code
    "changes(DCGM_FI_DEV_XID_ERRORS[5m]) > 0",  # fires on the change, then forgets the error
])
def test_a_wrong_xid_expression_fails_the_unit_tests(wrong, tmp_path):
    groups = _groups(SPECS["example"])
    for rule in groups[0]["rules"]:
        if rule.get("alert") == "GPUXidErrorReported":
            rule["expr"] = wrong
    result = _run_unit_tests(groups, tmp_path)
    assert result.returncode != 0
    assert "GPUXidErrorReported" in result.stdout + result.stderr
