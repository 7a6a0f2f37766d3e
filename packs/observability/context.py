"""Everything the observability templates print, computed here so the templates stay plain."""

from __future__ import annotations

import urllib.parse
from typing import Any

from strata.pack import Facts, all_pool_facts

from . import alerts, dashboards, kuberay, metrics
from .config import Config, ExtraRule
from .selection import DCGM_CHART_NAMESPACE, GPU_OPERATOR_NAMESPACE, Monitor, gpu_operator_monitor_labels, labels_for


def gpu_operator(facts: Facts) -> Any:
    """The GPU Operator facts the compute pack exports (observability requires compute)."""
    return facts["compute"].gpu_operator


def nvidia_pools(spec: Any) -> bool:
    return any(f.nvidia for f in all_pool_facts(spec).values())


def gpu_operator_runs_exporter(spec: Any, op: Any) -> bool:
    return op.enabled and op.dcgm_exporter and nvidia_pools(spec)


def _relabelings(config: Config, spec: Any, *, node: bool = True) -> list[dict[str, Any]]:
    rules = []
    if node:
        rules.append({"action": "replace", "sourceLabels": ["__meta_kubernetes_pod_node_name"], "targetLabel": "node"})
    if config.cluster_label:
        rules.append({"action": "replace", "targetLabel": config.cluster_label, "replacement": spec.cluster.name})
    return rules


def _dcgm_relabelings(config: Config, spec: Any) -> list[dict[str, Any]]:
    # The exporter labels each GPU with the namespace/pod/container using it. Dropping the
    # exporter Pod's own target labels keeps those (instead of exported_pod...), so
    # {pod!=""} means "allocated"; node comes from service discovery, not Hostname.
    return _relabelings(config, spec) + [{"action": "labeldrop", "regex": "pod|namespace|container"}]


def monitors(spec: Any, config: Config, op: Any) -> list[Monitor]:
    """Every ServiceMonitor/PodMonitor strata renders or configures, for the selection check."""
    sm = labels_for(config, "ServiceMonitor")
    pm = labels_for(config, "PodMonitor")
    found = []
    if config.dcgm_exporter.source == "gpuOperator":
        if gpu_operator_runs_exporter(spec, op) and op.dcgm_service_monitor:
            found.append(Monitor("ServiceMonitor", GPU_OPERATOR_NAMESPACE, "nvidia-dcgm-exporter",
                                 gpu_operator_monitor_labels(config, op)))
    else:
        found.append(Monitor("ServiceMonitor", DCGM_CHART_NAMESPACE, "dcgm-exporter", sm))
    if config.karpenter.enabled:
        found.append(Monitor("ServiceMonitor", config.karpenter.namespace, "karpenter", sm))
    if neuron_monitor_on(spec, config):
        found.append(Monitor("PodMonitor", config.neuron_monitor.namespace, "neuron-monitor", pm))
    if config.kuberay.enabled:
        assert config.kuberay.namespace is not None  # kuberay.resolve() sets it
        found.append(Monitor("ServiceMonitor", config.kuberay.namespace, "kuberay-operator", sm))
        for ns in config.kuberay.ray_namespaces:
            found += [Monitor("PodMonitor", ns, "ray-head", pm), Monitor("PodMonitor", ns, "ray-workers", pm)]
    return found


def _service_monitors(spec: Any, config: Config) -> list[dict[str, Any]]:
    labels = labels_for(config, "ServiceMonitor")
    out: list[dict[str, Any]] = []
    if config.karpenter.enabled:
        ns = config.karpenter.namespace
        out.append({"name": "karpenter", "namespace": ns, "labels": labels,
                    "selector": {"app.kubernetes.io/name": "karpenter", "app.kubernetes.io/instance": "karpenter"},
                    "endpoint": {"port": "http-metrics", "path": "/metrics", "interval": "30s",
                                 **_optional("relabelings", _relabelings(config, spec, node=False))}})
    if config.kuberay.enabled:
        # honorLabels: the operator's kuberay_* series carry the RayCluster's namespace.
        out.append({"name": "kuberay-operator", "namespace": config.kuberay.namespace, "labels": labels,
                    "selector": {"app.kubernetes.io/name": "kuberay-operator"},
                    "endpoint": {"port": "http", "path": "/metrics", "interval": "30s", "honorLabels": True,
                                 **_optional("relabelings", _relabelings(config, spec, node=False))}})
    return out


