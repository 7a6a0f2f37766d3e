"""Everything the agents templates and values print. Names, namespaces, URLs, the gateway's
authorization expressions and the NetworkPolicy peers are computed here once."""

from __future__ import annotations

import json
from typing import Any

from strata.pack import Facts, all_pool_facts

from .config import GPU_INDEX_TYPES, RELEASE_NAMESPACES, Config, McpServer

KAGENT_NAMESPACE = RELEASE_NAMESPACES["kagent"]
GATEWAY_NAMESPACE = RELEASE_NAMESPACES["agentgateway"]
LANGFUSE_NAMESPACE = RELEASE_NAMESPACES["langfuse"]
MILVUS_NAMESPACE = RELEASE_NAMESPACES["milvus"]
KAGENT_CONTROLLER_PORT = 8083  # the controller's API (agents report tasks and sessions to it)
KAGENT_UI_PORT = 8080
AGENT_PORT = 8080  # an agent's A2A server, which the controller calls
LANGFUSE_PORT = 3000
MILVUS_PORT = 19530
POSTGRES_PORT = 5432  # Kagent's external database
MILVUS_METRICS_PORT = 9091
# The ServiceAccounts whose IAM identity reaches S3 (Pod Identity associations name them).
LANGFUSE_SERVICE_ACCOUNT = "langfuse"
MILVUS_SERVICE_ACCOUNT = "milvus"
GATEWAY_METRICS_PORT = 15020  # the proxy's metrics (the chart's PodMonitor scrapes it)
GATEWAY_CONTROLLER_METRICS_PORT = 9092
# Agentgateway labels the proxy Pods it runs for a Gateway with the Gateway's name.
GATEWAY_NAME_LABEL = "gateway.networking.k8s.io/gateway-name"
# The chart's built-in agents and tool servers: off, so nothing runs with cluster-wide tools
# that the spec did not declare.
KAGENT_BUILTIN = ("k8s-agent", "kgateway-agent", "istio-agent", "promql-agent", "observability-agent", "argo-rollouts-agent",
                  "helm-agent", "cilium-policy-agent", "cilium-manager-agent", "cilium-debug-agent", "kagent-tools",
                  "grafana-mcp", "querydoc")
KAGENT_DB_MOUNT = "/etc/kagent/database"
RESTRICTED_POD = {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}}
RESTRICTED_CONTAINER = {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True, "capabilities": {"drop": ["ALL"]}}


def active(config: Config) -> dict[str, Any]:
    """The components that are present and enabled, by name."""
    out = {}
    for name in ("kagent", "mcp_gateway", "langfuse", "milvus"):
        section = getattr(config, name)
        if section is not None and section.enabled:
            out[name] = section
    return out


def context(spec: Any, config: Config, facts: Facts) -> dict[str, Any]:
    parts = active(config)
    namespaces = spec.team_namespaces
    kagent, gateway, langfuse, milvus = (parts.get(n) for n in ("kagent", "mcp_gateway", "langfuse", "milvus"))
    servers = {s.name: s for s in config.mcp_servers if s.backend is not None}
    agents = [a for a in config.agents if a.team in namespaces] if kagent else []
    agent_namespaces = sorted({namespaces[a.team] for a in agents})
    collection_namespaces = sorted({namespaces[c.team] for c in milvus.collections if c.team in namespaces}) if milvus else []
    tenancy = facts["tenancy"]
    storage = facts["storage"]
    return {
        "release_namespaces": sorted(RELEASE_NAMESPACES[r] for r, part in (("kagent", kagent), ("agentgateway", gateway),
                                                                            ("langfuse", langfuse), ("milvus", milvus)) if part),
        "platform_policies": _platform_policies(tenancy, parts, agent_namespaces, collection_namespaces, gateway),
        "platform_egress": _platform_egress(tenancy, parts, agent_namespaces, servers, gateway),
        "kagent_enabled": kagent is not None,
        "kagent": _kagent(kagent, agent_namespaces) if kagent else None,
        "model_configs": _model_configs(config, agents, namespaces),
        "agents": [_agent(a, config, namespaces, gateway, servers, langfuse) for a in agents],
        "remote_servers": _remote_servers(agents, namespaces, servers, gateway) if gateway else [],
        "team_policies": _team_policies(agent_namespaces, collection_namespaces, gateway, langfuse, milvus),
        "gateway_enabled": gateway is not None,
        "gateway": {"namespace": GATEWAY_NAMESPACE} if gateway else None,
        "jwks_backend": jwks_backend(gateway) if gateway else None,
        "backends": [_backend(s, gateway, spec) for s in servers.values()] if gateway else [],
        "langfuse_enabled": langfuse is not None,
        "langfuse": _langfuse(langfuse, storage, spec) if langfuse else None,
        "milvus_enabled": milvus is not None,
        "milvus": _milvus(milvus, storage, spec, config) if milvus else None,
        "collections": _collections(milvus, config, namespaces) if milvus else [],
        "monitoring": {"enabled": config.monitoring.enabled, "labels": dict(config.monitoring.labels)},
    }


