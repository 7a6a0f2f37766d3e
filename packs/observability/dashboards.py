"""Grafana dashboards as data: each panel queries a series strata records or the very
expression an alert evaluates, so what the dashboard shows is what the alerts see."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from . import alerts
from .config import Config


@dataclasses.dataclass(frozen=True)
class Panel:
    title: str
    expr: str
    legend: str
    unit: str
    kind: str = "timeseries"


def _panels(config: Config, karpenter: bool) -> list[Panel]:
    e = alerts.expressions(config)
    panels = [
        Panel("GPU utilization per node", alerts.NODE_UTIL, "{{node}}", "percent"),
        Panel("GPU utilization per Pod", alerts.POD_UTIL, "{{namespace}}/{{pod}}", "percent"),
        Panel("Framebuffer used per node (ratio of FB_USED + FB_FREE)", alerts.NODE_FB, "{{node}}", "percentunit"),
        Panel("Framebuffer used per Pod (ratio of FB_USED + FB_FREE)", alerts.POD_FB, "{{namespace}}/{{pod}}", "percentunit"),
        Panel("XID codes reported (last code per GPU)", e.xid, "{{node}} GPU {{gpu}}", "none", "table"),
        Panel("Pending Pods requesting GPUs", alerts.PENDING, "pending", "none"),
    ]
    if karpenter:
        panels.append(Panel("Karpenter nodes by NodePool", alerts.POOL_NODES, "{{nodepool}}", "none"))
    if config.cluster_label:
        panels = [dataclasses.replace(p, legend=f"{{{{{config.cluster_label}}}}} {p.legend}") for p in panels]
    return panels


def _panel_json(i: int, panel: Panel) -> dict[str, Any]:
    return {
        "id": i + 1,
        "type": panel.kind,
        "title": panel.title,
        "datasource": {"type": "prometheus", "uid": "${datasource}"},
        "gridPos": {"h": 8, "w": 12, "x": (i % 2) * 12, "y": (i // 2) * 8},
        "fieldConfig": {"defaults": {"unit": panel.unit}, "overrides": []},
        "targets": [{"refId": "A", "expr": panel.expr, "legendFormat": panel.legend,
                     **({"instant": True, "format": "table"} if panel.kind == "table" else {})}],
    }


def dashboard(config: Config, karpenter: bool) -> dict[str, Any]:
    return {
        "uid": "strata-gpu-platform",
        "title": "GPU platform",
        "tags": ["strata", "gpu"],
        "schemaVersion": 39,
        "editable": False,
        "time": {"from": "now-6h", "to": "now"},
        "templating": {"list": [{"name": "datasource", "type": "datasource", "query": "prometheus", "label": "Data source"}]},
        "panels": [_panel_json(i, p) for i, p in enumerate(_panels(config, karpenter))],
    }


def config_maps(config: Config, karpenter: bool, namespace: str) -> list[dict[str, Any]]:
    body = json.dumps(dashboard(config, karpenter), indent=2, sort_keys=True) + "\n"
    return [{"name": "strata-gpu-platform-dashboard", "namespace": namespace,
             "labels": {config.dashboards.label: config.dashboards.label_value},
             "data": {"gpu-platform.json": body}}]
