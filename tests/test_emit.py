"""strata.yamlio: the fast emitter writes YAML that PyYAML reads back to exactly the same data,
and the fast loader reads exactly what yaml.safe_load_all reads."""

from __future__ import annotations

import math

import yaml
from hypothesis import given, settings, strategies as st

from strata.yamlio import dump

tricky = st.sampled_from(["on", "Off", "y", "N", "yes", "null", "~", "1.36", "1e3", "0x1F", "010", "1:30", "2026-11-29",
                          "a: b", "# c", "- d", "10Gi", "500m", "720h", "1h30m", "", " lead", "trail ", "*ref", "&a", "!tag",
                          "@at", "`tick", "x\ny", "x\n", "x\n\n", "\n", "tab\tin", "é", "\u2028", "{a}", "[b]", "=", "<<"])
scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(), tricky)
data = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                   st.dictionaries(st.one_of(st.text(max_size=10), tricky), inner, max_size=4)),
                    max_leaves=20)


@settings(max_examples=400, deadline=None)
@given(value=data)
def test_round_trip(value):
    assert yaml.safe_load(dump(value)) == value


def test_nan_round_trips():
    assert math.isnan(yaml.safe_load(dump({"x": float("nan")}))["x"])


def test_kubernetes_style_output():
    body = {"metadata": {"name": "gpu", "labels": {"app.kubernetes.io/managed-by": "strata"}},
            "spec": {"limits": {"cpu": "1", "nvidia.com/gpu": "8", "memory": "64Gi"}, "taints": [{"key": "k", "effect": "NoSchedule"}]}}
    assert dump(body) == (
        "metadata:\n  name: gpu\n  labels:\n    app.kubernetes.io/managed-by: strata\n"
        'spec:\n  limits:\n    cpu: "1"\n    nvidia.com/gpu: "8"\n    memory: 64Gi\n'
        "  taints:\n    - key: k\n      effect: NoSchedule\n"
    )


@settings(max_examples=300, deadline=None)
@given(value=data)
def test_render_parser_matches_safe_load(value):
    from strata.yamlio import load_all

    text = yaml.safe_dump(value) + "---\n" + dump(value)
    assert load_all(text) == [d for d in yaml.safe_load_all(text) if d is not None]
