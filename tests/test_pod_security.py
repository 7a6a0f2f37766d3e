"""Every pod template strata writes into a team namespace (in every golden tree) meets the Pod
Security Standard "restricted" (the checks of the Kubernetes pod-security admission at its
latest version), the pod templates inside RayClusters, RayJobs and WorkflowTemplates included
as stand-in Pods."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from golden_tree import golden_tree_names
from stand_ins import stand_ins
from test_linters import tree_objects

from strata import isolation

ALLOWED_VOLUMES = {"configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "persistentVolumeClaim", "projected", "secret"}
WORKLOAD_KINDS = {"Pod", "Job", "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "CronJob"}


def pod_spec(body: dict[str, Any]) -> dict[str, Any] | None:
    if body["kind"] == "Pod":
        return body["spec"]
    if body["kind"] == "CronJob":
        return body["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    if body["kind"] in WORKLOAD_KINDS:
        return body["spec"]["template"]["spec"]
    return None


def restricted_violations(spec: dict[str, Any]) -> Iterator[str]:
    pod = spec.get("securityContext") or {}
    for flag in ("hostNetwork", "hostPID", "hostIPC"):
        if spec.get(flag):
            yield f"{flag} is set"
    for volume in spec.get("volumes") or ():
        kinds = set(volume) - {"name"}
        if not kinds <= ALLOWED_VOLUMES:
            yield f"volume {volume['name']} is of type {sorted(kinds - ALLOWED_VOLUMES)}"
    if pod.get("runAsUser") == 0:
        yield "the Pod runs as UID 0"
    for c in [*(spec.get("initContainers") or ()), *spec["containers"]]:
        sc = c.get("securityContext") or {}
        name = c["name"]
        if sc.get("privileged"):
            yield f"{name} is privileged"
        if sc.get("allowPrivilegeEscalation") is not False:
            yield f"{name} does not set allowPrivilegeEscalation: false"
        caps = sc.get("capabilities") or {}
        if "ALL" not in (caps.get("drop") or ()):
            yield f"{name} does not drop ALL capabilities"
        if set(caps.get("add") or ()) - {"NET_BIND_SERVICE"}:
            yield f"{name} adds capabilities {caps['add']}"
        if sc.get("runAsNonRoot", pod.get("runAsNonRoot")) is not True:
            yield f"{name} may run as root (runAsNonRoot is not true)"
        if sc.get("runAsUser", pod.get("runAsUser")) == 0:
            yield f"{name} runs as UID 0"
        seccomp = (sc.get("seccompProfile") or pod.get("seccompProfile") or {}).get("type")
        if seccomp not in ("RuntimeDefault", "Localhost"):
            yield f"{name} has no RuntimeDefault seccomp profile"
        if c.get("ports") and any(p.get("hostPort") for p in c["ports"]):
            yield f"{name} uses a hostPort"


def team_pod_templates(tree: str) -> list[tuple[str, dict[str, Any]]]:
    bodies = tree_objects(tree)
    teams = {n for n, labels in isolation.namespace_labels(bodies).items() if isolation.TEAM_LABEL in labels}
    out = []
    for body in bodies:
        for obj in (body, *stand_ins(body)):
            spec = pod_spec(obj) if obj["kind"] in WORKLOAD_KINDS else None
            if spec is not None and obj["metadata"].get("namespace") in teams:
                out.append((f"{obj['kind']}/{obj['metadata']['namespace']}/{obj['metadata']['name']}", spec))
    return out


@pytest.mark.parametrize("tree", golden_tree_names())
def test_team_namespace_pod_templates_meet_restricted(tree):
    templates = team_pod_templates(tree)
    if tree in ("jark", "ml-storage-dra"):  # Ray, Argo and DRA workloads in team namespaces
        assert templates, f"{tree} writes pod templates into its team namespaces"
    violations = [f"{where}: {v}" for where, spec in templates for v in restricted_violations(spec)]
    assert violations == []


def test_the_check_catches_a_baseline_only_pod():
    spec = {"securityContext": {"runAsNonRoot": True}, "volumes": [{"name": "h", "hostPath": {"path": "/"}}],
            "containers": [{"name": "c", "securityContext": {"capabilities": {"add": ["NET_ADMIN"]}}}]}
    assert list(restricted_violations(spec)) == [
        "volume h is of type ['hostPath']", "c does not set allowPrivilegeEscalation: false",
        "c does not drop ALL capabilities", "c adds capabilities ['NET_ADMIN']", "c has no RuntimeDefault seccomp profile"]

