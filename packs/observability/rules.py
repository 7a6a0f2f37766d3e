"""The observability pack's policy rules: GPU alerting and scraping mistakes that schemas miss."""

from strata.pack import Rule

COUNTER_FUNCTION_ON_GAUGE = Rule(
    "observability/counter-function-on-gauge",
    "rate()/increase() over a gauge, or sum() of the XID gauge, computes nonsense: DCGM_FI_DEV_XID_ERRORS holds the last XID code, so 31 then 13 reads as a counter reset",
    "alert on DCGM_FI_DEV_XID_ERRORS != 0 (or changes(...) > 0); use delta()/deriv()/avg_over_time() for other gauges",
)
PROMTOOL_REJECTS = Rule(
    "observability/promtool-check",
    "Prometheus refuses a rule that promtool check rules rejects (bad PromQL, label or annotation template), so the whole rule group never loads",
    "fix the rule as promtool's message says (strata runs promtool check rules on every observability.extraRules entry)",
)
FRAMEBUFFER_UNITS = Rule(
    "observability/framebuffer-units",
    "the framebuffer gauges are MiB: a percent or ratio compared with them, or a bytes conversion, is wrong",
    "use DCGM_FI_DEV_FB_USED / (DCGM_FI_DEV_FB_USED + DCGM_FI_DEV_FB_FREE), a ratio from 0 to 1",
)
FRAMEBUFFER_RATIO_PERCENT = Rule(
    "observability/framebuffer-ratio-percent",
    "thresholds.framebufferUsedRatio is a ratio from 0 to 1; a value above 1 is a percent and never fires",
    "write 0.95 for 95 %",
)
HOSTNAME_LABEL = Rule(
    "observability/hostname-label",
    "dcgm-exporter's Hostname label is renamed hostname after 4.5.3-4.8.2; rules keyed on either spelling break on upgrade",
    "use the node label strata adds from __meta_kubernetes_pod_node_name",
)
METRIC_NOT_EXPORTED = Rule(
    "observability/metric-not-exported",
    "the rule reads a DCGM metric the exporter does not export with this configuration, so it never fires",
    "use a metric of the default counter list, or enable it (dcgmExporter.xidErrorsCount for DCGM_EXP_XID_ERRORS_COUNT)",
)
MONITOR_NOT_SELECTED = Rule(
    "observability/monitor-not-selected",
    "the target Prometheus would not select this ServiceMonitor, PodMonitor or PrometheusRule, so it is silently ignored",
    "give the Prometheus's selectors in observability.prometheus (or widen monitorNamespaces), or keep the labels strata sets",
)
DCGM_EXPORTER_TWICE = Rule(
    "observability/dcgm-exporter-twice",
    "two DCGM exporters on a node (the GPU Operator's and the standalone chart) double every GPU series and fight over the GPUs",
    "keep dcgmExporter.source: gpuOperator, or turn off compute.gpuOperator.dcgmExporter.enabled for the chart",
)
DCGM_EXPORTER_MISSING = Rule(
    "observability/dcgm-exporter-missing",
    "the chosen DCGM exporter does not run or is not scraped, so no GPU alert can fire",
    "enable compute.gpuOperator.dcgmExporter (and its serviceMonitor), or use dcgmExporter.source: chart",
)
MULTI_CLUSTER_WITHOUT_LABEL = Rule(
    "observability/multi-cluster-without-label",
    "series from several clusters in one Prometheus collide (and alerts join across clusters) without a cluster label",
    "set observability.clusterLabel (e.g. cluster); strata adds it to its series and keeps it in every aggregation",
)
SEVERITY_OUTSIDE_LABELS = Rule(
    "observability/severity-outside-labels",
    "a Prometheus rule has no severity field; outside labels it is rejected by the CRD (or lost)",
    "write labels: {severity: warning} in the rule",
)
RULES = (
    COUNTER_FUNCTION_ON_GAUGE, PROMTOOL_REJECTS, FRAMEBUFFER_UNITS, FRAMEBUFFER_RATIO_PERCENT, HOSTNAME_LABEL, METRIC_NOT_EXPORTED,
    MONITOR_NOT_SELECTED, DCGM_EXPORTER_TWICE, DCGM_EXPORTER_MISSING, MULTI_CLUSTER_WITHOUT_LABEL,
    SEVERITY_OUTSIDE_LABELS,
)
