"""Policy checks of the agents pack. Each yields problems at the spec path of the offending value."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from strata.pack import Facts, Problem, all_pool_facts, identity_problems, nested_get, quantity, secret_values

from . import rules as r
from .config import GPU_INDEX_TYPES, Config
from .context import active, gpu_image

HOSTED_PROVIDERS = {"OpenAI", "Anthropic", "AzureOpenAI", "Gemini"}
# Langfuse chart values that hold a credential in their `value` (the chart's secretKeyRef twin).
LANGFUSE_VALUE_KEYS = {"salt", "encryptionKey", "licenseKey", "secret", "accessKeyId", "secretAccessKey", "credentials"}
CREDENTIAL_KEYS = {"apikey", "apikeys", "serviceaccounttoken", "azureadtoken", "rootpassword", "cookiesecret"}


def check(spec: Any, config: Config, facts: Facts) -> Iterator[Problem]:
    parts = active(config)
    dev = spec.cluster.environment == "dev"
    teams = {t.name for t in spec.teams}
    storage = facts["storage"]
    yield from _check_components(config, parts)
    yield from _check_providers(config)
    yield from _check_servers(config, parts, teams, dev)
    yield from _check_agents(config, teams)
    yield from _check_quota(config, spec)
    if "langfuse" in parts:
        for i, agent in enumerate(config.agents):
            if agent.tracing and agent.tracing_headers is None:
                yield r.TRACING_WITHOUT_KEYS.problem(("agents", i), f"agent {agent.name!r} traces to Langfuse without tracingHeaders")
    if "kagent" in parts:
        yield from _check_kagent(parts["kagent"], dev)
    if "langfuse" in parts:
        yield from _check_langfuse(parts["langfuse"], storage)
        yield from identity_problems(r.WORKLOAD_IDENTITY, ("langfuse",), parts["langfuse"], spec.cluster)
    if "milvus" in parts:
        yield from _check_milvus(parts["milvus"], config, spec, teams, storage, dev)
        if parts["milvus"].object_storage.bucket is not None:
            yield from identity_problems(r.WORKLOAD_IDENTITY, ("milvus",), parts["milvus"], spec.cluster)
    for name in ("kagent", "mcp_gateway", "langfuse", "milvus"):
        if name in parts:
            yield from _check_credentials((name, "values_overrides"), parts[name].values_overrides)


def _check_components(config: Config, parts: dict[str, Any]) -> Iterator[Problem]:
    if config.agents and "kagent" not in parts:
        yield r.MISSING_COMPONENT.problem(("agents",), "agents are declared but agents.kagent is missing or disabled: nothing runs them")
    if config.mcp_servers and "mcp_gateway" not in parts:
        yield r.MISSING_COMPONENT.problem(("mcp_servers",), "MCP servers are declared but agents.mcpGateway is missing or disabled: "
                                          "nothing authenticates, authorizes or times out their calls")


def _check_providers(config: Config) -> Iterator[Problem]:
    for i, p in enumerate(config.model_providers):
        if p.provider in HOSTED_PROVIDERS and p.api_key_secret is None and p.base_url is None:
            yield r.MODEL_WITHOUT_CREDENTIALS.problem(("model_providers", i), f"{p.provider} provider {p.name!r} has no apiKeySecret")


def _check_servers(config: Config, parts: dict[str, Any], teams: set[str], dev: bool) -> Iterator[Problem]:
    gateway = parts.get("mcp_gateway")
    if gateway is not None and gateway.authentication is None and not dev and any(
            s.authentication == "required" for s in config.mcp_servers):
        yield r.MCP_WITHOUT_AUTHENTICATION.problem(("mcp_gateway",), "the MCP gateway has no authentication (JWT issuer, audiences, "
                                                   "JWKS), so no server behind it can require a token")
    for i, server in enumerate(config.mcp_servers):
        path = ("mcp_servers", i)
        if server.backend is None:
            where = path + ("url",) if server.url else path
            yield r.MCP_URL_WITHOUT_GATEWAY.problem(where, f"MCP server {server.name!r} is {'only the URL ' + server.url if server.url else 'declared'} "
                                                    "without a gateway backend")
        elif server.url:
            yield r.MCP_URL_WITHOUT_GATEWAY.problem(path + ("url",), f"MCP server {server.name!r} has a backend behind the gateway; "
                                                    "a direct url beside it would bypass the gateway")
        if server.backend is not None and server.input_validation is None and not dev:
            yield r.TOOL_INPUT_UNCHECKED.problem(path, f"MCP server {server.name!r} has no inputValidation: tool arguments reach it unchecked")
        if server.authentication == "none" and not dev:
            yield r.MCP_WITHOUT_AUTHENTICATION.problem(path + ("authentication",), f"MCP server {server.name!r} takes calls without "
                                                       "authentication outside a dev cluster")
        for j, tool in enumerate(server.tools):
            if not tool.teams:
                yield r.TOOL_FOR_EVERY_TEAM.problem(path + ("tools", j), f"tool {tool.name!r} of {server.name!r} names no teams")
            for k, team in enumerate(tool.teams):
                if team not in teams:
                    yield r.UNKNOWN_REFERENCE.problem(path + ("tools", j, "teams", k), f"no team is named {team!r}")


def _check_agents(config: Config, teams: set[str]) -> Iterator[Problem]:
    providers = {p.name for p in config.model_providers}
    servers = {s.name: s for s in config.mcp_servers}
    for i, agent in enumerate(config.agents):
        path = ("agents", i)
        if agent.team not in teams:
            yield r.UNKNOWN_REFERENCE.problem(path + ("team",), f"no team is named {agent.team!r}")
        if agent.model_provider not in providers:
            yield r.UNKNOWN_REFERENCE.problem(path + ("model_provider",), f"no model provider is named {agent.model_provider!r}")
        for j, use in enumerate(agent.tools):
            where = path + ("tools", j)
            server = servers.get(use.server)
            if server is None:
                yield r.UNKNOWN_REFERENCE.problem(where + ("server",), f"no MCP server is named {use.server!r}")
                continue
            declared = {t.name: t for t in server.tools}
            for k, name in enumerate(use.tools):
                tool = declared.get(name)
                if tool is None:
                    yield r.UNKNOWN_REFERENCE.problem(where + ("tools", k), f"MCP server {server.name!r} declares no tool {name!r}")
                elif tool.teams and agent.team not in tool.teams:
                    yield r.TOOL_NOT_GRANTED.problem(where + ("tools", k), f"tool {name!r} of {server.name!r} is granted to "
                                                     f"{', '.join(tool.teams)}, not to team {agent.team!r}")
            for k, name in enumerate(use.require_approval):
                if name not in use.tools:
                    yield r.UNKNOWN_REFERENCE.problem(where + ("require_approval", k), f"{name!r} is not one of the agent's tools of {use.server!r}")
            if server.authentication == "required" and agent.gateway_token is None:
                yield r.TOOL_NOT_GRANTED.problem(where, f"agent {agent.name!r} presents no gatewayToken, so the gateway refuses its "
                                                 f"calls to {server.name!r}")


def _check_quota(config: Config, spec: Any) -> Iterator[Problem]:
    """Each team's agents (one Pod each) against its quota, reported at the agent that tips it over."""
    quotas = {t.name: t.quota for t in spec.teams if t.quota is not None}
    used: dict[tuple[str, str], float] = {}
    for i, agent in enumerate(config.agents):
        quota = quotas.get(agent.team)
        if quota is None:
            continue
        for name, wanted, limit in (("cpu", agent.cpu, quota.cpu), ("memory", agent.memory, quota.memory)):
            before = used.get((agent.team, name), 0.0)
            used[(agent.team, name)] = total = before + quantity(wanted)
            if total > quantity(limit) >= before:
                yield r.EXCEEDS_TEAM_QUOTA.problem(("agents", i, name), f"with this agent, team {agent.team!r}'s agents request "
                                                   f"more {name} than its quota of {limit}")


