"""The observability pack holds itself to its own rules: the expressions it emits pass the
checks it applies to user rules, and every dashboard panel queries a recorded series or an
alert's own expression."""

from __future__ import annotations

import json

import pytest
import yaml
from conftest import VALUES, render_clean

from strata.packs.loader import discover

discover()  # imports the built-in packs, observability's modules among them

RULES = "observability/gpu-alerts/prometheusrule-monitoring-strata-gpu-platform.yaml"
DASHBOARD = "observability/dashboards/configmap-monitoring-strata-gpu-platform-dashboard.yaml"


def _tree() -> dict[str, bytes]:
    return render_clean(("observability.yaml", (VALUES / "observability.yaml").read_bytes()))


def _metrics_module():
    import importlib

    return importlib.import_module("strata.packs.imported.observability.metrics")


def test_emitted_expressions_pass_the_packs_own_checks():
    m = _metrics_module()
    groups = yaml.safe_load(_tree()[RULES])["spec"]["groups"]
    exprs = [r["expr"] for g in groups if g["name"] != "strata-extra" for r in g["rules"]]
    assert exprs
    for expr in exprs:
        assert m.counter_functions_on_gauges(expr) == [], expr
        assert m.framebuffer_unit_mistake(expr) is None, expr
        assert not m.uses_hostname_label(expr), expr
        assert m.metrics_in(expr) <= m.exported(xid_errors_count=True), expr


def test_dashboard_panels_query_what_the_rules_evaluate():
    tree = _tree()
    groups = yaml.safe_load(tree[RULES])["spec"]["groups"]
    recorded = {r["record"] for g in groups for r in g["rules"] if "record" in r}
    alert_exprs = {r["expr"] for g in groups for r in g["rules"] if "alert" in r}
    configmap = yaml.safe_load(tree[DASHBOARD])
    assert configmap["metadata"]["labels"]["grafana_dashboard"] == "1"
    panels = json.loads(configmap["data"]["gpu-platform.json"])["panels"]
    for panel in panels:
        expr = panel["targets"][0]["expr"]
        assert expr in recorded or expr in alert_exprs, expr


@pytest.mark.parametrize("enabled", [False, True])
def test_xid_count_is_exported_only_when_asked(enabled):
    m = _metrics_module()
    listed = [line for line in m.counter_list(enabled).splitlines() if line.startswith(m.XID_COUNT)]
    assert bool(listed) is enabled
    assert (m.XID_COUNT in m.exported(enabled)) is enabled


def test_xid_gauge_misuse_is_recognised():
    m = _metrics_module()
    assert m.counter_functions_on_gauges("sum by (node) (DCGM_FI_DEV_XID_ERRORS)") == [("sum", "DCGM_FI_DEV_XID_ERRORS")]
    assert m.counter_functions_on_gauges("rate(DCGM_FI_DEV_PCIE_REPLAY_COUNTER[5m])") == []  # a real counter
    assert m.counter_functions_on_gauges("increase(DCGM_EXP_XID_ERRORS_COUNT[5m])") == [("increase", "DCGM_EXP_XID_ERRORS_COUNT")]
