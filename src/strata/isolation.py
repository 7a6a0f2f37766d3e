"""Tenant isolation over rendered objects: the labels that mark a team's namespace and a team's
Pods in namespaces teams share (JupyterHub's), a NetworkPolicy evaluator with the Kubernetes
semantics, and the check that no NetworkPolicy strata writes opens one team to another.

The check reads what is rendered, not the spec, so it holds whichever pack wrote the policy."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from strata import rules
from strata.problems import Problem

# On a team's Namespace (the tenancy pack) and on team Pods that run outside it (notebooks).
TEAM_LABEL = "strata.dev/team"
# On a Namespace whose Pods belong to several teams, each Pod labelled with TEAM_LABEL: a
# policy peer reaching into it must pin that label to one team.
SHARED_LABEL = "strata.dev/shared-by-teams"
NAME_LABEL = "kubernetes.io/metadata.name"


@dataclasses.dataclass(frozen=True)
class Pod:
    namespace: str
    labels: Mapping[str, str]


def selects(selector: Mapping[str, Any] | None, labels: Mapping[str, str]) -> bool:
    """A metav1.LabelSelector: an empty selector selects everything; None selects nothing."""
    if selector is None:
        return False
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(key) != value:
            return False
    for expr in selector.get("matchExpressions") or ():
        key, op, values = expr["key"], expr["operator"], expr.get("values") or ()
        present = key in labels
        if op == "In" and not (present and labels[key] in values):
            return False
        if op == "NotIn" and present and labels[key] in values:
            return False
        if op == "Exists" and not present:
            return False
        if op == "DoesNotExist" and present:
            return False
    return True


def namespace_labels(objects: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, str]]:
    """Labels of the Namespaces among ``objects``, with the name label the API server adds."""
    out: dict[str, dict[str, str]] = {}
    for body in objects:
        if body.get("kind") == "Namespace" and body.get("apiVersion") == "v1":
            meta = body.get("metadata", {})
            out[meta["name"]] = {**(meta.get("labels") or {}), NAME_LABEL: meta["name"]}
    return out


def _labels_of(namespace: str, namespaces: Mapping[str, Mapping[str, str]]) -> Mapping[str, str]:
    return namespaces.get(namespace, {NAME_LABEL: namespace})


def _peer_matches(peer: Mapping[str, Any], policy_namespace: str, pod: Pod, namespaces: Mapping[str, Mapping[str, str]]) -> bool:
    if "ipBlock" in peer:
        return False  # Pod addresses are not known offline; strata's ipBlocks name load balancer subnets
    if "namespaceSelector" in peer:
        if not selects(peer["namespaceSelector"], _labels_of(pod.namespace, namespaces)):
            return False
    elif pod.namespace != policy_namespace:
        return False
    return selects(peer.get("podSelector", {}), pod.labels)


def _port_matches(rule: Mapping[str, Any], port: int, protocol: str) -> bool:
    ports = rule.get("ports")
    if not ports:
        return True
    for p in ports:
        if p.get("protocol", "TCP") != protocol:
            continue
        number = p.get("port")
        if number is None or number == port or (isinstance(number, int) and number <= port <= p.get("endPort", number)):
            return True
    return False


def _direction(policy: Mapping[str, Any], direction: str) -> bool:
    spec = policy.get("spec", {})
    types = spec.get("policyTypes")
    if types is None:  # the API server's default
        types = ["Ingress"] + (["Egress"] if "egress" in spec else [])
    return direction in types


def _allowed(policies: list[Mapping[str, Any]], subject: Pod, other: Pod, port: int, protocol: str,
             direction: str, namespaces: Mapping[str, Mapping[str, str]]) -> bool:
    """Whether ``subject``'s policies let traffic in from (Ingress) or out to (Egress) ``other``."""
    key, peers = ("ingress", "from") if direction == "Ingress" else ("egress", "to")
    selecting = [
        p for p in policies
        if p["metadata"].get("namespace") == subject.namespace and _direction(p, direction)
        and selects(p.get("spec", {}).get("podSelector", {}), subject.labels)
    ]
    if not selecting:
        return True  # not isolated in this direction
    for policy in selecting:
        for rule in policy["spec"].get(key) or ():
            if not _port_matches(rule, port, protocol):
                continue
            if not rule.get(peers) or any(_peer_matches(peer, subject.namespace, other, namespaces) for peer in rule[peers]):
                return True
    return False


def connection_allowed(objects: Iterable[Mapping[str, Any]], source: Pod, destination: Pod, port: int, protocol: str = "TCP") -> bool:
    """Whether the NetworkPolicies among ``objects`` let ``source`` open a connection to
    ``destination`` on ``port``: egress of the source's namespace and ingress of the destination's."""
    objects = list(objects)
    namespaces = namespace_labels(objects)
    policies = [o for o in objects if o.get("kind") == "NetworkPolicy"]
    return (_allowed(policies, source, destination, port, protocol, "Egress", namespaces)
            and _allowed(policies, destination, source, port, protocol, "Ingress", namespaces))


# --- the cross-team check ----------------------------------------------------------------

def _pinned_teams(selector: Mapping[str, Any] | None) -> set[str] | None:
    """The teams a Pod selector restricts TEAM_LABEL to; None when it does not restrict it."""
    if selector is None:
        return set()
    pinned: set[str] | None = None
    value = (selector.get("matchLabels") or {}).get(TEAM_LABEL)
    if value is not None:
        pinned = {value}
    for expr in selector.get("matchExpressions") or ():
        if expr["key"] == TEAM_LABEL and expr["operator"] == "In":
            values = set(expr.get("values") or ())
            pinned = values if pinned is None else pinned & values
    return pinned


