"""strata's Prometheus rules as data. Dashboards reuse these expressions (and the recorded
series), so a panel shows exactly what an alert evaluates. In multi-cluster mode every
aggregation and join carries the cluster label."""

from __future__ import annotations

import dataclasses
from typing import Any

from . import metrics
from .config import Config

RUNBOOK_XID = "https://docs.nvidia.com/deploy/xid-errors/"


@dataclasses.dataclass(frozen=True)
class Labels:
    """Label lists for `by (...)` and `on (...)`, with the cluster label first when set."""

    cluster: str | None

    def __call__(self, *names: str) -> str:
        return ", ".join(((self.cluster,) if self.cluster else ()) + names)


@dataclasses.dataclass(frozen=True)
class Expressions:
    framebuffer_ratio: str
    pending_gpu_pods: str
    gpu_utilization: str
    xid: str
    xid_count: str
    karpenter_launch_failures: str
    karpenter_nodes_by_pool: str
    ray_head_down: str


# Recorded series (level:metric:operation), the names dashboards query.
FB_RATIO = "gpu:framebuffer_used:ratio"
PENDING = "cluster:gpu_pods_pending:count"
NODE_UTIL = "node:gpu_utilization:avg"
POD_UTIL = "pod:gpu_utilization:avg"
NODE_FB = "node:gpu_framebuffer_used:max_ratio"
POD_FB = "pod:gpu_framebuffer_used:max_ratio"
POOL_NODES = "nodepool:karpenter_nodes:count"


def recordings(config: Config) -> dict[str, str]:
    """Recorded series -> expression, in evaluation order (later ones read earlier ones)."""
    e = expressions(config)
    by = Labels(config.cluster_label)
    return {
        FB_RATIO: e.framebuffer_ratio,
        NODE_UTIL: f'avg by ({by("node")}) ({e.gpu_utilization})',
        POD_UTIL: f'avg by ({by("namespace", "pod")}) ({e.gpu_utilization}{{pod!=""}})',
        NODE_FB: f'max by ({by("node")}) ({FB_RATIO})',
        POD_FB: f'max by ({by("namespace", "pod")}) ({FB_RATIO}{{pod!=""}})',
        PENDING: e.pending_gpu_pods,
    }


def expressions(config: Config) -> Expressions:
    by = Labels(config.cluster_label)
    pod_gpu_requests = f'max by ({by("namespace", "pod")}) (kube_pod_container_resource_requests{{resource="nvidia_com_gpu"}} > 0)'
    pod_pending = f'max by ({by("namespace", "pod")}) (kube_pod_status_phase{{phase="Pending"}} == 1)'
    head_up = f'max by ({by("namespace", "ray_io_cluster")}) (up{{job="ray-head"}})'
    provisioned = ('label_replace(kuberay_cluster_condition_provisioned{condition="true"} == 1, '
                   '"ray_io_cluster", "$1", "name", "(.+)")')
    head_down = f"({head_up} == 0)"
    if config.kuberay.enabled:
        # A provisioned RayCluster whose head is not even a target (Pod gone) is down too.
        head_down += f' or (max by ({by("namespace", "ray_io_cluster")}) ({provisioned}) unless on ({by("namespace", "ray_io_cluster")}) {head_up} == 1)'
    return Expressions(
        # Both gauges are MiB and share every label, so they divide one-to-one into 0-1.
        framebuffer_ratio=f"{metrics.FRAMEBUFFER[0]} / ({metrics.FRAMEBUFFER[0]} + {metrics.FRAMEBUFFER[1]})",
        # One series per Pod however many containers request GPUs.
        pending_gpu_pods=(f"count by ({by()}) ({pod_gpu_requests} and on ({by('namespace', 'pod')}) {pod_pending})"
                          if config.cluster_label else f"count({pod_gpu_requests} and on ({by('namespace', 'pod')}) {pod_pending})"),
        gpu_utilization="DCGM_FI_DEV_GPU_UTIL",
        # The gauge holds the code of the last XID: any non-zero value is an error, and a
        # change of code (31 then 13) is a new error, never a counter reset.
        xid=f"{metrics.XID_GAUGE} != 0",
        xid_count=f"{metrics.XID_COUNT} > 0",
        karpenter_launch_failures=(f'sum by ({by("capacity_type", "reason")}) '
                                   "(increase(karpenter_cloudprovider_instance_launch_failures_total[10m])) > 0"),
        # One allocatable-cpu series per node, so counting them counts nodes.
        karpenter_nodes_by_pool=f'count by ({by("nodepool")}) (karpenter_nodes_allocatable{{resource_type="cpu"}})',
        ray_head_down=head_down,
    )


