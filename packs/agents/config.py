"""The ``agents`` section: Kagent agents per team, Agentgateway in front of every MCP server,
Langfuse 4.x tracing and a Milvus vector store. Every credential is a reference to an existing
Secret; checks.py refuses the agent-platform mistakes the schema cannot."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, model_validator

from strata.pack import ChartOverrides, ControllerIdentity, DnsLabel, PositiveInt, Quantity, StrictModel, exactly_one, load_yaml

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

    name: DnsLabel  # the existing Secret's name
    key: SecretKey  # the key in that Secret


# --- Kagent -------------------------------------------------------------------------------

class KagentDatabase(StrictModel):
    """Kagent's Postgres: an external database whose URL is read from a Secret (mounted as a
    file), or the chart's bundled one, whose user and password are hard-coded (dev only)."""

    url_secret: SecretRef | None = None  # the Secret key holding the external Postgres URL
    bundled: bool = False  # use the chart's bundled Postgres (hard-coded credentials: dev only)
    vector: bool = False  # the database has pgvector (long-term agent memory)


class Kagent(ChartOverrides):
    enabled: bool = True  # a later spec layer can switch a component off
    database: KagentDatabase = KagentDatabase()  # Kagent's Postgres
    # trusted-proxy: the controller trusts the JWT an authenticating proxy (oauth2-proxy)
    # puts in front of it; unsecure: every caller is admin@kagent.dev (dev only).
    auth: Literal["trusted-proxy", "unsecure"] = "trusted-proxy"
    user_id_claim: str = "sub"  # the JWT claim Kagent takes the user id from (controller userIdClaim)


ProviderKind = Literal["OpenAI", "Anthropic", "AzureOpenAI", "Ollama", "Gemini", "Bedrock"]


class ModelProvider(StrictModel):
    """A model endpoint agents call: one Kagent ModelConfig per team namespace that uses it."""

    name: DnsLabel  # the provider's name, which agents name as modelProvider
    provider: ProviderKind  # the kind of model API (the ModelConfig's provider)
    model: Annotated[str, Field(min_length=1)]  # the model's name at the provider
    api_key_secret: SecretRef | None = None  # an existing Secret in each team namespace using it
    base_url: Url | None = None  # OpenAI-compatible endpoints (vLLM, a model gateway)
    host: Host | None = None  # Ollama
    region: str | None = None  # Bedrock (credentials from the agent's IAM identity)


class AgentTool(StrictModel):
    server: DnsLabel  # an mcpServers entry
    tools: Annotated[tuple[ToolName, ...], Field(min_length=1)]  # the server's tools the agent may call (at least one)
    require_approval: tuple[ToolName, ...] = ()  # a person approves each call first


class Agent(StrictModel):
    name: DnsLabel  # the Kagent Agent's name
    team: DnsLabel  # the team (of the core spec) whose namespace runs the agent
    description: str = ""  # the Agent's description
    model_provider: DnsLabel  # a modelProviders entry the agent calls
    system_message: Annotated[str, Field(min_length=1)]  # the agent's system prompt
    tools: tuple[AgentTool, ...] = ()  # MCP tools the agent calls, through the gateway
    # The JWT the agent presents to the MCP gateway (Authorization: Bearer), an existing
    # Secret in the team namespace; the gateway authorizes tools by its team claim.
    gateway_token: SecretRef | None = None
    cpu: Quantity = "500m"  # the agent container's CPU request
    memory: Quantity = "1Gi"  # the agent container's memory request and limit
    stream: bool = True  # stream the model's responses (the Agent's stream)
    tracing: bool = True  # send OpenTelemetry traces to Langfuse (when agents.langfuse is on)
    # The OTLP headers for Langfuse, an existing Secret in the team namespace holding
    # "Authorization=Basic <base64 of the team's Langfuse project public:secret key>".
    tracing_headers: SecretRef | None = None


# --- MCP gateway (Agentgateway) -----------------------------------------------------------

class Jwks(StrictModel):
    """Where the gateway fetches the identity provider's signing keys: an HTTPS URL (strata
    writes a static backend with TLS for its host) or a Service in the cluster (Keycloak)."""

    url: HttpsUrl | None = None  # the HTTPS URL of the signing keys
    service: DnsLabel | None = None  # a Service in the cluster serving the signing keys
    namespace: DnsLabel | None = None  # the Service's; defaults to the gateway's
    port: Port = 443  # the port of the URL or Service
    path: Annotated[str, Field(min_length=1)] = ".well-known/jwks.json"  # with service

    @model_validator(mode="after")
    def _one_source(self) -> Jwks:
        exactly_one(self, "url", "service")
        return self


