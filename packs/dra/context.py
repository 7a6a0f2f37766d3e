"""Everything the dra templates print, computed here so the templates stay plain."""

from __future__ import annotations

from typing import Any

from strata.pack import RESTRICTED_CONTAINER, Facts, PoolFacts, all_pool_facts, smoke_test_job

from . import devices as dev, quota as q
from .config import ClaimRef, ClaimTemplate, Config, DeviceRequest, Sharing, Workload
from .platform import driver_mode, gpu_operator, team_namespace, template_namespaces

SMOKE_TEMPLATE = "single-gpu"
# Non-root identity of the pods strata writes (Pod Security "restricted" in team namespaces).
POD_USER = 1000
POD_GROUP = 1000
SMOKE_USER = 65534


def context(spec: Any, config: Config, facts: Facts) -> dict[str, Any]:
    op = gpu_operator(facts)
    pools = all_pool_facts(spec)
    dra_pools = [pools[n] for n in config.node_pools if n in pools]
    templates = [t for t in config.claim_templates if not t.shared]
    shared = [t for t in config.claim_templates if t.shared]
    smoke_pool = pools.get(config.smoke_test.node_pool or config.node_pools[0])
    return {
        "api_version": dev.api_version(spec.cluster.kubernetes_version),
        "standalone_driver": driver_mode(op, config) == "standalone",
        "driver": _driver_values(op, config, dra_pools),
        "device_classes": [{"name": c.name, "selectors": _selectors(c.selectors)} for c in config.device_classes],
        "claim_templates": [_claim(spec, t, ns) for t in templates for ns in template_namespaces(spec, t)],
        "shared_claims": [_claim(spec, t, ns) for t in shared for ns in template_namespaces(spec, t)],
        "compute_domains": [_compute_domain(spec, d) for d in config.compute_domains],
        "workloads": [_workload(spec, config, w, pools) for w in config.workloads],
        "smoke_test": _smoke_test(config, smoke_pool) if config.smoke_test.enabled and smoke_pool else None,
        "team_quotas": _team_quotas(spec, config),
    }


def _team_quotas(spec: Any, config: Config) -> list[dict[str, Any]]:
    """A second ResourceQuota per team with a quota: the team's GPU cap on every GPU DeviceClass
    (Kubernetes enforces every quota of a namespace), and a cap on its ResourceClaims."""
    classes = q.quota_classes([c.name for c in config.device_classes])
    return [{"namespace": t.namespace_name, "hard": q.hard(t.quota.gpus, q.claim_cap(t.quota), classes)}
            for t in spec.teams if t.quota is not None]


def _driver_values(op: Any | None, config: Config, dra_pools: list[PoolFacts]) -> dict[str, Any]:
    operator_driver = op is not None and op.enabled and op.driver == "operator"
    tolerations: list[dict[str, Any]] = []
    for f in dra_pools:
        tolerations += [t for t in f.tolerations if t not in tolerations]
    return {
        # "/" for the driver the EKS NVIDIA AMIs install on the host; the GPU Operator's
        # driver container mounts it under /run/nvidia/driver instead.
        "driver_root": "/run/nvidia/driver" if operator_driver else "/",
        "compute_domains": bool(config.compute_domains),
        "feature_gates": dict(sorted(config.feature_gates.items())),
        "tolerations": tolerations,
        "node_pools": [f.pool.name for f in dra_pools],
    }


def _selectors(expressions: tuple[str, ...]) -> list[dict[str, Any]]:
    return [{"cel": {"expression": e}} for e in expressions]


def _device(request: DeviceRequest) -> dict[str, Any]:
    out: dict[str, Any] = {"deviceClassName": request.device_class_name}
    if request.selectors:
        out["selectors"] = _selectors(request.selectors)
    out["allocationMode"] = request.allocation_mode
    if request.allocation_mode == "ExactCount":
        out["count"] = request.count or 1
    return out


def _sharing(sharing: Sharing) -> dict[str, Any]:
    if sharing.strategy == "MPS":
        mps = {"defaultActiveThreadPercentage": sharing.active_thread_percentage,
               "defaultPinnedDeviceMemoryLimit": sharing.pinned_device_memory_limit}
        settings = {"mpsConfig": {k: v for k, v in mps.items() if v is not None}}
    else:
        settings = {"timeSlicingConfig": {"interval": sharing.interval}} if sharing.interval else {}
    config: dict[str, Any] = {"opaque": {"driver": dev.GPU_DOMAIN, "parameters": {
        "apiVersion": "resource.nvidia.com/v1beta1", "kind": "GpuConfig",
        "sharing": {"strategy": sharing.strategy, **{k: v for k, v in settings.items() if v}},
    }}}
    if sharing.requests:
        config = {"requests": list(sharing.requests), **config}
    return config


