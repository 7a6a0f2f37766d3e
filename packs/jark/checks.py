"""Policy checks of the jark pack. Each yields problems at the spec path of the offending value."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from strata.pack import Facts, PoolFacts, Problem, all_pool_facts, mount_problem, nested_get, quantity, secret_values, spec_path

from . import images, rules as r
from .config import Config, Placement
from .context import HUB_NAMESPACE, active
from .resources import fit_problem, gpu_problem, hub_bytes, toleration_dicts

UNSTABLE_CLAIMS = {"name", "given_name", "family_name", "nickname", "display_name", "middle_name"}
RAY_RESOURCE_PARAMS = ("num-cpus", "num-gpus", "memory", "resources")
HUB_TOP_LEVEL = {"enabled", "fullnameOverride", "nameOverride", "imagePullSecret", "imagePullSecrets", "hub", "proxy",
                 "singleuser", "scheduling", "ingress", "httpRoute", "prePuller", "custom", "cull", "debug", "rbac", "global"}
OAUTHENTICATOR_RENAMED = {"username_key": "username_claim", "extra_params": "token_params",
                          "tls_verify": "validate_server_cert", "claim_groups_key": "auth_state_groups_key"}
PROXY_HTTPS_TYPES = {None, "", "letsencrypt", "manual", "offload", "secret"}


def check(spec: Any, config: Config, facts: Facts) -> Iterator[Problem]:
    parts = active(config)
    pools = all_pool_facts(spec)
    teams = spec.team_namespaces
    quotas = {t.name: t.quota for t in spec.teams if t.quota is not None}
    env = spec.cluster.environment
    storage = facts["storage"]
    # Where the storage pack creates each claim; claims made outside strata are taken at their word.
    claims = storage.claim_namespaces if storage is not None else {}
    if "jupyterhub" in parts:
        yield from _check_team_groups(spec)
        yield from _check_hub(parts["jupyterhub"], pools, env, claims)
        if storage is not None:
            yield from _check_home_class(parts["jupyterhub"], storage)
    if "argo_workflows" in parts:
        yield from _check_argo(parts["argo_workflows"], pools, teams, env, spec.cluster.account_id)
        yield from _check_dataflow_quota(parts["argo_workflows"].dataflow, quotas)
    if "kuberay" in parts:
        yield from _check_ray(parts["kuberay"], pools, teams, claims)
        yield from _check_ray_neuron(parts["kuberay"], pools, facts["compute"])
        yield from _check_ray_quota(parts["kuberay"], quotas)


def _check_team_groups(spec: Any) -> Iterator[Problem]:
    owner: dict[str, str] = {}
    for i, team in enumerate(spec.teams):
        for j, group in enumerate(team.groups):
            if group in owner and owner[group] != team.name:
                yield r.TEAM_GROUPS_OVERLAP.problem(spec_path("teams", i, "groups", j), f"group {group!r} is also listed by team {owner[group]!r}")
            owner.setdefault(group, team.name)


def _check_quota(path: tuple, quota: Any, cpu: float, memory: float, gpus: int, what: str, neuron_cores: int = 0) -> Iterator[Problem]:
    if quota is None:
        return
    for name, wanted, allowed, shown in (("cpu", cpu, quantity(quota.cpu), quota.cpu),
                                         ("memory", memory, quantity(quota.memory), quota.memory),
                                         ("gpus", gpus, quota.gpus, quota.gpus),
                                         ("neuronCores", neuron_cores, quota.neuron_cores, quota.neuron_cores)):
        if wanted > allowed:
            yield r.EXCEEDS_TEAM_QUOTA.problem(path, f"{what} requests more {name} than the team's quota of {shown}")


def _check_ray_quota(ray: Any, quotas: dict[str, Any]) -> Iterator[Problem]:
    for i, c in enumerate(ray.clusters):
        quota = quotas.get(c.team)
        path = ("kuberay", "clusters", i)
        yield from _check_quota(path + ("head",), quota, quantity(c.head.cpu), quantity(c.head.memory), c.head.gpus, f"the head of {c.name!r}")
        for j, g in enumerate(c.worker_groups):
            yield from _check_quota(path + ("worker_groups", j), quota, quantity(g.cpu), quantity(g.memory), g.gpus, f"a worker of group {g.name!r}",
                                      g.neuron_cores)


def _check_dataflow_quota(flow: Any, quotas: dict[str, Any]) -> Iterator[Problem]:
    if flow is not None:
        res = flow.resources
        yield from _check_quota(("argo_workflows", "dataflow", "train_gpus"), quotas.get(flow.team),
                                quantity(res.cpu), quantity(res.memory), flow.train_gpus, "the dataflow's train step")


# --- shared -----------------------------------------------------------------------------

def _check_image(path: tuple, image: str | None) -> Iterator[Problem]:
    if image is not None and (why := images.unpinned(image)):
        yield r.UNPINNED_IMAGE.problem(path, f"image {image!r} {why}")


def _check_placement(path: tuple, placement: Placement, pools: dict[str, PoolFacts], cpu: float, memory: float,
                     gpus: int, what: str) -> Iterator[Problem]:
    """GPUs, size and tolerations of one Pod against its node pool."""
    name = placement.node_pool
    gpu_pools = [p for p, f in pools.items() if f.nvidia]
    if name is None:
        if gpus:
            yield r.GPU_NOT_SCHEDULABLE.problem(path + ("gpus",), f"{what} requests {gpus} GPU(s) but names no nodePool; "
                                                f"NVIDIA pools: {', '.join(gpu_pools) or 'none'}")
        return
    pool = pools.get(name)
    if pool is None:
        yield r.UNKNOWN_REFERENCE.problem(path + ("node_pool",), f"no node pool is named {name!r}")
        return
    if why := gpu_problem(pool, gpus):
        yield r.GPU_NOT_SCHEDULABLE.problem(path + ("gpus",), f"{what} requests {gpus} GPU(s) but {why}")
    elif why := fit_problem(pool, cpu, memory, gpus):
        yield r.REQUEST_EXCEEDS_POOL.problem(path, f"{what}: {why}")
    if placement.tolerations is not None:
        missing = pool.tolerated_by(toleration_dicts(placement.tolerations))
        if missing:
            yield r.TAINT_NOT_TOLERATED.problem(path + ("tolerations",), f"{what} does not tolerate {', '.join(missing)} of node pool {name!r}")


def _check_claim(path: tuple, ref: str, namespace: str, claims: Mapping[str, Iterable[str]], what: str) -> Iterator[Problem]:
    if why := mount_problem(ref, namespace, claims.get(ref.rpartition("/")[2], ())):
        yield r.PVC_CROSS_NAMESPACE.problem(path, f"{what}: {why}")


def _check_secrets(path: tuple, overrides: dict[str, Any]) -> Iterator[Problem]:
    for where, message in secret_values(overrides):
        yield r.SECRET_IN_VALUES.problem(path + where, message)


# --- JupyterHub -------------------------------------------------------------------------

OPEN_CIDRS = {"0.0.0.0/0", "::/0"}


def _check_load_balancer(base: tuple, ingress: Any, env: str) -> Iterator[Problem]:
    if ingress is None or env != "prod" or ingress.annotations.get("alb.ingress.kubernetes.io/scheme") != "internet-facing":
        return
    written = ingress.annotations.get("alb.ingress.kubernetes.io/inbound-cidrs")
    cidrs = set(ingress.inbound_cidrs) or ({c.strip() for c in written.split(",")} if written else set())
    if not cidrs:
        yield r.OPEN_LOAD_BALANCER.problem(base + ("ingress",), "the internet-facing ALB admits every address: no inboundCidrs")
    elif cidrs & OPEN_CIDRS:
        yield r.OPEN_LOAD_BALANCER.problem(base + ("ingress", "inbound_cidrs"), f"the internet-facing ALB admits {', '.join(sorted(cidrs & OPEN_CIDRS))}")


def _check_hub(hub: Any, pools: dict[str, PoolFacts], env: str, claims: Mapping[str, Iterable[str]]) -> Iterator[Problem]:
    base = ("jupyterhub",)
    yield from _check_load_balancer(base, hub.ingress, env)
    yield from _check_auth(base + ("auth",), hub, env)
    yield from _check_image(base + ("image",), hub.image)
    for i, p in enumerate(hub.profiles):
        path = base + ("profiles", i)
        image = p.image or hub.image
        yield from _check_image(path + ("image",), p.image)
        yield from _check_placement(path, p, pools, p.cpu.guarantee, hub_bytes(p.memory.guarantee), p.gpus, f"profile {p.slug!r}")
        if p.gpus and (why := images.without_cuda(image)):
            where = path + ("image",) if p.image else path + ("gpus",)
            yield r.GPU_IMAGE_WITHOUT_CUDA.problem(where, f"profile {p.slug!r} holds {p.gpus} GPU(s) with image {image!r}: {why}")
    for i, v in enumerate(hub.shared_volumes):
        yield from _check_claim(base + ("shared_volumes", i, "claim"), v.claim, HUB_NAMESPACE, claims, f"JupyterHub shared volume {v.name!r}")
    overrides = hub.values_overrides
    opath = base + ("values_overrides",)
    yield from _check_secrets(opath, overrides)
    yield from _check_hub_overrides(opath, overrides)
    if hub.ingress is not None and nested_get(overrides, ("proxy", "service", "type")) == "LoadBalancer":
        yield r.TWO_LOAD_BALANCERS.problem(opath + ("proxy", "service", "type"), "the hub already has an Ingress")
    limits = nested_get(overrides, ("singleuser", "extraResource", "limits")) or {}
    for key in limits:
        if key.endswith("/gpu"):
            yield r.GPUS_FOR_EVERY_USER.problem(opath + ("singleuser", "extraResource", "limits", key), f"{key} here is given to every user")


def _check_home_class(hub: Any, storage: Any) -> Iterator[Problem]:
    known = storage.class_names
    if hub.home.storage_class not in known:
        yield r.UNKNOWN_STORAGE_CLASS.problem(("jupyterhub", "home", "storage_class"), (
            f"no StorageClass {hub.home.storage_class!r}: the storage section makes {', '.join(known) or 'none'}; "
            "list a class the cluster already has under storage.existingClasses"))


def _check_auth(path: tuple, hub: Any, env: str) -> Iterator[Problem]:
    """Who may sign in, judged on the hub config the chart ends up with: the typed auth block,
    or the user's override of it (then the problem points at the override)."""
    auth, base = hub.auth, ("jupyterhub",)
    typed_class = "dummy" if auth.authenticator == "dummy" else "generic-oauth"
    klass, klass_at = hub.effective(("hub", "config", "JupyterHub", "authenticator_class"), typed_class, path + ("authenticator",), base)
    if str(klass).lower() in ("dummy", "dummyauthenticator", "jupyterhub.auth.dummyauthenticator") and env != "dev":
        yield r.DUMMY_AUTHENTICATOR.problem(klass_at, f"the dummy authenticator on a {env} cluster lets anyone in")
    if auth.authenticator == "dummy":
        return
    o = auth.oauth
    if o is None:
        yield r.OAUTH_SETTINGS.problem(path + ("authenticator",), "authenticator oauth needs an oauth: block (URLs, client Secret, allow lists)")
        return
    if o.userdata_url and o.userdata_from_id_token:
        yield r.OAUTH_SETTINGS.problem(path + ("oauth", "userdata_from_id_token"), "set userdataUrl or userdataFromIdToken, not both (OAuthenticator refuses to start)")
    elif not o.userdata_url and not o.userdata_from_id_token:
        yield r.OAUTH_SETTINGS.problem(path + ("oauth",), "set userdataUrl, or userdataFromIdToken: true")
    oauth = ("hub", "config", "GenericOAuthenticator")
    users, _ = hub.effective(oauth + ("allowed_users",), o.allowed_users, path + ("oauth",), base)
    groups, _ = hub.effective(oauth + ("allowed_groups",), o.allowed_groups, path + ("oauth",), base)
    allow_all, allow_all_at = hub.effective(oauth + ("allow_all",), False, path + ("oauth",), base)
    if allow_all is True and env != "dev":
        yield r.NO_ALLOW_RULE.problem(allow_all_at, f"allow_all on a {env} cluster lets everyone with an account at the identity provider in")
    elif not users and not groups:
        yield r.NO_ALLOW_RULE.problem(path + ("oauth",), "no allowedUsers and no allowedGroups: nobody can sign in")
    if o.username_claim in UNSTABLE_CLAIMS:
        yield r.UNSTABLE_USERNAME_CLAIM.problem(path + ("oauth", "username_claim"), f"{o.username_claim!r} is a display name, not an identifier")


