"""Stand-in Pods for the pod templates strata writes inside custom resources: the Pods KubeRay
makes from a RayCluster or RayJob (head with the autoscaler sidecar KubeRay injects, workers,
the RayJob's submitter) and the Pods Argo makes from each container or script template of a
Workflow or WorkflowTemplate. Outside linters judge them (tests/test_linters.py), and the real
API server's Pod Security admission judges them in their namespace (tests/test_server.py)."""

from __future__ import annotations

from typing import Any


def _pod(owner: dict[str, Any], part: str, metadata: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    meta = owner["metadata"]
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"{owner['kind'].lower()}-{meta['name']}-{part}", "namespace": meta.get("namespace"),
                         "labels": dict(metadata.get("labels") or {})},
            "spec": spec}


def _autoscaler(cluster: dict[str, Any], head: dict[str, Any]) -> dict[str, Any]:
    """The sidecar KubeRay adds to the head with in-tree autoscaling, from autoscalerOptions."""
    options = cluster.get("autoscalerOptions") or {}
    container: dict[str, Any] = {"name": "autoscaler", "image": options.get("image") or head["containers"][0]["image"]}
    for key in ("resources", "securityContext", "volumeMounts", "env", "envFrom"):
        if key in options:
            container[key] = options[key]
    return container


def _ray_pods(owner: dict[str, Any], cluster: dict[str, Any]) -> list[dict[str, Any]]:
    """The Pods KubeRay makes from a cluster spec, with the labels it gives them."""
    name = owner["metadata"]["name"]
    groups = [("head", "head", cluster["headGroupSpec"])] + [
        (f"worker-{w['groupName']}", "worker", w) for w in cluster.get("workerGroupSpecs", ())]
    out = []
    for part, node_type, group in groups:
        template = group["template"]
        spec = dict(template["spec"])
        if node_type == "head" and cluster.get("enableInTreeAutoscaling"):
            # KubeRay adds the sidecar and, unless the template names one, the ServiceAccount it
            # creates for the autoscaler (named after the cluster).
            spec["containers"] = [*spec["containers"], _autoscaler(cluster, spec)]
            spec.setdefault("serviceAccountName", name)
        labels = {**(template.get("metadata", {}).get("labels") or {}), "ray.io/node-type": node_type, "ray.io/cluster": name}
        out.append(_pod(owner, part, {"labels": labels}, spec))
    return out


def _submitter(owner: dict[str, Any]) -> list[dict[str, Any]]:
    """The Pod of a RayJob's submitter Job (K8sJobMode), from submitterPodTemplate."""
    template = owner["spec"].get("submitterPodTemplate")
    if owner["spec"].get("submissionMode", "K8sJobMode") != "K8sJobMode" or template is None:
        return []
    return [_pod(owner, "submitter", template.get("metadata") or {}, template["spec"])]


def _workflow_pods(owner: dict[str, Any], executor: dict[str, Any] | None) -> list[dict[str, Any]]:
    """One Pod per container or script template, with the workflow's pod-level settings; with
    ``executor`` (the argo-workflows chart's executor values), also the init and wait containers
    the controller adds to every step."""
    spec = owner["spec"]
    out = []
    for template in spec.get("templates", ()):
        container = template.get("container") or template.get("script")
        if not container:
            continue
        container = {k: v for k, v in container.items() if k != "source"}
        container.setdefault("name", "main")
        pod: dict[str, Any] = {"containers": [container]}
        if executor is not None:
            argoexec = {"image": "quay.io/argoproj/argoexec:latest", "securityContext": executor.get("securityContext") or {}}
            pod["initContainers"] = [{"name": "init", **argoexec}]
            pod["containers"] = [{"name": "wait", **argoexec}, container]
        for key in ("securityContext", "automountServiceAccountToken", "serviceAccountName", "nodeSelector",
                    "tolerations", "volumes"):
            if key in template:
                pod[key] = template[key]
            elif key in spec:
                pod[key] = spec[key]
        labels = {**(spec.get("podMetadata", {}).get("labels") or {}), **(template.get("metadata", {}).get("labels") or {})}
        out.append(_pod(owner, f"step-{template['name']}", {"labels": labels}, pod))
    return out


def stand_ins(body: dict[str, Any], executor: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    kind = body.get("kind")
    if kind == "RayCluster":
        return _ray_pods(body, body["spec"])
    if kind == "RayJob":
        return [*_ray_pods(body, body["spec"]["rayClusterSpec"]), *_submitter(body)]
    if kind in ("Workflow", "WorkflowTemplate"):
        return _workflow_pods(body, executor)
    return []


def notebook(values: dict[str, Any], namespace: str) -> dict[str, Any]:
    """The notebook Pod KubeSpawner makes from the z2jh values: singleuser.uid, fsGid and
    allowPrivilegeEscalation (chart defaults 1000, 100, false) merged under
    hub.config.KubeSpawner.pod_security_context / container_security_context, which take
    precedence, as KubeSpawner's make_pod does. ``namespace``: where to judge it."""
    single = values.get("singleuser") or {}
    spawner = ((values.get("hub") or {}).get("config") or {}).get("KubeSpawner") or {}
    container = {"runAsUser": single.get("uid", 1000), "allowPrivilegeEscalation": single.get("allowPrivilegeEscalation", False),
                 **(spawner.get("container_security_context") or {})}
    pod = {"fsGroup": single.get("fsGid", 100), **(spawner.get("pod_security_context") or {})}
    image = single.get("image") or {}
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "jupyterhub-notebook", "namespace": namespace, "labels": {"component": "singleuser-server"}},
            "spec": {"securityContext": pod, "containers": [
                {"name": "notebook", "image": f"{image.get('name')}:{image.get('tag')}", "securityContext": container}]}}
