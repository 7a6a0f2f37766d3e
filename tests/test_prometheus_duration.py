"""strata.spec.base.PrometheusDuration follows prometheus/common model.ParseDuration: what
Prometheus accepts (rule `for`, retention, scrape intervals) is accepted, nothing else."""

from __future__ import annotations

import pytest

from strata.spec.base import prometheus_duration_ns

S = 10**9


@pytest.mark.parametrize(("text", "ns"), [
    ("0", 0), ("0s", 0), ("324ms", 324 * 10**6), ("3s", 3 * S), ("90s", 90 * S), ("5m", 300 * S), ("1h", 3600 * S),
    ("1d", 86400 * S), ("4d1h", (4 * 24 + 1) * 3600 * S), ("1h30m", 5400 * S), ("3w", 21 * 86400 * S),
    ("2w3d", 17 * 86400 * S), ("10y", 3650 * 86400 * S), ("1y1w1d1h1m1s1ms", (365 + 7 + 1) * 86400 * S + 3661 * S + 10**6),
    ("01h", 3600 * S), ("292y", 292 * 365 * 86400 * S),
])
def test_accepted_as_prometheus_accepts_it(text: str, ns: int) -> None:
    assert prometheus_duration_ns(text) == ns


@pytest.mark.parametrize("text", [
    "", "1", "1.5h", "-1s", "+1s", "1H", "1 h", " 1h", "1h ", "30m1h", "1h1h", "1s1m", "1ms1s", "h", "1hx", "1mss",
    "300y",  # beyond 2^63-1 ns
])
def test_refused_as_prometheus_refuses_it(text: str) -> None:
    with pytest.raises(ValueError):
        prometheus_duration_ns(text)