def gateway_url(gateway: Any, server: str) -> str:
    """Where an agent reaches an MCP server: the gateway's proxy Service, one path per server."""
    return f"http://{gateway.gateway_name}.{GATEWAY_NAMESPACE}.svc.cluster.local:{gateway.port}/mcp/{server}"


# --- Kagent -------------------------------------------------------------------------------

def _kagent(kagent: Any, agent_namespaces: list[str]) -> dict[str, Any]:
    db = kagent.database
    return {
        "namespace": KAGENT_NAMESPACE,
        "auth": kagent.auth,
        "user_id_claim": kagent.user_id_claim,
        "bundled_db": db.bundled,
        "vector": db.vector,
        "db_secret": db.url_secret.model_dump() if db.url_secret else None,
        "db_mount": KAGENT_DB_MOUNT,
        # Roles in exactly these namespaces instead of cluster-wide ones.
        "rbac_namespaces": sorted({KAGENT_NAMESPACE, *agent_namespaces}),
        "builtin": list(KAGENT_BUILTIN),
    }


def model_config_name(provider: str) -> str:
    return f"model-{provider}"


def _model_configs(config: Config, agents: list[Any], namespaces: dict[str, str]) -> list[dict[str, Any]]:
    """One ModelConfig per (team namespace, provider) its agents use."""
    providers = {p.name: p for p in config.model_providers}
    wanted = sorted({(namespaces[a.team], a.model_provider) for a in agents if a.model_provider in providers})
    out = []
    for namespace, name in wanted:
        p = providers[name]
        block: dict[str, Any] = {}
        if p.provider == "OpenAI" and p.base_url:
            block = {"openAI": {"baseUrl": p.base_url}}
        elif p.provider == "Anthropic" and p.base_url:
            block = {"anthropic": {"baseUrl": p.base_url}}
        elif p.provider == "Ollama":
            block = {"ollama": {"host": p.host or ""}}
        elif p.provider == "Bedrock":
            block = {"bedrock": {"region": p.region or ""}}
        out.append({"name": model_config_name(name), "namespace": namespace, "provider": p.provider, "model": p.model,
                    "secret": p.api_key_secret.model_dump() if p.api_key_secret else None, "block": block})
    return out