def _check_hub_overrides(path: tuple, overrides: dict[str, Any]) -> Iterator[Problem]:
    for key in overrides:
        if key not in HUB_TOP_LEVEL:
            hint = "; hub code goes to hub.extraConfig" if key == "extraConfig" else ""
            yield r.DEPRECATED_CHART_VALUE.problem(path + (key,), f"{key!r} is not a key of the jupyterhub chart (its schema rejects it){hint}")
    for name, section in (nested_get(overrides, ("hub", "config")) or {}).items():
        where = path + ("hub", "config", name)
        if not name[:1].isupper():
            yield r.DEPRECATED_CHART_VALUE.problem(where, f"hub.config takes Configurable class names such as GenericOAuthenticator; {name!r} is refused by the schema and the hub")
            continue
        for old, new in OAUTHENTICATOR_RENAMED.items():
            if isinstance(section, dict) and old in section:
                yield r.DEPRECATED_CHART_VALUE.problem(where + (old,), f"{old} is deprecated in OAuthenticator 17; use {new}")
    if nested_get(overrides, ("singleuser", "storage", "storageClass")) is not None:
        yield r.DEPRECATED_CHART_VALUE.problem(path + ("singleuser", "storage", "storageClass"), "storageClass belongs under singleuser.storage.dynamic (jark.jupyterhub.home.storageClass)")
    https_type = nested_get(overrides, ("proxy", "https", "type"))
    if https_type not in PROXY_HTTPS_TYPES:
        yield r.DEPRECATED_CHART_VALUE.problem(path + ("proxy", "https", "type"), f"proxy.https.type {https_type!r} is not one of letsencrypt, manual, offload, secret")


