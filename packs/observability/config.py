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
    url: Annotated[str, Field(pattern=r"^https?://.+")]  # the remote-write endpoint of the installed Prometheus


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
    service_monitor_selector: Labels | None = None  # the existing Prometheus's spec.serviceMonitorSelector matchLabels; strata labels its ServiceMonitors with them
    pod_monitor_selector: Labels | None = None  # the existing Prometheus's spec.podMonitorSelector matchLabels; strata labels its PodMonitors with them
    # Namespaces its *NamespaceSelector fields cover; unset means every namespace ({}).
    monitor_namespaces: tuple[DnsLabel, ...] | None = None
    # Existing Prometheus only: it (or the ruler evaluating these rules) sees several clusters.
    shared: bool = False
    # Install only.
    retention: PrometheusDuration = "15d"
    storage_size: Quantity = "100Gi"  # install only: the size of Prometheus's persistent volume
    storage_class: str | None = None  # the cluster's default StorageClass when unset
    remote_write: tuple[RemoteWrite, ...] = ()  # install only: remote-write targets of the installed Prometheus
    grafana: bool = True  # install only: install Grafana with kube-prometheus-stack
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
    interval: PrometheusDuration = "15s"  # the scrape interval of the DCGM exporter's ServiceMonitor
    # Also export DCGM_EXP_XID_ERRORS_COUNT (XIDs per code in a sliding window), off by default.
    xid_errors_count: bool = False


class Karpenter(StrictModel):
    enabled: bool = True  # a ServiceMonitor for Karpenter's controller and the strata-karpenter rules
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
    namespace: DnsLabel = "neuron-monitor"  # the namespace of the neuron-monitor DaemonSet
    # AWS Neuron's k8s-neuron-monitor-daemonset image: neuron-monitor plus its Prometheus exporter.
    image: Annotated[str, Field(pattern=r"^[a-z0-9][a-zA-Z0-9._/:@-]*$")] = "public.ecr.aws/neuron/neuron-monitor:1.0.0"
    interval: PrometheusDuration = "30s"  # the scrape interval of neuron-monitor's PodMonitor


class Thresholds(StrictModel):
    framebuffer_used_ratio: Annotated[float, Field(gt=0)] = 0.95  # of FB_USED + FB_FREE, 0-1
    framebuffer_for: PrometheusDuration = "10m"  # how long framebufferUsedRatio must hold before GPUFramebufferNearlyFull fires
    gpu_idle_utilization_percent: Annotated[float, Field(ge=0, le=100)] = 5  # GPUIdleWhileAllocated: GPU utilization (percent, 0-100) below which an allocated GPU counts as idle
    gpu_idle_for: PrometheusDuration = "1h"  # how long an allocated GPU must stay idle before GPUIdleWhileAllocated fires
    pending_gpu_pods_for: PrometheusDuration = "15m"  # how long GPU-requesting Pods must stay Pending before GPUPodsPending fires
    karpenter_launch_failures_for: PrometheusDuration = "30m"  # how long instance launches must keep failing before KarpenterInstanceLaunchFailing fires
    ray_head_unavailable_for: PrometheusDuration = "5m"  # how long a Ray head must be down before RayHeadUnavailable fires


class Dashboards(StrictModel):
    enabled: bool = True  # render strata's Grafana dashboards as ConfigMaps
    namespace: DnsLabel | None = None  # defaults to prometheus.namespace
    # The Grafana sidecar's label; kube-prometheus-stack watches grafana_dashboard="1".
    label: LabelKey = "grafana_dashboard"
    label_value: LabelValue = "1"  # the value of that label on the dashboard ConfigMaps


class ExtraRule(StrictModel):
    alert: Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")] | None = None  # the alert's name (set alert or record)
    record: Annotated[str, Field(pattern=r"^[a-zA-Z_:][a-zA-Z0-9_:]*$")] | None = None  # the recorded series' name (set alert or record)
    expr: str  # the PromQL expression, checked before rendering
    for_: PrometheusDuration | None = Field(None, alias="for")  # how long the alert's condition must hold before it fires
    labels: dict[str, str] = {}  # labels added to the alert or recorded series
    annotations: dict[str, str] = {}  # the alert's annotations (summary, description ...)


class Config(StrictModel):
    prometheus: Prometheus = Prometheus()  # the Prometheus strata installs, or the existing one it targets
    # Multi-cluster: the name of the label that tells clusters apart (its value is
    # cluster.name). Every aggregation and join in strata's rules keeps it.
    cluster_label: Annotated[str, Field(pattern=r"^[a-zA-Z_][a-zA-Z0-9_]*$")] | None = None
    dcgm_exporter: DcgmExporter = DcgmExporter()  # which DCGM exporter runs and how it is scraped
    karpenter: Karpenter = Karpenter()  # monitoring Karpenter
    kuberay: KubeRay = KubeRay()  # monitoring KubeRay and Ray clusters
    neuron_monitor: NeuronMonitor = NeuronMonitor()  # the neuron-monitor DaemonSet for Inferentia/Trainium nodes
    thresholds: Thresholds = Thresholds()  # the thresholds of strata's alerts
    dashboards: Dashboards = Dashboards()  # strata's Grafana dashboards
    extra_rules: tuple[ExtraRule, ...] = ()  # your own alerting and recording rules, added to strata's