def _pod_monitors(spec: Any, config: Config) -> list[dict[str, Any]]:
    labels = labels_for(config, "PodMonitor")
    out = []
    if neuron_monitor_on(spec, config):
        nm = config.neuron_monitor
        out.append({"name": "neuron-monitor", "namespace": nm.namespace, "labels": labels, "selector": NEURON_MONITOR_SELECTOR,
                    "endpoint": {"port": "metrics", "interval": nm.interval, **_optional("relabelings", _relabelings(config, spec))}})
    if not config.kuberay.enabled:
        return out
    for ns in config.kuberay.ray_namespaces:
        for name, node_type, job in (("ray-head", "head", "ray-head"), ("ray-workers", "worker", "ray-worker")):
            relabel = [
                {"action": "replace", "sourceLabels": ["__meta_kubernetes_pod_label_ray_io_cluster"], "targetLabel": "ray_io_cluster"},
                {"action": "replace", "targetLabel": "job", "replacement": job},
            ] + _relabelings(config, spec)
            out.append({"name": name, "namespace": ns, "labels": labels, "selector": {"ray.io/node-type": node_type},
                        "endpoint": {"port": "metrics", "interval": "30s", "relabelings": relabel}})
    return out


NEURON_MONITOR_PORT = 8000
NEURON_MONITOR_SELECTOR = {"app.kubernetes.io/name": "neuron-monitor"}


def neuron_pools(spec: Any) -> list[Any]:
    return [f for f in all_pool_facts(spec).values() if f.neuron]


def neuron_monitor_on(spec: Any, config: Config) -> bool:
    wanted = config.neuron_monitor.enabled
    return bool(neuron_pools(spec)) and (wanted is None or wanted)


def _neuron_monitor(spec: Any, config: Config) -> dict[str, Any] | None:
    if not neuron_monitor_on(spec, config):
        return None
    pools = neuron_pools(spec)
    tolerations: list[dict[str, Any]] = []
    for f in pools:
        tolerations += [t for t in f.tolerations if t not in tolerations]
    nm = config.neuron_monitor
    return {"namespace": nm.namespace, "image": nm.image, "port": NEURON_MONITOR_PORT, "selector": NEURON_MONITOR_SELECTOR,
            "instance_types": sorted({t.name for f in pools for t in f.instance_types}), "tolerations": tolerations,
            "prometheus_namespace": config.prometheus.namespace}


def _optional(key: str, value: Any) -> dict[str, Any]:
    return {key: value} if value else {}


def _gpu_operator_values(spec: Any, config: Config) -> dict[str, Any]:
    """Values added to the compute pack's gpu-operator release (its own overrides still win)."""
    if config.dcgm_exporter.source != "gpuOperator":
        return {}
    values: dict[str, Any] = {"dcgmExporter": {"serviceMonitor": {
        "interval": config.dcgm_exporter.interval,
        "additionalLabels": labels_for(config, "ServiceMonitor"),
        "relabelings": _dcgm_relabelings(config, spec),
    }}}
    if config.dcgm_exporter.xid_errors_count:
        values["dcgmExporter"]["config"] = {"name": "strata-dcgm-metrics", "create": True,
                                            "data": metrics.counter_list(True)}
    return values


def _dcgm_chart_values(spec: Any, config: Config, op: Any) -> dict[str, Any]:
    tolerations = op.tolerations
    values: dict[str, Any] = {
        "serviceMonitor": {"enabled": True, "interval": config.dcgm_exporter.interval,
                           "additionalLabels": labels_for(config, "ServiceMonitor"),
                           "relabelings": _dcgm_relabelings(config, spec)},
        "tolerations": [t.model_dump(exclude_none=True) for t in tolerations],
        # Only nodes with NVIDIA GPUs (Karpenter labels every node it launches).
        "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "karpenter.k8s.aws/instance-gpu-manufacturer", "operator": "In", "values": ["nvidia"]}]}]}}},
    }
    if config.dcgm_exporter.xid_errors_count:
        values["customMetrics"] = metrics.counter_list(True)
    return values


def _kube_prometheus_stack_values(spec: Any, config: Config) -> dict[str, Any]:
    prom = config.prometheus
    storage: dict[str, Any] = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": prom.storage_size}}}
    if prom.storage_class:
        storage["storageClassName"] = prom.storage_class
    return {
        "retention": prom.retention,
        "storage": storage,
        "external_labels": {config.cluster_label: spec.cluster.name} if config.cluster_label else {},
        "remote_write": [w.model_dump() for w in prom.remote_write],
        "grafana": prom.grafana,
        "grafana_admin_secret": prom.grafana_admin_secret,
        "dashboard_label": config.dashboards.label,
        "dashboard_label_value": config.dashboards.label_value,
        # The sidecar loads dashboards from strata's dashboard namespace only: any namespace
        # (a team's) could otherwise inject dashboards (and their data source queries).
        "dashboard_namespace": config.dashboards.namespace or prom.namespace,
    }