# --- Argo Workflows ---------------------------------------------------------------------

def _check_argo(argo: Any, pools: dict[str, PoolFacts], teams: dict[str, str], env: str, account_id: str | None) -> Iterator[Problem]:
    base = ("argo_workflows",)
    modes, modes_at = argo.effective(("server", "authModes"), list(argo.auth_modes), base + ("auth_modes",), base)
    if isinstance(modes, list) and "server" in modes and env != "dev":
        yield r.ARGO_AUTH_MODE.problem(modes_at + (modes.index("server"),), f"auth mode server on a {env} cluster")
    if "sso" in argo.auth_modes and argo.sso is None:
        yield r.ARGO_AUTH_MODE.problem(base + ("auth_modes", argo.auth_modes.index("sso")), "auth mode sso needs jark.argoWorkflows.sso")
    for i, team in enumerate(argo.teams):
        if team.name not in teams:
            yield r.UNKNOWN_REFERENCE.problem(base + ("teams", i, "name"), f"no team is named {team.name!r}")
        if argo.identity == "irsa" and not team.role_arn and not account_id:
            yield r.WORKFLOW_IDENTITY.problem(base + ("teams", i), f"identity irsa: team {team.name!r} has no roleArn (and cluster.accountId "
                                              "names no account for the role strata generates), so its workflows cannot reach the artifact bucket")
        if argo.identity == "podIdentity" and team.role_arn:
            yield r.WORKFLOW_IDENTITY.problem(base + ("teams", i, "role_arn"), "with podIdentity the role comes from the Pod Identity association; drop roleArn or use identity: irsa")
    if argo.dataflow is not None:
        yield from _check_dataflow(base + ("dataflow",), argo, pools)
    overrides = argo.values_overrides
    opath = base + ("values_overrides",)
    yield from _check_secrets(opath, overrides)
    for keys, advice in ((("server", "authMode"), "deprecated; use jark.argoWorkflows.authModes"),
                         (("workflow", "namespace"), "deprecated; workflow runners come from jark.argoWorkflows.teams")):
        if nested_get(overrides, keys) is not None:
            yield r.DEPRECATED_CHART_VALUE.problem(opath + keys, f"{'.'.join(keys)} is {advice}")
    if nested_get(overrides, ("useStaticCredentials",)):
        yield r.ARGO_STATIC_CREDENTIALS.problem(opath + ("useStaticCredentials",), "static S3 credentials on EKS")
    for key in ("accessKeySecret", "secretKeySecret"):
        if nested_get(overrides, ("artifactRepository", "s3", key)) is not None:
            yield r.ARGO_STATIC_CREDENTIALS.problem(opath + ("artifactRepository", "s3", key), f"{key} is a static S3 key")