def _alert(name: str, expr: str, for_: str | None, severity: str, summary: str, description: str) -> dict[str, Any]:
    rule: dict[str, Any] = {"alert": name, "expr": expr}
    if for_:
        rule["for"] = for_
    rule["labels"] = {"severity": severity}
    rule["annotations"] = {"summary": summary, "description": description}
    return rule


def groups(config: Config, karpenter: bool, ray: bool) -> list[dict[str, Any]]:
    """The rule groups strata emits, each later wrapped in one PrometheusRule."""
    e = expressions(config)
    t = config.thresholds
    on = "{{ $labels.node }} GPU {{ $labels.gpu }} ({{ $labels.modelName }})"
    gpu_rules: list[dict[str, Any]] = [{"record": name, "expr": expr} for name, expr in recordings(config).items()] + [
        _alert("GPUFramebufferNearlyFull", f"{FB_RATIO} > {t.framebuffer_used_ratio:g}", t.framebuffer_for, "warning",
               f"{on} has used {{{{ $value | humanizePercentage }}}} of its framebuffer",
               f"FB_USED / (FB_USED + FB_FREE) stayed above {t.framebuffer_used_ratio:g} for {t.framebuffer_for} "
               "(observability.thresholds.framebufferUsedRatio, a choice for this platform). "
               "Out-of-memory errors follow if the workload grows."),
        _alert("GPUXidErrorReported", e.xid, None, "warning",
               f"{on} reported XID {{{{ $value }}}}",
               "DCGM_FI_DEV_XID_ERRORS holds the code of the last XID error (a gauge, not a count). "
               f"Look the code up in {RUNBOOK_XID}; codes such as 48, 63, 64, 74, 79, 94 and 95 point at "
               "hardware and call for draining the node."),
        _alert("GPUPodsPending", f"{PENDING} > 0", t.pending_gpu_pods_for, "warning",
               "{{ $value }} Pods requesting GPUs have been Pending",
               "Counted once per Pod. Pending does not prove a GPU shortage: quotas, taints, node selectors, "
               "volume binding, image pulls or a NodePool limit keep Pods Pending too; check the Pods' events "
               f"(observability.thresholds.pendingGpuPodsFor: {t.pending_gpu_pods_for})."),
        _alert("GPUIdleWhileAllocated",
               f"max_over_time({e.gpu_utilization}{{pod!=\"\"}}[5m]) < {t.gpu_idle_utilization_percent:g}",
               t.gpu_idle_for, "info",
               f"{on} allocated to {{{{ $labels.namespace }}}}/{{{{ $labels.pod }}}} is idle",
               f"GPU utilization stayed below {t.gpu_idle_utilization_percent:g}% for {t.gpu_idle_for} while a Pod "
               "holds the GPU (observability.thresholds.gpuIdleUtilizationPercent / gpuIdleFor)."),
    ]
    if config.dcgm_exporter.xid_errors_count:
        gpu_rules.append(_alert(
            "GPUXidErrorsCounted", e.xid_count, None, "warning",
            f"{on} reported XID {{{{ $labels.xid }}}} {{{{ $value }}}} times in the exporter's window",
            "DCGM_EXP_XID_ERRORS_COUNT counts XIDs per code over the exporter's sliding window "
            f"(--xid-count-window-size), so it is compared with 0, not fed to increase(). See {RUNBOOK_XID}."))
    result = [{"name": "strata-gpu", "rules": gpu_rules}]
    if karpenter:
        result.append({"name": "strata-karpenter", "rules": [{"record": POOL_NODES, "expr": e.karpenter_nodes_by_pool}, _alert(
            "KarpenterInstanceLaunchFailing", e.karpenter_launch_failures, t.karpenter_launch_failures_for, "warning",
            "Karpenter keeps failing to launch {{ $labels.capacity_type }} instances: {{ $labels.reason }}",
            "CreateFleet offerings failed in every 10-minute window for "
            f"{t.karpenter_launch_failures_for} (observability.thresholds.karpenterLaunchFailuresFor). "
            "Karpenter retries other offerings; a reason such as InsufficientInstanceCapacity that persists "
            "means the pool's instance types or zones cannot be had.")]})
    if ray:
        result.append({"name": "strata-ray", "rules": [_alert(
            "RayHeadUnavailable", e.ray_head_down, t.ray_head_unavailable_for, "critical",
            "Ray head of {{ $labels.namespace }}/{{ $labels.ray_io_cluster }} is unavailable",
            "The head Pod's metrics endpoint is down or the Pod is gone; jobs cannot be submitted and the "
            f"autoscaler stops (observability.thresholds.rayHeadUnavailableFor: {t.ray_head_unavailable_for}).")]})
    return result
