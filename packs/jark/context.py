"""Everything the jark templates print. Scheduling (node selectors, affinities, tolerations,
GPU limits) is derived from the node pools of the core spec here, once, for all three
components."""

from __future__ import annotations

from typing import Any

import yaml

from strata.pack import TEAM_LABEL, Facts, PoolFacts, all_pool_facts, role_arn

from . import images
from .config import RELEASE_NAMESPACES, Config, JupyterHub, Placement, runner_component
from .resources import EFA, efa_env, toleration_dicts

GPU = "nvidia.com/gpu"
NEURON_CORE = "aws.amazon.com/neuroncore"
# scheduling.userPods.tolerations of the z2jh 4.4.0 chart. A profile's `tolerations` override
# replaces the chart's list, so profiles repeat these before adding the pool's own.
CHART_USER_TOLERATIONS = (
    {"key": "hub.jupyter.org/dedicated", "operator": "Equal", "value": "user", "effect": "NoSchedule"},
    {"key": "hub.jupyter.org_dedicated", "operator": "Equal", "value": "user", "effect": "NoSchedule"},
)
RAY_CLIENT_PORTS = (10001, 8265)  # Ray client server and dashboard (job submission)
RAY_OPERATOR_PORTS = (8265, 52365)  # dashboard (RayJob status) and dashboard agent (RayService)
INBOUND_CIDRS = "alb.ingress.kubernetes.io/inbound-cidrs"
RUNNER = "argo-workflow"  # the workflow runner ServiceAccount in each team namespace
HUB_NAMESPACE = RELEASE_NAMESPACES["jupyterhub"]
ARGO_NAMESPACE = RELEASE_NAMESPACES["argo-workflows"]
KUBERAY_NAMESPACE = RELEASE_NAMESPACES["kuberay-operator"]


def active(config: Config) -> dict[str, Any]:
    """The components that are present and enabled, by name."""
    out = {}
    for name in ("jupyterhub", "argo_workflows", "kuberay"):
        section = getattr(config, name)
        if section is not None and section.enabled:
            out[name] = section
    return out


def tolerations(placement: Placement, pools: dict[str, PoolFacts]) -> list[dict[str, Any]]:
    """Explicit tolerations as written, else exactly the target pool's taints."""
    if placement.tolerations is not None:
        return toleration_dicts(placement.tolerations)
    pool = pools.get(placement.node_pool or "")
    return pool.tolerations if pool else []


def context(spec: Any, config: Config, facts: Facts) -> dict[str, Any]:
    parts = active(config)
    pools = all_pool_facts(spec)
    namespaces = spec.team_namespaces
    hub, argo, ray = parts.get("jupyterhub"), parts.get("argo_workflows"), parts.get("kuberay")
    compute = facts["compute"]
    neuron_scheduler = compute.neuron.scheduler_name if compute is not None and compute.neuron is not None else None
    ray_clusters = [_ray_cluster(c, ray, pools, namespaces, neuron_scheduler) for c in ray.clusters] if ray else []
    ray_namespaces = ray.cluster_namespaces(spec) if ray else []
    team_labels = _team_labels(spec) if hub else {}
    return {
        "platform_policies": _platform_policies(facts["tenancy"], parts, ray_namespaces),
        "release_namespaces": sorted(ns for name, ns in (("jupyterhub", HUB_NAMESPACE), ("argo_workflows", ARGO_NAMESPACE),
                                                          ("kuberay", KUBERAY_NAMESPACE)) if name in parts),
        "jupyterhub_enabled": hub is not None,
        "jupyterhub": _jupyterhub(hub, pools, team_labels) if hub else None,
        # The hub's namespace holds every team's notebooks, each labelled with its team.
        "shared_namespaces": [HUB_NAMESPACE] if team_labels else [],
        "argo_enabled": argo is not None,
        "argo": _argo(argo, spec, pools, namespaces) if argo else None,
        "kuberay_enabled": ray is not None,
        "kuberay": {
            "namespace": KUBERAY_NAMESPACE,
            "clusters": ray_clusters,
            "jobs": [job for job in (_ray_job(j, ray_clusters) for j in ray.jobs) if job],
            "client_access": _ray_client_access(spec, hub, ray_namespaces, team_labels),
            "notebook_egress": _notebook_ray_egress(spec, ray_namespaces, team_labels),
        } if ray else None,
    }