def _check_dataflow(path: tuple, argo: Any, pools: dict[str, PoolFacts]) -> Iterator[Problem]:
    flow = argo.dataflow
    if flow.team not in {t.name for t in argo.teams}:
        yield r.UNKNOWN_REFERENCE.problem(path + ("team",), f"team {flow.team!r} has no workflow runner; add it to jark.argoWorkflows.teams")
    yield from _check_image(path + ("image",), flow.image)
    yield from _check_image(path + ("train_image",), flow.train_image)
    res = flow.resources
    placement = flow.train
    train_path = path + ("train",)
    for problem in _check_placement(train_path, placement, pools, quantity(res.cpu), quantity(res.memory), flow.train_gpus, "the dataflow's train step"):
        # The GPU count lives beside the placement, as trainGpus.
        yield problem if problem.path[-1] != "gpus" else r.GPU_NOT_SCHEDULABLE.problem(path + ("train_gpus",), problem.message)
    image = flow.train_image or flow.image
    if flow.train_gpus and (why := images.without_cuda(image)):
        yield r.GPU_IMAGE_WITHOUT_CUDA.problem(path + ("train_image" if flow.train_image else "train_gpus",), f"the train step holds GPUs with image {image!r}: {why}")


# --- KubeRay ----------------------------------------------------------------------------