def _check_kagent(kagent: Any, dev: bool) -> Iterator[Problem]:
    db = kagent.database
    if db.bundled and db.url_secret is not None:
        yield r.MISSING_COMPONENT.problem(("kagent", "database"), "give exactly one of urlSecret and bundled: true")
    elif not db.bundled and db.url_secret is None:
        yield r.MISSING_COMPONENT.problem(("kagent", "database"), "Kagent needs a database: urlSecret (external Postgres) or bundled: true")
    elif db.bundled and not dev:
        yield r.BUNDLED_STORE_OUTSIDE_DEV.problem(("kagent", "database", "bundled"), "the bundled Postgres's user and password are "
                                                  "hard-coded (kagent) outside a dev cluster")
    if kagent.auth == "unsecure" and not dev:
        yield r.UNSECURE_KAGENT.problem(("kagent", "auth"), "every caller is admin@kagent.dev outside a dev cluster")


def _check_langfuse(lf: Any, storage: Any) -> Iterator[Problem]:
    base = ("langfuse",)
    major = int(lf.version.split(".")[0])
    if major < 4:
        yield r.LANGFUSE_V2_LAYOUT.problem(base + ("version",), f"Langfuse {lf.version} is not a 4.x installation "
                                           "(the chart 2.0.0 runs Langfuse 4: web, worker, ClickHouse, Valkey, S3)")
    overrides = lf.values_overrides
    for key in ("web", "worker"):
        tag = nested_get(overrides, ("langfuse", key, "image", "tag"))
        if tag is not None and str(tag).split(".")[0].lstrip("v").isdigit() and int(str(tag).split(".")[0].lstrip("v")) < 4:
            yield r.LANGFUSE_V2_LAYOUT.problem(base + ("values_overrides", "langfuse", key, "image", "tag"),
                                               f"image tag {tag!r} is a pre-4 Langfuse")
    for j, manifest in enumerate(overrides.get("extraManifests") or ()):
        if isinstance(manifest, dict) and manifest.get("kind") == "Deployment" and "langfuse" in str(manifest):
            yield r.LANGFUSE_V2_LAYOUT.problem(base + ("values_overrides", "extraManifests", j),
                                               "a hand-written Langfuse Deployment is the 2.x layout; the chart runs web and worker")
    for name in ("postgres", "valkey", "clickhouse"):
        store = getattr(lf, name)
        if (store.external is None) == (store.bundled is None):
            yield r.LANGFUSE_STORES.problem(base + (name,), f"give exactly one of external and bundled for {name}")
    blob = lf.blob_storage
    if (blob.bucket is None) == (blob.bucket_name is None):
        yield r.LANGFUSE_STORES.problem(base + ("blob_storage",), "give exactly one of bucket (a storage.s3.buckets entry) and bucketName")
    elif blob.bucket is not None and (storage is None or blob.bucket not in storage.buckets):
        yield r.UNKNOWN_REFERENCE.problem(base + ("blob_storage", "bucket"), f"storage.s3.buckets has no entry {blob.bucket!r}")
    if lf.masking is not None and lf.secrets.license_key is None:
        yield r.LANGFUSE_MASKING_LICENSE.problem(base + ("masking",), "ingestion masking without secrets.licenseKey is never applied")
    if storage is not None:
        for name in ("postgres", "valkey", "clickhouse"):
            bundled = getattr(lf, name).bundled
            if bundled is not None and bundled.storage_class and bundled.storage_class not in storage.class_names:
                yield r.UNKNOWN_STORAGE_CLASS.problem(base + (name, "bundled", "storage_class"),
                                                      f"no StorageClass {bundled.storage_class!r} is made or declared")


