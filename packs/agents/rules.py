"""The agents pack's policy rules: the agent-platform cautions (MCP is a protocol behind a real
gateway, GPU requests are not GPU indexing, Langfuse 4 is not a single Deployment, ...) made
checkable."""

from strata.pack import Rule

MCP_WITHOUT_AUTHENTICATION = Rule(
    "agents/mcp-without-authentication",
    "an MCP server reachable without authentication lets anything that reaches the gateway list and call its tools",
    "keep authentication: required and give agents.mcpGateway.authentication (JWT issuer, audiences, JWKS), or set cluster.environment: dev",
)
TOOL_FOR_EVERY_TEAM = Rule(
    "agents/tool-for-every-team",
    "a tool that names no teams would be granted to every team's agents by default; tools are authorized per team",
    "list the teams whose agents may call the tool in mcpServers[].tools[].teams",
)
MCP_URL_WITHOUT_GATEWAY = Rule(
    "agents/mcp-url-without-gateway",
    "an MCP server given only as a URL has no gateway backend: a URL implements neither authentication, authorization, timeouts nor TLS checks",
    "replace url with backend (host, port, path, protocol) so the server sits behind the MCP gateway",
)
TOOL_NOT_GRANTED = Rule(
    "agents/tool-not-granted",
    "the agent uses a tool that its team is not granted on the gateway, so every call is denied",
    "add the agent's team to mcpServers[].tools[].teams, or drop the tool from the agent",
)
UNKNOWN_REFERENCE = Rule(
    "agents/unknown-reference",
    "the spec names a team, model provider, MCP server, tool, embedding model, node pool or bucket that is not declared, so the object would point nowhere",
    "use a name from teams:, nodePools:, agents.modelProviders, agents.mcpServers, agents.embeddingModels or storage.s3.buckets",
)
MISSING_COMPONENT = Rule(
    "agents/missing-component",
    "agents or MCP servers are declared without the component that runs them (Kagent, the MCP gateway and its authentication)",
    "add agents.kagent for agents, agents.mcpGateway (with authentication) for MCP servers",
)
INLINE_CREDENTIAL = Rule(
    "agents/inline-credential",
    "a credential written into chart values or the spec ends up in Git and in a Helm release anyone with read access sees",
    "reference an existing Secret (the typed *Secret fields: name and key) instead of writing the value",
)
MODEL_WITHOUT_CREDENTIALS = Rule(
    "agents/model-without-credentials",
    "a hosted model provider needs an API key; without a Secret reference the ModelConfig cannot authenticate",
    "give modelProviders[].apiKeySecret (an existing Secret in each team namespace that uses the provider)",
)
BUNDLED_STORE_OUTSIDE_DEV = Rule(
    "agents/bundled-store-outside-dev",
    "Kagent's bundled Postgres has a hard-coded password and Milvus's bundled MinIO the default minioadmin keys: for evaluation only",
    "use an external database (kagent.database.urlSecret) and the platform's S3 (milvus.objectStorage.bucket), or set cluster.environment: dev",
)
UNSECURE_KAGENT = Rule(
    "agents/unsecure-kagent",
    "Kagent's unsecure auth mode makes every caller of the controller and UI admin@kagent.dev",
    "use auth: trusted-proxy behind an authenticating proxy (oauth2-proxy), or set cluster.environment: dev",
)
LANGFUSE_STORES = Rule(
    "agents/langfuse-stores",
    "Langfuse 4 needs Postgres, ClickHouse, Redis/Valkey and S3 blob storage; each must be exactly one of external or bundled",
    "give exactly one of external and bundled for postgres, valkey and clickhouse, and one bucket for blobStorage",
)
LANGFUSE_V2_LAYOUT = Rule(
    "agents/langfuse-v2-layout",
    "Langfuse 2.x was one web Deployment on Postgres; a 4.x installation needs the worker, ClickHouse, Valkey and S3, and a 2.x image or layout is not one",
    "use Langfuse 4.x (langfuse.version 4.4.0) with the worker running and no override that removes ClickHouse, Valkey or S3",
)
LANGFUSE_MASKING_LICENSE = Rule(
    "agents/langfuse-masking-license",
    "Langfuse's server-side ingestion masking is an Enterprise feature; without a license key the callback is silently never called",
    "give langfuse.secrets.licenseKey, or drop masking and mask in the SDKs (client-side masking)",
)
MILVUS_GPU_WITHOUT_GPU_INDEX = Rule(
    "agents/milvus-gpu-without-gpu-index",
    "requesting GPUs for Milvus does not enable GPU indexing: that needs the -gpu image and a GPU index type (GPU_CAGRA, GPU_IVF_*), else the GPUs idle",
    "use milvusdb/milvus:<version>-gpu and a GPU index type on the collections, or drop milvus.gpu",
)
MILVUS_GPU_INDEX_WITHOUT_GPU = Rule(
    "agents/milvus-gpu-index-without-gpu",
    "a GPU index type or the -gpu image without GPUs on the query node cannot build or search that index",
    "give milvus.gpu (count and a GPU node pool) with the -gpu image, or use a CPU index type (HNSW, IVF_*, DISKANN)",
)
EMBEDDING_MISMATCH = Rule(
    "agents/embedding-mismatch",
    "a collection whose dimension or model revision differs from the team's embedding model returns wrong neighbours or rejects every insert",
    "make the collection's dimension and modelRevision those of its embeddingModel (re-embed the data when the model changes)",
)
UNKNOWN_STORAGE_CLASS = Rule(
    "agents/unknown-storage-class",
    "a persistence StorageClass that is neither one the storage section makes nor one declared to exist leaves the claims Pending",
    "name a class of storage.efs/fsx.storageClasses, or list the cluster's class under storage.existingClasses",
)
GPU_POOL = Rule(
    "agents/gpu-pool",
    "Milvus's GPUs must come from an NVIDIA node pool, or the query node stays Pending",
    "set milvus.gpu.nodePool to a node pool with NVIDIA GPUs",
)

