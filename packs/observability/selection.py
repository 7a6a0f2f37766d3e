"""Which Prometheus selects what: the labels strata puts on its monitors and rules, and the
monitors (strata's and the GPU Operator's) checked against the target Prometheus."""

from __future__ import annotations

import dataclasses
from typing import Any

from pydantic.alias_generators import to_camel

from .config import KPS_RELEASE, Config, Labels

GPU_OPERATOR_NAMESPACE = "gpu-operator"  # the compute pack's gpu-operator release namespace
DCGM_CHART_NAMESPACE = "dcgm-exporter"  # pack.yaml's dcgm-exporter release namespace
KINDS = {"PrometheusRule": "rule_selector", "ServiceMonitor": "service_monitor_selector", "PodMonitor": "pod_monitor_selector"}


@dataclasses.dataclass(frozen=True)
class Monitor:
    kind: str
    namespace: str
    name: str
    labels: Labels


def selector(config: Config, kind: str) -> Labels | None:
    """matchLabels of the Prometheus for this kind; None when it selects nothing."""
    prom = config.prometheus
    if prom.install:
        # kube-prometheus-stack's *SelectorNilUsesHelmValues default: release=<release name>.
        return {"release": KPS_RELEASE}
    return getattr(prom, KINDS[kind])


def labels_for(config: Config, kind: str) -> Labels:
    return dict(selector(config, kind) or {})


def gpu_operator_monitor_labels(config: Config, op: Any) -> Labels:
    """The labels the GPU Operator's ServiceMonitor ends up with: strata's, then the user's overrides."""
    overrides = op.values_overrides.get("dcgmExporter", {}).get("serviceMonitor", {})
    return {**labels_for(config, "ServiceMonitor"), **(overrides.get("additionalLabels") or {})}


def why_not_selected(config: Config, monitor: Monitor) -> tuple[str, str] | None:
    """(what to blame: selector | labels | namespace, why) when the Prometheus ignores the object."""
    wanted = selector(config, monitor.kind)
    field = to_camel(KINDS[monitor.kind])
    if wanted is None:
        return "selector", f"the Prometheus has no {field}, so it selects no {monitor.kind} at all"
    missing = {k: v for k, v in wanted.items() if monitor.labels.get(k) != v}
    if missing:
        shown = ", ".join(f"{k}={v}" for k, v in sorted(missing.items()))
        return "labels", f"{monitor.kind} {monitor.namespace}/{monitor.name} lacks {shown}, which the Prometheus's {field} requires"
    namespaces = config.prometheus.monitor_namespaces
    if namespaces is not None and monitor.namespace not in namespaces:
        return "namespace", (f"{monitor.kind} {monitor.namespace}/{monitor.name} is in a namespace the Prometheus "
                             f"does not watch (monitorNamespaces: {', '.join(namespaces) or 'none'})")
    return None
