"""Tenant isolation, judged on the rendered objects: NetworkPolicies evaluated with the
Kubernetes semantics (strata.isolation) decide which Pods of which team reach which."""

from __future__ import annotations

import yaml
from conftest import VALUES, render_clean

from strata import isolation, pipeline
from strata.isolation import Pod

RAY_CLIENT = 10001
RAY_DASHBOARD = 8265


def objects(tree: dict[str, bytes]) -> list[dict]:
    return [yaml.safe_load(tree[f]) for f in pipeline.manifest_files(list(tree))]


def jark_objects() -> list[dict]:
    return objects(render_clean(("jark.yaml", (VALUES / "jark.yaml").read_bytes())))


def notebook(team: str | None) -> Pod:
    labels = {"component": "singleuser-server", "app": "jupyterhub"}
    return Pod("jupyterhub", {**labels, isolation.TEAM_LABEL: team} if team else labels)


def ray_head(namespace: str) -> Pod:
    return Pod(namespace, {"ray.io/node-type": "head", "ray.io/cluster": namespace})


def test_a_team_notebook_reaches_its_own_ray_head_and_not_another_teams():
    rendered = jark_objects()
    # jark.yaml: team research (namespace research) and team vision (namespace cv), both with a Ray cluster.
    for port in (RAY_CLIENT, RAY_DASHBOARD):
        assert isolation.connection_allowed(rendered, notebook("research"), ray_head("research"), port)
        assert isolation.connection_allowed(rendered, notebook("vision"), ray_head("cv"), port)
        assert not isolation.connection_allowed(rendered, notebook("vision"), ray_head("research"), port)
        assert not isolation.connection_allowed(rendered, notebook("research"), ray_head("cv"), port)


def test_research_ray_policy_alone_refuses_a_vision_notebook():
    """Team B's Ray NetworkPolicy, by itself, does not admit team A's notebook (ingress side)."""
    rendered = jark_objects()
    research_policy = [o for o in rendered if o["kind"] == "NetworkPolicy" and o["metadata"]["namespace"] == "research"
                       and o["metadata"]["name"] == "allow-ray-access"]
    assert len(research_policy) == 1
    namespaces = [o for o in rendered if o["kind"] == "Namespace"]
    assert not isolation.connection_allowed([*namespaces, *research_policy], Pod("jupyterhub", {}), ray_head("research"), RAY_CLIENT)
    assert not isolation.connection_allowed([*namespaces, *research_policy], notebook("vision"), ray_head("research"), RAY_CLIENT)
    assert isolation.connection_allowed([*namespaces, *research_policy], notebook("research"), ray_head("research"), RAY_CLIENT)


def test_a_notebook_without_a_team_reaches_no_ray_head():
    rendered = jark_objects()
    assert not isolation.connection_allowed(rendered, notebook(None), ray_head("research"), RAY_CLIENT)


def test_the_operator_still_reaches_the_dashboard_and_team_pods_stay_apart():
    rendered = jark_objects()
    operator = Pod("kuberay-system", {"app.kubernetes.io/name": "kuberay-operator"})
    assert isolation.connection_allowed(rendered, operator, ray_head("research"), RAY_DASHBOARD)
    assert not isolation.connection_allowed(rendered, operator, ray_head("research"), RAY_CLIENT)
    vision_worker = Pod("cv", {"ray.io/node-type": "worker"})
    assert not isolation.connection_allowed(rendered, vision_worker, ray_head("research"), RAY_CLIENT)
    research_worker = Pod("research", {"ray.io/node-type": "worker"})
    assert isolation.connection_allowed(rendered, research_worker, ray_head("research"), 6379)


def team_namespace(name: str, team: str) -> dict:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": {isolation.TEAM_LABEL: team}}}


SHARED = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "jupyterhub", "labels": {isolation.SHARED_LABEL: "true"}}}