WORKLOAD_IDENTITY = Rule(
    "agents/workload-identity",
    "Langfuse and Milvus reach S3 with their ServiceAccount's IAM identity: an IRSA role ARN, or an EKS Pod Identity association, not both and not neither",
    "with identity irsa set controllerRoleArn; with podIdentity drop it and associate the role with langfuse/langfuse or milvus/milvus",
)

EXCEEDS_TEAM_QUOTA = Rule(
    "agents/exceeds-team-quota",
    "the team's agents together request more CPU or memory than its ResourceQuota, so the API server refuses the last agent Pods",
    "lower agents[].cpu / memory or raise teams[].quota",
)

TOOL_INPUT_UNCHECKED = Rule(
    "agents/tool-input-unchecked",
    "without input validation at the gateway, tool arguments a model makes up reach the MCP server unchecked against the tool's input schema",
    "give mcpServers[].inputValidation (a policy server the gateway sends every tools/call to), or set cluster.environment: dev",
)

TRACING_WITHOUT_KEYS = Rule(
    "agents/tracing-without-keys",
    "Langfuse refuses OpenTelemetry traces without a project's keys, so an agent that traces without them loses every trace",
    "give agents[].tracingHeaders (a Secret with Authorization=Basic <public:secret key>), or set tracing: false",
)

RULES = (
    MCP_WITHOUT_AUTHENTICATION, TOOL_FOR_EVERY_TEAM, MCP_URL_WITHOUT_GATEWAY, TOOL_NOT_GRANTED, UNKNOWN_REFERENCE,
    MISSING_COMPONENT, INLINE_CREDENTIAL, MODEL_WITHOUT_CREDENTIALS, BUNDLED_STORE_OUTSIDE_DEV, UNSECURE_KAGENT,
    LANGFUSE_STORES, LANGFUSE_V2_LAYOUT, LANGFUSE_MASKING_LICENSE, MILVUS_GPU_WITHOUT_GPU_INDEX,
    MILVUS_GPU_INDEX_WITHOUT_GPU, EMBEDDING_MISMATCH, UNKNOWN_STORAGE_CLASS, GPU_POOL, WORKLOAD_IDENTITY,
    EXCEEDS_TEAM_QUOTA, TOOL_INPUT_UNCHECKED, TRACING_WITHOUT_KEYS,
)
