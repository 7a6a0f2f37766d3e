"""The agents pack wires Kagent, Agentgateway, Langfuse and Milvus into the platform: agents
reach MCP servers only through the gateway, the gateway grants each tool to the teams the spec
names, team namespaces reach the platform services and not each other, and every credential is
a Secret reference."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from conftest import VALUES, render_clean

from strata import isolation
from strata.testing import render

EXAMPLE = VALUES / "agents.yaml"


@pytest.fixture(scope="module")
def tree() -> dict[str, bytes]:
    return render_clean(("agents.yaml", EXAMPLE.read_bytes()))


@pytest.fixture(scope="module")
def objects(tree: dict[str, bytes]) -> list[dict[str, Any]]:
    return [yaml.safe_load(data) for name, data in sorted(tree.items())
            if name.endswith(".yaml") and "/helm/" not in name and not name.endswith("kustomization.yaml")]


def _kind(objects: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [o for o in objects if o["kind"] == kind]


def _values(tree: dict[str, bytes], release: str) -> dict[str, Any]:
    return yaml.safe_load(tree[f"agents/helm/{release}/values.yaml"])


# --- agents reach MCP servers through the gateway only -------------------------------------

def test_every_remote_mcp_server_is_the_gateway(objects):
    servers = _kind(objects, "RemoteMCPServer")
    assert {(s["metadata"]["namespace"], s["metadata"]["name"]) for s in servers} == {("research", "docs-search"), ("support", "docs-search")}
    for s in servers:
        assert s["spec"]["url"] == "http://mcp-gateway.agentgateway-system.svc.cluster.local:8080/mcp/docs-search"
        assert "mcp-tools" not in s["spec"]["url"]  # never the server's own address


def test_agents_present_their_team_token_and_name_their_tools(objects):
    agents = {a["metadata"]["name"]: a for a in _kind(objects, "Agent")}
    research = agents["research-assistant"]["spec"]["declarative"]
    tool = research["tools"][0]
    assert tool["mcpServer"]["toolNames"] == ["search_docs", "reindex_docs"]
    assert tool["mcpServer"]["requireApproval"] == ["reindex_docs"]
    assert tool["headersFrom"] == [{"name": "Authorization", "valueFrom": {"type": "Secret", "name": "research-mcp-token",
                                                                           "key": "authorization"}}]
    assert research["modelConfig"] == "model-openai"
    # Traces go to Langfuse with the team's project keys from its own Secret.
    env = {e["name"]: e for e in research["deployment"]["env"]}
    assert env["OTEL_EXPORTER_OTLP_TRACES_HEADERS"]["valueFrom"] == {"secretKeyRef": {"name": "research-langfuse", "key": "otlp-headers"}}
    assert env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"]["value"].startswith("http://langfuse-web.langfuse.svc")
    support = agents["support-assistant"]["spec"]["declarative"]
    assert support["tools"][0]["mcpServer"]["toolNames"] == ["search_docs"]


def test_model_configs_reference_secrets_in_each_team_namespace(objects, tree):
    configs = _kind(objects, "ModelConfig")
    assert {c["metadata"]["namespace"] for c in configs} == {"research", "support"}
    for c in configs:
        assert (c["spec"]["apiKeySecret"], c["spec"]["apiKeySecretKey"]) == ("openai-api-key", "OPENAI_API_KEY")
    assert not [o for o in objects if o["kind"] == "Secret"]


def test_the_backend_authenticates_and_grants_tools_per_team(objects):
    backend = next(b for b in _kind(objects, "AgentgatewayBackend") if b["metadata"]["name"] == "docs-search")
    policies = backend["spec"]["policies"]
    auth = policies["mcp"]["authentication"]
    assert auth["mode"] == "Strict" and auth["audiences"] == ["mcp-gateway"]
    assert auth["jwks"]["backendRef"] == {"group": "agentgateway.dev", "kind": "AgentgatewayBackend", "name": "idp-jwks"}
    [expression] = policies["mcp"]["authorization"]["policy"]["matchExpressions"]
    search, reindex = expression.split(" || ")
    assert '"search_docs"' in search and '"customer-support"' in search and '"ml-research"' in search
    assert '"reindex_docs"' in reindex and '"ml-research"' in reindex and "customer-support" not in reindex
    assert policies["http"] == {"requestTimeout": "30s"} and policies["tcp"] == {"connectTimeout": "5s"}
    assert policies["tls"]["caCertificateRefs"] == [{"name": "mcp-tools-ca"}]
    # Every tools/call passes the input policy server first, without the caller's token.
    [processor] = policies["mcp"]["guardrails"]["processors"]
    assert processor["methods"] == {"tools/call": "Request"}
    assert processor["remote"] == {"backendRef": {"group": "", "kind": "Service", "name": "mcp-input-policy", "port": 9000},
                                   "failureMode": "FailClosed", "disallowedRequestHeaders": ["authorization"]}


def test_the_identity_provider_keys_come_over_tls(objects):
    jwks = next(b for b in _kind(objects, "AgentgatewayBackend") if b["metadata"]["name"] == "idp-jwks")
    assert jwks["spec"]["static"] == {"host": "cognito-idp.us-west-2.amazonaws.com", "port": 443}
    assert jwks["spec"]["policies"]["tls"]["sni"] == "cognito-idp.us-west-2.amazonaws.com"


# --- team isolation ------------------------------------------------------------------------

AGENT = {isolation.TEAM_LABEL: "research"}
GATEWAY_PROXY = {"gateway.networking.k8s.io/gateway-name": "mcp-gateway"}


@pytest.mark.parametrize("source, destination, port, allowed", [
    (("research", AGENT), ("agentgateway-system", GATEWAY_PROXY), 8080, True),
    (("support", {isolation.TEAM_LABEL: "support"}), ("agentgateway-system", GATEWAY_PROXY), 8080, True),
    (("research", AGENT), ("langfuse", {"app": "web"}), 3000, True),
    (("research", AGENT), ("milvus", {"app": "milvus"}), 19530, True),  # research owns a collection
    (("support", {isolation.TEAM_LABEL: "support"}), ("milvus", {"app": "milvus"}), 19530, False),
    (("kagent", {"app": "controller"}), ("research", AGENT), 8080, True),  # the controller calls the agent
    (("support", {isolation.TEAM_LABEL: "support"}), ("research", AGENT), 8080, False),  # not another team's agent
    (("research", AGENT), ("agentgateway-system", {"app": "controller"}), 9978, False),  # only the proxy, not the xDS server
    (("default", {}), ("agentgateway-system", GATEWAY_PROXY), 8080, False),  # no one else reaches the gateway
    # The release namespaces deny egress too: Langfuse and Milvus open nothing into a team.
    (("langfuse", {"app": "web"}), ("research", AGENT), 8080, False),
    (("milvus", {"app": "milvus"}), ("research", AGENT), 8080, False),
    (("kagent", {"app": "controller"}), ("agentgateway-system", GATEWAY_PROXY), 8080, True),  # tool discovery
    (("kagent", {"app": "controller"}), ("langfuse", {"app": "web"}), 3000, False),
])
def test_teams_reach_the_platform_services_and_not_each_other(objects, source, destination, port, allowed):
    src, dst = isolation.Pod(source[0], source[1]), isolation.Pod(destination[0], destination[1])
    assert isolation.connection_allowed(objects, src, dst, port) is allowed


def test_no_policy_opens_one_team_to_another(objects):
    assert list(isolation.cross_team_problems(objects)) == []


# --- chart values --------------------------------------------------------------------------

def test_kagent_runs_no_undeclared_agents_and_reads_its_database_url_from_a_file(tree):
    values = _values(tree, "kagent")
    assert values["database"]["postgres"] == {"urlFile": "/etc/kagent/database/url", "vectorEnabled": False, "bundled": {"enabled": False}}
    assert values["controller"]["volumes"][0]["secret"]["secretName"] == "kagent-postgres"
    assert values["k8s-agent"] == {"enabled": False} and values["kagent-tools"] == {"enabled": False}
    assert values["rbac"]["namespaces"] == ["kagent", "research", "support"]


def test_langfuse_takes_every_credential_from_a_secret(tree):
    values = _values(tree, "langfuse")
    lf = values["langfuse"]
    for key in ("salt", "encryptionKey"):
        assert set(lf[key]) == {"secretKeyRef"}
    assert set(lf["nextauth"]["secret"]) == {"secretKeyRef"}
    assert values["postgresql"]["auth"]["existingSecret"] == "langfuse-postgres"
    assert values["redis"]["auth"]["existingSecret"] == "langfuse-valkey"
    assert values["clickhouse"]["auth"]["existingSecret"] == "langfuse-clickhouse"
    # The platform's bucket from the storage section, no keys: the pods' IAM identity.
    assert values["s3"] == {"deploy": False, "storageProvider": "s3", "bucket": "ml-agents-langfuse", "region": "us-west-2",
                            "forcePathStyle": False}
    assert lf["features"]["signUpDisabled"] is True and lf["worker"]["replicas"] == 1


def test_milvus_gpu_indexing_has_the_gpu_image_and_the_gpu_pool(tree):
    values = _values(tree, "milvus")
    assert values["image"]["all"] == {"repository": "milvusdb/milvus", "tag": "v2.6.15-gpu"}
    assert values["standalone"]["resources"]["limits"] == {"nvidia.com/gpu": "1"}
    assert values["standalone"]["nodeSelector"] == {"karpenter.sh/nodepool": "gpu-vectors"}
    assert values["externalS3"]["bucketName"] == "ml-agents-milvus" and values["externalS3"]["useIAM"] is True
    assert values["minio"] == {"enabled": False} and values["pulsarv3"] == {"enabled": False}


def test_the_collection_contract_is_in_the_team_namespace(objects):
    [config] = [c for c in _kind(objects, "ConfigMap") if c["metadata"]["name"] == "milvus-collection-product-docs"]
    assert config["metadata"]["namespace"] == "research"
    assert config["data"]["dimension"] == "1024" and config["data"]["indexType"] == "GPU_CAGRA"
    assert config["data"]["modelRevision"] == "d4aa6901d3a41ba39fb536a557fa166f842b0e09"


# --- the rules judge what the chart values would do ----------------------------------------

SPEC = """apiVersion: strata.dev/v1alpha1
kind: Platform
cluster: {name: c1, region: us-east-1, kubernetesVersion: "1.36"}
teams: [{name: research}]
agents:
  kagent:
    database: {urlSecret: {name: kagent-db, key: url}}
    valuesOverrides: %s
