"""The ``agents`` section: Kagent agents per team, Agentgateway in front of every MCP server,
Langfuse 4.x tracing and a Milvus vector store. Every credential is a reference to an existing
Secret; checks.py refuses the agent-platform mistakes the schema cannot."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, model_validator

from strata.pack import ChartOverrides, ControllerIdentity, DnsLabel, PositiveInt, Quantity, StrictModel, load_yaml

Url = Annotated[str, Field(pattern=r"^https?://[^\s]+$")]
HttpsUrl = Annotated[str, Field(pattern=r"^https://[^\s]+$")]
Host = Annotated[str, Field(pattern=r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$")]
Port = Annotated[int, Field(ge=1, le=65535)]
Image = Annotated[str, Field(pattern=r"^[a-z0-9][a-zA-Z0-9._/:@-]*$")]
# Agentgateway's duration grammar (its CRDs: ^([0-9]{1,5}(h|m|s|ms)){1,4}$).
GatewayDuration = Annotated[str, Field(pattern=r"^([0-9]{1,5}(h|m|s|ms)){1,4}$")]
SecretKey = Annotated[str, Field(pattern=r"^[-._a-zA-Z0-9]+$")]
ToolName = Annotated[str, Field(pattern=r"^[A-Za-z0-9_.-]{1,128}$")]

# Each component lives in its Helm release's namespace, pinned in pack.yaml.
RELEASE_NAMESPACES = {r["name"]: r["namespace"] for r in load_yaml((Path(__file__).parent / "pack.yaml").read_bytes())["helmReleases"]}


class SecretRef(StrictModel):
    """A key of an existing Secret; strata never writes its value."""

    name: DnsLabel
    key: SecretKey


# --- Kagent -------------------------------------------------------------------------------

class KagentDatabase(StrictModel):
    """Kagent's Postgres: an external database whose URL is read from a Secret (mounted as a
    file), or the chart's bundled one, whose user and password are hard-coded (dev only)."""

    url_secret: SecretRef | None = None
    bundled: bool = False
    vector: bool = False  # the database has pgvector (long-term agent memory)


class Kagent(ChartOverrides):
    enabled: bool = True  # a later spec layer can switch a component off
    database: KagentDatabase = KagentDatabase()
    # trusted-proxy: the controller trusts the JWT an authenticating proxy (oauth2-proxy)
    # puts in front of it; unsecure: every caller is admin@kagent.dev (dev only).
    auth: Literal["trusted-proxy", "unsecure"] = "trusted-proxy"
    user_id_claim: str = "sub"


ProviderKind = Literal["OpenAI", "Anthropic", "AzureOpenAI", "Ollama", "Gemini", "Bedrock"]


class ModelProvider(StrictModel):
    """A model endpoint agents call: one Kagent ModelConfig per team namespace that uses it."""

    name: DnsLabel
    provider: ProviderKind
    model: Annotated[str, Field(min_length=1)]
    api_key_secret: SecretRef | None = None  # an existing Secret in each team namespace using it
    base_url: Url | None = None  # OpenAI-compatible endpoints (vLLM, a model gateway)
    host: Host | None = None  # Ollama
    region: str | None = None  # Bedrock (credentials from the agent's IAM identity)


class AgentTool(StrictModel):
    server: DnsLabel  # an mcpServers entry
    tools: Annotated[tuple[ToolName, ...], Field(min_length=1)]
    require_approval: tuple[ToolName, ...] = ()  # a person approves each call first


class Agent(StrictModel):
    name: DnsLabel
    team: DnsLabel
    description: str = ""
    model_provider: DnsLabel
    system_message: Annotated[str, Field(min_length=1)]
    tools: tuple[AgentTool, ...] = ()
    # The JWT the agent presents to the MCP gateway (Authorization: Bearer), an existing
    # Secret in the team namespace; the gateway authorizes tools by its team claim.
    gateway_token: SecretRef | None = None
    cpu: Quantity = "500m"
    memory: Quantity = "1Gi"
    stream: bool = True
    tracing: bool = True  # send OpenTelemetry traces to Langfuse (when agents.langfuse is on)
    # The OTLP headers for Langfuse, an existing Secret in the team namespace holding
    # "Authorization=Basic <base64 of the team's Langfuse project public:secret key>".
    tracing_headers: SecretRef | None = None


# --- MCP gateway (Agentgateway) -----------------------------------------------------------

class Jwks(StrictModel):
    """Where the gateway fetches the identity provider's signing keys: an HTTPS URL (strata
    writes a static backend with TLS for its host) or a Service in the cluster (Keycloak)."""

    url: HttpsUrl | None = None
    service: DnsLabel | None = None
    namespace: DnsLabel | None = None  # the Service's; defaults to the gateway's
    port: Port = 443
    path: Annotated[str, Field(min_length=1)] = ".well-known/jwks.json"  # with service

    @model_validator(mode="after")
    def _one_source(self) -> Jwks:
        if (self.url is None) == (self.service is None):
            raise ValueError("set exactly one of url and service")
        return self