def _agent(agent: Any, config: Config, namespaces: dict[str, str], gateway: Any, servers: dict[str, McpServer],
           langfuse: Any) -> dict[str, Any]:
    tools = []
    for t in agent.tools:
        if t.server not in servers or gateway is None:
            continue  # agents/unknown-reference or agents/mcp-url-without-gateway reported it
        tool: dict[str, Any] = {"server": t.server, "names": list(t.tools), "approval": list(t.require_approval)}
        tool["headers"] = [{"name": "Authorization", "valueFrom": {"type": "Secret", "name": agent.gateway_token.name,
                                                                   "key": agent.gateway_token.key}}] if agent.gateway_token else []
        tools.append(tool)
    env: list[dict[str, Any]] = []
    if langfuse and agent.tracing:
        env = [
            {"name": "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "value": f"{_langfuse_service()}/api/public/otel/v1/traces"},
            {"name": "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "value": "http/protobuf"},
        ]
        if agent.tracing_headers:
            env.append({"name": "OTEL_EXPORTER_OTLP_TRACES_HEADERS", "valueFrom": {"secretKeyRef": {
                "name": agent.tracing_headers.name, "key": agent.tracing_headers.key}}})
    return {
        "name": agent.name,
        "namespace": namespaces[agent.team],
        "team": agent.team,
        "description": agent.description,
        "model_config": model_config_name(agent.model_provider),
        "system_message": agent.system_message,
        "stream": agent.stream,
        "tools": tools,
        "env": env,
        "resources": {"requests": {"cpu": agent.cpu, "memory": agent.memory}, "limits": {"memory": agent.memory}},
        "pod_security": RESTRICTED_POD,
        "container_security": RESTRICTED_CONTAINER,
    }


def _remote_servers(agents: list[Any], namespaces: dict[str, str], servers: dict[str, McpServer], gateway: Any) -> list[dict[str, Any]]:
    """A RemoteMCPServer in each team namespace whose agents use a declared server, pointing at
    the gateway (never at the server itself)."""
    wanted = sorted({(namespaces[a.team], t.server) for a in agents for t in a.tools if t.server in servers})
    return [{"name": server, "namespace": namespace, "description": servers[server].description,
             "url": gateway_url(gateway, server), "protocol": "STREAMABLE_HTTP",
             "timeout": servers[server].request_timeout}
            for namespace, server in wanted]


# --- MCP gateway --------------------------------------------------------------------------

def _team_principals(spec: Any) -> dict[str, list[str]]:
    """The identity-provider groups whose tokens act for each team (the team name without groups)."""
    return {t.name: sorted(t.groups) if t.groups else [t.name] for t in spec.teams}


def authorization_expression(server: McpServer, groups_claim: str, principals: dict[str, list[str]]) -> str:
    """One CEL expression: a tool is listed and called only by tokens of the teams it names."""
    terms = []
    for tool in server.tools:
        groups = sorted({g for team in tool.teams for g in principals.get(team, [])})
        if not groups:
            continue
        terms.append(f"(mcp.tool.name == {json.dumps(tool.name)} && jwt[{json.dumps(groups_claim)}]"
                     f".exists(g, g in {json.dumps(groups)}))")
    return " || ".join(terms) if terms else "false"


JWKS_BACKEND = "idp-jwks"


def jwks_source(jwks: Any) -> tuple[dict[str, Any], str]:
    """The backendRef and path the gateway fetches the signing keys from."""
    if jwks.url:
        path = jwks.url.removeprefix("https://").partition("/")[2]
        return {"group": "agentgateway.dev", "kind": "AgentgatewayBackend", "name": JWKS_BACKEND}, path or "/"
    ref: dict[str, Any] = {"group": "", "kind": "Service", "name": jwks.service, "port": jwks.port}
    if jwks.namespace:
        ref["namespace"] = jwks.namespace
    return ref, jwks.path


def jwks_backend(gateway: Any) -> dict[str, Any] | None:
    """A static backend for an identity provider outside the cluster, verified with the system roots."""
    auth = gateway.authentication
    if auth is None or not auth.jwks.url:
        return None
    host, _, _ = auth.jwks.url.removeprefix("https://").partition("/")
    name, _, port = host.partition(":")
    return {"name": JWKS_BACKEND, "namespace": GATEWAY_NAMESPACE, "host": name, "port": int(port or 443)}


def _backend(server: McpServer, gateway: Any, spec: Any) -> dict[str, Any]:
    backend = server.backend
    assert backend is not None  # only servers with a backend get here
    target: dict[str, Any] = {"host": backend.host, "port": backend.port, "protocol": backend.protocol}
    if backend.path:
        target["path"] = backend.path
    policies: dict[str, Any] = {"http": {"requestTimeout": server.request_timeout}, "tcp": {"connectTimeout": server.connect_timeout}}
    auth = gateway.authentication
    if server.authentication == "required" and auth is not None:
        jwks_ref, jwks_path = jwks_source(auth.jwks)
        authentication: dict[str, Any] = {"issuer": auth.issuer, "audiences": list(auth.audiences), "mode": "Strict",
                                          "jwks": {"backendRef": jwks_ref, "jwksPath": jwks_path}}
        if auth.provider:
            authentication["provider"] = auth.provider
        policies["mcp"] = {
            "authentication": authentication,
            "authorization": {"action": "Allow", "policy": {"matchExpressions": [
                authorization_expression(server, auth.groups_claim, _team_principals(spec))]}},
        }
    if server.input_validation is not None:
        check = server.input_validation
        ref: dict[str, Any] = {"group": "", "kind": "Service", "name": check.service, "port": check.port}
        if check.namespace:
            ref["namespace"] = check.namespace
        policies.setdefault("mcp", {})["guardrails"] = {"processors": [{
            "methods": {"tools/call": "Request"},
            "remote": {"backendRef": ref, "failureMode": "FailClosed" if check.fail_closed else "FailOpen",
                       "disallowedRequestHeaders": ["authorization"]}}]}
    if server.tls is not None:
        tls: dict[str, Any] = {}
        if server.tls.ca_config_map:
            tls["caCertificateRefs"] = [{"name": server.tls.ca_config_map}]
        if server.tls.sni:
            tls["sni"] = server.tls.sni
        if server.tls.subject_alt_names:
            tls["verifySubjectAltNames"] = list(server.tls.subject_alt_names)
        policies["tls"] = tls
    return {"name": server.name, "namespace": GATEWAY_NAMESPACE, "target": target, "policies": policies}


# --- Langfuse -----------------------------------------------------------------------------

def _langfuse_service() -> str:
    return f"http://langfuse-web.{LANGFUSE_NAMESPACE}.svc.cluster.local:{LANGFUSE_PORT}"


def _langfuse(lf: Any, storage: Any, spec: Any) -> dict[str, Any]:
    blob = lf.blob_storage
    bucket, region = blob.bucket_name, blob.region or spec.cluster.region
    if blob.bucket and storage is not None and blob.bucket in storage.buckets:
        declared = storage.buckets[blob.bucket]
        bucket, region = declared.bucket, blob.region or declared.region
    return {
        "namespace": LANGFUSE_NAMESPACE,
        "version": lf.version,
        "url": lf.url,
        "secrets": {k: (v.model_dump() if v else None) for k, v in (
            ("salt", lf.secrets.salt), ("encryption_key", lf.secrets.encryption_key),
            ("nextauth", lf.secrets.nextauth_secret), ("license", lf.secrets.license_key))},
        "postgres": lf.postgres.model_dump(),
        "valkey": lf.valkey.model_dump(),
        "clickhouse": lf.clickhouse.model_dump(),
        "s3": {"bucket": bucket or "", "region": region, "sse": "aws:kms" if blob.kms_key_id else "AES256",
               "kms_key_id": blob.kms_key_id},
        "masking": lf.masking.model_dump() if lf.masking else None,
        "service_account": LANGFUSE_SERVICE_ACCOUNT,
        "role_arn": lf.irsa_role_arn(spec.cluster, "langfuse"),
        "sign_up": lf.sign_up,
        "telemetry": lf.telemetry,
        "web_replicas": lf.web_replicas,
        "worker_replicas": lf.worker_replicas,
    }


# --- Milvus -------------------------------------------------------------------------------

def uses_gpu_index(milvus: Any) -> bool:
    return any(c.index_type in GPU_INDEX_TYPES for c in milvus.collections)


def gpu_image(image: str) -> bool:
    return image.split("@")[0].rpartition(":")[2].endswith("-gpu")


def _milvus(milvus: Any, storage: Any, spec: Any, config: Config) -> dict[str, Any]:
    repo, _, tag = milvus.image.split("@")[0].rpartition(":")
    pools = all_pool_facts(spec)
    gpu = None
    if milvus.gpu is not None and (pool := pools.get(milvus.gpu.node_pool)) is not None:
        gpu = {"count": str(milvus.gpu.count), "node_selector": pool.node_selector, "tolerations": pool.tolerations}
    s3 = None
    store = milvus.object_storage
    if store.bucket and storage is not None and store.bucket in storage.buckets:
        declared = storage.buckets[store.bucket]
        s3 = {"bucket": declared.bucket, "region": declared.region, "host": f"s3.{declared.region}.amazonaws.com",
              "root_path": store.root_path}
    return {
        "namespace": MILVUS_NAMESPACE,
        "cluster": milvus.mode == "cluster",
        "image": {"repository": repo, "tag": tag},
        "storage_class": milvus.storage_class,
        "size": milvus.size,
        "bundled_minio": store.bundled,
        "s3": s3,
        "gpu": gpu,
        "gpu_components": ["queryNode", "dataNode"] if milvus.mode == "cluster" else ["standalone"],
        "service_account": MILVUS_SERVICE_ACCOUNT,
        "role_arn": milvus.irsa_role_arn(spec.cluster, "milvus"),
    }


def _collections(milvus: Any, config: Config, namespaces: dict[str, str]) -> list[dict[str, Any]]:
    """The collection contract per team: what its loaders and agents must embed with."""
    models = {m.name: m for m in config.embedding_models}
    out = []
    for c in milvus.collections:
        model = models.get(c.embedding_model)
        if model is None or c.team not in namespaces:
            continue
        out.append({"name": c.name, "configmap": f"milvus-collection-{c.name.lower().replace('_', '-')}",
                    "namespace": namespaces[c.team],
                    "data": {"collection": c.name, "dimension": str(c.dimension), "indexType": c.index_type,
                             "metricType": c.metric_type, "embeddingModel": model.model, "modelRevision": c.model_revision,
                             "uri": f"http://milvus.{MILVUS_NAMESPACE}.svc.cluster.local:{MILVUS_PORT}"}})
    return out


# --- NetworkPolicies ----------------------------------------------------------------------

def _in(namespaces: list[str]) -> dict[str, Any]:
    return {"namespaceSelector": {"matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "In", "values": namespaces}]}}


def _ports(*ports: int) -> list[dict[str, Any]]:
    return [{"protocol": "TCP", "port": p} for p in ports]


def _platform_policies(tenancy: Any, parts: dict[str, Any], agent_namespaces: list[str], collection_namespaces: list[str],
                       gateway: Any) -> list[dict[str, Any]]:
    """Each release namespace denies ingress but from itself; team namespaces reach exactly the
    service they use (the gateway proxy, the Kagent controller, Langfuse, Milvus), monitoring
    scrapes, the ingress controller reaches the UIs."""
    monitoring, ingress = list(tenancy.monitoring_namespaces), list(tenancy.ingress_namespaces)
    out: list[dict[str, Any]] = []
    allows: list[dict[str, Any]]
    if "kagent" in parts:
        allows = []
        if agent_namespaces:
            allows.append({"name": "allow-agents", "from": [_in(agent_namespaces)], "ports": _ports(KAGENT_CONTROLLER_PORT)})
        if ingress:
            allows.append({"name": "allow-ingress", "from": [_in(ingress)], "ports": _ports(KAGENT_UI_PORT)})
        out.append({"namespace": KAGENT_NAMESPACE, "allows": allows})
    if gateway is not None:
        allows = []
        # The agents call the tools; the Kagent controller lists them (tool discovery).
        callers = sorted({*agent_namespaces, *([KAGENT_NAMESPACE] if "kagent" in parts else [])})
        if callers:
            allows.append({"name": "allow-agents", "from": [_in(callers)], "ports": _ports(gateway.port),
                           "podSelector": {"matchLabels": {GATEWAY_NAME_LABEL: gateway.gateway_name}}})
        if monitoring:
            allows.append({"name": "allow-monitoring", "from": [_in(monitoring)],
                           "ports": _ports(GATEWAY_METRICS_PORT, GATEWAY_CONTROLLER_METRICS_PORT)})
        out.append({"namespace": GATEWAY_NAMESPACE, "allows": allows})
    if "langfuse" in parts:
        allows = []
        if agent_namespaces:
            allows.append({"name": "allow-agents", "from": [_in(agent_namespaces)], "ports": _ports(LANGFUSE_PORT)})
        if ingress:
            allows.append({"name": "allow-ingress", "from": [_in(ingress)], "ports": _ports(LANGFUSE_PORT)})
        out.append({"namespace": LANGFUSE_NAMESPACE, "allows": allows})
    if "milvus" in parts:
        allows = []
        if collection_namespaces:
            allows.append({"name": "allow-teams", "from": [_in(collection_namespaces)], "ports": _ports(MILVUS_PORT)})
        if monitoring:
            allows.append({"name": "allow-monitoring", "from": [_in(monitoring)], "ports": _ports(MILVUS_METRICS_PORT)})
        out.append({"namespace": MILVUS_NAMESPACE, "allows": allows})
    for policy in out:
        # Policies select Pods; an allow without its own podSelector admits to every Pod of the namespace.
        policy["allows"] = [{"selector": a.pop("podSelector", {}), **a} for a in policy["allows"]]
    return out


def _private_on(tenancy: Any, *ports: int) -> dict[str, Any]:
    return {**tenancy.private_addresses(), "ports": _ports(*ports)}


def _platform_egress(tenancy: Any, parts: dict[str, Any], agent_namespaces: list[str], servers: dict[str, McpServer],
                     gateway: Any) -> list[dict[str, Any]]:
    """What each release namespace may open besides itself (its default-deny covers egress):
    DNS, and per component exactly the services it talks to."""
    out = []
    proxy = None
    if gateway is not None:
        proxy = {"to": [{**_in([GATEWAY_NAMESPACE]), "podSelector": {"matchLabels": {GATEWAY_NAME_LABEL: gateway.gateway_name}}}],
                 "ports": _ports(gateway.port)}
    if (kagent := parts.get("kagent")) is not None:
        # The controller watches its objects, calls the agents' A2A port, lists tools through the
        # gateway and keeps its state in Postgres (an external one at a private address).
        rules = [tenancy.dns(), tenancy.api_server()]
        if agent_namespaces:
            rules.append({"to": [_in(agent_namespaces)], "ports": _ports(AGENT_PORT)})
        if proxy:
            rules.append(proxy)
        if kagent.database.url_secret is not None:
            rules.append(_private_on(tenancy, POSTGRES_PORT))
        out.append({"namespace": KAGENT_NAMESPACE, "rules": rules})
    if gateway is not None:
        # The controller watches the API; the proxies reach the MCP servers on their ports (in the
        # cluster or outside it), the identity provider's keys and the input policy servers.
        rules = [tenancy.dns(), tenancy.api_server()]
        ports = sorted({s.backend.port for s in servers.values() if s.backend is not None}
                       | {s.input_validation.port for s in servers.values() if s.input_validation is not None})
        if ports:
            rules.append({"to": [{"ipBlock": {"cidr": "0.0.0.0/0"}}], "ports": _ports(*ports)})
        auth = gateway.authentication
        if auth is not None:
            rules.append(tenancy.public_https() if auth.jwks.url else _private_on(tenancy, auth.jwks.port))
        out.append({"namespace": GATEWAY_NAMESPACE, "rules": rules})
    if (lf := parts.get("langfuse")) is not None:
        # External Postgres, Valkey and ClickHouse at private addresses; S3 over public HTTPS with
        # the Pod Identity agent's credentials; the masking callback.
        rules = [tenancy.dns()]
        ports = sorted({store.external.port for store in (lf.postgres, lf.valkey) if store.external is not None}
                       | ({lf.clickhouse.external.http_port, lf.clickhouse.external.native_port} if lf.clickhouse.external else set()))
        if lf.masking is not None:
            ports = sorted({*ports, _url_port(lf.masking.callback_url)})
        if ports:
            rules.append(_private_on(tenancy, *ports))
        rules += [tenancy.public_https(), tenancy.pod_identity_agent()]
        out.append({"namespace": LANGFUSE_NAMESPACE, "rules": rules})
    if (milvus := parts.get("milvus")) is not None:
        rules = [tenancy.dns()]
        if milvus.object_storage.bucket is not None:
            rules += [tenancy.public_https(), tenancy.pod_identity_agent()]
        out.append({"namespace": MILVUS_NAMESPACE, "rules": rules})
    return out


def _url_port(url: str) -> int:
    scheme, _, rest = url.partition("://")
    host = rest.partition("/")[0]
    _, _, port = host.rpartition(":") if ":" in host else ("", "", "")
    return int(port) if port else (443 if scheme == "https" else 80)


def _team_policies(agent_namespaces: list[str], collection_namespaces: list[str], gateway: Any, langfuse: Any,
                   milvus: Any) -> list[dict[str, Any]]:
    """Per team namespace with agents or collections: egress to the platform services it uses
    (team egress is otherwise its own namespace, DNS and the allowed ranges) and ingress from
    the Kagent controller to the agents' A2A port. Never to another team's namespace."""
    out = []
    for namespace in sorted({*agent_namespaces, *collection_namespaces}):
        egress = []
        ingress = []
        if namespace in agent_namespaces:
            egress.append({"to": [_in([KAGENT_NAMESPACE])], "ports": _ports(KAGENT_CONTROLLER_PORT)})
            if gateway is not None:
                egress.append({"to": [{**_in([GATEWAY_NAMESPACE]),
                                       "podSelector": {"matchLabels": {GATEWAY_NAME_LABEL: gateway.gateway_name}}}],
                               "ports": _ports(gateway.port)})
            if langfuse is not None:
                egress.append({"to": [_in([LANGFUSE_NAMESPACE])], "ports": _ports(LANGFUSE_PORT)})
            ingress.append({"from": [_in([KAGENT_NAMESPACE])], "ports": _ports(AGENT_PORT)})
        if milvus is not None and namespace in collection_namespaces:
            egress.append({"to": [_in([MILVUS_NAMESPACE])], "ports": _ports(MILVUS_PORT)})
        out.append({"namespace": namespace, "egress": egress, "ingress": ingress})
    return out
