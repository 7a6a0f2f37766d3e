"""What the DCGM exporter exports, read from its default counter list (data/), and a small
PromQL scan that finds the mistakes the pack refuses: counter functions over gauges, XID
codes summed, framebuffer MiB treated as bytes or percent, the Hostname label."""

from __future__ import annotations

import dataclasses
import functools
import re
from pathlib import Path

from strata.pack import load_yaml

# Generated from the exporter's default counter list by scripts/build-dcgm-fields.py.
FIELDS_FILE = Path(__file__).parent / "data" / "dcgm_fields.yaml"
XID_GAUGE = "DCGM_FI_DEV_XID_ERRORS"
XID_COUNT = "DCGM_EXP_XID_ERRORS_COUNT"
FRAMEBUFFER = ("DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_FREE", "DCGM_FI_DEV_FB_RESERVED")
# The exporter's own *_COUNT fields count events in a sliding window (--xid-count-window-size):
# the CSV calls them counters, but they fall when the window moves on, so they are gauges here.
WINDOWED = ("DCGM_EXP_XID_ERRORS_COUNT", "DCGM_EXP_CLOCK_EVENTS_COUNT")
COUNTER_FUNCTIONS = ("rate", "irate", "increase", "resets")
# Aggregations that add values up: meaningless over a gauge holding an error code.
SUMMING = ("sum", "avg", "rate", "irate", "increase", "sum_over_time", "avg_over_time")


@dataclasses.dataclass(frozen=True)
class Field:
    name: str
    type: str  # gauge | counter | label
    enabled: bool  # exported by the default list


@functools.cache
def _rows() -> tuple[dict, ...]:
    return tuple(load_yaml(FIELDS_FILE.read_bytes())["fields"])


@functools.cache
def dcgm_fields() -> dict[str, Field]:
    return {r["name"]: Field(r["name"], "gauge" if r["name"] in WINDOWED else r["type"], r["enabled"]) for r in _rows()}


def exported(xid_errors_count: bool) -> set[str]:
    names = {f.name for f in dcgm_fields().values() if f.enabled and f.type != "label"}
    return names | {XID_COUNT} if xid_errors_count else names


def counter_list(xid_errors_count: bool) -> str:
    """The exporter's counter CSV: the default list, plus the XID count when asked for."""
    lines = ["# DCGM FIELD, Prometheus metric type, help message"]
    for r in _rows():
        on = r["enabled"] or (xid_errors_count and r["name"] == XID_COUNT)
        lines.append(f"{'' if on else '# '}{r['name']}, {r['type']}, {r['help']}")
    return "\n".join(lines) + "\n"


_CALL = re.compile(r"\b([a-z_]+)\s*(?:(?:by|without)\s*\([^)]*\)\s*)?\(")
_METRIC = re.compile(r"\bDCGM_[A-Z0-9_]+\b")


def _calls(expr: str) -> list[tuple[str, str]]:
    """(function, argument text) for every call or aggregation in the expression."""
    found = []
    for m in _CALL.finditer(expr):
        depth, start = 1, m.end()
        for i in range(start, len(expr)):
            depth += {"(": 1, ")": -1}.get(expr[i], 0)
            if depth == 0:
                found.append((m.group(1), expr[start:i]))
                break
    return found


def metrics_in(expr: str) -> set[str]:
    return set(_METRIC.findall(expr))


def counter_functions_on_gauges(expr: str) -> list[tuple[str, str]]:
    """(function, metric) pairs where rate/increase/... runs over a gauge, or XID codes are added up."""
    fields = dcgm_fields()
    bad = []
    for func, arg in _calls(expr):
        for metric in sorted(metrics_in(arg)):
            gauge = metric in fields and fields[metric].type == "gauge"
            if (func in COUNTER_FUNCTIONS and gauge) or (func in SUMMING and metric == XID_GAUGE):
                bad.append((func, metric))
    return bad


_BYTES = re.compile(r"(1024\s*\^\s*[23]|1024\s*\*\s*1024|1e6|1e9|1048576|1073741824|1000000000)")
_PERCENT_COMPARE = re.compile(r"(>|<|>=|<=)\s*(100|[0-9]{1,2}(\.[0-9]+)?|0?\.[0-9]+)\b")


def framebuffer_unit_mistake(expr: str) -> str | None:
    """Why the expression misreads the framebuffer gauges (MiB), or None."""
    if not any(m in expr for m in FRAMEBUFFER):
        return None
    if _BYTES.search(expr):
        return "divides the framebuffer gauges as if they were bytes; they are MiB"
    if "/" not in expr and _PERCENT_COMPARE.search(expr):
        return "compares a framebuffer gauge in MiB with a percent or ratio; use FB_USED / (FB_USED + FB_FREE)"
    return None


_HOSTNAME = re.compile(r"\b[Hh]ostname\b")


def uses_hostname_label(expr: str) -> bool:
    return bool(_HOSTNAME.search(expr))
