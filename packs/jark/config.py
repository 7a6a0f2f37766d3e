"""The ``jark`` section: JupyterHub, Argo Workflows and KubeRay, each optional. Workloads name
node pools and teams of the core spec; checks.py refuses what those cannot run."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field

from strata.pack import (
    ChartOverrides,
    DnsLabel,
    NonNegativeInt,
    PositiveInt,
    Quantity,
    RoleArn,
    StrictModel,
    Toleration,
    load_yaml,
)

# JupyterHub's ByteSpecification: K/M/G/T are powers of 1024 and nothing else is accepted.
HubBytes = Annotated[str, Field(pattern=r"^[0-9]+(\.[0-9]+)?[KMGT]$")]
Url = Annotated[str, Field(pattern=r"^https?://[^\s]+$")]
Image = Annotated[str, Field(pattern=r"^[a-z0-9][a-zA-Z0-9._/:@-]*$")]
# A PersistentVolumeClaim: `name`, or `namespace/name` to make the namespace explicit.
ClaimRef = Annotated[str, Field(pattern=r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?/)?[a-z0-9]([-a-z0-9.]*[a-z0-9])?$")]


class Placement(StrictModel):
    """Where a workload runs: a node pool of the spec. Tolerations default to exactly the
    pool's taints; give them explicitly only to add to or narrow that."""

    node_pool: DnsLabel | None = None  # the spec node pool the Pods are pinned to (its node selector and taints)
    tolerations: tuple[Toleration, ...] | None = None  # tolerations instead of the pool's taints; unset: exactly the pool's taints


# --- JupyterHub -------------------------------------------------------------------------

class SecretKeys(StrictModel):
    """An existing Secret in the hub's namespace; strata never writes its values."""

    name: DnsLabel  # the Secret holding the OAuth client's id and secret
    client_id_key: str = "client_id"  # the Secret key holding the client id
    client_secret_key: str = "client_secret"  # the Secret key holding the client secret


class OAuth(StrictModel):
    """GenericOAuthenticator (OAuthenticator 17): any OpenID Connect / OAuth 2 provider."""

    login_service: str = "Single sign-on"  # the login button's label (GenericOAuthenticator.login_service)
    authorize_url: Url  # the provider's authorization endpoint
    token_url: Url  # the provider's token endpoint
    userdata_url: Url | None = None  # the provider's userinfo endpoint
    userdata_from_id_token: bool = False  # take the claims from the ID token instead
    scopes: tuple[str, ...] = ("openid", "email", "profile")  # the scopes requested (GenericOAuthenticator.scope)
    username_claim: str = "sub"  # the claim that becomes the JupyterHub user name; must be a stable identifier
    client_secret: SecretKeys  # the existing Secret with the OAuth client credentials
    allowed_users: tuple[str, ...] = ()  # user names allowed to log in (allowed_users)
    allowed_groups: tuple[str, ...] = ()  # provider groups whose members may log in (allowed_groups; turns on manage_groups)
    admin_users: tuple[str, ...] = ()  # user names made hub admins (admin_users)
    admin_groups: tuple[str, ...] = ()  # provider groups whose members are hub admins (admin_groups; turns on manage_groups)
    groups_claim: str = "groups"  # the claim holding the user's groups (Cognito: cognito:groups)


class Auth(StrictModel):
    authenticator: Literal["oauth", "dummy"] = "oauth"  # oauth: GenericOAuthenticator; dummy: DummyAuthenticator, any name and password (development only)
    oauth: OAuth | None = None  # the OAuth provider; required with authenticator oauth


class CpuRange(StrictModel):
    guarantee: Annotated[float, Field(gt=0)]  # CPU cores requested (KubeSpawner cpu_guarantee)
    limit: Annotated[float, Field(gt=0)]  # CPU cores limit (KubeSpawner cpu_limit)


class MemoryRange(StrictModel):
    guarantee: HubBytes  # memory requested, K/M/G/T in powers of 1024 (KubeSpawner mem_guarantee)
    limit: HubBytes  # memory limit, K/M/G/T in powers of 1024 (KubeSpawner mem_limit)


class Profile(Placement):
    slug: DnsLabel  # the profile's identifier in the profile list
    display_name: str  # the profile's name shown on the spawn page
    description: str | None = None  # the text shown under the name on the spawn page
    default: bool = False  # preselect this profile on the spawn page
    image: Image | None = None  # defaults to jupyterhub.image
    cpu: CpuRange  # the notebook's CPU request and limit
    memory: MemoryRange  # the notebook's memory request and limit
    gpus: NonNegativeInt = 0  # nvidia.com/gpu limit of the notebook (extra_resource_limits)


class Home(StrictModel):
    storage_class: DnsLabel  # the StorageClass of each user's home PVC; one the storage section makes
    capacity: Quantity = "10Gi"  # the size of each user's home PVC
    access_modes: tuple[Literal["ReadWriteOnce", "ReadWriteMany", "ReadWriteOncePod"], ...] = ("ReadWriteOnce",)  # the access modes of each user's home PVC