def claim_spec(template: ClaimTemplate) -> dict[str, Any]:
    """The ResourceClaimSpec (resource.k8s.io/v1 shape: requests[].exactly or firstAvailable)."""
    requests: list[dict[str, Any]] = []
    for request in template.requests:
        if request.exactly is not None:
            requests.append({"name": request.name, "exactly": _device(request.exactly)})
        else:
            requests.append({"name": request.name, "firstAvailable": [{"name": s.name, **_device(s)} for s in request.first_available]})
    devices: dict[str, Any] = {"requests": requests}
    if template.constraints:
        devices["constraints"] = [
            {**({"requests": list(c.requests)} if c.requests else {}), "matchAttribute": c.match_attribute}
            for c in template.constraints
        ]
    if template.sharing is not None:
        devices["config"] = [_sharing(template.sharing)]
    return {"devices": devices}


def _claim(spec: Any, template: ClaimTemplate, namespace: str) -> dict[str, Any]:
    return {"name": template.name, "namespace": namespace, "spec": claim_spec(template)}


def _compute_domain(spec: Any, domain: Any) -> dict[str, Any]:
    return {
        "name": domain.name,
        "namespace": team_namespace(spec, domain.team),
        # Both CRD copies accept it; the GPU Operator's requires it.
        "num_nodes": domain.num_nodes,
        "allocation_mode": domain.allocation_mode,
        "channel_template": channel_template(domain.name),
    }


def channel_template(domain: str) -> str:
    """The ResourceClaimTemplate the DRA driver creates for a ComputeDomain's IMEX channel."""
    return f"{domain}-channel"


def _pod_claim(ref: ClaimRef, shared: set[str]) -> dict[str, str]:
    if ref.compute_domain:
        return {"name": ref.name, "resourceClaimTemplateName": channel_template(ref.compute_domain)}
    assert ref.template is not None  # ClaimRef validates: exactly one of template and computeDomain
    key = "resourceClaimName" if ref.template in shared else "resourceClaimTemplateName"
    return {"name": ref.name, key: ref.template}


def _workload(spec: Any, config: Config, workload: Workload, pools: dict[str, PoolFacts]) -> dict[str, Any]:
    shared = {t.name for t in config.claim_templates if t.shared}
    pool = pools[workload.node_pool] if workload.node_pool else None
    container: dict[str, Any] = {"name": "main", "image": workload.image}
    if workload.command:
        container["command"] = list(workload.command)
    if workload.args:
        container["args"] = list(workload.args)
    container["resources"] = {
        "requests": {"cpu": workload.cpu, "memory": workload.memory},
        "limits": {"memory": workload.memory},
        "claims": [{"name": ref.name} for ref in workload.claims],
    }
    if workload.volumes:
        container["volumeMounts"] = [
            {"name": v.claim, "mountPath": v.mount_path, **({"readOnly": True} if v.read_only else {})} for v in workload.volumes
        ]
    if workload.kind == "Deployment" and workload.port:
        container["ports"] = [{"name": "http", "containerPort": workload.port}]
        probe = {"httpGet": {"path": workload.health_path, "port": "http"}, "periodSeconds": 10}
        # Loading a model takes minutes: the startup probe holds the others back; readiness
        # (the health endpoint) gates traffic; liveness restarts a server whose port is gone,
        # not one that is busy (a failing /health is not a reason to drop a loaded model).
        container["startupProbe"] = {**probe, "failureThreshold": 90}
        container["readinessProbe"] = {**probe, "failureThreshold": 3}
        container["livenessProbe"] = {"tcpSocket": {"port": "http"}, "periodSeconds": 20, "failureThreshold": 3}
    container["securityContext"] = RESTRICTED_CONTAINER
    pod: dict[str, Any] = {"restartPolicy": "Never"} if workload.kind == "Job" else {}
    pod["automountServiceAccountToken"] = False  # the workload never calls the Kubernetes API
    if workload.kind == "Deployment" and workload.replicas > 1:
        # Replicas on different nodes, so one node's loss does not take the service down.
        pod["affinity"] = {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{
            "weight": 100, "podAffinityTerm": {"topologyKey": "kubernetes.io/hostname",
                                               "labelSelector": {"matchLabels": {"app.kubernetes.io/name": workload.name}}}}]}}
    if pool is not None:
        pod["nodeSelector"] = pool.node_selector
        if pool.tolerations:
            pod["tolerations"] = pool.tolerations
    pod["securityContext"] = _pod_security(fs_group=bool(workload.volumes))
    pod["resourceClaims"] = [_pod_claim(ref, shared) for ref in workload.claims]
    pod["containers"] = [container]
    if workload.volumes:
        pod["volumes"] = [{"name": v.claim, "persistentVolumeClaim": {"claimName": v.claim}} for v in workload.volumes]
    return {"name": workload.name, "namespace": team_namespace(spec, workload.team), "kind": workload.kind,
            "replicas": workload.replicas, "pod": pod}


def _pod_security(fs_group: bool) -> dict[str, Any]:
    security: dict[str, Any] = {"runAsNonRoot": True, "runAsUser": POD_USER, "runAsGroup": POD_GROUP}
    if fs_group:
        security["fsGroup"] = POD_GROUP
    security["seccompProfile"] = {"type": "RuntimeDefault"}
    return security


def _smoke_test(config: Config, pool: PoolFacts) -> dict[str, Any]:
    # nvidia-smi needs no user of its own: nobody, like the compute pack's.
    return smoke_test_job(config.smoke_test, "dra-smoke-test", pool, run_as=SMOKE_USER, claim_template=SMOKE_TEMPLATE)