def _check_milvus(milvus: Any, config: Config, spec: Any, teams: set[str], storage: Any, dev: bool) -> Iterator[Problem]:
    base = ("milvus",)
    store = milvus.object_storage
    if (store.bucket is None) == (not store.bundled):
        yield r.MISSING_COMPONENT.problem(base + ("object_storage",), "give exactly one of bucket (a storage.s3.buckets entry) and bundled: true")
    elif store.bucket is not None and (storage is None or store.bucket not in storage.buckets):
        yield r.UNKNOWN_REFERENCE.problem(base + ("object_storage", "bucket"), f"storage.s3.buckets has no entry {store.bucket!r}")
    elif store.bundled and not dev:
        yield r.BUNDLED_STORE_OUTSIDE_DEV.problem(base + ("object_storage", "bundled"), "the bundled MinIO runs with the default "
                                                  "minioadmin keys outside a dev cluster")
    if storage is not None and milvus.storage_class and milvus.storage_class not in storage.class_names:
        yield r.UNKNOWN_STORAGE_CLASS.problem(base + ("storage_class",), f"no StorageClass {milvus.storage_class!r} is made or declared")
    gpu_indexes = [(i, c) for i, c in enumerate(milvus.collections) if c.index_type in GPU_INDEX_TYPES]
    has_gpu_image = gpu_image(milvus.image)
    if milvus.gpu is not None:
        missing = [what for what, ok in (("the -gpu image", has_gpu_image), ("a GPU index type", bool(gpu_indexes))) if not ok]
        if missing:
            yield r.MILVUS_GPU_WITHOUT_GPU_INDEX.problem(base + ("gpu",), f"Milvus requests {milvus.gpu.count} GPU(s) without "
                                                         f"{' and '.join(missing)}")
        pool = all_pool_facts(spec).get(milvus.gpu.node_pool)
        if pool is None:
            yield r.UNKNOWN_REFERENCE.problem(base + ("gpu", "node_pool"), f"no node pool is named {milvus.gpu.node_pool!r}")
        elif not pool.nvidia:
            yield r.GPU_POOL.problem(base + ("gpu", "node_pool"), f"node pool {milvus.gpu.node_pool!r} has no NVIDIA GPUs")
    else:
        if has_gpu_image:
            yield r.MILVUS_GPU_INDEX_WITHOUT_GPU.problem(base + ("image",), f"{milvus.image} is the GPU build but milvus.gpu is not set")
        for i, c in gpu_indexes:
            yield r.MILVUS_GPU_INDEX_WITHOUT_GPU.problem(base + ("collections", i, "index_type"),
                                                         f"collection {c.name!r} uses {c.index_type} but Milvus has no GPUs")
    models = {m.name: m for m in config.embedding_models}
    for i, c in enumerate(milvus.collections):
        path = base + ("collections", i)
        if c.team not in teams:
            yield r.UNKNOWN_REFERENCE.problem(path + ("team",), f"no team is named {c.team!r}")
        model = models.get(c.embedding_model)
        if model is None:
            yield r.UNKNOWN_REFERENCE.problem(path + ("embedding_model",), f"no embedding model is named {c.embedding_model!r}")
            continue
        if c.dimension != model.dimension:
            yield r.EMBEDDING_MISMATCH.problem(path + ("dimension",), f"collection {c.name!r} has dimension {c.dimension} but "
                                               f"{model.model} embeds {model.dimension}")
        if c.model_revision != model.revision:
            yield r.EMBEDDING_MISMATCH.problem(path + ("model_revision",), f"collection {c.name!r} was built with revision "
                                               f"{c.model_revision!r}, the team embeds with {model.model}@{model.revision}")


