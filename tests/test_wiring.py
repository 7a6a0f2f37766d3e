"""How the packs read each other: observability monitors the KubeRay the jark pack installs,
jark homes and shared volumes agree with the storage pack, and team quotas leave room for the
claims strata itself creates. Each test renders the bundled examples with one more layer."""

from __future__ import annotations

import yaml
from conftest import VALUES, render_clean

from strata import pipeline

OBSERVE = b"""\
observability:
  prometheus: {install: true}
"""


def _load(*layers: tuple[str, bytes]) -> pipeline.Loaded:
    return pipeline.load([("jark.yaml", (VALUES / "jark.yaml").read_bytes()), *layers])


def _rendered(observe: bytes) -> dict[str, bytes]:
    """jark.yaml with an observability layer, rendered without a single problem."""
    return render_clean(("jark.yaml", (VALUES / "jark.yaml").read_bytes()), ("observe.yaml", observe))


def _objects(tree: dict[str, bytes], kind: str) -> list[dict]:
    docs = (yaml.safe_load(body) for path, body in tree.items() if path.endswith(".yaml"))
    return [d for d in docs if isinstance(d, dict) and d.get("kind") == kind]


def test_ray_monitors_follow_the_ray_clusters_jark_renders():
    tree = _rendered(OBSERVE)
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
    tree = _rendered(extra)
    heads = sorted(m["metadata"]["namespace"] for m in _objects(tree, "PodMonitor") if m["metadata"]["name"] == "ray-head")
    assert heads == ["cv", "ml-serving", "research"]


def test_ray_monitoring_can_be_switched_off():
    off = OBSERVE + b"  kuberay: {enabled: false}\n"
    tree = _rendered(off)
    assert _objects(tree, "PodMonitor") == []
    assert all(m["metadata"]["name"] != "kuberay-operator" for m in _objects(tree, "ServiceMonitor"))


# Layered on jark.yaml, whose own classes and claims this layer replaces ($patch: replace).
STORAGE = b"""\
storage:
  efs:
    storageClasses:
      - $patch: replace
      - name: efs-home
        parameters: {provisioningMode: efs-ap, fileSystemId: fs-0a1b2c3d4e5f60718, directoryPerms: "700", uid: "1000", gid: "100"}
  claims:
    - $patch: replace
    - {name: shared-models, namespace: jupyterhub, storageClass: efs-home}
    - {name: research-datasets, team: vision, storageClass: efs-home}
"""


def _fired(loaded: pipeline.Loaded) -> dict[str, list]:
    out: dict[str, list] = {}
    for p in loaded.problems:
        out.setdefault(p.rule, []).append(p)
    return out


def test_jark_mounts_are_checked_against_the_claims_storage_creates():
    fired = _fired(_load(("storage.yaml", STORAGE)))
    # The hub's shared volume is claimed in its namespace; the research Ray cluster's dataset
    # claim exists only for team vision (namespace cv).
    assert set(fired) == {"jark/pvc-cross-namespace"}
    (problem,) = fired["jark/pvc-cross-namespace"]
    assert problem.path == ("jark", "kuberay", "clusters", 0, "volumes", 0, "claim")
    assert "'research-datasets' is created in namespace cv" in problem.message


def test_home_storage_class_must_exist_once_storage_is_described():
    layer = b"jark:\n  jupyterhub:\n    home: {storageClass: gp3}\n"
    fired = _fired(_load(("storage.yaml", STORAGE), ("home.yaml", layer)))
    assert [p.path for p in fired["jark/unknown-storage-class"]] == [("jark", "jupyterhub", "home", "storageClass")]
    declared = _fired(_load(("storage.yaml", STORAGE + b"  existingClasses: [gp3]\n"), ("home.yaml", layer)))
    assert "jark/unknown-storage-class" not in declared


def test_dra_and_jark_mounts_get_the_same_decision():
    """storage/claim-namespace (a DRA workload) and jark/pvc-cross-namespace (a Ray cluster)
    say the same thing about the same mistake."""
    claims = b"""\
storage:
  claims:
    - $patch: replace
    - {name: workspace, team: research, storageClass: efs-workspace}
    - {name: datasets, team: research, volume: datasets}
    - {name: scratch, team: research, storageClass: fsx-scratch, size: 4800Gi}
    - {name: models, team: research, volume: models}
"""
    dra = pipeline.load([("ml-storage-dra.yaml", (VALUES / "ml-storage-dra.yaml").read_bytes()), ("claims.yaml", claims)])
    (storage_problem,) = _fired(dra)["storage/claim-namespace"]
    assert storage_problem.path == ("dra", "workloads", 1, "volumes", 0, "claim")
    (jark_problem,) = _fired(_load(("storage.yaml", STORAGE)))["jark/pvc-cross-namespace"]
    shape = "claim '{}' is created in namespace {}, but the pod runs in '{}'; add a claim in '{}'"
    assert storage_problem.message == shape.format("models", "research", "inference", "inference")
    assert jark_problem.message.endswith(shape.format("research-datasets", "cv", "research", "research"))


def test_team_quota_must_hold_the_claims_strata_creates():
    """ml-storage-dra creates four claims for research: 4800Gi of FSx scratch and three nominal
    1Gi ones (EFS and S3 ignore the size, but the quota still counts it)."""
    example = ("ml-storage-dra.yaml", (VALUES / "ml-storage-dra.yaml").read_bytes())

    def fired(quota: bytes) -> list:
        team = b"teams:\n  - {name: research, groups: [ml-research], quota: {cpu: '512', memory: 4096Gi, gpus: 32, " + quota + b"}}\n"
        team += b"  - {name: serving, namespace: inference, groups: [ml-serving]}\n"
        loaded = pipeline.load([example, ("quota.yaml", team)])
        return [(p.path[-1], p.message) for p in loaded.problems if p.rule == "tenancy/quota-below-platform-claims"]

    assert fired(b"persistentVolumeClaims: 4, storage: 4803Gi") == []
    (count,) = fired(b"persistentVolumeClaims: 3")
    assert count[0] == "persistentVolumeClaims" and "creates 4 claims in namespace research" in count[1]
    (storage,) = fired(b"storage: 4802Gi")
    assert storage[0] == "storage" and "request 4803Gi" in storage[1] and "scratch (4800Gi)" in storage[1]
