"""DRA policy checks. Each yields problems located at the spec path of the offending value."""

from __future__ import annotations

from collections.abc import Collection, Iterator
from typing import Any

from strata.pack import Facts, PoolFacts, Problem, all_pool_facts, spec_path

from . import devices as dev, quota as q, rules as r
from .config import ClaimTemplate, Config, DeviceRequest, Sharing, Workload
from .context import claim_spec
from .platform import (
    DEVICE_PLUGIN_LABEL,
    device_plugin_pools,
    driver_feature_gates,
    driver_mode,
    gpu_operator,
    operator_gpu_cluster,
    team_namespace,
    template_namespaces,
)


def check(spec: Any, config: Config, facts: Facts) -> Iterator[Problem]:
    op = gpu_operator(facts)
    version = spec.cluster.kubernetes_version
    if dev.api_version(version) is None:
        first = ".".join(map(str, dev.FIRST_VERSION))
        yield r.KUBERNETES_VERSION.problem(spec_path("cluster", "kubernetes_version"), f"Kubernetes {version} does not serve {dev.API_VERSION}; DRA needs {first} or later (EKS {version} has only the beta API)")
    pools = all_pool_facts(spec)
    yield from _check_pools(spec, config, pools, op)
    yield from _check_driver(op, config)
    classes = dev.DRIVER_CLASSES | {c.name for c in config.device_classes}
    for i, device_class in enumerate(config.device_classes):
        for j, expression in enumerate(device_class.selectors):
            yield from _check_cel(("device_classes", i, "selectors", j), expression)
    for i, template in enumerate(config.claim_templates):
        yield from _check_template(("claim_templates", i), template, spec, config, pools, classes, op)
    for i, domain in enumerate(config.compute_domains):
        pool = pools.get(domain.node_pool)
        path = ("compute_domains", i, "node_pool")
        if pool is None or not pool.nvidia:
            yield r.NODE_POOL.problem(path, f"node pool {domain.node_pool!r} {'does not exist' if pool is None else 'has no NVIDIA GPUs'}")
        elif not pool.instance_types or not all(t.multi_node_nvlink for t in pool.instance_types):
            plain = sorted(t.name for t in pool.instance_types if not t.multi_node_nvlink)
            yield r.COMPUTE_DOMAIN.problem(path, f"pool {domain.node_pool!r} has instance types without multi-node NVLink ({', '.join(plain[:4])}); no instance type in the catalog supports it")
    for i, workload in enumerate(config.workloads):
        yield from _check_workload(("workloads", i), workload, spec, config, pools)
    yield from _check_smoke_test(spec, config, pools)
    yield from _check_team_quotas(spec, config)


def _check_team_quotas(spec: Any, config: Config) -> Iterator[Problem]:
    """Add up what the quota admission charges in each team namespace, in spec order: the
    shared claims strata creates, then each workload's Pods (a Deployment's surge included).
    The workload that takes a team over its GPU or claim cap is refused there."""
    templates = {t.name: t for t in config.claim_templates}
    classes = set(q.quota_classes([c.name for c in config.device_classes]))
    for i, team in enumerate(spec.teams):
        if team.quota is None:
            continue
        namespace, cap, claim_cap = team.namespace_name, team.quota.gpus, q.claim_cap(team.quota)
        devices: dict[str, int] = {}
        claims = 0
        for t in config.claim_templates:
            if t.shared and namespace in template_namespaces(spec, t):
                claims += 1
                for c, n in q.claim_charge(claim_spec(t)).items():
                    devices[c] = devices.get(c, 0) + n
        for j, w in enumerate(config.workloads):
            if team_namespace(spec, w.team) != namespace:
                continue
            pods = q.pods_at_once(w.kind, w.replicas)
            before = dict(devices)
            for ref in w.claims:
                template = templates.get(ref.template or "")
                if ref.compute_domain:
                    claims += pods  # an IMEX channel claim per Pod, from the domain's template
                elif template is not None and not template.shared:
                    claims += pods
                    for c, n in q.claim_charge(claim_spec(template)).items():
                        devices[c] = devices.get(c, 0) + pods * n
            path = ("workloads", j)
            surge = f" ({pods} Pods during a rolling update)" if pods != w.replicas else ""
            for c in sorted(devices):
                if c in classes and devices[c] > cap >= before.get(c, 0):
                    yield r.EXCEEDS_TEAM_QUOTA.problem(path, (
                        f"{w.name}{surge} brings team {team.name}'s {c} devices to {devices[c]} (allocationMode All counts as {q.ALL_MODE_CHARGE}); "
                        f"its quota allows {cap} (teams[{i}].quota.gpus), so the API server refuses the claims"))
            if claims > claim_cap:
                yield r.EXCEEDS_TEAM_QUOTA.problem(path, (
                    f"{w.name}{surge} brings team {team.name}'s ResourceClaims to {claims}; its quota allows {claim_cap} (teams[{i}].quota.resourceClaims)"))
                claim_cap = claims  # report the first workload over the cap only


