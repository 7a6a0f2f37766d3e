"""Neuron pools: the Neuron chart's device plugin on exactly the Neuron types tolerating the
pools' taints, the scheduler extension when asked (and Neuron workers scheduled by it), team
quotas for Neuron devices and cores, Ray workers holding NeuronCores."""

from __future__ import annotations

import yaml
from conftest import render_clean
from reference import REPO_ROOT

CASE = REPO_ROOT / "tests" / "cases" / "valid" / "neuron-pool.yaml"


def _tree(text: str | None = None) -> dict[str, bytes]:
    return render_clean(("spec.yaml", (CASE.read_text() if text is None else text).encode()))


def _worker(tree: dict[str, bytes]) -> dict:
    spec = yaml.safe_load(tree["jark/kuberay/raycluster-research-trainium.yaml"])["spec"]
    return spec["workerGroupSpecs"][0]["template"]["spec"]


def test_device_plugin_tolerates_the_chart_defaults_and_the_pool_taints():
    text = CASE.read_text().replace("taints: [{key: aws.amazon.com/neuron, effect: NoSchedule}]",
                                    "taints: [{key: aws.amazon.com/neuron, effect: NoSchedule}, {key: workload, value: training, effect: NoExecute}]")
    values = yaml.safe_load(_tree(text)["compute/helm/neuron/values.yaml"])
    assert values["neuronInstances"] == ["trn2.48xlarge"]
    assert values["devicePlugin"]["tolerations"] == [
        {"key": "CriticalAddonsOnly", "operator": "Exists"},
        {"key": "aws.amazon.com/neuron", "operator": "Exists", "effect": "NoSchedule"},
        {"key": "workload", "operator": "Equal", "value": "training", "effect": "NoExecute"},
    ]
    assert values["scheduler"] == {"enabled": False} and values["npd"] == {"enabled": False}


def test_scheduler_extension_schedules_partial_node_workers():
    text = CASE.read_text().replace("neuronCores: 128", "neuronCores: 32") + "compute:\n  neuron: {schedulerExtension: true}\n"
    tree = _tree(text)
    values = yaml.safe_load(tree["compute/helm/neuron/values.yaml"])
    assert values["scheduler"] == {"enabled": True, "customScheduler": {"enabled": True, "fullnameOverride": "my-scheduler"}}
    worker = _worker(tree)
    assert worker["schedulerName"] == "my-scheduler"
    assert worker["containers"][0]["resources"]["limits"]["aws.amazon.com/neuroncore"] == "32"


def test_whole_node_workers_use_the_default_scheduler_and_every_efa_interface():
    worker = _worker(_tree())
    assert "schedulerName" not in worker
    limits = worker["containers"][0]["resources"]["limits"]
    assert limits["aws.amazon.com/neuroncore"] == "128" and limits["vpc.amazonaws.com/efa"] == "16"  # trn2.48xlarge
    env = {e["name"]: e["value"] for e in worker["containers"][0]["env"]}
    assert env["FI_PROVIDER"] == "efa" and "NCCL_NET" not in env  # NCCL is for NVIDIA pools


def test_team_quota_covers_neuron_devices_and_cores():
    quota = yaml.safe_load(_tree()["tenancy/teams/resourcequota-research-team-quota.yaml"])["spec"]["hard"]
    assert quota["requests.aws.amazon.com/neuron"] == "32" and quota["requests.aws.amazon.com/neuroncore"] == "256"


def test_no_neuron_pool_no_neuron_chart():
    text = CASE.read_text().split("  - name: trn2\n")[0] + "teams: [{name: research, groups: [ml-research]}]\n"
    assert not [p for p in _tree(text) if "/helm/neuron/" in p]


def test_neuron_monitor_runs_on_neuron_nodes_and_is_scraped():
    tree = _tree(CASE.read_text() + "observability: {}\n")
    namespace = yaml.safe_load(tree["observability/neuron-monitor/namespace-neuron-monitor.yaml"])
    assert namespace["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "privileged"
    pod = yaml.safe_load(tree["observability/neuron-monitor/daemonset-neuron-monitor-neuron-monitor.yaml"])["spec"]["template"]["spec"]
    (term,) = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert term["matchExpressions"] == [{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["trn2.48xlarge"]}]
    assert pod["tolerations"] == [{"key": "aws.amazon.com/neuron", "operator": "Exists", "effect": "NoSchedule"}]
    assert pod["containers"][0]["ports"] == [{"containerPort": 8000, "name": "metrics"}] and pod["automountServiceAccountToken"] is False
    monitor = yaml.safe_load(tree["observability/scrape-targets/podmonitor-neuron-monitor-neuron-monitor.yaml"])
    assert monitor["metadata"]["labels"]["release"] == "kube-prometheus-stack"  # what the installed Prometheus selects
    assert monitor["spec"]["selector"] == {"matchLabels": {"app.kubernetes.io/name": "neuron-monitor"}}
    assert monitor["spec"]["podMetricsEndpoints"][0]["port"] == "metrics"
    policy = yaml.safe_load(tree["observability/neuron-monitor/networkpolicy-neuron-monitor-allow-prometheus-scrape.yaml"])["spec"]
    assert policy["policyTypes"] == ["Ingress", "Egress"] and "egress" not in policy
    assert policy["ingress"][0]["ports"] == [{"port": 8000, "protocol": "TCP"}]


def test_neuron_monitor_off_or_without_neuron_pools_renders_nothing():
    off = _tree(CASE.read_text() + "observability: {neuronMonitor: {enabled: false}}\n")
    assert not [p for p in off if "neuron-monitor" in p]
    text = CASE.read_text().split("  - name: trn2\n")[0] + "teams: [{name: research, groups: [ml-research]}]\nobservability: {}\n"
    assert not [p for p in _tree(text) if "neuron-monitor" in p]