class GatewayAuthentication(StrictModel):
    issuer: Annotated[str, Field(min_length=1, max_length=256)]
    audiences: Annotated[tuple[str, ...], Field(min_length=1)]
    jwks: Jwks
    provider: Literal["Auth0", "Authentik", "Descope", "Entra", "Keycloak", "Okta"] | None = None
    # The claim that carries the caller's identity-provider groups; a team's tools are granted
    # to tokens holding one of its groups (teams[].groups, or the team name without groups).
    groups_claim: Annotated[str, Field(pattern=r"^[A-Za-z0-9_:./-]+$")] = "groups"


class McpGateway(ChartOverrides):
    enabled: bool = True
    authentication: GatewayAuthentication | None = None
    # The Gateway (gateway.networking.k8s.io) that fronts the backends and its listener port;
    # strata points Kagent at http://<name>.<namespace>.svc:<port>/mcp/<server>.
    gateway_name: DnsLabel = "mcp-gateway"
    port: Port = 8080


class McpBackend(StrictModel):
    """The MCP server behind the gateway."""

    host: Host
    port: Port
    path: Annotated[str, Field(pattern=r"^/.*")] | None = None  # /mcp (streamable HTTP) or /sse by default
    protocol: Literal["StreamableHTTP", "SSE"] = "StreamableHTTP"


class BackendTls(StrictModel):
    """TLS from the gateway to the MCP server."""

    ca_config_map: DnsLabel | None = None  # a ConfigMap with ca.crt in the gateway's namespace; else system roots
    sni: Host | None = None
    subject_alt_names: tuple[str, ...] = ()


class InputValidation(StrictModel):
    """A policy server the gateway hands every tools/call request to before the MCP server sees
    it (Agentgateway MCP guardrails, gRPC): where tool arguments are checked against the tools'
    input schemas and policy. The caller's Authorization header is never forwarded to it."""

    service: DnsLabel
    namespace: DnsLabel | None = None  # the Service's; defaults to the gateway's
    port: Port
    fail_closed: bool = True  # refuse the call when the policy server is unreachable


class McpTool(StrictModel):
    name: ToolName
    # The teams whose agents may list and call the tool. No default: a tool granted to every
    # team is the gateway-less setup the rules refuse.
    teams: tuple[DnsLabel, ...] = ()


class McpServer(StrictModel):
    name: DnsLabel
    description: Annotated[str, Field(min_length=1)]
    backend: McpBackend | None = None
    # A bare URL an agent would call directly (the MCP_SERVER_URL pattern): refused, since a
    # URL implements neither authentication, authorization nor timeouts.
    url: Url | None = None
    authentication: Literal["required", "none"] = "required"
    tls: BackendTls | None = None
    request_timeout: GatewayDuration = "60s"
    connect_timeout: GatewayDuration = "5s"
    input_validation: InputValidation | None = None
    tools: Annotated[tuple[McpTool, ...], Field(min_length=1)]


# --- Langfuse 4.x -------------------------------------------------------------------------

class ExternalPostgres(StrictModel):
    host: Host
    port: Port = 5432
    database: str = "langfuse"
    username: str = "langfuse"
    password_secret: SecretRef


class BundledStore(StrictModel):
    """A chart-bundled data store, its password from an existing Secret."""

    password_secret: SecretRef
    storage_class: DnsLabel | None = None
    size: Quantity | None = None


class LangfusePostgres(StrictModel):
    external: ExternalPostgres | None = None
    bundled: BundledStore | None = None


class ExternalValkey(StrictModel):
    host: Host
    port: Port = 6379
    tls: bool = True
    password_secret: SecretRef


class LangfuseValkey(StrictModel):
    external: ExternalValkey | None = None
    bundled: BundledStore | None = None


class ExternalClickHouse(StrictModel):
    host: Host
    http_port: Port = 8123
    native_port: Port = 9000
    username: str = "default"
    password_secret: SecretRef


class LangfuseClickHouse(StrictModel):
    external: ExternalClickHouse | None = None
    # Bundled: the chart's ClickHouseCluster through the ClickHouse operator (installed apart).
    bundled: BundledStore | None = None


class LangfuseBlobStorage(StrictModel):
    """S3 for events, media and batch exports. `bucket` names a storage.s3.buckets entry (the
    platform's own bucket, region from there); the pods reach it with their IAM identity."""

    bucket: DnsLabel | None = None
    bucket_name: Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$")] | None = None
    region: str | None = None
    kms_key_id: str | None = None  # SSE-KMS instead of SSE-S3 (AES256)


