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

    node_pool: DnsLabel | None = None
    tolerations: tuple[Toleration, ...] | None = None


# --- JupyterHub -------------------------------------------------------------------------

class SecretKeys(StrictModel):
    """An existing Secret in the hub's namespace; strata never writes its values."""

    name: DnsLabel
    client_id_key: str = "client_id"
    client_secret_key: str = "client_secret"


class OAuth(StrictModel):
    """GenericOAuthenticator (OAuthenticator 17): any OpenID Connect / OAuth 2 provider."""

    login_service: str = "Single sign-on"
    authorize_url: Url
    token_url: Url
    userdata_url: Url | None = None
    userdata_from_id_token: bool = False  # take the claims from the ID token instead
    scopes: tuple[str, ...] = ("openid", "email", "profile")
    username_claim: str = "sub"
    client_secret: SecretKeys
    allowed_users: tuple[str, ...] = ()
    allowed_groups: tuple[str, ...] = ()
    admin_users: tuple[str, ...] = ()
    admin_groups: tuple[str, ...] = ()
    groups_claim: str = "groups"  # the claim holding the user's groups (Cognito: cognito:groups)


class Auth(StrictModel):
    authenticator: Literal["oauth", "dummy"] = "oauth"
    oauth: OAuth | None = None


class CpuRange(StrictModel):
    guarantee: Annotated[float, Field(gt=0)]
    limit: Annotated[float, Field(gt=0)]


class MemoryRange(StrictModel):
    guarantee: HubBytes
    limit: HubBytes


class Profile(Placement):
    slug: DnsLabel
    display_name: str
    description: str | None = None
    default: bool = False
    image: Image | None = None  # defaults to jupyterhub.image
    cpu: CpuRange
    memory: MemoryRange
    gpus: NonNegativeInt = 0


class Home(StrictModel):
    storage_class: DnsLabel
    capacity: Quantity = "10Gi"
    access_modes: tuple[Literal["ReadWriteOnce", "ReadWriteMany", "ReadWriteOncePod"], ...] = ("ReadWriteOnce",)


class SharedVolume(StrictModel):
    """An existing PVC mounted read-only into every notebook (models, datasets)."""

    name: DnsLabel
    claim: ClaimRef
    mount_path: Annotated[str, Field(pattern=r"^/.*")]


Cidr = Annotated[str, Field(pattern=r"^([0-9]{1,3}(\.[0-9]{1,3}){3}|[0-9a-fA-F:]+)/[0-9]{1,3}$")]


class Ingress(StrictModel):
    class_name: str = "alb"
    annotations: dict[str, str] = {}
    # Who may reach an internet-facing load balancer: the AWS Load Balancer Controller's
    # alb.ingress.kubernetes.io/inbound-cidrs (its security group). Unset: the whole internet
    # (jark/open-load-balancer warns about that in prod).
    inbound_cidrs: tuple[Cidr, ...] = ()
    tls_secret: DnsLabel | None = None  # for ingress controllers that terminate TLS themselves


class Cull(StrictModel):
    timeout: PositiveInt = 3600  # seconds of inactivity before a server is stopped
    every: PositiveInt = 600
    max_age: NonNegativeInt = 0  # 0: no maximum


