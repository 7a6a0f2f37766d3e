"""The ``observability`` section of the Platform spec. Every threshold has a documented
default that suits a typical training/inference fleet; they are the user's to change, not
universal truths (see README.md)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from strata.pack import ChartOverrides, DnsLabel, LabelKey, LabelValue, PrometheusDuration, Quantity, StrictModel

Labels = dict[LabelKey, LabelValue]
# Where pack.yaml installs kube-prometheus-stack, and the release label its Prometheus selects.
KPS_NAMESPACE = "monitoring"
KPS_RELEASE = "kube-prometheus-stack"


class RemoteWrite(StrictModel):
    url: Annotated[str, Field(pattern=r"^https?://.+")]


class Prometheus(ChartOverrides):
    # install: strata installs kube-prometheus-stack 88.5.3 (release kube-prometheus-stack in
    # namespace monitoring); its Prometheus selects objects labelled release=kube-prometheus-stack.
    # false: describe the existing Prometheus strata targets.
    install: bool = True
    namespace: DnsLabel = KPS_NAMESPACE  # an existing Prometheus's namespace; rules and dashboards go there
    # Existing Prometheus only: its spec.ruleSelector / serviceMonitorSelector /
    # podMonitorSelector matchLabels, copied from `kubectl get prometheus -o yaml`.
    # Unset means the field is absent there, and a nil selector selects nothing.
    rule_selector: Labels | None = None
    service_monitor_selector: Labels | None = None
    pod_monitor_selector: Labels | None = None
    # Namespaces its *NamespaceSelector fields cover; unset means every namespace ({}).
    monitor_namespaces: tuple[DnsLabel, ...] | None = None
    # Existing Prometheus only: it (or the ruler evaluating these rules) sees several clusters.
    shared: bool = False
    # Install only.
    retention: PrometheusDuration = "15d"
    storage_size: Quantity = "100Gi"
    storage_class: str | None = None  # the cluster's default StorageClass when unset
    remote_write: tuple[RemoteWrite, ...] = ()
    grafana: bool = True
    # Install only: the monitoring namespace denies ingress except from itself, the API server
    # to the operator's webhook, and these namespaces (ingress controllers, KEDA or an adapter
    # that query Prometheus on 9090, users of Grafana on 3000). Team Pods are not among them:
    # Prometheus' query API is unauthenticated.
    query_namespaces: tuple[DnsLabel, ...] = ()
    grafana_admin_secret: DnsLabel | None = None  # keys admin-user / admin-password; else the chart generates one

    @model_validator(mode="after")
    def _installed_namespace(self) -> Prometheus:
        if self.install and self.namespace != KPS_NAMESPACE:
            raise ValueError(f"strata installs kube-prometheus-stack into {KPS_NAMESPACE}; namespace is for an existing Prometheus (install: false)")
        return self


class DcgmExporter(ChartOverrides):
    # gpuOperator: the GPU Operator's exporter and ServiceMonitor (compute.gpuOperator.dcgmExporter);
    # chart: the standalone dcgm-exporter chart 4.8.2. Exactly one may run.
    source: Literal["gpuOperator", "chart"] = "gpuOperator"
    interval: PrometheusDuration = "15s"
    # Also export DCGM_EXP_XID_ERRORS_COUNT (XIDs per code in a sliding window), off by default.
    xid_errors_count: bool = False


class Karpenter(StrictModel):
    enabled: bool = True
    namespace: DnsLabel = "kube-system"  # where the compute pack installs Karpenter


class KubeRay(StrictModel):
    # Unset: on when the jark pack installs KubeRay (jark.kuberay), off otherwise.
    enabled: bool | None = None
    # The operator's namespace. Unset: the jark pack's kuberay-operator release namespace, or
    # kuberay-operator for a KubeRay strata does not install.
    namespace: DnsLabel | None = None
    # Namespaces running RayClusters; their head and worker Pods get PodMonitors. The team
    # namespaces of jark.kuberay.clusters are added without being listed here.
    ray_namespaces: tuple[DnsLabel, ...] = ()


class NeuronMonitor(StrictModel):
    # Unset: on when a node pool has Inferentia/Trainium devices (the compute pack's Neuron pools).
    enabled: bool | None = None
    namespace: DnsLabel = "neuron-monitor"
    # AWS Neuron's k8s-neuron-monitor-daemonset image: neuron-monitor plus its Prometheus exporter.
    image: Annotated[str, Field(pattern=r"^[a-z0-9][a-zA-Z0-9._/:@-]*$")] = "public.ecr.aws/neuron/neuron-monitor:1.0.0"
    interval: PrometheusDuration = "30s"


class Thresholds(StrictModel):
    framebuffer_used_ratio: Annotated[float, Field(gt=0)] = 0.95  # of FB_USED + FB_FREE, 0-1
    framebuffer_for: PrometheusDuration = "10m"
    gpu_idle_utilization_percent: Annotated[float, Field(ge=0, le=100)] = 5
    gpu_idle_for: PrometheusDuration = "1h"
    pending_gpu_pods_for: PrometheusDuration = "15m"
    karpenter_launch_failures_for: PrometheusDuration = "30m"
    ray_head_unavailable_for: PrometheusDuration = "5m"


class Dashboards(StrictModel):
    enabled: bool = True
    namespace: DnsLabel | None = None  # defaults to prometheus.namespace
    # The Grafana sidecar's label; kube-prometheus-stack watches grafana_dashboard="1".
    label: LabelKey = "grafana_dashboard"
    label_value: LabelValue = "1"


class ExtraRule(StrictModel):
    alert: Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")] | None = None
    record: Annotated[str, Field(pattern=r"^[a-zA-Z_:][a-zA-Z0-9_:]*$")] | None = None
    expr: str
    for_: PrometheusDuration | None = Field(None, alias="for")
    labels: dict[str, str] = {}
    annotations: dict[str, str] = {}


class Config(StrictModel):
    prometheus: Prometheus = Prometheus()
    # Multi-cluster: the name of the label that tells clusters apart (its value is
    # cluster.name). Every aggregation and join in strata's rules keeps it.
    cluster_label: Annotated[str, Field(pattern=r"^[a-zA-Z_][a-zA-Z0-9_]*$")] | None = None
    dcgm_exporter: DcgmExporter = DcgmExporter()
    karpenter: Karpenter = Karpenter()
    kuberay: KubeRay = KubeRay()
    neuron_monitor: NeuronMonitor = NeuronMonitor()
    thresholds: Thresholds = Thresholds()
    dashboards: Dashboards = Dashboards()
    extra_rules: tuple[ExtraRule, ...] = ()
