"""EFA pools: one zone, the self-referencing security group in the node class and stated
machine-readably, the reservation and placement group where declared, the EFA device plugin
on exactly those nodes tolerating exactly their taints, and Ray workers holding every EFA
interface of their node with the libfabric/NCCL environment."""

from __future__ import annotations

import json

import yaml
from conftest import render_clean
from reference import REPO_ROOT

from strata import pipeline

CASE = REPO_ROOT / "tests" / "cases" / "valid" / "efa-pool.yaml"


def _tree(text: str | None = None) -> dict[str, bytes]:
    return render_clean(("spec.yaml", CASE.read_bytes() if text is None else text.encode()))


def _yaml(tree: dict[str, bytes], path: str) -> dict:
    return yaml.safe_load(tree[path])


def test_pool_is_pinned_to_its_zone_and_bandwidth():
    pool = _yaml(_tree(), "compute/karpenter/nodepool-h100.yaml")["spec"]["template"]
    requirements = {r["key"]: r for r in pool["spec"]["requirements"]}
    assert requirements["topology.kubernetes.io/zone"] == {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["us-west-2b"]}
    assert requirements["karpenter.k8s.aws/instance-network-bandwidth"]["values"] == ["3199999"]
    assert pool["metadata"]["labels"]["strata.dev/efa"] == "true"


def test_node_class_takes_the_security_group_reservation_and_placement_group():
    spec = _yaml(_tree(), "compute/karpenter/ec2nodeclass-h100.yaml")["spec"]
    assert spec["securityGroupSelectorTerms"] == [{"tags": {"karpenter.sh/discovery": "train"}}, {"tags": {"strata.dev/efa": "train"}}]
    assert spec["capacityReservationSelectorTerms"] == [{"id": "cr-0123456789abcdef0"}]
    assert spec["placementGroupSelector"] == {"name": "train-h100"}


def test_security_group_requirement_is_machine_readable_and_exported():
    tree = _tree()
    config_map = _yaml(tree, "compute/infra/configmap-kube-system-efa-security-group-requirements.yaml")
    (need,) = json.loads(config_map["data"]["requirements.json"])
    assert need["nodePool"] == "h100" and need["securityGroup"] == {"tags": {"strata.dev/efa": "train"}}
    assert {(r["direction"], r["protocol"], r.get("source") or r.get("destination")) for r in need["rules"]} == {
        ("ingress", "-1", "self"), ("egress", "-1", "self")}
    loaded = pipeline.load([("spec.yaml", CASE.read_bytes())])
    assert loaded.facts is not None
    (exported,) = loaded.facts.exports["compute"].efa_security_groups  # typed, for the identity side
    assert (exported.node_pool, exported.zone, exported.security_group) == ("h100", "us-west-2b", {"tags": {"strata.dev/efa": "train"}})


def test_device_plugin_runs_on_efa_nodes_tolerating_their_taints():
    values = _yaml(_tree(), "compute/helm/aws-efa-k8s-device-plugin/values.yaml")
    assert values["nodeSelector"] == {"strata.dev/efa": "true"}
    assert values["supportedInstanceLabels"] == {"keys": ["node.kubernetes.io/instance-type"], "values": ["p5.48xlarge"]}
    assert values["tolerations"] == [{"key": "nvidia.com/gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"}]


def test_without_efa_pools_nothing_efa_is_rendered():
    text = CASE.read_text()
    head, _, _ = text.partition("    efa:\n")
    tail = text.split("      placementGroup: {name: train-h100}\n", 1)[1]
    tree = _tree(head + tail)
    assert not [p for p in tree if "aws-efa" in p or "efa-security" in p]
    worker = yaml.safe_load(tree["jark/kuberay/raycluster-research-llm.yaml"])["spec"]["workerGroupSpecs"][0]
    container = worker["template"]["spec"]["containers"][0]
    assert "env" not in container and "vpc.amazonaws.com/efa" not in container["resources"]["limits"]


def test_ray_workers_hold_every_efa_interface_with_the_libfabric_environment():
    tree = _tree()
    for path in ("jark/kuberay/raycluster-research-llm.yaml", "jark/kuberay/rayjob-research-pretrain.yaml"):
        spec = _yaml(tree, path)["spec"]
        spec = spec.get("rayClusterSpec", spec)
        worker = spec["workerGroupSpecs"][0]["template"]["spec"]["containers"][0]
        assert worker["resources"]["limits"]["vpc.amazonaws.com/efa"] == "32"  # p5.48xlarge, as the reference states
        env = {e["name"]: e["value"] for e in worker["env"]}
        assert env == {"FI_PROVIDER": "efa", "FI_EFA_USE_DEVICE_RDMA": "1", "FI_EFA_FORK_SAFE": "1", "NCCL_NET": "AWS Libfabric"}
        head = spec["headGroupSpec"]["template"]["spec"]["containers"][0]
        assert "env" not in head and "vpc.amazonaws.com/efa" not in head["resources"]["limits"]