class GatewayAuthentication(StrictModel):
    issuer: Annotated[str, Field(min_length=1, max_length=256)]  # the JWT issuer (iss) the gateway accepts
    audiences: Annotated[tuple[str, ...], Field(min_length=1)]  # the JWT audiences (aud) the gateway accepts (at least one)
    jwks: Jwks  # where the identity provider's signing keys are
    provider: Literal["Auth0", "Authentik", "Descope", "Entra", "Keycloak", "Okta"] | None = None  # the identity provider's kind, written into the gateway's JWT authentication
    # The claim that carries the caller's identity-provider groups; a team's tools are granted
    # to tokens holding one of its groups (teams[].groups, or the team name without groups).
    groups_claim: Annotated[str, Field(pattern=r"^[A-Za-z0-9_:./-]+$")] = "groups"


class McpGateway(ChartOverrides):
    enabled: bool = True  # render the Agentgateway release and its MCP backends
    authentication: GatewayAuthentication | None = None  # JWT authentication of callers; unset: none
    # The Gateway (gateway.networking.k8s.io) that fronts the backends and its listener port;
    # strata points Kagent at http://<name>.<namespace>.svc:<port>/mcp/<server>.
    gateway_name: DnsLabel = "mcp-gateway"
    port: Port = 8080  # the Gateway listener's port


class McpBackend(StrictModel):
    """The MCP server behind the gateway."""

    host: Host  # the MCP server's host
    port: Port  # the MCP server's port
    path: Annotated[str, Field(pattern=r"^/.*")] | None = None  # /mcp (streamable HTTP) or /sse by default
    protocol: Literal["StreamableHTTP", "SSE"] = "StreamableHTTP"  # the MCP transport: streamable HTTP or SSE


class BackendTls(StrictModel):
    """TLS from the gateway to the MCP server."""

    ca_config_map: DnsLabel | None = None  # a ConfigMap with ca.crt in the gateway's namespace; else system roots
    sni: Host | None = None  # the SNI name sent to the MCP server
    subject_alt_names: tuple[str, ...] = ()  # names the server certificate must carry (verifySubjectAltNames)


class InputValidation(StrictModel):
    """A policy server the gateway hands every tools/call request to before the MCP server sees
    it (Agentgateway MCP guardrails, gRPC): where tool arguments are checked against the tools'
    input schemas and policy. The caller's Authorization header is never forwarded to it."""

    service: DnsLabel  # the policy server's Service
    namespace: DnsLabel | None = None  # the Service's; defaults to the gateway's
    port: Port  # the policy server's gRPC port
    fail_closed: bool = True  # refuse the call when the policy server is unreachable


class McpTool(StrictModel):
    name: ToolName  # the tool's name on the MCP server
    # The teams whose agents may list and call the tool. No default: a tool granted to every
    # team is the gateway-less setup the rules refuse.
    teams: tuple[DnsLabel, ...] = ()


class McpServer(StrictModel):
    name: DnsLabel  # the server's name; agents reach it at the gateway's /mcp/<name>
    description: Annotated[str, Field(min_length=1)]  # the RemoteMCPServer's description
    backend: McpBackend | None = None  # the MCP server behind the gateway
    # A bare URL an agent would call directly (the MCP_SERVER_URL pattern): refused, since a
    # URL implements neither authentication, authorization nor timeouts.
    url: Url | None = None
    authentication: Literal["required", "none"] = "required"  # required: callers need a valid JWT at the gateway; none: no authentication
    tls: BackendTls | None = None  # TLS from the gateway to the server; unset: plain
    request_timeout: GatewayDuration = "60s"  # the gateway's HTTP request timeout to the server, and the RemoteMCPServer's timeout
    connect_timeout: GatewayDuration = "5s"  # the gateway's TCP connect timeout to the server
    input_validation: InputValidation | None = None  # a policy server checking every tools/call first; unset: none
    tools: Annotated[tuple[McpTool, ...], Field(min_length=1)]  # the server's tools and the teams granted each (at least one)


# --- Langfuse 4.x -------------------------------------------------------------------------

class ExternalPostgres(StrictModel):
    host: Host  # the database's host
    port: Port = 5432  # the database's port
    database: str = "langfuse"  # the database's name
    username: str = "langfuse"  # the database user
    password_secret: SecretRef  # the Secret key holding the user's password