def _check_pools(spec: Any, config: Config, pools: dict[str, PoolFacts], op: Any | None) -> Iterator[Problem]:
    plugin_pools = device_plugin_pools(spec, op)
    for i, name in enumerate(config.node_pools):
        path = ("node_pools", i)
        pool = pools.get(name)
        if pool is None or not pool.nvidia:
            yield r.NODE_POOL.problem(path, f"node pool {name!r} {'does not exist' if pool is None else 'has no NVIDIA GPUs'}")
        elif name in plugin_pools:
            if pool.ami_family == "bottlerocket":
                why = "Bottlerocket's NVIDIA variants run their own device plugin; use an al2023 pool for DRA"
            else:
                why = f'the GPU Operator deploys its device plugin there; add labels: {{{DEVICE_PLUGIN_LABEL}: "false"}} to the pool'
            yield r.DEVICE_PLUGIN.problem(path, f"pool {name!r} would offer its GPUs both as nvidia.com/gpu and through DRA: {why}")


def _check_driver(op: Any | None, config: Config) -> Iterator[Problem]:
    if config.feature_gates and driver_mode(op, config) == "gpuOperator":
        yield r.DRIVER_ONCE.problem(("feature_gates",), "the GPU Operator runs the DRA driver: set its gates in compute.gpuOperator.valuesOverrides.draDriver.featureGates")
    if config.driver is None:
        return
    gpu_cluster = operator_gpu_cluster(op)
    if config.driver == "standalone" and gpu_cluster:
        yield r.DRIVER_ONCE.problem(("driver",), "the GPU Operator already runs the DRA driver (compute.gpuOperator.gpuCluster: true); a second install from the standalone chart conflicts")
    if config.driver == "gpuOperator" and not gpu_cluster:
        yield r.DRIVER_ONCE.problem(("driver",), "the GPU Operator is not in GPUCluster mode (compute.gpuOperator.gpuCluster), so nothing would install the DRA driver")


def _check_cel(path: tuple, expression: str) -> Iterator[Problem]:
    for message in dev.cel_problems(expression):
        yield r.CEL_ATTRIBUTE.problem(path, message)


def _alternatives(template: ClaimTemplate, base: tuple) -> Iterator[tuple[tuple, DeviceRequest]]:
    for j, request in enumerate(template.requests):
        if request.exactly is not None:
            yield base + ("requests", j, "exactly"), request.exactly
        for k, sub in enumerate(request.first_available):
            yield base + ("requests", j, "first_available", k), sub