def extra_rule(rule: ExtraRule) -> dict[str, Any]:
    """One of observability.extraRules as the PrometheusRule holds it (and promtool checks it)."""
    return {k: v for k, v in rule.model_dump(by_alias=True, exclude_none=True).items() if v not in ({}, None)}


def _remote_write_ports(prom: Any) -> list[int]:
    ports = set()
    for target in prom.remote_write:
        url = urllib.parse.urlsplit(target.url)
        ports.add(url.port or (443 if url.scheme == "https" else 80))
    return sorted(ports)


def _monitoring_isolation(prom: Any, tenancy: Any) -> dict[str, Any]:
    """kube-prometheus-stack's namespace: default-deny ingress and egress, and the egress each
    component needs. All of them: DNS and the API server (the operator, kube-state-metrics,
    Prometheus' service discovery, Grafana's dashboard sidecar, the webhook certificate Jobs).
    Prometheus: every namespace and every private address (it scrapes Pods in all namespaces,
    the kubelets and node exporters on the nodes' addresses) and its remote-write endpoints with
    the Pod Identity agent for SigV4. Alertmanager: receivers on public addresses. Without the
    tenancy pack, egress stays open (its facts carry the API server's addresses)."""
    egress: list[dict[str, Any]] = []
    if tenancy is not None:
        public = tenancy.public_https()
        egress = [
            {"name": "allow-dns-and-api-server", "pod_selector": {}, "rules": [tenancy.dns(), tenancy.api_server()]},
            {"name": "allow-prometheus-scrapes", "pod_selector": {"matchLabels": {"app.kubernetes.io/name": "prometheus"}},
             "rules": [{"to": [{"namespaceSelector": {}}]}, tenancy.private_addresses()]},
            {"name": "allow-alertmanager-receivers", "pod_selector": {"matchLabels": {"app.kubernetes.io/name": "alertmanager"}},
             "rules": [{"to": public["to"]}]},
        ]
        ports = _remote_write_ports(prom)
        if ports:
            egress.append({"name": "allow-prometheus-remote-write",
                           "pod_selector": {"matchLabels": {"app.kubernetes.io/name": "prometheus"}},
                           "rules": [{"to": public["to"], "ports": [{"protocol": "TCP", "port": p} for p in ports]},
                                     tenancy.pod_identity_agent()]})
    return {"namespace": prom.namespace, "query_namespaces": sorted(prom.query_namespaces), "egress": egress}


def context(spec: Any, config: Config, facts: Facts) -> dict[str, Any]:
    config = kuberay.resolve(facts, config)
    prom = config.prometheus
    karpenter = config.karpenter.enabled
    ray = bool(config.kuberay.enabled and config.kuberay.ray_namespaces)
    rule_groups = alerts.groups(config, karpenter=karpenter, ray=ray)
    if config.extra_rules:
        rule_groups.append({"name": "strata-extra", "rules": [extra_rule(r) for r in config.extra_rules]})
    dash_ns = config.dashboards.namespace or prom.namespace
    return {
        "namespace": prom.namespace,
        "install_prometheus": prom.install,
        "kube_prometheus_stack": _kube_prometheus_stack_values(spec, config),
        "rules": {"name": "strata-gpu-platform", "namespace": prom.namespace,
                  "labels": labels_for(config, "PrometheusRule"), "groups": rule_groups},
        "service_monitors": _service_monitors(spec, config),
        "pod_monitors": _pod_monitors(spec, config),
        "neuron_monitor": _neuron_monitor(spec, config),
        "dcgm_chart": config.dcgm_exporter.source == "chart",
        "dcgm_chart_values": _dcgm_chart_values(spec, config, gpu_operator(facts)),
        "gpu_operator_values": _gpu_operator_values(spec, config),
        "monitoring_isolation": _monitoring_isolation(prom, facts["tenancy"]) if prom.install else None,
        "dashboards": dashboards.config_maps(config, karpenter=karpenter, namespace=dash_ns) if config.dashboards.enabled else [],
    }