def policy(namespace: str, ingress: list | None = None, egress: list | None = None, pod_selector: dict | None = None) -> dict:
    spec: dict = {"podSelector": pod_selector or {}, "policyTypes": []}
    if ingress is not None:
        spec["policyTypes"].append("Ingress")
        spec["ingress"] = ingress
    if egress is not None:
        spec["policyTypes"].append("Egress")
        spec["egress"] = egress
    return {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "metadata": {"name": "p", "namespace": namespace}, "spec": spec}


def problems(*objs: dict) -> list[str]:
    return [p.message for p in isolation.check([team_namespace("a", "alpha"), team_namespace("b", "beta"), SHARED, *objs])]


def test_cross_team_rule_refuses_a_peer_in_another_team_namespace():
    peer = {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "b"}}}
    assert problems(policy("a", ingress=[{"from": [peer]}])) == ["ingress[0].from[0] admits Pods of beta from team alpha's Pods"]
    assert problems(policy("a", egress=[{"to": [peer]}])) == ["egress[0].to[0] opens egress to Pods of beta from team alpha's Pods"]


def test_cross_team_rule_refuses_all_namespaces_and_missing_peers():
    assert problems(policy("a", ingress=[{"from": [{"namespaceSelector": {}}]}])) == [
        "ingress[0].from[0] admits Pods of beta, every team from team alpha's Pods"]
    assert problems(policy("a", ingress=[{"ports": [{"port": 80}]}])) == [
        "ingress[0] has no 'from': it admits every namespace, other teams' included"]


def test_cross_team_rule_wants_shared_namespace_peers_pinned_to_the_team():
    hub = {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "jupyterhub"}}}
    unpinned = {**hub, "podSelector": {"matchLabels": {"component": "singleuser-server"}}}
    other = {**hub, "podSelector": {"matchLabels": {isolation.TEAM_LABEL: "beta"}}}
    own = {**hub, "podSelector": {"matchLabels": {"component": "singleuser-server", isolation.TEAM_LABEL: "alpha"}}}
    assert problems(policy("a", ingress=[{"from": [unpinned]}])) == ["ingress[0].from[0] admits Pods of every team from team alpha's Pods"]
    assert problems(policy("a", ingress=[{"from": [other]}])) == ["ingress[0].from[0] admits Pods of beta from team alpha's Pods"]
    assert problems(policy("a", ingress=[{"from": [own]}])) == []


def test_cross_team_rule_judges_shared_namespace_policies_by_the_team_they_select():
    to_b = {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "b"}}}
    alpha_notebooks = {"matchLabels": {isolation.TEAM_LABEL: "alpha"}}
    assert problems(policy("jupyterhub", egress=[{"to": [to_b]}], pod_selector=alpha_notebooks)) == [
        "egress[0].to[0] opens egress to Pods of beta from team alpha's Pods"]
    assert problems(policy("jupyterhub", egress=[{"to": [to_b]}])) == [
        "egress[0].to[0] opens egress to Pods of beta from every team's Pods"]
    beta_notebooks = {"matchLabels": {isolation.TEAM_LABEL: "beta"}}
    assert problems(policy("jupyterhub", egress=[{"to": [to_b]}], pod_selector=beta_notebooks)) == []



def test_team_egress_can_exclude_every_private_range_but_the_declared_ones():
    layer = b"tenancy:\n  egress:\n    excludePrivateRanges: true\n    cidrs: [0.0.0.0/0, 10.20.5.0/24]\n"
    tree = render_clean(("realistic.yaml", (VALUES / "realistic.yaml").read_bytes()), ("private.yaml", layer))
    policy = yaml.safe_load(tree["tenancy/teams/networkpolicy-research-allow-egress.yaml"])
    assert policy["spec"]["egress"] == [{"to": [
        {"ipBlock": {"cidr": "0.0.0.0/0", "except": ["10.0.0.0/8", "169.254.169.254/32", "172.16.0.0/12", "192.168.0.0/16"]}},
        {"ipBlock": {"cidr": "10.20.5.0/24"}},
    ]}]