def _check_ray(ray: Any, pools: dict[str, PoolFacts], teams: dict[str, str], claims: Mapping[str, Iterable[str]]) -> Iterator[Problem]:
    base = ("kuberay",)
    yield from _check_image(base + ("image",), ray.image)
    names = {c.name for c in ray.clusters}
    for i, c in enumerate(ray.clusters):
        yield from _check_cluster(base + ("clusters", i), c, ray, pools, teams, claims)
    for i, job in enumerate(ray.jobs):
        path = base + ("jobs", i)
        if len(job.name) > 47:
            yield r.RAY_NAME_LENGTH.problem(path + ("name",), f"RayJob name {job.name!r} has {len(job.name)} characters (at most 47)")
        if job.cluster not in names:
            yield r.UNKNOWN_REFERENCE.problem(path + ("cluster",), f"no Ray cluster is named {job.cluster!r}")
    opath = base + ("values_overrides",)
    yield from _check_secrets(opath, ray.values_overrides)
    if nested_get(ray.values_overrides, ("batchScheduler", "enabled")) is not None:
        yield r.DEPRECATED_CHART_VALUE.problem(opath + ("batchScheduler", "enabled"), "batchScheduler.enabled is deprecated in kuberay-operator 1.7; set batchScheduler.name")


def _check_cluster(path: tuple, c: Any, ray: Any, pools: dict[str, PoolFacts], teams: dict[str, str],
                   claims: Mapping[str, Iterable[str]]) -> Iterator[Problem]:
    if len(c.name) > 53:
        yield r.RAY_NAME_LENGTH.problem(path + ("name",), f"RayCluster name {c.name!r} has {len(c.name)} characters (at most 53)")
    if c.team not in teams:
        yield r.UNKNOWN_REFERENCE.problem(path + ("team",), f"no team is named {c.team!r}")
    image, image_path = (c.image, path + ("image",)) if c.image else (ray.image, ("kuberay", "image"))
    yield from _check_image(path + ("image",), c.image)
    version = c.ray_version or ray.ray_version
    if c.authentication == "token" and tuple(int(x) for x in version.split(".")) < (2, 52, 0):
        yield r.RAY_AUTHENTICATION.problem(path + ("authentication",), f"Ray {version} has no token authentication (Ray 2.52.0 or later)")
    if images.is_ray(image):
        tag = images.split(image)[1]
        if tag is not None and not (tag == version or tag.startswith(version + "-")):
            yield r.RAY_VERSION_MISMATCH.problem(image_path, f"cluster {c.name!r}: rayVersion {version} but image {image!r}")
    head = path + ("head",)
    if c.head.gpus:
        yield r.RAY_HEAD_TAKES_WORK.problem(head + ("gpus",), "the head would advertise its GPUs to Ray")
    for key in ("num-cpus", "num-gpus"):
        value = c.head.ray_start_params.get(key)
        if value is not None and str(value) != "0":
            yield r.RAY_HEAD_TAKES_WORK.problem(head + ("ray_start_params", key), f"{key}: {value!r} lets Ray schedule work on the head")
    yield from _check_params(head + ("ray_start_params",), c.head.ray_start_params, worker=False)
    yield from _check_placement(head, c.head, pools, quantity(c.head.cpu), quantity(c.head.memory), c.head.gpus, f"the head of {c.name!r}")
    namespace = teams.get(c.team, c.team)
    for i, v in enumerate(c.volumes):
        yield from _check_claim(path + ("volumes", i, "claim"), v.claim, namespace, claims, f"Ray cluster {c.name!r}")
    for i, g in enumerate(c.worker_groups):
        where = path + ("worker_groups", i)
        if g.min_replicas > g.max_replicas:
            yield r.RAY_REPLICAS.problem(where + ("min_replicas",), f"minReplicas {g.min_replicas} > maxReplicas {g.max_replicas}")
        yield from _check_params(where + ("ray_start_params",), g.ray_start_params, worker=True)
        yield from _check_placement(where, g, pools, quantity(g.cpu), quantity(g.memory), g.gpus, f"worker group {g.name!r} of {c.name!r}")
        if g.gpus and (why := images.without_cuda(image)):
            yield r.GPU_IMAGE_WITHOUT_CUDA.problem(image_path, f"worker group {g.name!r} of {c.name!r} holds GPUs with image {image!r}: {why}")
        pool = pools.get(g.node_pool or "")
        if pool is not None and pool.efa_interfaces and (why := images.without_efa(image)):
            yield r.EFA_IMAGE_WITHOUT_LIBFABRIC.problem(image_path, f"worker group {g.name!r} of {c.name!r} gets EFA on pool {pool.pool.name!r} but runs {image!r}: {why}")