# --- JupyterHub -------------------------------------------------------------------------

# Ports other namespaces need in the release namespaces, which deny all other ingress:
# Prometheus scrapes the workflow controller (9090) and the KubeRay operator (8080); users
# reach the Argo server (2746) through the ingress controller. JupyterHub's chart writes its
# own policies for the hub, the proxy and the notebooks.
SCRAPED_PORTS = {ARGO_NAMESPACE: (9090,), KUBERAY_NAMESPACE: (8080,)}
INGRESS_PORTS = {ARGO_NAMESPACE: (2746,)}
# Pods of the z2jh chart that call the Kubernetes API: the hub (KubeSpawner creates the
# notebook Pods) and the user scheduler. Notebooks, placeholders and image pullers do not.
HUB_API_COMPONENTS = ("hub", "user-scheduler")


def _platform_policies(tenancy: Any, parts: dict[str, Any], ray_namespaces: list[str]) -> list[dict[str, Any]]:
    """Default-deny ingress and egress in each release namespace, with the allows its
    components need: ingress that other namespaces need (scrapes, the ingress controller) and
    egress each component makes (DNS, the API server, its own peers)."""
    monitoring = list(tenancy.monitoring_namespaces) if tenancy else []
    ingress = list(tenancy.ingress_namespaces) if tenancy else []
    out = []
    for name, namespace in (("jupyterhub", HUB_NAMESPACE), ("argo_workflows", ARGO_NAMESPACE), ("kuberay", KUBERAY_NAMESPACE)):
        if name not in parts:
            continue
        allows = []
        for peers, ports in ((monitoring, SCRAPED_PORTS.get(namespace)), (ingress, INGRESS_PORTS.get(namespace))):
            if peers and ports:
                allows.append({"from": [{"namespaceSelector": {"matchExpressions": [
                    {"key": "kubernetes.io/metadata.name", "operator": "In", "values": peers}]}}],
                    "ports": [{"protocol": "TCP", "port": p} for p in ports]})
        egress = _platform_egress(tenancy, namespace, ray_namespaces) if tenancy else []
        out.append({"namespace": namespace, "allows": allows, "egress": egress})
    return out


def _platform_egress(tenancy: Any, namespace: str, ray_namespaces: list[str]) -> list[dict[str, Any]]:
    """The egress NetworkPolicies of one release namespace: name, Pods, rules."""
    everyone: dict[str, Any] = {}
    if namespace == HUB_NAMESPACE:
        # The chart's own policies open the hub's, the proxy's and the notebooks' egress; the
        # API server is for the hub and the user scheduler only, never for notebooks.
        return [
            {"name": "allow-dns", "pod_selector": everyone, "rules": [tenancy.dns()]},
            {"name": "allow-api-server", "rules": [tenancy.api_server()],
             "pod_selector": {"matchExpressions": [{"key": "component", "operator": "In", "values": list(HUB_API_COMPONENTS)}]}},
        ]
    base = {"name": "allow-dns-and-api-server", "pod_selector": everyone, "rules": [tenancy.dns(), tenancy.api_server()]}
    if namespace == ARGO_NAMESPACE:
        # The Argo server shows artifacts and logs from S3 and signs users in at the SSO
        # issuer (both public HTTPS), with its IAM identity from the Pod Identity agent.
        server = {"name": "allow-server-artifacts", "pod_selector": {"matchLabels": {"app.kubernetes.io/component": "server"}},
                  "rules": [tenancy.public_https(), tenancy.pod_identity_agent()]}
        return [base, server]
    # The KubeRay operator reads RayJob and RayService status from the heads' dashboard (8265)
    # and dashboard agent (52365) in the team namespaces with Ray clusters.
    if not ray_namespaces:
        return [base]
    heads = {"name": "allow-ray-heads", "pod_selector": everyone, "rules": [{
        "to": [{"namespaceSelector": {"matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "In", "values": ray_namespaces}]},
                "podSelector": {"matchLabels": {"ray.io/node-type": "head"}}}],
        "ports": [{"protocol": "TCP", "port": p} for p in RAY_OPERATOR_PORTS]}]}
    return [base, heads]


def _team_labels(spec: Any) -> dict[str, dict[str, Any]]:
    """Spawner.group_overrides (JupyterHub 5): a user of a team's groups gets a notebook Pod
    labelled with that team, which team-facing NetworkPolicies admit. JupyterHub applies them by
    key (team name); a user in several teams' groups gets the last team's label (jark/team-groups-overlap)."""
    return {
        f"strata-team-{team.name}": {"groups": list(team.groups), "spawner_override": {"extra_labels": {TEAM_LABEL: team.name}}}
        for team in spec.teams if team.groups
    }


# KubeSpawner's pod_security_context and container_security_context for every notebook.
NOTEBOOK_SECURITY = {
    "pod": {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}},
    "container": {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}, "capabilities": {"drop": ["ALL"]}},
}