class JupyterHub(ChartOverrides):
    enabled: bool = True  # a later spec layer can switch a component off
    host: Annotated[str, Field(pattern=r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$")]
    ingress: Ingress | None = None
    auth: Auth = Auth()
    image: Image = "quay.io/jupyter/scipy-notebook:2025-11-24"
    profiles: Annotated[tuple[Profile, ...], Field(min_length=1)]
    home: Home
    shared_volumes: tuple[SharedVolume, ...] = ()
    cull: Cull = Cull()


# --- Argo Workflows ---------------------------------------------------------------------

class Artifacts(StrictModel):
    bucket: Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$")]
    region: str | None = None  # defaults to cluster.region


class Sso(StrictModel):
    issuer: Url
    redirect_url: Url
    secret_name: DnsLabel  # existing Secret with client-id and client-secret
    scopes: tuple[str, ...] = ("groups",)


def runner_component(team: str) -> str:
    """A team's workflow runner, as the identity pack names its role (<cluster>-argo-workflow-<team>)."""
    return f"argo-workflow-{team}"


class WorkflowTeam(StrictModel):
    name: DnsLabel  # a team of the core spec
    role_arn: RoleArn | None = None  # IRSA role of the runner; none with EKS Pod Identity


class StepResources(StrictModel):
    cpu: Quantity = "250m"
    memory: Quantity = "256Mi"


class Dataflow(StrictModel):
    """The six-stage dataflow fixture (validate, prepare, tune, train, evaluate, register): it
    proves scheduling, parameter passing and artifacts end to end; it trains nothing."""

    team: DnsLabel
    image: Image = "python:3.12-slim"
    resources: StepResources = StepResources()
    trials: tuple[str, ...] = ("0.1", "0.01", "0.001")  # learning rates the tune stage fans out
    train: Placement = Placement()
    train_gpus: NonNegativeInt = 0
    train_image: Image | None = None  # defaults to image
    parallelism: PositiveInt = 2
    active_deadline_seconds: PositiveInt = 3600


class ArgoWorkflows(ChartOverrides):
    enabled: bool = True  # a later spec layer can switch a component off
    auth_modes: Annotated[tuple[Literal["client", "server", "sso"], ...], Field(min_length=1)] = ("client",)
    sso: Sso | None = None
    identity: Literal["podIdentity", "irsa"] = "podIdentity"
    artifacts: Artifacts
    teams: tuple[WorkflowTeam, ...] = ()
    dataflow: Dataflow | None = None


# --- KubeRay ----------------------------------------------------------------------------

class RayResources(Placement):
    cpu: Quantity
    memory: Quantity
    gpus: NonNegativeInt = 0
    ray_start_params: dict[str, Any] = {}


class WorkerGroup(RayResources):
    name: DnsLabel
    # aws.amazon.com/neuroncore per worker (KubeRay advertises them to Ray as neuron_cores).
    neuron_cores: NonNegativeInt = 0
    min_replicas: NonNegativeInt = 0
    max_replicas: NonNegativeInt


class RayVolume(StrictModel):
    claim: ClaimRef
    mount_path: Annotated[str, Field(pattern=r"^/.*")]
    read_only: bool = True


class RayCluster(StrictModel):
    name: DnsLabel
    team: DnsLabel
    # Ray 2.52 token authentication (RAY_AUTH_MODE=token) of the dashboard, Jobs API, client
    # and GCS: KubeRay generates the token into a Secret in the team namespace, so only the team
    # (its RoleBinding reads Secrets there) can submit work. "disabled" leaves the NetworkPolicy
    # (the team's own notebooks and the operator) as the only gate. Needs Ray 2.52 or later.
    authentication: Literal["token", "disabled"] = "token"
    image: Image | None = None  # defaults to kuberay.image
    ray_version: Annotated[str, Field(pattern=r"^[0-9]+\.[0-9]+\.[0-9]+$")] | None = None
    # The Neuron SDK release the image's runtime and frameworks (torch-neuronx ...) come from;
    # required when a worker group takes Neuron cores (jark/ray-neuron-versions).
    neuron_sdk: Annotated[str, Field(pattern=r"^[0-9]+\.[0-9]+\.[0-9]+$")] | None = None
    head: RayResources
    worker_groups: Annotated[tuple[WorkerGroup, ...], Field(min_length=1)]
    idle_timeout_seconds: PositiveInt = 300
    volumes: tuple[RayVolume, ...] = ()


class RayJob(StrictModel):
    name: DnsLabel
    cluster: DnsLabel  # a kuberay.clusters entry whose spec the job's own cluster copies
    entrypoint: str
    runtime_env: dict[str, Any] = {}
    active_deadline_seconds: PositiveInt = 86400
    ttl_seconds_after_finished: NonNegativeInt = 600


# Each component lives in its Helm release's namespace, pinned in pack.yaml.
RELEASE_NAMESPACES = {r["name"]: r["namespace"] for r in load_yaml((Path(__file__).parent / "pack.yaml").read_bytes())["helmReleases"]}


class KubeRay(ChartOverrides):
    enabled: bool = True  # a later spec layer can switch a component off
    image: Image = "rayproject/ray:2.52.0-gpu"
    ray_version: Annotated[str, Field(pattern=r"^[0-9]+\.[0-9]+\.[0-9]+$")] = "2.52.0"
    clusters: tuple[RayCluster, ...] = ()
    jobs: tuple[RayJob, ...] = ()

    # What the pack's context and its exports (the observability pack's monitors) derive.
    @property
    def operator_namespace(self) -> str:
        return RELEASE_NAMESPACES["kuberay-operator"]

    def cluster_namespaces(self, spec: Any) -> list[str]:
        """The team namespaces the RayClusters run in (a RayJob runs beside the cluster it copies)."""
        teams = spec.team_namespaces
        return sorted({teams.get(c.team, c.team) for c in self.clusters})


class Config(StrictModel):
    jupyterhub: JupyterHub | None = None
    argo_workflows: ArgoWorkflows | None = None
    kuberay: KubeRay | None = None