def _check_ray_neuron(ray: Any, pools: dict[str, PoolFacts], compute: Any) -> Iterator[Problem]:
    neuron = compute.neuron if compute is not None else None
    for i, c in enumerate(ray.clusters):
        path = ("kuberay", "clusters", i)
        image, image_path = (c.image, path + ("image",)) if c.image else (ray.image, ("kuberay", "image"))
        groups = [(j, g) for j, g in enumerate(c.worker_groups) if g.neuron_cores]
        for j, g in groups:
            where = path + ("worker_groups", j, "neuron_cores")
            pool = pools.get(g.node_pool or "")
            cores = min((t.neuron_cores for t in pool.instance_types), default=0) if pool is not None and pool.neuron else 0
            if not cores or g.neuron_cores > cores:
                why = f"node pool {g.node_pool!r} has no Neuron devices" if not cores else f"node pool {g.node_pool!r} offers {cores} NeuronCores per node"
                yield r.NEURON_NOT_SCHEDULABLE.problem(where, f"worker group {g.name!r} of {c.name!r} asks for {g.neuron_cores} NeuronCores but {why}")
            elif 1 < g.neuron_cores < cores and (neuron is None or neuron.scheduler_name is None):
                yield r.NEURON_SCHEDULER_EXTENSION.problem(where, f"worker group {g.name!r} of {c.name!r} takes {g.neuron_cores} of {cores} NeuronCores per node without the Neuron scheduler extension")
            if bad := images.not_neuron(image):
                yield r.NEURON_IMAGE.problem(image_path, f"worker group {g.name!r} of {c.name!r} holds NeuronCores with image {image!r}: {bad}")
        if groups and neuron is not None:
            if c.neuron_sdk is None:
                yield r.RAY_NEURON_VERSIONS.problem(path, f"Ray cluster {c.name!r} has Neuron workers but declares no neuronSdk (the platform runs Neuron SDK {neuron.sdk_version})")
            elif c.neuron_sdk != neuron.sdk_version:
                yield r.RAY_NEURON_VERSIONS.problem(path + ("neuron_sdk",), f"neuronSdk {c.neuron_sdk} is not the Neuron SDK release the platform's Neuron components are pinned to ({neuron.sdk_version})")


def _check_params(path: tuple, params: dict[str, Any], worker: bool) -> Iterator[Problem]:
    for key, value in params.items():
        if not isinstance(value, str):
            yield r.RAY_START_PARAMS.problem(path + (key,), f'{key}: {value!r} must be a string: write "{str(value).lower() if isinstance(value, bool) else value}"')
        if key == "labels":
            yield r.RAY_START_PARAMS.problem(path + (key,), "rayStartParams.labels is not supported by KubeRay; use the group's labels")
        elif worker and key in RAY_RESOURCE_PARAMS:
            yield r.RAY_START_PARAMS.problem(path + (key,), f"{key} repeats what KubeRay derives from the container resources (cpu, memory, gpus)")