def _jupyterhub(hub: JupyterHub, pools: dict[str, PoolFacts], team_labels: dict[str, Any]) -> dict[str, Any]:
    repo, tag = images.split(hub.image)
    digest = hub.image.partition("@")[2]
    return {
        "namespace": HUB_NAMESPACE,
        "authenticator": _authenticator(hub, bool(team_labels)),
        "client_secret": hub.auth.oauth.client_secret if hub.auth.authenticator == "oauth" and hub.auth.oauth else None,
        "ingress": _hub_ingress(hub),
        "image": {"name": repo, "tag": f"{tag}@{digest}" if digest else tag},
        "home": {"capacity": hub.home.capacity, "storage_class": hub.home.storage_class, "access_modes": list(hub.home.access_modes)},
        "shared_volumes": [{"name": v.name, "claim": v.claim.rpartition("/")[2], "mount_path": v.mount_path} for v in hub.shared_volumes],
        "group_overrides": team_labels,
        "notebook_security": NOTEBOOK_SECURITY,
        "profiles": [_profile(p, hub, pools) for p in hub.profiles],
        "cull": hub.cull.model_dump(),
    }


def _authenticator(hub: JupyterHub, team_groups: bool) -> dict[str, Any]:
    if hub.auth.authenticator == "dummy":
        # Development only (the jark/dummy-authenticator rule): any name, any password.
        return {"class": "dummy", "section": "DummyAuthenticator", "config": {"allow_all": True}}
    o = hub.auth.oauth
    assert o is not None  # checks.py reports a missing oauth block before rendering
    cfg: dict[str, Any] = {
        "login_service": o.login_service,
        "oauth_callback_url": f"https://{hub.host}/hub/oauth_callback",
        "authorize_url": o.authorize_url,
        "token_url": o.token_url,
    }
    if o.userdata_url:
        cfg["userdata_url"] = o.userdata_url
    if o.userdata_from_id_token:
        cfg["userdata_from_id_token"] = True
    cfg.update({"scope": list(o.scopes), "username_claim": o.username_claim,
                "allow_all": False, "allow_existing_users": False})
    for key, values in (("allowed_users", o.allowed_users), ("admin_users", o.admin_users)):
        if values:
            cfg[key] = list(values)
    if o.allowed_groups or o.admin_groups or team_groups:
        # OAuthenticator 17 refuses group settings unless the hub manages groups; the team
        # labels (Spawner.group_overrides) need the groups synced from the identity provider.
        cfg["manage_groups"] = True
        cfg["auth_state_groups_key"] = f"oauth_user.{o.groups_claim}"
        for key, values in (("allowed_groups", o.allowed_groups), ("admin_groups", o.admin_groups)):
            if values:
                cfg[key] = list(values)
    return {"class": "generic-oauth", "section": "GenericOAuthenticator", "config": cfg}


def _hub_ingress(hub: JupyterHub) -> dict[str, Any] | None:
    if hub.ingress is None:
        return None
    annotations = dict(hub.ingress.annotations)
    if hub.ingress.inbound_cidrs:
        annotations[INBOUND_CIDRS] = ",".join(hub.ingress.inbound_cidrs)
    out: dict[str, Any] = {"class_name": hub.ingress.class_name, "annotations": annotations, "hosts": [hub.host]}
    out["tls"] = [{"hosts": [hub.host], "secretName": hub.ingress.tls_secret}] if hub.ingress.tls_secret else []
    return out