def test_the_namespace_index_selects_what_trying_every_namespace_selects():
    namespaces = isolation.namespace_labels([
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}}
        for name, labels in [("a", {isolation.TEAM_LABEL: "alpha", "tier": "x"}), ("b", {isolation.TEAM_LABEL: "beta", "tier": "x"}),
                             ("hub", {isolation.SHARED_LABEL: "true"}), ("kube-system", {}), ("c", {"tier": "y"})]])
    index = isolation._Namespaces(namespaces)
    name = isolation.NAME_LABEL
    selectors = [
        None, {}, {"matchLabels": {"tier": "x"}}, {"matchLabels": {"tier": "x", isolation.TEAM_LABEL: "beta"}},
        {"matchLabels": {"tier": "z"}}, {"matchExpressions": [{"key": name, "operator": "In", "values": ["a", "c", "gone"]}]},
        {"matchLabels": {"tier": "x"}, "matchExpressions": [{"key": name, "operator": "NotIn", "values": ["a"]}]},
        {"matchExpressions": [{"key": "tier", "operator": "Exists"}, {"key": name, "operator": "In", "values": ["b", "c"]}]},
        {"matchExpressions": [{"key": "tier", "operator": "DoesNotExist"}]},
        {"matchExpressions": [{"key": name, "operator": "In", "values": []}]},
    ]
    for selector in selectors:
        brute = sorted(n for n, labels in namespaces.items() if isolation.selects(selector, labels))
        assert index.selected(selector) == brute, selector
    assert index.selected({"matchLabels": {"tier": "x"}}) == ["a", "b"]  # the comparison is not vacuous


# --- platform namespaces: default-deny both ways, explicit allows ---------------------------

PLATFORM_NAMESPACES = {"jark.yaml": ("argo", "jupyterhub", "kuberay-system"), "observability.yaml": ("monitoring",),
                       "agents.yaml": ("kagent", "agentgateway-system", "langfuse", "milvus")}
KUBE_DNS = Pod("kube-system", {"k8s-app": "kube-dns"})


def example_objects(example: str) -> list[dict]:
    return objects(render_clean((example, (VALUES / example).read_bytes())))


def test_every_namespace_strata_isolates_denies_ingress_and_egress_by_default():
    for example, platform in PLATFORM_NAMESPACES.items():
        rendered = example_objects(example)
        teams = [n for n, labels in isolation.namespace_labels(rendered).items() if isolation.TEAM_LABEL in labels]
        for namespace in (*platform, *teams):
            deny = [o["spec"] for o in rendered if o["kind"] == "NetworkPolicy" and o["metadata"]["namespace"] == namespace
                    and o["spec"]["podSelector"] == {} and set(o["spec"]["policyTypes"]) == {"Ingress", "Egress"}
                    and "ingress" not in o["spec"] and "egress" not in o["spec"]]
            assert deny, f"{example}: {namespace} has no default-deny NetworkPolicy for ingress and egress"