def _check_credentials(path: tuple, overrides: dict[str, Any]) -> Iterator[Problem]:
    """Inline credentials in chart values: strata's secret scanner, the Langfuse chart's
    `<secret>.value` keys and the provider API keys of the Kagent chart."""
    seen = set()
    for where, message in secret_values(overrides):
        seen.add(where)
        yield r.INLINE_CREDENTIAL.problem(path + where, message)
    yield from (p for p in _walk_credentials(path, (), overrides, seen))


def _walk_credentials(path: tuple, where: tuple, value: Any, seen: set) -> Iterator[Problem]:
    if not isinstance(value, dict):
        return
    for key, sub in value.items():
        here = (*where, key)
        if here in seen:
            continue
        normal = str(key).lower().replace("_", "").replace("-", "")
        if isinstance(sub, str) and sub and normal in CREDENTIAL_KEYS:
            yield r.INLINE_CREDENTIAL.problem(path + here, f"{'.'.join(map(str, here))} holds a credential")
        elif key in LANGFUSE_VALUE_KEYS and isinstance(sub, dict) and isinstance(sub.get("value"), str) and sub["value"]:
            yield r.INLINE_CREDENTIAL.problem(path + (*here, "value"), f"{'.'.join(map(str, here))}.value holds a credential; "
                                              "use its secretKeyRef")
        else:
            yield from _walk_credentials(path, here, sub, seen)