def _ray_peers(namespace: str) -> dict[str, Any]:
    return {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": namespace}},
            "podSelector": {"matchLabels": {"ray.io/node-type": "head"}}}


def _notebook_ray_egress(spec: Any, ray_namespaces: list[str], team_labels: dict[str, Any]) -> list[dict[str, Any]]:
    """Per team with Ray clusters: its notebooks (and no other team's) may open the Ray client
    and dashboard ports of its own heads. The chart's notebook policy blocks private addresses."""
    if not team_labels:
        return []
    namespaces = spec.team_namespaces
    return [{"team": team.name, "namespace": HUB_NAMESPACE, "ray_namespace": namespaces[team.name],
             "pod_selector": {"matchLabels": {"component": "singleuser-server", TEAM_LABEL: team.name}},
             "to": [_ray_peers(namespaces[team.name])], "ports": list(RAY_CLIENT_PORTS)}
            for team in spec.teams if team.groups and namespaces[team.name] in ray_namespaces]


def _profile(p: Any, hub: JupyterHub, pools: dict[str, PoolFacts]) -> dict[str, Any]:
    override: dict[str, Any] = {
        "image": p.image or hub.image,
        "cpu_guarantee": p.cpu.guarantee,
        "cpu_limit": p.cpu.limit,
        "mem_guarantee": p.memory.guarantee,
        "mem_limit": p.memory.limit,
    }
    if p.gpus:
        # Extended resources go in limits only; the kubelet copies them to requests.
        override["extra_resource_limits"] = {GPU: str(p.gpus)}
    pool = pools.get(p.node_pool or "")
    if pool:
        override["node_selector"] = pool.node_selector  # a dict: merged with the chart's
    extra = tolerations(p, pools)
    if extra:
        override["tolerations"] = [*CHART_USER_TOLERATIONS, *extra]
    out: dict[str, Any] = {"display_name": p.display_name, "slug": p.slug}
    if p.description:
        out["description"] = p.description
    if p.default:
        out["default"] = True
    out["kubespawner_override"] = override
    return out


# --- Argo Workflows ---------------------------------------------------------------------

def _argo(argo: Any, spec: Any, pools: dict[str, PoolFacts], namespaces: dict[str, str]) -> dict[str, Any]:
    region = argo.artifacts.region or spec.cluster.region
    runners = []
    for team in argo.teams:
        role = role_arn(spec.cluster, runner_component(team.name), team.role_arn) if argo.identity == "irsa" else None
        annotations = {"eks.amazonaws.com/role-arn": role} if role else {}
        runners.append({"namespace": namespaces.get(team.name, team.name), "annotations": annotations})
    return {
        "namespace": ARGO_NAMESPACE,
        "auth_modes": list(argo.auth_modes),
        "sso": argo.sso.model_dump() if argo.sso and "sso" in argo.auth_modes else None,
        "s3": {"bucket": argo.artifacts.bucket, "region": region, "endpoint": f"s3.{region}.amazonaws.com"},
        "runner": RUNNER,
        "runners": runners,
        "dataflow": _dataflow(argo.dataflow, pools, namespaces) if argo.dataflow else None,
    }


def _dataflow(flow: Any, pools: dict[str, PoolFacts], namespaces: dict[str, str]) -> dict[str, Any]:
    requests = {"cpu": flow.resources.cpu, "memory": flow.resources.memory}
    step = {"requests": requests, "limits": {"memory": flow.resources.memory}}
    train = {"requests": dict(requests), "limits": {"memory": flow.resources.memory}}
    if flow.train_gpus:
        train["limits"][GPU] = str(flow.train_gpus)
    pool = pools.get(flow.train.node_pool or "")
    return {
        "namespace": namespaces.get(flow.team, flow.team),
        "image": flow.image,
        "train_image": flow.train_image or flow.image,
        "resources": step,
        "train_resources": train,
        "train_node_selector": pool.node_selector if pool else None,
        "train_tolerations": tolerations(flow.train, pools),
        "trials": list(flow.trials),
        "parallelism": flow.parallelism,
        "active_deadline_seconds": flow.active_deadline_seconds,
    }