class Masking(StrictModel):
    """Server-side ingestion masking (Langfuse Enterprise): the worker sends every event to the
    callback before storing it. Client-side SDK masking stays the first line."""

    callback_url: Url
    fail_closed: bool = True  # drop an event the callback cannot mask, rather than keep it unmasked
    timeout_ms: PositiveInt = 500


class LangfuseSecrets(StrictModel):
    """Langfuse's own secrets, each an existing Secret key."""

    salt: SecretRef
    encryption_key: SecretRef  # 64 hex characters (openssl rand -hex 32)
    nextauth_secret: SecretRef
    license_key: SecretRef | None = None  # Enterprise features (ingestion masking)


class Langfuse(ControllerIdentity, ChartOverrides):
    """Its web and worker Pods reach the blob storage bucket with the langfuse ServiceAccount's
    IAM identity: an EKS Pod Identity association for langfuse/langfuse, or IRSA
    (identity: irsa with controllerRoleArn)."""

    enabled: bool = True
    version: Annotated[str, Field(pattern=r"^[0-9]+\.[0-9]+\.[0-9]+$")] = "4.4.0"
    url: HttpsUrl  # NEXTAUTH_URL: where users reach the UI
    secrets: LangfuseSecrets
    postgres: LangfusePostgres
    valkey: LangfuseValkey
    clickhouse: LangfuseClickHouse
    blob_storage: LangfuseBlobStorage
    masking: Masking | None = None
    sign_up: bool = False  # open sign-up lets anyone who reaches the UI create an account
    telemetry: bool = False
    web_replicas: PositiveInt = 2
    worker_replicas: PositiveInt = 1


# --- Milvus ---------------------------------------------------------------------------------

GPU_INDEX_TYPES = ("GPU_CAGRA", "GPU_IVF_FLAT", "GPU_IVF_PQ", "GPU_BRUTE_FORCE")
IndexType = Literal["HNSW", "IVF_FLAT", "IVF_SQ8", "IVF_PQ", "DISKANN", "FLAT", "AUTOINDEX",
                    "GPU_CAGRA", "GPU_IVF_FLAT", "GPU_IVF_PQ", "GPU_BRUTE_FORCE"]


class EmbeddingModel(StrictModel):
    """The model that turns a team's documents into vectors: a collection built with another
    dimension or revision answers with wrong neighbours, not an error."""

    name: DnsLabel
    model: Annotated[str, Field(min_length=1)]  # e.g. BAAI/bge-large-en-v1.5
    revision: Annotated[str, Field(min_length=1)]  # a commit or tag, never "main"
    dimension: PositiveInt


class Collection(StrictModel):
    name: Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,254}$")]
    team: DnsLabel
    embedding_model: DnsLabel  # an agents.embeddingModels entry
    dimension: PositiveInt
    model_revision: Annotated[str, Field(min_length=1)]
    index_type: IndexType = "HNSW"
    metric_type: Literal["COSINE", "L2", "IP"] = "COSINE"


class MilvusGpu(StrictModel):
    count: PositiveInt = 1
    node_pool: DnsLabel


class MilvusObjectStorage(StrictModel):
    """Segments and the write-ahead log: a storage.s3.buckets entry reached with the pods' IAM
    identity, or the chart's bundled MinIO (default credentials: dev only)."""

    bucket: DnsLabel | None = None
    root_path: Annotated[str, Field(pattern=r"^[A-Za-z0-9._/-]+$")] = "milvus"
    bundled: bool = False


class Milvus(ControllerIdentity, ChartOverrides):
    """Its Pods reach the object storage bucket with the milvus ServiceAccount's IAM identity
    (Pod Identity association for milvus/milvus, or IRSA with controllerRoleArn)."""

    enabled: bool = True
    mode: Literal["standalone", "cluster"] = "standalone"
    image: Image = "milvusdb/milvus:v2.6.15"  # GPU indexes need the -gpu build
    storage_class: DnsLabel | None = None
    size: Quantity = "50Gi"
    object_storage: MilvusObjectStorage
    # GPUs per GPU node: the standalone node, or in cluster mode each query node (search) and
    # data node (index builds).
    gpu: MilvusGpu | None = None
    collections: tuple[Collection, ...] = ()


class Monitoring(StrictModel):
    """ServiceMonitors and PodMonitors from the charts (needs the Prometheus Operator CRDs)."""

    enabled: bool = False
    labels: dict[str, str] = {"release": "kube-prometheus-stack"}


class Config(StrictModel):
    kagent: Kagent | None = None
    model_providers: tuple[ModelProvider, ...] = ()
    agents: tuple[Agent, ...] = ()
    mcp_gateway: McpGateway | None = None
    mcp_servers: tuple[McpServer, ...] = ()
    langfuse: Langfuse | None = None
    embedding_models: tuple[EmbeddingModel, ...] = ()
    milvus: Milvus | None = None
    monitoring: Monitoring = Monitoring()