class SharedVolume(StrictModel):
    """An existing PVC mounted read-only into every notebook (models, datasets)."""

    name: DnsLabel  # the volume's name in the notebook Pod
    claim: ClaimRef  # the PVC mounted: name, or namespace/name
    mount_path: Annotated[str, Field(pattern=r"^/.*")]  # where the volume is mounted in every notebook


Cidr = Annotated[str, Field(pattern=r"^([0-9]{1,3}(\.[0-9]{1,3}){3}|[0-9a-fA-F:]+)/[0-9]{1,3}$")]


class Ingress(StrictModel):
    class_name: str = "alb"  # the Ingress's ingressClassName
    annotations: dict[str, str] = {}  # annotations of the hub's Ingress (ALB scheme, certificate ...)
    # Who may reach an internet-facing load balancer: the AWS Load Balancer Controller's
    # alb.ingress.kubernetes.io/inbound-cidrs (its security group). Unset: the whole internet
    # (jark/open-load-balancer warns about that in prod).
    inbound_cidrs: tuple[Cidr, ...] = ()
    tls_secret: DnsLabel | None = None  # for ingress controllers that terminate TLS themselves


class Cull(StrictModel):
    timeout: PositiveInt = 3600  # seconds of inactivity before a server is stopped
    every: PositiveInt = 600  # seconds between two checks for idle servers
    max_age: NonNegativeInt = 0  # 0: no maximum