# --- KubeRay ----------------------------------------------------------------------------

def _node_affinity(pool: PoolFacts | None) -> dict[str, Any] | None:
    if pool is None:
        return None
    terms = [{"matchExpressions": [{"key": k, "operator": "In", "values": [v]} for k, v in pool.node_selector.items()]}]
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}}


# Pod Security "restricted" for Ray pods, as the rayproject/ray images run: user ray (1000) in
# group users (100); fsGroup makes mounted claims writable for it.
RAY_POD_SECURITY = {"runAsNonRoot": True, "runAsUser": 1000, "runAsGroup": 100, "fsGroup": 100,
                    "seccompProfile": {"type": "RuntimeDefault"}}
CONTAINER_SECURITY = {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True, "capabilities": {"drop": ["ALL"]}}
# The root file system stays read-only; Ray writes only here: /tmp holds the session directory
# (/tmp/ray: logs, spilled objects, runtime environments and job working directories), and
# ~/.cache the pip, Hugging Face and PyTorch caches. The Python environment under /home/ray
# stays read-only.
RAY_SCRATCH = (("ray-tmp", "/tmp"), ("ray-cache", "/home/ray/.cache"))
# The head pod mounts no service-account token: only the autoscaler sidecar KubeRay injects
# calls the API (it scales worker groups), and it alone mounts this volume, which is exactly
# what automounting would give every container (Ray's autoscaler reads the token and CA from
# the standard path). 3607 seconds is the automount's own request, which the API server extends
# the same way.
API_TOKEN_VOLUME = "autoscaler-api-token"
API_TOKEN_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"
API_TOKEN_SOURCES = [
    {"serviceAccountToken": {"path": "token", "expirationSeconds": 3607}},
    {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
    {"downwardAPI": {"items": [{"path": "namespace", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}},
]
# KubeRay's own defaults for the RayJob submitter container (it runs `ray job submit` against
# the head's dashboard, never the Kubernetes API).
SUBMITTER_RESOURCES = {"requests": {"cpu": "500m", "memory": "200Mi"}, "limits": {"cpu": "1", "memory": "1Gi"}}


def _scratch_volumes() -> list[dict[str, Any]]:
    return [{"name": name, "emptyDir": {}} for name, _ in RAY_SCRATCH]


def _scratch_mounts() -> list[dict[str, Any]]:
    return [{"name": name, "mountPath": path} for name, path in RAY_SCRATCH]


def _ray_pod(group: Any, pools: dict[str, PoolFacts], data: list[dict[str, Any]], head: bool = False,
             neuron_scheduler: str | None = None) -> dict[str, Any]:
    resources = {"cpu": group.cpu, "memory": group.memory}
    limits = dict(resources)
    if group.gpus:
        limits[GPU] = str(group.gpus)  # KubeRay derives num-gpus from it
    neuron_cores = getattr(group, "neuron_cores", 0)  # worker groups only
    if neuron_cores:
        limits[NEURON_CORE] = str(neuron_cores)  # KubeRay advertises them to Ray as neuron_cores
    pool = pools.get(group.node_pool or "")
    env: list[dict[str, str]] = []
    if pool is not None and pool.efa_interfaces and not head:
        # A worker on an EFA pool takes every EFA interface of its node (one worker per node,
        # as distributed training runs), and the libfabric/NCCL settings that use them.
        limits[EFA] = str(pool.efa_interfaces)  # extended resources: limits only, the kubelet copies them
        env = efa_env(pool)
    volumes = _scratch_volumes()
    if head:
        volumes.append({"name": API_TOKEN_VOLUME, "projected": {"sources": API_TOKEN_SOURCES}})
    volumes += [{"name": v["name"], "persistentVolumeClaim": {"claimName": v["claim"], "readOnly": v["read_only"]}} for v in data]
    return {
        "env": env,
        # The Neuron scheduler extension's scheduler places Neuron Pods on adjacent cores.
        "scheduler_name": neuron_scheduler if neuron_cores else None,
        "affinity": _node_affinity(pools.get(group.node_pool or "")),
        "tolerations": tolerations(group, pools),
        "resources": {"requests": resources, "limits": limits},
        "pod_security": RAY_POD_SECURITY,
        "container_security": CONTAINER_SECURITY,
        "volume_mounts": _scratch_mounts() + [{"name": v["name"], "mountPath": v["mount_path"], "readOnly": v["read_only"]} for v in data],
        "volumes": volumes,
    }


def _ray_cluster(c: Any, ray: Any, pools: dict[str, PoolFacts], namespaces: dict[str, str],
                 neuron_scheduler: str | None = None) -> dict[str, Any]:
    data = [{"name": f"data-{i}", "claim": v.claim.rpartition("/")[2], "mount_path": v.mount_path, "read_only": v.read_only}
            for i, v in enumerate(c.volumes)]
    head = _ray_pod(c.head, pools, data, head=True)
    return {
        "name": c.name,
        "namespace": namespaces.get(c.team, c.team),
        "image": c.image or ray.image,
        "ray_version": c.ray_version or ray.ray_version,
        "idle_timeout_seconds": c.idle_timeout_seconds,
        "auth_mode": c.authentication,
        "autoscaler": {
            "security": CONTAINER_SECURITY,
            "volume_mounts": [{"name": "ray-tmp", "mountPath": "/tmp"},
                              {"name": API_TOKEN_VOLUME, "mountPath": API_TOKEN_PATH, "readOnly": True}],
        },
        # num-cpus "0": the head schedules no tasks or actors; it runs GCS, the dashboard and the autoscaler.
        "head": {**head, "params": {**_strings(c.head.ray_start_params), "num-cpus": "0"}},
        "workers": [{
            **_ray_pod(g, pools, data, neuron_scheduler=neuron_scheduler),
            "name": g.name, "min": g.min_replicas, "max": g.max_replicas,
            "params": _strings(g.ray_start_params),
        } for g in c.worker_groups],
        # The RayJob submitter: next to the head (its image is already there), restricted,
        # read-only with /tmp for the Ray CLI, no token.
        "submitter": {
            "affinity": head["affinity"],
            "tolerations": head["tolerations"],
            "resources": SUBMITTER_RESOURCES,
            "pod_security": RAY_POD_SECURITY,
            "container_security": CONTAINER_SECURITY,
            "volume_mounts": [{"name": "ray-tmp", "mountPath": "/tmp"}],
            "volumes": [{"name": "ray-tmp", "emptyDir": {}}],
        },
    }


def _strings(params: dict[str, Any]) -> dict[str, str]:
    return {k: str(v) for k, v in params.items()}


def _ray_job(job: Any, clusters: list[dict[str, Any]]) -> dict[str, Any] | None:
    cluster = next((c for c in clusters if c["name"] == job.cluster), None)
    if cluster is None:  # jark/unknown-reference reported it
        return None
    runtime_env = yaml.safe_dump(job.runtime_env, sort_keys=True, default_flow_style=False) if job.runtime_env else None
    return {
        "name": job.name,
        "namespace": cluster["namespace"],
        "entrypoint": job.entrypoint,
        "runtime_env": runtime_env,
        "active_deadline_seconds": job.active_deadline_seconds,
        "ttl_seconds_after_finished": job.ttl_seconds_after_finished,
        "cluster": cluster,
    }


def _ray_client_access(spec: Any, hub: JupyterHub | None, ray_namespaces: list[str],
                       team_labels: dict[str, Any]) -> list[dict[str, Any]]:
    """Per team namespace with Ray clusters: who may reach the Ray pods from outside it. Only
    the namespace's own team's notebooks: without a team label no notebook gets in."""
    teams = {ns: name for name, ns in spec.team_namespaces.items()}
    out = []
    for ns in ray_namespaces:
        team = teams.get(ns)
        notebooks = None
        if hub and team and f"strata-team-{team}" in team_labels:
            notebooks = {"namespace": HUB_NAMESPACE, "pod_selector": {"matchLabels": {"component": "singleuser-server", TEAM_LABEL: team}}}
        out.append({"namespace": ns, "notebooks": notebooks, "operator_namespace": KUBERAY_NAMESPACE,
                    "client_ports": list(RAY_CLIENT_PORTS), "operator_ports": list(RAY_OPERATOR_PORTS)})
    return out