class _Namespaces(dict[str, Mapping[str, str]]):
    """Namespace labels with an index from each (key, value) label to the namespaces that
    carry it, so a selector with labels to match looks at its candidates only instead of every
    namespace (a thousand teams' policies against a thousand namespaces is quadratic)."""

    def __init__(self, labels: Mapping[str, Mapping[str, str]]) -> None:
        super().__init__(labels)
        self.by_label: dict[tuple[str, str], list[str]] = {}
        for name, own in labels.items():
            for pair in own.items():
                self.by_label.setdefault(pair, []).append(name)

    def selected(self, selector: Mapping[str, Any] | None) -> list[str]:
        """The namespaces ``selector`` selects, sorted; the same answer as trying each one."""
        if selector is None:
            return []
        # Every namespace a selector selects carries each of its matchLabels and one of the
        # values of each `In` expression: the smallest of those sets holds all candidates.
        narrowed: list[list[str]] = [self.by_label.get(pair, []) for pair in (selector.get("matchLabels") or {}).items()]
        for expr in selector.get("matchExpressions") or ():
            if expr["operator"] == "In":
                narrowed.append([n for v in expr.get("values") or () for n in self.by_label.get((expr["key"], v), [])])
        smallest = min(narrowed, key=len) if narrowed else None
        candidates: Iterable[str] = self if smallest is None else set(smallest)
        return sorted(n for n in candidates if selects(selector, self[n]))


def _reached(peer: Mapping[str, Any], policy_namespace: str, namespaces: _Namespaces) -> list[str]:
    """The known namespaces a peer can select Pods in (an unknown namespace has only its name label)."""
    if "ipBlock" in peer:
        return []
    if "namespaceSelector" not in peer:
        return [policy_namespace]
    return namespaces.selected(peer["namespaceSelector"])


def _teams_reached(peer: Mapping[str, Any], policy_namespace: str, namespaces: _Namespaces) -> set[str | None]:
    """The teams whose Pods a peer admits; None stands for 'every team sharing the namespace'."""
    out: set[str | None] = set()
    for namespace in _reached(peer, policy_namespace, namespaces):
        labels = namespaces[namespace]
        if TEAM_LABEL in labels:
            out.add(labels[TEAM_LABEL])
        elif labels.get(SHARED_LABEL) == "true":
            pinned = _pinned_teams(peer.get("podSelector", {}))
            out.update({None} if pinned is None else pinned)
    return out


def _policy_teams(policy: Mapping[str, Any], namespaces: Mapping[str, Mapping[str, str]]) -> set[str | None]:
    """The teams whose Pods the policy is about (its own namespace's, or pinned in a shared one)."""
    labels = namespaces.get(policy["metadata"].get("namespace", ""), {})
    if TEAM_LABEL in labels:
        return {labels[TEAM_LABEL]}
    if labels.get(SHARED_LABEL) == "true":
        pinned = _pinned_teams(policy.get("spec", {}).get("podSelector", {}))
        return {None} if pinned is None else set(pinned)
    return set()


def cross_team_problems(objects: Iterable[Mapping[str, Any]]) -> Iterator[tuple[Mapping[str, Any], str]]:
    """(policy, message) for each NetworkPolicy rule that lets one team's Pods reach another's."""
    objects = list(objects)
    namespaces = _Namespaces(namespace_labels(objects))
    for policy in (o for o in objects if o.get("kind") == "NetworkPolicy"):
        owners = _policy_teams(policy, namespaces)
        if not owners:
            continue
        spec = policy.get("spec", {})
        namespace = policy["metadata"].get("namespace", "")
        for key, peers, verb in (("ingress", "from", "admits"), ("egress", "to", "opens egress to")):
            for i, rule in enumerate(spec.get(key) or ()):
                if not rule.get(peers):
                    # No peer list: every source or destination, other teams included.
                    yield policy, f"{key}[{i}] has no '{peers}': it {verb} every namespace, other teams' included"
                    continue
                for j, peer in enumerate(rule[peers]):
                    reached = _teams_reached(peer, namespace, namespaces)
                    if owners == {None}:
                        # Every team's Pods of a shared namespace: any concrete team reached is
                        # reached by the others too. Their own shared namespace is the chart's business.
                        others = sorted(t for t in reached if t is not None)
                    else:
                        others = sorted(t or "every team" for t in reached if t is None or t not in owners)
                    if others:
                        whose = "every team's" if owners == {None} else f"team {'/'.join(sorted(t for t in owners if t))}'s"
                        yield policy, f"{key}[{i}].{peers}[{j}] {verb} Pods of {', '.join(others)} from {whose} Pods"


def check(objects: Iterable[Any]) -> Iterator[Problem]:
    """Problems for the rendered objects (RenderedObject or plain bodies)."""
    bodies = [getattr(o, "body", o) for o in objects]
    for policy, message in cross_team_problems(bodies):
        meta = policy["metadata"]
        where = f"NetworkPolicy/{meta.get('namespace', '')}/{meta.get('name', '')}"
        yield dataclasses.replace(rules.CROSS_TEAM_NETWORK_POLICY.problem((), message), where=where)