def _check_template(base: tuple, template: ClaimTemplate, spec: Any, config: Config, pools: dict[str, PoolFacts], classes: Collection[str],
                    op: Any | None) -> Iterator[Problem]:
    gpus = {(t.gpu.name, t.gpu.memory_mib) for name in config.node_pools if name in pools for t in pools[name].instance_types if t.gpu}
    for path, request in _alternatives(template, base):
        if request.device_class_name not in classes:
            yield r.DEVICE_CLASS.problem(path + ("device_class_name",), f"no DeviceClass {request.device_class_name!r}: the driver installs {', '.join(sorted(dev.DRIVER_CLASSES))}")
        if request.allocation_mode == "All" and request.count is not None:
            yield r.REQUEST_SHAPE.problem(path + ("count",), "count is only for allocationMode ExactCount; All takes every matching device")
        for k, expression in enumerate(request.selectors):
            yield from _check_cel(path + ("selectors", k), expression)
            yield from _check_mig(path, k, request, dev.mig_profiles(expression), gpus)
    names = {q.name for q in template.requests}
    for i, constraint in enumerate(template.constraints):
        where = base + ("constraints", i)
        domain, _, name = constraint.match_attribute.partition("/")
        if not name or "." not in domain:
            yield r.MATCH_ATTRIBUTE.problem(where + ("match_attribute",), f"{constraint.match_attribute!r} is not qualified; write <domain>/<name>, e.g. {dev.GPU_DOMAIN}/parentUUID")
        elif name not in dev.ATTRIBUTES.get(domain, ()):
            yield r.MATCH_ATTRIBUTE.problem(where + ("match_attribute",), f"{domain} publishes no attribute {name!r}")
        yield from _unknown_requests(where, constraint.requests, names)
    if template.sharing is not None:
        yield from _check_sharing(base, template.sharing, op, config, names)


def _unknown_requests(where: tuple, requested: tuple[str, ...], names: set[str]) -> Iterator[Problem]:
    for k, name in enumerate(requested):
        if name not in names:
            yield r.REQUEST_SHAPE.problem(where + ("requests", k), f"the claim has no request {name!r} (it has {', '.join(sorted(names))})")


def _check_mig(path: tuple, k: int, request: DeviceRequest, profiles: list[str], gpus: set[tuple[str, int]]) -> Iterator[Problem]:
    where = path + ("selectors", k)
    for profile in profiles:
        if request.device_class_name == dev.GPU_CLASS:
            yield r.MIG_PROFILE.problem(path + ("device_class_name",), f"only MIG devices publish a profile; request {profile} instances from {dev.MIG_CLASS}")
        if not dev.MIG_PROFILE.match(profile):
            yield r.MIG_PROFILE.problem(where, f"{profile!r} is not a MIG profile name: <compute slices>g.<memory>gb, e.g. 3g.40gb, which is ONE instance")
            continue
        for name, memory in sorted(gpus):
            offered = dev.MIG_PROFILES.get((name, memory))
            if name in dev.NO_MIG:
                yield r.MIG_PROFILE.problem(where, f"{name} GPUs of the DRA pools do not support MIG")
            elif offered is not None and profile not in offered:
                yield r.MIG_PROFILE.problem(where, f"{name} ({memory} MiB) has no {profile} instance; its profiles are {', '.join(offered)} (each names one instance)")


def _check_sharing(base: tuple, sharing: Sharing, op: Any | None, config: Config, names: set[str]) -> Iterator[Problem]:
    where = base + ("sharing",)
    yield from _unknown_requests(where, sharing.requests, names)
    gate = dev.SHARING_GATES[sharing.strategy]
    gates, where_gates = driver_feature_gates(op, config)
    if not gates.get(gate):
        yield r.SHARING_GATE.problem(where + ("strategy",), f"{sharing.strategy} sharing needs the driver feature gate {gate}: true ({where_gates})")
    if sharing.strategy == "MPS" and sharing.interval is not None:
        yield r.REQUEST_SHAPE.problem(where + ("interval",), "interval configures TimeSlicing, not MPS")
    if sharing.strategy == "TimeSlicing" and (sharing.active_thread_percentage or sharing.pinned_device_memory_limit):
        yield r.REQUEST_SHAPE.problem(where, "activeThreadPercentage and pinnedDeviceMemoryLimit configure MPS, not TimeSlicing")


