"""How the packs read each other: observability monitors the KubeRay the jark pack installs,
jark homes and shared volumes agree with the storage pack, and team quotas leave room for the
claims strata itself creates. Each test renders the bundled examples with one more layer."""

from __future__ import annotations

import yaml

from conftest import VALUES
from strata import pipeline

OBSERVE = b"""\
observability:
  prometheus: {install: true}
"""


def _load(*layers: tuple[str, bytes]) -> pipeline.Loaded:
    return pipeline.load([("jark.yaml", (VALUES / "jark.yaml").read_bytes()), *layers])


def _objects(tree: dict[str, bytes], kind: str) -> list[dict]:
    docs = (yaml.safe_load(body) for path, body in tree.items() if path.endswith(".yaml"))
    return [d for d in docs if isinstance(d, dict) and d.get("kind") == kind]


def test_ray_monitors_follow_the_ray_clusters_jark_renders():
    loaded = _load(("observe.yaml", OBSERVE))
    assert loaded.problems == []
    tree, problems = pipeline.render(loaded)
    assert problems == []
    ray_namespaces = {c["metadata"]["namespace"] for c in _objects(tree, "RayCluster")}
    assert ray_namespaces == {"research", "cv"}  # team vision lives in namespace cv
    pod_monitors = _objects(tree, "PodMonitor")
    assert {(m["metadata"]["namespace"], m["metadata"]["name"]) for m in pod_monitors} == {
        (ns, name) for ns in ray_namespaces for name in ("ray-head", "ray-workers")}
    operator = next(m for m in _objects(tree, "ServiceMonitor") if m["metadata"]["name"] == "kuberay-operator")
    # The namespace the jark pack installs the operator into (it writes that Namespace).
    assert operator["metadata"]["namespace"] == "kuberay-system"
    assert "kuberay-system" in {n["metadata"]["name"] for n in _objects(tree, "Namespace")}
    # kube-prometheus-stack installed by strata selects release=kube-prometheus-stack.
    for monitor in [*pod_monitors, operator]:
        assert monitor["metadata"]["labels"]["release"] == "kube-prometheus-stack"
    rules = _objects(tree, "PrometheusRule")[0]
    assert "strata-ray" in {g["name"] for g in rules["spec"]["groups"]}


def test_listed_ray_namespaces_add_to_the_derived_ones():
    extra = OBSERVE + b"  kuberay: {rayNamespaces: [research, ml-serving]}\n"
    tree, problems = pipeline.render(_load(("observe.yaml", extra)))
    assert problems == []
    heads = sorted(m["metadata"]["namespace"] for m in _objects(tree, "PodMonitor") if m["metadata"]["name"] == "ray-head")
    assert heads == ["cv", "ml-serving", "research"]


def test_ray_monitoring_can_be_switched_off():
    off = OBSERVE + b"  kuberay: {enabled: false}\n"
    tree, problems = pipeline.render(_load(("observe.yaml", off)))
    assert problems == []
    assert _objects(tree, "PodMonitor") == []
    assert all(m["metadata"]["name"] != "kuberay-operator" for m in _objects(tree, "ServiceMonitor"))
