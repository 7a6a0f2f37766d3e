"""Observability policy checks. Each yields problems at the path of the offending value, relative
to the observability section (spec_path for values elsewhere)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from strata.pack import Facts, Problem, spec_path

from . import kuberay, metrics, promql, rules as r
from .config import Config
from .context import gpu_operator, gpu_operator_runs_exporter, monitors, nvidia_pools
from .selection import KINDS, Monitor, labels_for, why_not_selected


def check(spec: Any, config: Config, facts: Facts) -> Iterator[Problem]:
    config = kuberay.resolve(facts, config)
    op = gpu_operator(facts)
    yield from _check_dcgm_source(spec, config, op)
    yield from _check_selection(spec, config, op)
    if config.thresholds.framebuffer_used_ratio > 1:
        yield r.FRAMEBUFFER_RATIO_PERCENT.problem(("thresholds", "framebuffer_used_ratio"),
                                                  f"{config.thresholds.framebuffer_used_ratio:g} is above 1; a ratio of 0.95 means 95 %")
    prom = config.prometheus
    if config.cluster_label is None and (prom.remote_write or prom.shared):
        where, what = (("prometheus", "remote_write"), "remote-writes to a store other clusters write to") if prom.remote_write else (
            ("prometheus", "shared"), "is shared by several clusters")
        yield r.MULTI_CLUSTER_WITHOUT_LABEL.problem(where, f"the Prometheus {what}, but observability.clusterLabel is not set")
    for i, rule in enumerate(config.extra_rules):
        yield from _check_expression(("extra_rules", i, "expr"), rule.expr, config)
    yield from promql.check_extra_rules(config)


def _check_dcgm_source(spec: Any, config: Config, op: Any) -> Iterator[Problem]:
    if not nvidia_pools(spec):
        return
    exporter = spec_path("compute", "gpu_operator", "dcgm_exporter")
    if config.dcgm_exporter.source == "chart":
        if gpu_operator_runs_exporter(spec, op):
            yield r.DCGM_EXPORTER_TWICE.problem(("dcgm_exporter", "source"),
                                                "the standalone dcgm-exporter chart runs beside the GPU Operator's exporter (compute.gpuOperator.dcgmExporter.enabled)")
        return
    if not op.enabled:
        yield r.DCGM_EXPORTER_MISSING.problem(spec_path("compute", "gpu_operator", "enabled"), "dcgmExporter.source is gpuOperator but the GPU Operator is off")
    elif not op.dcgm_exporter:
        yield r.DCGM_EXPORTER_MISSING.problem(exporter + ("enabled",), "dcgmExporter.source is gpuOperator but the operator's DCGM exporter is off")
    elif not op.dcgm_service_monitor:
        yield r.DCGM_EXPORTER_MISSING.problem(exporter + ("service_monitor",),
                                              "the GPU Operator's exporter runs but its ServiceMonitor is off, so nothing scrapes it")


def _blame(config: Config, monitor: Monitor, cause: str) -> tuple:
    """The spec path to point at: the user's override of the GPU Operator's labels, the
    Prometheus's watched namespaces, or its selector for this kind."""
    if cause == "labels" and monitor.name == "nvidia-dcgm-exporter":
        return spec_path("compute", "gpu_operator", "values_overrides", "dcgmExporter", "serviceMonitor", "additionalLabels")
    if cause == "namespace":
        return ("prometheus", "monitor_namespaces")
    return ("prometheus", KINDS[monitor.kind])


def _check_selection(spec: Any, config: Config, op: Any) -> Iterator[Problem]:
    rule = Monitor("PrometheusRule", config.prometheus.namespace, "strata-gpu-platform", labels_for(config, "PrometheusRule"))
    for monitor in [rule, *monitors(spec, config, op)]:
        found = why_not_selected(config, monitor)
        if found:
            cause, reason = found
            yield r.MONITOR_NOT_SELECTED.problem(_blame(config, monitor, cause), reason)


def _check_expression(path: tuple, expr: str, config: Config) -> Iterator[Problem]:
    for func, metric in metrics.counter_functions_on_gauges(expr):
        why = ("holds the code of the last XID, not a count" if metric == metrics.XID_GAUGE else "is a gauge")
        yield r.COUNTER_FUNCTION_ON_GAUGE.problem(path, f"{func}() over {metric}, which {why}")
    mistake = metrics.framebuffer_unit_mistake(expr)
    if mistake:
        yield r.FRAMEBUFFER_UNITS.problem(path, mistake)
    if metrics.uses_hostname_label(expr):
        yield r.HOSTNAME_LABEL.problem(path, "the expression keys on the exporter's Hostname/hostname label")
    exported = metrics.exported(config.dcgm_exporter.xid_errors_count)
    for metric in sorted(metrics.metrics_in(expr) - exported):
        yield r.METRIC_NOT_EXPORTED.problem(path, f"{metric} is not in the exporter's counter list")
