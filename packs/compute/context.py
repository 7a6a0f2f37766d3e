"""Everything the compute templates print, computed here so the templates stay plain."""

from __future__ import annotations

import json
from typing import Any

from strata.pack import Facts, PoolFacts, pool_facts, smoke_test_job

from .config import KARPENTER, Config

SMOKE_TEST_USER = 65534  # nobody
EFA_LABEL = "strata.dev/efa"  # on the nodes of EFA pools: where the EFA device plugin runs


def context(spec: Any, config: Config, facts: Facts) -> dict[str, Any]:
    cluster = spec.cluster.name
    pools = [pool_facts(p) for p in spec.node_pools]
    k = config.karpenter
    node_identity = {"instanceProfile": k.instance_profile} if k.instance_profile else {"role": k.node_role or f"KarpenterNodeRole-{cluster}"}
    gpu_pools = [f for f in pools if f.nvidia]
    op = config.gpu_operator
    smoke_pool = next((f for f in gpu_pools if f.pool.name == config.smoke_test.node_pool), gpu_pools[0] if gpu_pools else None)
    return {
        "node_pools": [_pool(f, cluster, k.discovery_tag_key, node_identity) for f in pools],
        "karpenter": _karpenter_values(spec, config),
        "gpu_operator_enabled": op.enabled and bool(gpu_pools),
        "gpu_operator": _gpu_operator_values(gpu_pools, config),
        "neuron_enabled": config.neuron.enabled and any(f.neuron for f in pools),
        "neuron": _neuron_values([f for f in pools if f.neuron], config),
        "efa_enabled": bool(_efa_pools(pools)),
        "efa_device_plugin": _efa_device_plugin(pools),
        "efa_security_groups": _efa_security_groups(pools, cluster),
        "efa_security_groups_json": json.dumps(_efa_security_groups(pools, cluster), indent=2, sort_keys=True) + "\n",
        "smoke_test": _smoke_test(smoke_pool, config) if config.smoke_test.enabled and smoke_pool else None,
    }