class JupyterHub(ChartOverrides):
    enabled: bool = True  # a later spec layer can switch a component off
    host: Annotated[str, Field(pattern=r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$")]  # the hub's host name (the Ingress host and the OAuth callback URL)
    ingress: Ingress | None = None  # the hub's Ingress; unset: no Ingress
    auth: Auth = Auth()  # how users log in
    image: Image = "quay.io/jupyter/scipy-notebook:2025-11-24"  # the notebook image of profiles that set none
    profiles: Annotated[tuple[Profile, ...], Field(min_length=1)]  # the server options users choose from; at least one
    home: Home  # each user's home PVC
    shared_volumes: tuple[SharedVolume, ...] = ()  # existing PVCs mounted read-only into every notebook
    cull: Cull = Cull()  # stopping idle servers


# --- Argo Workflows ---------------------------------------------------------------------

class Artifacts(StrictModel):
    bucket: Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$")]  # the S3 bucket of the workflow artifact repository
    region: str | None = None  # defaults to cluster.region


class Sso(StrictModel):
    issuer: Url  # the OIDC issuer URL of the Argo server's SSO
    redirect_url: Url  # the SSO callback URL of the Argo server
    secret_name: DnsLabel  # existing Secret with client-id and client-secret
    scopes: tuple[str, ...] = ("groups",)  # the OIDC scopes the Argo server requests (sso.scopes)


def runner_component(team: str) -> str:
    """A team's workflow runner, as the identity pack names its role (<cluster>-argo-workflow-<team>)."""
    return f"argo-workflow-{team}"


class WorkflowTeam(StrictModel):
    name: DnsLabel  # a team of the core spec
    role_arn: RoleArn | None = None  # IRSA role of the runner; none with EKS Pod Identity


class StepResources(StrictModel):
    cpu: Quantity = "250m"  # the CPU request of each step
    memory: Quantity = "256Mi"  # the memory request and limit of each step


class Dataflow(StrictModel):
    """The six-stage dataflow fixture (validate, prepare, tune, train, evaluate, register): it
    proves scheduling, parameter passing and artifacts end to end; it trains nothing."""

    team: DnsLabel  # the team (of the core spec) whose namespace runs the workflow
    image: Image = "python:3.12-slim"  # the image of every step
    resources: StepResources = StepResources()  # the requests of every step
    trials: tuple[str, ...] = ("0.1", "0.01", "0.001")  # learning rates the tune stage fans out
    train: Placement = Placement()  # where the train step runs
    train_gpus: NonNegativeInt = 0  # nvidia.com/gpu limit of the train step
    train_image: Image | None = None  # defaults to image
    parallelism: PositiveInt = 2  # how many steps run at once (the Workflow's parallelism)
    active_deadline_seconds: PositiveInt = 3600  # seconds before the Workflow is stopped (activeDeadlineSeconds)


class ArgoWorkflows(ChartOverrides):
    enabled: bool = True  # a later spec layer can switch a component off
    auth_modes: Annotated[tuple[Literal["client", "server", "sso"], ...], Field(min_length=1)] = ("client",)  # the Argo server's auth modes
    sso: Sso | None = None  # the Argo server's OIDC SSO; required with auth mode sso
    identity: Literal["podIdentity", "irsa"] = "podIdentity"  # how the teams' workflow runners get AWS credentials: EKS Pod Identity or IRSA
    artifacts: Artifacts  # the S3 artifact repository
    teams: tuple[WorkflowTeam, ...] = ()  # the teams given a workflow runner service account
    dataflow: Dataflow | None = None  # the dataflow fixture workflow; unset: none


# --- KubeRay ----------------------------------------------------------------------------

class RayResources(Placement):
    cpu: Quantity  # the CPU request and limit of each Pod
    memory: Quantity  # the memory request and limit of each Pod
    gpus: NonNegativeInt = 0  # nvidia.com/gpu limit of each Pod (KubeRay derives num-gpus from it)
    ray_start_params: dict[str, Any] = {}  # extra ray start parameters, rendered as strings


class WorkerGroup(RayResources):
    name: DnsLabel  # the worker group's name
    # aws.amazon.com/neuroncore per worker (KubeRay advertises them to Ray as neuron_cores).
    neuron_cores: NonNegativeInt = 0
    min_replicas: NonNegativeInt = 0  # the autoscaler's minimum workers
    max_replicas: NonNegativeInt  # the autoscaler's maximum workers


class RayVolume(StrictModel):
    claim: ClaimRef  # the PVC mounted: name, or namespace/name (the cluster's namespace)
    mount_path: Annotated[str, Field(pattern=r"^/.*")]  # where the volume is mounted in head and workers
    read_only: bool = True  # mount it read-only


class RayCluster(StrictModel):
    name: DnsLabel  # the RayCluster's name
    team: DnsLabel  # the team (of the core spec) whose namespace the cluster runs in
    # Ray 2.52 token authentication (RAY_AUTH_MODE=token) of the dashboard, Jobs API, client
    # and GCS: KubeRay generates the token into a Secret in the team namespace, so only the team
    # (its RoleBinding reads Secrets there) can submit work. "disabled" leaves the NetworkPolicy
    # (the team's own notebooks and the operator) as the only gate. Needs Ray 2.52 or later.
    authentication: Literal["token", "disabled"] = "token"
    image: Image | None = None  # defaults to kuberay.image
    ray_version: Annotated[str, Field(pattern=r"^[0-9]+\.[0-9]+\.[0-9]+$")] | None = None  # the RayCluster's rayVersion; defaults to kuberay.rayVersion
    # The Neuron SDK release the image's runtime and frameworks (torch-neuronx ...) come from;
    # required when a worker group takes Neuron cores (jark/ray-neuron-versions).
    neuron_sdk: Annotated[str, Field(pattern=r"^[0-9]+\.[0-9]+\.[0-9]+$")] | None = None
    head: RayResources  # the head Pod's placement and resources (it schedules no tasks: num-cpus 0)
    worker_groups: Annotated[tuple[WorkerGroup, ...], Field(min_length=1)]  # the worker groups; at least one
    idle_timeout_seconds: PositiveInt = 300  # seconds an idle worker lives before the autoscaler removes it
    volumes: tuple[RayVolume, ...] = ()  # existing PVCs mounted into head and workers


class RayJob(StrictModel):
    name: DnsLabel  # the RayJob's name
    cluster: DnsLabel  # a kuberay.clusters entry whose spec the job's own cluster copies
    entrypoint: str  # the command the job runs
    runtime_env: dict[str, Any] = {}  # Ray runtime environment, rendered as the RayJob's runtimeEnvYAML
    active_deadline_seconds: PositiveInt = 86400  # seconds before the job is stopped (activeDeadlineSeconds)
    ttl_seconds_after_finished: NonNegativeInt = 600  # the RayJob's ttlSecondsAfterFinished


# Each component lives in its Helm release's namespace, pinned in pack.yaml.
RELEASE_NAMESPACES = {r["name"]: r["namespace"] for r in load_yaml((Path(__file__).parent / "pack.yaml").read_bytes())["helmReleases"]}


class KubeRay(ChartOverrides):
    enabled: bool = True  # a later spec layer can switch a component off
    image: Image = "rayproject/ray:2.52.0-gpu"  # the Ray image of clusters that set none
    ray_version: Annotated[str, Field(pattern=r"^[0-9]+\.[0-9]+\.[0-9]+$")] = "2.52.0"  # the rayVersion of clusters that set none; must match the image
    clusters: tuple[RayCluster, ...] = ()  # the RayClusters, each in a team namespace
    jobs: tuple[RayJob, ...] = ()  # the RayJobs, each copying a cluster's spec

    # What the pack's context and its exports (the observability pack's monitors) derive.
    @property
    def operator_namespace(self) -> str:
        return RELEASE_NAMESPACES["kuberay-operator"]

    def cluster_namespaces(self, spec: Any) -> list[str]:
        """The team namespaces the RayClusters run in (a RayJob runs beside the cluster it copies)."""
        teams = spec.team_namespaces
        return sorted({teams.get(c.team, c.team) for c in self.clusters})


class Config(StrictModel):
    jupyterhub: JupyterHub | None = None  # the JupyterHub release; unset: none
    argo_workflows: ArgoWorkflows | None = None  # the Argo Workflows release; unset: none
    kuberay: KubeRay | None = None  # the KubeRay operator release and its Ray clusters and jobs; unset: none
