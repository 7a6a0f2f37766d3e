"""Compute policy checks. Each yields problems with the spec path of the offending value."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from strata.pack import Facts, PoolFacts, Problem, catalog, identity_problems, nested_has, pool_facts, spec_path, tolerates

from . import rules as r
from .config import Config

SUPPORTED_AMI_FAMILIES = ("al2023", "bottlerocket")
V1_POLICIES = ("WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced")
WELL_KNOWN_AWS_LABELS = {
    "karpenter.k8s.aws/instance-family", "karpenter.k8s.aws/instance-category", "karpenter.k8s.aws/instance-generation",
    "karpenter.k8s.aws/instance-size", "karpenter.k8s.aws/instance-cpu", "karpenter.k8s.aws/instance-memory",
    "karpenter.k8s.aws/instance-gpu-name", "karpenter.k8s.aws/instance-gpu-count",
    "karpenter.k8s.aws/instance-gpu-memory", "karpenter.k8s.aws/instance-gpu-manufacturer",
}
# Chart keys the pinned charts no longer read, and what replaced them.
REMOVED_VALUES: dict[str, dict[tuple[str, ...], str]] = {
    "gpu-operator": {
        ("operator", "defaultRuntime"): "removed in v25.3.0; containerd's runtime is configured by the toolkit",
        ("driver", "useOpenKernelModules"): "a no-op; use driver.kernelModuleType (auto | open | proprietary)",
        ("cdi", "default"): "removed in v25.10; CDI is on by default (cdi.enabled)",
    },
    "karpenter": {
        ("settings", "aws", "clusterName"): "use settings.clusterName (compute pack sets it from cluster.name)",
        ("settings", "aws", "interruptionQueueName"): "use settings.interruptionQueue (compute.karpenter.interruptionQueue)",
        ("settings", "aws", "defaultInstanceProfile"): "gone; set compute.karpenter.instanceProfile (EC2NodeClass)",
    },
}


def check(spec: Any, config: Config, facts: Facts) -> Iterator[Problem]:
    version = tuple(int(x) for x in spec.cluster.kubernetes_version.split("."))
    pools = [pool_facts(p) for p in spec.node_pools]
    for i, f in enumerate(pools):
        yield from _check_pool(spec_path("nodePools", i), f, config, version, spec.cluster.region)
    yield from _check_identity(spec, config)
    yield from _check_gpu_operator(pools, config)
    yield from _check_smoke_test(pools, config)
    for release, section in (("karpenter", config.karpenter), ("gpu-operator", config.gpu_operator)):
        path = ("karpenter" if release == "karpenter" else "gpu_operator", "values_overrides")
        for keys, advice in REMOVED_VALUES[release].items():
            if nested_has(section.values_overrides, keys):
                yield r.REMOVED_CHART_VALUE.problem(path + keys, f"{'.'.join(keys)} is not read by the pinned {release} chart: {advice}")


def _check_pool(path: tuple, f: PoolFacts, config: Config, version: tuple[int, ...], region: str) -> Iterator[Problem]:
    pool = f.pool
    yield from _check_catalog_names(path, f)
    yield from _check_gpu_claims(path, f)
    if f.instance_types and all(t.arch != pool.architecture for t in f.instance_types):
        arches = sorted({t.arch for t in f.instance_types})
        yield r.ARCHITECTURE_MISMATCH.problem(path + ("architecture",), f"{pool.architecture} excludes every listed instance type (they are {', '.join(arches)})")
    yield from _check_ami(path, f, version)
    yield from _check_efa(path, f, config, region)
    yield from _check_bandwidth(path, f)
    if pool.disruption is not None:
        policy = pool.disruption.consolidation_policy
        if policy == "WhenUnderutilized":
            yield r.CONSOLIDATION_POLICY.problem(path + ("disruption", "consolidation_policy"), "WhenUnderutilized is the v1beta1 name; Karpenter v1 calls it WhenEmptyOrUnderutilized")
        elif policy not in V1_POLICIES:
            yield r.CONSOLIDATION_POLICY.problem(path + ("disruption", "consolidation_policy"), f"{policy!r} is not one of {', '.join(V1_POLICIES)}")
        if pool.disruption.consolidate_after is None:
            yield r.CONSOLIDATE_AFTER.problem(path + ("disruption",), "the disruption block has no consolidateAfter, which Karpenter v1 requires")
    for key in pool.labels:
        domain = key.split("/", 1)[0] if "/" in key else ""
        if key == "kubernetes.io/hostname" or (domain == "karpenter.sh" and key != "karpenter.sh/capacity-type") or (
            domain == "karpenter.k8s.aws" and key not in WELL_KNOWN_AWS_LABELS
        ):
            yield r.RESTRICTED_LABEL.problem(path + ("labels", key), f"label {key!r} is restricted by Karpenter")
    if pool.replicas is not None:
        if not config.karpenter.feature_gates.static_capacity:
            yield r.STATIC_POOL.problem(path + ("replicas",), "replicas makes a static pool, which needs compute.karpenter.featureGates.staticCapacity: true")
        if pool.weight is not None:
            yield r.STATIC_POOL.problem(path + ("weight",), "a static pool takes no weight")
        if pool.limits and pool.limits.model_dump(exclude_none=True, exclude={"nodes"}):
            yield r.STATIC_POOL.problem(path + ("limits",), "a static pool may only limit nodes")
    if f.nvidia:
        if pool.replicas is None and (pool.limits is None or pool.limits.gpus is None):
            yield r.GPU_LIMIT.problem(path + ("limits",), f"GPU pool {pool.name!r} has no limits.gpus")
        if not any(t.effect in ("NoSchedule", "NoExecute") for t in pool.taints):
            yield r.GPU_POOL_UNTAINTED.problem(path + ("taints",), f"GPU pool {pool.name!r} has no NoSchedule taint")


# Labels people set believing they turn EFA on (efa-enabled, vpc.amazonaws.com/efa.present):
# "efa" as a word of the key or value; only EFA network interfaces turn it on.
EFA_WORD = re.compile(r"(^|[^a-z0-9])efa([^a-z0-9]|$)")


def _check_efa(path: tuple, f: PoolFacts, config: Config, region: str) -> Iterator[Problem]:
    pool, efa = f.pool, f.pool.efa
    if efa is None:
        for key, value in pool.labels.items():
            if EFA_WORD.search(key.lower()) or EFA_WORD.search(value.lower()):
                yield r.EFA_BY_LABEL.problem(path + ("labels", key), f"label {key}={value} does not attach EFA interfaces to pool {pool.name!r}")
        return
    where = path + ("efa",)
    without = [t.name for t in f.instance_types if t.efa_interfaces == 0]
    if without:
        shown = ", ".join(without[:4]) + (f" (and {len(without) - 4} more)" if len(without) > 4 else "")
        yield r.EFA_UNSUPPORTED.problem(where, f"{shown} {'has' if len(without) == 1 else 'have'} no EFA interfaces")
    if efa.zone is None:
        yield r.EFA_ZONE.problem(where, f"EFA pool {pool.name!r} names no efa.zone, so Karpenter spreads its nodes over every zone of {region}")
    elif not efa.zone.startswith(region) or len(efa.zone) != len(region) + 1:
        yield r.EFA_ZONE.problem(where + ("zone",), f"{efa.zone} is no availability zone of the cluster's region {region}")
    if efa.security_group is None:
        yield r.EFA_SECURITY_GROUP.problem(where, f"EFA pool {pool.name!r} names no efa.securityGroup allowing all traffic to and from itself")
    if efa.capacity_reservations:
        if "reserved" not in pool.capacity_types:
            yield r.CAPACITY_RESERVATION_UNUSED.problem(path + ("capacity_types",), f"pool {pool.name!r} declares capacity reservations but capacityTypes has no 'reserved'")
        elif not config.karpenter.feature_gates.reserved_capacity:
            yield r.CAPACITY_RESERVATION_UNUSED.problem(where + ("capacity_reservations",), "compute.karpenter.featureGates.reservedCapacity is off")


def _check_bandwidth(path: tuple, f: PoolFacts) -> Iterator[Problem]:
    wanted = f.pool.network_bandwidth_gbps
    if wanted is None:
        return
    known = [t for t in f.instance_types if t.network_bandwidth_gbps is not None]
    below = [t for t in known if t.network_bandwidth_gbps < wanted]  # type: ignore[operator]
    # An explicitly listed type below the figure can never be chosen; a family's smaller
    # sizes are simply filtered out, unless no size of the pool reaches it.
    listed = [t for t in below if t.name in f.pool.instance_types]
    if known and (listed or len(below) == len(known)):
        shown = ", ".join(f"{t.name} {t.network_bandwidth_gbps:g} Gbps" for t in (listed or below)[:4])
        yield r.BANDWIDTH_EXCEEDS_INSTANCE.problem(path + ("network_bandwidth_gbps",), f"{wanted:g} Gbps exceeds the aggregate bandwidth of the instance types ({shown}; the reference's figure covers all interfaces)")


def _check_catalog_names(path: tuple, f: PoolFacts) -> Iterator[Problem]:
    for field, names, known in (("instance_families", f.pool.instance_families, catalog.families()),
                                ("instance_types", f.pool.instance_types, catalog.instance_types())):
        for i, name in enumerate(names):
            if name in known:
                continue
            what = "instance family" if field == "instance_families" else "instance type"
            close = catalog.suggest(name)
            hint = f"; did you mean {close!r}?" if close else ""
            yield r.UNKNOWN_INSTANCE.problem(path + (field, i), f"{name!r} is no EC2 {what} Karpenter knows{hint}")


def _check_gpu_claims(path: tuple, f: PoolFacts) -> Iterator[Problem]:
    claims = f.pool.gpu
    if claims is None:
        return
    gpus = [(t.name, t.gpu) for t in f.instance_types if t.gpu]
    if not gpus:
        yield r.UNKNOWN_ACCELERATOR.problem(path + ("gpu",), "none of " + ", ".join(f.pool.instance_families + f.pool.instance_types) + " is a GPU instance strata knows")
        return
    if claims.memory_mib is not None and claims.memory_mib < 1024:
        yield r.GPU_MEMORY_UNITS.problem(path + ("gpu", "memory_mib"), f"{claims.memory_mib} MiB per GPU looks like GiB; Karpenter's label is MiB per GPU (e.g. 81920)")
        return
    for field, attr in (("name", "name"), ("memoryMiB", "memory_mib"), ("count", "count")):
        wanted = getattr(claims, attr)
        if wanted is None:
            continue
        wrong = [(name, gpu) for name, gpu in gpus if getattr(gpu, attr) != wanted]
        if wrong:
            shown = ", ".join(f"{name} has {gpu.count} x {gpu.name} {gpu.memory_mib} MiB" for name, gpu in wrong[:3])
            more = f" (and {len(wrong) - 3} more)" if len(wrong) > 3 else ""
            yield r.GPU_LABEL_MISMATCH.problem(path + ("gpu", field), f"gpu.{field} {wanted!r} contradicts the instance types: {shown}{more}")


def _check_ami(path: tuple, f: PoolFacts, version: tuple[int, ...]) -> Iterator[Problem]:
    family = f.ami_family
    where = path + ("ami_alias",)
    if family == "al2":
        if version >= (1, 33):
            yield r.AMI_FAMILY.problem(where, "EKS publishes no AL2 AMIs for Kubernetes 1.33 and later (AL2 reached end of support on 2025-11-26); use al2023")
    elif family == "ubuntu":
        yield r.AMI_FAMILY.problem(where, "the Ubuntu AMI family was removed in Karpenter v1; use al2023 or bottlerocket")
    elif family.startswith("windows"):
        yield r.AMI_FAMILY.problem(where, "Windows nodes cannot run NVIDIA GPU or Neuron workloads of this platform")
    elif family not in SUPPORTED_AMI_FAMILIES:
        yield r.AMI_FAMILY.problem(where, f"unknown AMI family {family!r}; use al2023 or bottlerocket")


def _check_identity(spec: Any, config: Config) -> Iterator[Problem]:
    k = config.karpenter
    if k.node_role and k.instance_profile:
        yield r.NODE_IDENTITY.problem(("karpenter", "instance_profile"), "set either nodeRole or instanceProfile, not both")
    yield from identity_problems(r.CONTROLLER_IDENTITY, ("karpenter",), k, spec.cluster)


def _check_gpu_operator(pools: list[PoolFacts], config: Config) -> Iterator[Problem]:
    # Each rule judges the chart value the release ends up with: the typed field's, or the
    # user's override of it (then the problem points at the override).
    op = config.gpu_operator
    base = ("gpu_operator",)
    policy, policy_at = op.effective(("clusterPolicy", "deployCR"), op.cluster_policy, base + ("gpu_cluster",), base)
    cluster, cluster_at = op.effective(("gpuCluster", "deployCR"), op.gpu_cluster, base + ("gpu_cluster",), base)
    if _on(policy) == _on(cluster):
        state = "both on" if _on(policy) else "both off"
        yield r.OPERATOR_MODES.problem(policy_at if policy_at != base + ("gpu_cluster",) else cluster_at, f"clusterPolicy and gpuCluster are {state}")
    gpu_pools = [f for f in pools if f.nvidia]
    if not op.enabled or not gpu_pools:
        return
    host_ami = [f for f in gpu_pools if f.ami_family in SUPPORTED_AMI_FAMILIES]
    for part in ("driver", "toolkit"):
        enabled, at = op.effective((part, "enabled"), getattr(op, part) == "operator", base + (part,), base)
        if _on(enabled) and host_ami:
            yield r.DRIVER_ON_NVIDIA_AMI.problem(at, f"pools {', '.join(f.pool.name for f in host_ami)} use EKS NVIDIA AMIs, which ship the {part}")
    plugin, plugin_at = op.effective(("devicePlugin", "enabled"), op.device_plugin, base + ("device_plugin",), base)
    if _on(plugin) and any(f.ami_family == "bottlerocket" for f in gpu_pools):
        yield r.DEVICE_PLUGIN_BOTTLEROCKET.problem(plugin_at, "Bottlerocket GPU pools already run the NVIDIA device plugin")
    typed = [t.model_dump(exclude_none=True) for t in op.tolerations]
    tolerations, tolerations_at = op.effective(("daemonsets", "tolerations"), typed, (), base)
    if not isinstance(tolerations, list):
        tolerations = []
    for i, f in enumerate(pools):
        if not f.nvidia:
            continue
        for j, taint in enumerate(f.pool.taints):
            if taint.effect == "PreferNoSchedule":
                continue
            if not any(isinstance(t, dict) and tolerates(t, taint.key, taint.value, taint.effect) for t in tolerations):
                where = tolerations_at or spec_path("nodePools", i, "taints", j)
                source = "the daemonsets.tolerations override" if tolerations_at else "compute.gpuOperator.tolerations"
                yield r.TAINT_NOT_TOLERATED.problem(where, f"no entry of {source} matches this taint ({taint.key}={taint.value or ''}:{taint.effect}), so the operator's device plugin and DCGM exporter never run on pool {f.pool.name!r}")


def _on(value: Any) -> bool:
    """A chart boolean as Helm templates read it (a YAML true, or the string "true")."""
    return value is True or value == "true"


def _check_smoke_test(pools: list[PoolFacts], config: Config) -> Iterator[Problem]:
    test = config.smoke_test
    if not test.enabled or test.node_pool is None:
        if test.enabled and not any(f.nvidia for f in pools):
            yield r.SMOKE_TEST_POOL.problem(("smoke_test", "enabled"), "no node pool has NVIDIA GPUs")
        return
    target = next((f for f in pools if f.pool.name == test.node_pool), None)
    if target is None or not target.nvidia:
        what = "does not exist" if target is None else "has no NVIDIA GPUs"
        yield r.SMOKE_TEST_POOL.problem(("smoke_test", "node_pool"), f"node pool {test.node_pool!r} {what}")