def test_platform_components_reach_dns_and_only_their_own_peers():
    rendered = jark_objects()
    controller = Pod("argo", {"app.kubernetes.io/component": "workflow-controller"})
    argo_server = Pod("argo", {"app.kubernetes.io/component": "server"})
    operator = Pod("kuberay-system", {"app.kubernetes.io/name": "kuberay-operator"})
    hub = Pod("jupyterhub", {"component": "hub", "app": "jupyterhub"})
    scheduler = Pod("jupyterhub", {"component": "user-scheduler", "app": "jupyterhub"})
    for pod in (controller, argo_server, operator, hub, scheduler, notebook("research")):
        assert isolation.connection_allowed(rendered, pod, KUBE_DNS, 53, "UDP"), pod
    # the operator reaches the heads' dashboards, not the workers
    assert isolation.connection_allowed(rendered, operator, ray_head("research"), RAY_DASHBOARD)
    assert not isolation.connection_allowed(rendered, operator, Pod("research", {"ray.io/node-type": "worker"}), RAY_DASHBOARD)
    # nothing else of the platform reaches into a team namespace
    research_pod = Pod("research", {"app": "trainer"})
    for pod in (controller, argo_server, scheduler):
        assert not isolation.connection_allowed(rendered, pod, ray_head("research"), RAY_DASHBOARD), pod
        assert not isolation.connection_allowed(rendered, pod, research_pod, 8080), pod
    # and team Pods reach none of the operators
    assert not isolation.connection_allowed(rendered, research_pod, controller, 9090)
    assert not isolation.connection_allowed(rendered, research_pod, operator, 8080)
    assert not isolation.connection_allowed(rendered, research_pod, argo_server, 2746)
    # what the platform opens on purpose still works: the monitoring namespace scrapes them
    prometheus = Pod("monitoring", {"app.kubernetes.io/name": "prometheus"})
    assert isolation.connection_allowed(rendered, prometheus, controller, 9090)


def test_monitoring_scrapes_everything_and_its_other_pods_reach_only_the_stack():
    rendered = example_objects("observability.yaml")
    prometheus = Pod("monitoring", {"app.kubernetes.io/name": "prometheus"})
    grafana = Pod("monitoring", {"app.kubernetes.io/name": "grafana"})
    alertmanager = Pod("monitoring", {"app.kubernetes.io/name": "alertmanager"})
    exporter = Pod("gpu-operator", {"app": "nvidia-dcgm-exporter"})
    stranger = Pod("default", {"app": "curious"})
    assert isolation.connection_allowed(rendered, prometheus, exporter, 9400)
    assert isolation.connection_allowed(rendered, grafana, prometheus, 9090)
    assert isolation.connection_allowed(rendered, prometheus, alertmanager, 9093)
    for pod in (grafana, alertmanager):
        assert isolation.connection_allowed(rendered, pod, KUBE_DNS, 53, "UDP")
        assert not isolation.connection_allowed(rendered, pod, exporter, 9400), pod
    assert not isolation.connection_allowed(rendered, stranger, prometheus, 9090)
    assert not isolation.connection_allowed(rendered, stranger, grafana, 3000)


def _egress(rendered: list[dict], namespace: str, name: str) -> list[dict]:
    return next(o for o in rendered if o["kind"] == "NetworkPolicy" and o["metadata"]["namespace"] == namespace
                and o["metadata"]["name"] == name)["spec"]["egress"]


def test_the_api_server_addresses_are_one_setting_for_teams_and_the_platform():
    layer = b"tenancy:\n  apiServerCidrs: [10.20.0.0/22, 172.20.0.1/32]\n"
    rendered = objects(render_clean(("jark.yaml", (VALUES / "jark.yaml").read_bytes()), ("api.yaml", layer)))
    expected = {"to": [{"ipBlock": {"cidr": "10.20.0.0/22"}}, {"ipBlock": {"cidr": "172.20.0.1/32"}}],
                "ports": [{"protocol": "TCP", "port": 443}]}
    assert _egress(rendered, "research", "allow-api-server") == [expected]
    assert _egress(rendered, "jupyterhub", "allow-api-server") == [expected]
    assert expected in _egress(rendered, "argo", "allow-dns-and-api-server")
    assert expected in _egress(rendered, "kuberay-system", "allow-dns-and-api-server")


def test_team_egress_keeps_out_of_private_addresses_by_default():
    rendered = jark_objects()
    assert _egress(rendered, "research", "allow-egress") == [{"to": [{"ipBlock": {
        "cidr": "0.0.0.0/0", "except": ["10.0.0.0/8", "169.254.169.254/32", "172.16.0.0/12", "192.168.0.0/16"]}}]}]