def _requirements(f: PoolFacts) -> list[dict[str, Any]]:
    pool = f.pool
    reqs: list[dict[str, Any]] = [
        {"key": "karpenter.sh/capacity-type", "operator": "In", "values": list(pool.capacity_types)},
        {"key": "kubernetes.io/arch", "operator": "In", "values": [pool.architecture]},
        {"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]},
    ]
    if pool.instance_families:
        reqs.append({"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": sorted(pool.instance_families)})
    if pool.instance_types:
        reqs.append({"key": "node.kubernetes.io/instance-type", "operator": "In", "values": sorted(pool.instance_types)})
    if pool.efa and pool.efa.zone:
        reqs.append({"key": "topology.kubernetes.io/zone", "operator": "In", "values": [pool.efa.zone]})
    if pool.network_bandwidth_gbps is not None:
        # Gt takes an integer: at least the declared Mbps.
        mbps = round(pool.network_bandwidth_gbps * 1000)
        reqs.append({"key": "karpenter.k8s.aws/instance-network-bandwidth", "operator": "Gt", "values": [str(mbps - 1)]})
    if pool.gpu:
        for label, value in (("instance-gpu-name", pool.gpu.name), ("instance-gpu-count", pool.gpu.count), ("instance-gpu-memory", pool.gpu.memory_mib)):
            if value is not None:
                reqs.append({"key": f"karpenter.k8s.aws/{label}", "operator": "In", "values": [str(value)]})
    return reqs


def _limits(f: PoolFacts) -> dict[str, Any] | None:
    limits = f.pool.limits
    if limits is None:
        return None
    out = {"cpu": limits.cpu, "memory": limits.memory, "nvidia.com/gpu": limits.gpus,
           "aws.amazon.com/neuron": limits.neuron_devices, "nodes": limits.nodes}
    return {k: str(v) for k, v in out.items() if v is not None} or None


def _block_devices(f: PoolFacts) -> list[dict[str, Any]]:
    volume = f.pool.root_volume
    ebs = {"volumeSize": volume.size, "volumeType": volume.type, "encrypted": True, "deleteOnTermination": True}
    if volume.iops:
        ebs["iops"] = volume.iops
    if volume.throughput:
        ebs["throughput"] = volume.throughput
    if volume.kms_key_id:
        ebs["kmsKeyID"] = volume.kms_key_id
    if f.ami_family == "bottlerocket":  # the OS on /dev/xvda, containers and images on /dev/xvdb
        os_volume = {"volumeSize": "4Gi", "volumeType": "gp3", "encrypted": True, "deleteOnTermination": True}
        return [{"deviceName": "/dev/xvda", "ebs": os_volume}, {"deviceName": "/dev/xvdb", "ebs": ebs}]
    return [{"deviceName": "/dev/xvda", "rootVolume": True, "ebs": ebs}]


def _security_groups(f: PoolFacts, discovery_key: str, cluster: str) -> list[dict[str, Any]]:
    """The cluster's discovered node security groups, plus an EFA pool's self-referencing one
    (terms are ORed: nodes get every group that matches)."""
    terms: list[dict[str, Any]] = [{"tags": {discovery_key: cluster}}]
    efa = f.pool.efa
    if efa and efa.security_group:
        terms.append(efa.security_group.model_dump(exclude_none=True))
    return terms


# What the neuron-helm-chart sets itself (values.yaml of 1.9.0): its tolerations are replaced
# by ours, so ours repeat them.
NEURON_CHART_TOLERATIONS = [
    {"key": "CriticalAddonsOnly", "operator": "Exists"},
    {"key": "aws.amazon.com/neuron", "operator": "Exists", "effect": "NoSchedule"},
]
NEURON_SCHEDULER_NAME = "my-scheduler"  # the chart's scheduler.customScheduler.fullnameOverride


def _neuron_values(neuron_pools: list[PoolFacts], config: Config) -> dict[str, Any]:
    tolerations = list(NEURON_CHART_TOLERATIONS)
    for f in neuron_pools:
        tolerations += [t for t in f.tolerations if t not in tolerations]
    return {
        # The chart's device plugin affinity matches these types; its default list lags new ones.
        "instances": sorted({t.name for f in neuron_pools for t in f.instance_types}),
        "tolerations": tolerations,
        "scheduler": config.neuron.scheduler_extension,
        "scheduler_name": NEURON_SCHEDULER_NAME,
        "node_problem_detector": config.neuron.node_problem_detector,
    }


def _efa_pools(pools: list[PoolFacts]) -> list[PoolFacts]:
    return [f for f in pools if f.pool.efa is not None]


def _efa_device_plugin(pools: list[PoolFacts]) -> dict[str, Any]:
    """Values of the aws-efa-k8s-device-plugin chart: on exactly the EFA pools' nodes (their
    label and instance types; the chart's own list of EFA types lags new types), tolerating
    exactly their taints."""
    efa = _efa_pools(pools)
    tolerations: list[dict[str, Any]] = []
    for f in efa:
        tolerations += [t for t in f.tolerations if t not in tolerations]
    return {
        "node_selector": {EFA_LABEL: "true"},
        "instance_types": sorted({t.name for f in efa for t in f.instance_types}),
        "tolerations": tolerations,
    }


def _efa_security_groups(pools: list[PoolFacts], cluster: str) -> list[dict[str, Any]]:
    """What each EFA pool needs of its security group, for whoever manages it (Terraform,
    CloudFormation, the identity/infra side): all traffic in from and out to the group itself."""
    out = []
    for f in _efa_pools(pools):
        efa = f.pool.efa
        assert efa is not None
        out.append({
            "nodePool": f.pool.name,
            "cluster": cluster,
            "zone": efa.zone,
            "securityGroup": efa.security_group.model_dump(exclude_none=True) if efa.security_group else None,
            "rules": [
                # protocol -1: all protocols and ports (EC2's IpProtocol "-1")
                {"direction": "ingress", "protocol": "-1", "source": "self"},
                {"direction": "egress", "protocol": "-1", "destination": "self"},
            ],
            "reason": "EFA (SRD) traffic is dropped unless the security group allows all traffic to and from its own members",
        })
    return out


def _pool(f: PoolFacts, cluster: str, discovery_key: str, node_identity: dict[str, str]) -> dict[str, Any]:
    pool = f.pool
    disruption: dict[str, Any] | None = None
    if pool.disruption is not None and pool.replicas is None:
        d = pool.disruption
        disruption = {"consolidationPolicy": d.consolidation_policy, "consolidateAfter": d.consolidate_after}
        if d.budgets:
            disruption["budgets"] = [b.model_dump(by_alias=True, exclude_none=True) for b in d.budgets]
    kubelet = pool.kubelet.model_dump(by_alias=True, exclude_none=True) if pool.kubelet else None
    return {
        "name": pool.name,
        "gpu": f.nvidia,
        "labels": {**pool.labels, "strata.dev/node-pool": pool.name, **({EFA_LABEL: "true"} if pool.efa else {})},
        "requirements": _requirements(f),
        "taints": [t.model_dump(exclude_none=True) for t in pool.taints],
        "expire_after": pool.expire_after,
        "termination_grace_period": pool.termination_grace_period,
        "disruption": disruption,
        "limits": _limits(f),
        "weight": pool.weight,
        "replicas": pool.replicas,
        "node_class": {
            "identity": node_identity,
            "ami_alias": pool.ami_alias.lower(),
            "discovery": {discovery_key: cluster},
            "security_groups": _security_groups(f, discovery_key, cluster),
            "capacity_reservations": [c.model_dump(by_alias=True, exclude_none=True) for c in pool.efa.capacity_reservations] if pool.efa else [],
            "placement_group": pool.efa.placement_group.model_dump(exclude_none=True) if pool.efa and pool.efa.placement_group else None,
            "block_devices": _block_devices(f),
            "instance_store_policy": pool.instance_store_policy,
            "hop_limit": pool.imds_hop_limit,
            "kubelet": kubelet,
            "tags": {"strata.dev/node-pool": pool.name, "strata.dev/cluster": cluster},
        },
    }


def _karpenter_values(spec: Any, config: Config) -> dict[str, Any]:
    k = config.karpenter
    cluster = spec.cluster.name
    env = []
    if not k.ignore_dra_requests:
        # settings.ignoreDRARequests renders through `with`, so false is dropped by the chart
        # and the binary default (true) stays; the env var is the only way to turn it off.
        env.append({"name": "IGNORE_DRA_REQUESTS", "value": "false"})
    return {
        "cluster_name": cluster,
        "interruption_queue": k.interruption_queue or cluster,
        "irsa_role_arn": k.irsa_role_arn(spec.cluster, KARPENTER),
        "feature_gates": k.feature_gates.model_dump(by_alias=True),
        "env": env,
    }


def _gpu_operator_values(gpu_pools: list[PoolFacts], config: Config) -> dict[str, Any]:
    op = config.gpu_operator
    bottlerocket = any(f.ami_family == "bottlerocket" for f in gpu_pools)
    return {
        "cluster_policy": op.cluster_policy,
        "gpu_cluster": op.gpu_cluster,
        # ComputeDomains (IMEX channels) only mean something on multi-node NVLink instances.
        "compute_domains": any(t.multi_node_nvlink for f in gpu_pools for t in f.instance_types),
        "driver": op.driver == "operator",
        "toolkit": op.toolkit == "operator",
        "device_plugin": op.runs_device_plugin(bottlerocket),
        "dcgm_exporter": op.dcgm_exporter.enabled,
        "service_monitor": op.dcgm_exporter.service_monitor,
        "mig_strategy": op.mig_strategy,
        "tolerations": [t.model_dump(exclude_none=True) for t in op.tolerations],
    }


def _smoke_test(f: PoolFacts, config: Config) -> dict[str, Any]:
    return smoke_test_job(config.smoke_test, "gpu-smoke-test", f, run_as=SMOKE_TEST_USER)