class BundledStore(StrictModel):
    """A chart-bundled data store, its password from an existing Secret."""

    password_secret: SecretRef  # the Secret key holding the store's password
    storage_class: DnsLabel | None = None  # the StorageClass of the store's volume; unset: the chart's default
    size: Quantity | None = None  # the size of the store's volume; unset: the chart's default


class LangfusePostgres(StrictModel):
    external: ExternalPostgres | None = None  # an external Postgres
    bundled: BundledStore | None = None  # the chart's bundled Postgres


class ExternalValkey(StrictModel):
    host: Host  # the Valkey (or Redis) host
    port: Port = 6379  # the Valkey port
    tls: bool = True  # connect with TLS
    password_secret: SecretRef  # the Secret key holding the password


class LangfuseValkey(StrictModel):
    external: ExternalValkey | None = None  # an external Valkey (or Redis)
    bundled: BundledStore | None = None  # the chart's bundled Valkey


class ExternalClickHouse(StrictModel):
    host: Host  # the ClickHouse host
    http_port: Port = 8123  # the ClickHouse HTTP port
    native_port: Port = 9000  # the ClickHouse native-protocol port
    username: str = "default"  # the ClickHouse user
    password_secret: SecretRef  # the Secret key holding the user's password


class LangfuseClickHouse(StrictModel):
    external: ExternalClickHouse | None = None  # an external ClickHouse
    # Bundled: the chart's ClickHouseCluster through the ClickHouse operator (installed apart).
    bundled: BundledStore | None = None


class LangfuseBlobStorage(StrictModel):
    """S3 for events, media and batch exports. `bucket` names a storage.s3.buckets entry (the
    platform's own bucket, region from there); the pods reach it with their IAM identity."""

    bucket: DnsLabel | None = None  # a storage.s3.buckets entry (bucket and region from there)
    bucket_name: Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$")] | None = None  # an S3 bucket by name, instead of bucket
    region: str | None = None  # the bucket's region with bucketName; default: the cluster's
    kms_key_id: str | None = None  # SSE-KMS instead of SSE-S3 (AES256)


class Masking(StrictModel):
    """Server-side ingestion masking (Langfuse Enterprise): the worker sends every event to the
    callback before storing it. Client-side SDK masking stays the first line."""

    callback_url: Url  # the masking callback every event is sent to
    fail_closed: bool = True  # drop an event the callback cannot mask, rather than keep it unmasked
    timeout_ms: PositiveInt = 500  # the callback's timeout, in milliseconds


class LangfuseSecrets(StrictModel):
    """Langfuse's own secrets, each an existing Secret key."""

    salt: SecretRef  # the Secret key holding SALT
    encryption_key: SecretRef  # 64 hex characters (openssl rand -hex 32)
    nextauth_secret: SecretRef  # the Secret key holding NEXTAUTH_SECRET
    license_key: SecretRef | None = None  # Enterprise features (ingestion masking)


class Langfuse(ControllerIdentity, ChartOverrides):
    """Its web and worker Pods reach the blob storage bucket with the langfuse ServiceAccount's
    IAM identity: an EKS Pod Identity association for langfuse/langfuse, or IRSA
    (identity: irsa with controllerRoleArn)."""

    enabled: bool = True  # render the Langfuse release
    version: Annotated[str, Field(pattern=r"^[0-9]+\.[0-9]+\.[0-9]+$")] = "4.4.0"  # the Langfuse image tag (4.x)
    url: HttpsUrl  # NEXTAUTH_URL: where users reach the UI
    secrets: LangfuseSecrets  # Langfuse's own secrets
    postgres: LangfusePostgres  # Langfuse's Postgres: external or bundled
    valkey: LangfuseValkey  # Langfuse's Valkey: external or bundled
    clickhouse: LangfuseClickHouse  # Langfuse's ClickHouse: external or bundled
    blob_storage: LangfuseBlobStorage  # the S3 bucket for events, media and exports
    masking: Masking | None = None  # server-side ingestion masking; unset: none
    sign_up: bool = False  # open sign-up lets anyone who reaches the UI create an account
    telemetry: bool = False  # send Langfuse's usage telemetry
    web_replicas: PositiveInt = 2  # replicas of the web Deployment
    worker_replicas: PositiveInt = 1  # replicas of the worker Deployment


# --- Milvus ---------------------------------------------------------------------------------