"""


def test_an_override_may_not_set_what_a_typed_field_owns():
    lines = render(SPEC % "{controller: {auth: {mode: unsecure}}}").lines
    assert any("[overrides/typed-field]" in line and "agents.kagent.auth" in line for line in lines), lines


def test_an_unknown_chart_key_is_refused_with_the_nearest():
    lines = render(SPEC % "{controler: {replicas: 2}}").lines
    assert any("[overrides/unknown-key]" in line and "controller" in line for line in lines), lines


def test_a_dev_server_without_authentication_gets_timeouts_but_no_token_checks():
    spec = """apiVersion: strata.dev/v1alpha1
kind: Platform
cluster: {name: c1, region: us-east-1, kubernetesVersion: "1.36", environment: dev}
teams: [{name: research, groups: [ml-research]}]
agents:
  mcpGateway: {}
  mcpServers:
    - {name: docs, description: Docs, authentication: none, backend: {host: docs.tools, port: 8080},
       tools: [{name: search, teams: [research]}]}
"""
    result = render(spec)
    assert result.lines == []
    backend = result.object("AgentgatewayBackend", "docs", "agentgateway-system")
    assert backend["spec"]["policies"] == {"http": {"requestTimeout": "60s"}, "tcp": {"connectTimeout": "5s"}}


# --- identities and cluster mode ----------------------------------------------------------

def _pack_facts(spec_text: str) -> Any:
    from strata import pipeline

    loaded = pipeline.load([("spec.yaml", spec_text.encode())])
    assert loaded.problems == [] and loaded.facts is not None, [p.format() for p in loaded.problems]
    return loaded.facts.exports["agents"]


def test_the_s3_identities_are_exported_not_assumed():
    facts = _pack_facts(EXAMPLE.read_text())
    by_component = {i.component: i for i in facts.identities}
    assert by_component["langfuse"].service_account == "langfuse" and by_component["langfuse"].namespace == "langfuse"
    assert by_component["langfuse"].s3_buckets == ("ml-agents-langfuse",)
    assert by_component["milvus"].s3_buckets == ("ml-agents-milvus",) and by_component["milvus"].mechanism == "podIdentity"


CLUSTER = EXAMPLE.read_text().replace("    image: milvusdb/milvus:v2.6.15-gpu\n",
                                      "    image: milvusdb/milvus:v2.6.15-gpu\n    mode: cluster\n"
                                      "    identity: irsa\n    controllerRoleArn: arn:aws:iam::111122223333:role/milvus\n")


def test_cluster_mode_gives_gpus_to_query_and_data_nodes_and_irsa_annotates_the_account():
    tree = render_clean(("agents.yaml", CLUSTER.encode()))
    values = _values(tree, "milvus")
    assert values["cluster"] == {"enabled": True} and "standalone" not in values
    for component in ("queryNode", "dataNode"):
        assert values[component]["resources"]["limits"] == {"nvidia.com/gpu": "1"}
        assert values[component]["nodeSelector"] == {"karpenter.sh/nodepool": "gpu-vectors"}
    assert values["serviceAccount"] == {"create": True, "name": "milvus",
                                        "annotations": {"eks.amazonaws.com/role-arn": "arn:aws:iam::111122223333:role/milvus"}}