def _check_workload(base: tuple, workload: Workload, spec: Any, config: Config, pools: dict[str, PoolFacts]) -> Iterator[Problem]:
    namespace = team_namespace(spec, workload.team)
    if workload.team not in {t.name for t in spec.teams}:
        yield r.CLAIM_REFERENCE.problem(base + ("team",), f"team {workload.team!r} is not in teams, so no namespace of it holds claim templates")
    templates = {t.name: t for t in config.claim_templates}
    domains = {d.name: d for d in config.compute_domains}
    gpus_claimed = 0
    for j, ref in enumerate(workload.claims):
        where = base + ("claims", j)
        if ref.template:
            template = templates.get(ref.template)
            if template is None:
                yield r.CLAIM_REFERENCE.problem(where + ("template",), f"no claim template {ref.template!r} in dra.claimTemplates")
                continue
            if namespace not in template_namespaces(spec, template):
                yield r.CLAIM_REFERENCE.problem(where + ("template",), f"template {ref.template!r} is not created in namespace {namespace}; add team {workload.team!r} to its teams")
            gpus_claimed += _exact_gpus(template)
            if template.shared and template.sharing is not None:
                others = sorted(w.name for w in config.workloads if w is not workload and w.team == workload.team and any(c.template == template.name for c in w.claims))
                if others or workload.replicas > 1:
                    with_whom = f"workloads {', '.join([workload.name, *others])}" if others else f"the {workload.replicas} replicas of {workload.name}"
                    yield r.SHARING_ISOLATION.problem(where + ("template",), f"{with_whom} share the GPUs of claim {template.name!r} through {template.sharing.strategy}: no memory protection or fault isolation between them")
        else:
            domain = domains.get(ref.compute_domain) if ref.compute_domain else None
            if domain is None or team_namespace(spec, domain.team) != namespace:
                yield r.CLAIM_REFERENCE.problem(where + ("compute_domain",), f"no ComputeDomain {ref.compute_domain!r} in namespace {namespace}")
    yield from _check_placement(base, workload.node_pool, gpus_claimed, config, pools)


def _exact_gpus(template: ClaimTemplate) -> int:
    """Whole GPUs a claim needs on one node, as far as the spec says (ExactCount of gpu.nvidia.com)."""
    total = 0
    for request in template.requests:
        if request.exactly and request.exactly.device_class_name == dev.GPU_CLASS and request.exactly.allocation_mode == "ExactCount":
            total += request.exactly.count or 1
    return total


def _check_placement(base: tuple, pool_name: str | None, gpus: int, config: Config, pools: dict[str, PoolFacts]) -> Iterator[Problem]:
    if pool_name is None:
        yield r.KARPENTER_CLAIMS.problem(base, "this pod asks for GPUs only through ResourceClaims, which Karpenter 1.14 ignores: set nodePool so it lands on GPU capacity")
        return
    pool = pools.get(pool_name)
    if pool is None or pool_name not in config.node_pools:
        yield r.NODE_POOL.problem(base + ("node_pool",), f"node pool {pool_name!r} is not one of dra.nodePools")
        return
    if pool.pool.replicas is not None:
        return  # static capacity: nodes exist before the pod
    small = sorted(t.name for t in pool.instance_types if t.gpu and t.gpu.count < gpus)
    if small:
        yield r.KARPENTER_CLAIMS.problem(base + ("node_pool",), f"the pod claims {gpus} GPUs on one node, but Karpenter 1.14 ignores claims and may launch {', '.join(small[:3])} with fewer; narrow the pool's instance types or make it static")


def _check_smoke_test(spec: Any, config: Config, pools: dict[str, PoolFacts]) -> Iterator[Problem]:
    test = config.smoke_test
    if test.enabled and test.node_pool is not None and test.node_pool not in config.node_pools:
        yield r.NODE_POOL.problem(("smoke_test", "node_pool"), f"node pool {test.node_pool!r} is not one of dra.nodePools")