GPU_INDEX_TYPES = ("GPU_CAGRA", "GPU_IVF_FLAT", "GPU_IVF_PQ", "GPU_BRUTE_FORCE")
IndexType = Literal["HNSW", "IVF_FLAT", "IVF_SQ8", "IVF_PQ", "DISKANN", "FLAT", "AUTOINDEX",
                    "GPU_CAGRA", "GPU_IVF_FLAT", "GPU_IVF_PQ", "GPU_BRUTE_FORCE"]


class EmbeddingModel(StrictModel):
    """The model that turns a team's documents into vectors: a collection built with another
    dimension or revision answers with wrong neighbours, not an error."""

    name: DnsLabel  # the model's name, which collections name as embeddingModel
    model: Annotated[str, Field(min_length=1)]  # e.g. BAAI/bge-large-en-v1.5
    revision: Annotated[str, Field(min_length=1)]  # a commit or tag, never "main"
    dimension: PositiveInt  # the model's vector dimension


class Collection(StrictModel):
    name: Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,254}$")]  # the collection's name in Milvus
    team: DnsLabel  # the team (of the core spec) whose namespace gets the collection's ConfigMap
    embedding_model: DnsLabel  # an agents.embeddingModels entry
    dimension: PositiveInt  # the vector dimension; must be the embedding model's
    model_revision: Annotated[str, Field(min_length=1)]  # the embedding model revision; must be the embedding model's
    index_type: IndexType = "HNSW"  # the vector index type (GPU_* types need milvus.gpu)
    metric_type: Literal["COSINE", "L2", "IP"] = "COSINE"  # the distance metric


class MilvusGpu(StrictModel):
    count: PositiveInt = 1  # GPUs per GPU component (nvidia.com/gpu)
    node_pool: DnsLabel  # the GPU node pool those components run on


class MilvusObjectStorage(StrictModel):
    """Segments and the write-ahead log: a storage.s3.buckets entry reached with the pods' IAM
    identity, or the chart's bundled MinIO (default credentials: dev only)."""

    bucket: DnsLabel | None = None  # a storage.s3.buckets entry
    root_path: Annotated[str, Field(pattern=r"^[A-Za-z0-9._/-]+$")] = "milvus"  # the key prefix in the bucket
    bundled: bool = False  # use the chart's bundled MinIO instead (dev only)


class Milvus(ControllerIdentity, ChartOverrides):
    """Its Pods reach the object storage bucket with the milvus ServiceAccount's IAM identity
    (Pod Identity association for milvus/milvus, or IRSA with controllerRoleArn)."""

    enabled: bool = True  # render the Milvus release
    mode: Literal["standalone", "cluster"] = "standalone"  # standalone: one Pod; cluster: Milvus's distributed components
    image: Image = "milvusdb/milvus:v2.6.15"  # GPU indexes need the -gpu build
    storage_class: DnsLabel | None = None  # the StorageClass of Milvus's volume; unset: the cluster's default
    size: Quantity = "50Gi"  # the size of Milvus's volume
    object_storage: MilvusObjectStorage  # where segments and the write-ahead log go
    # GPUs per GPU node: the standalone node, or in cluster mode each query node (search) and
    # data node (index builds).
    gpu: MilvusGpu | None = None
    collections: tuple[Collection, ...] = ()  # the collections' contracts (dimension, model, index), one ConfigMap each


class Monitoring(StrictModel):
    """ServiceMonitors and PodMonitors from the charts (needs the Prometheus Operator CRDs)."""

    enabled: bool = False  # turn on the charts' ServiceMonitors and PodMonitors
    labels: dict[str, str] = {"release": "kube-prometheus-stack"}  # labels on those monitors, for the Prometheus to select them


class Config(StrictModel):
    kagent: Kagent | None = None  # the Kagent release; unset: none
    model_providers: tuple[ModelProvider, ...] = ()  # model endpoints, one ModelConfig per team namespace using each
    agents: tuple[Agent, ...] = ()  # Kagent Agents, each in a team namespace
    mcp_gateway: McpGateway | None = None  # Agentgateway in front of every MCP server; unset: none
    mcp_servers: tuple[McpServer, ...] = ()  # MCP servers, reached only through the gateway
    langfuse: Langfuse | None = None  # the Langfuse release; unset: none
    embedding_models: tuple[EmbeddingModel, ...] = ()  # the embedding models collections are built with
    milvus: Milvus | None = None  # the Milvus release; unset: none
    monitoring: Monitoring = Monitoring()  # monitors from the agent charts
