"""The template variables of the ACK objects (templates/ack/): one Policy, Role and, for EKS
Pod Identity, PodIdentityAssociation per role strata generates. Your own roles (roleArn)
exist already: ACK must not adopt or change them."""

from __future__ import annotations

from typing import Any

from strata.pack import Facts

from .config import Config
from .roles import compact, identities, plan, policy_document, trust_policy


def context(spec: Any, config: Config, facts: Facts) -> dict[str, Any]:
    if config.ack is None:
        return {"ack": None}
    roles = []
    for role in plan(spec, identities(spec, config, facts)):
        trust = trust_policy(spec, config, role)
        if not role.generated or trust is None:
            continue
        roles.append({
            "name": role.name,
            "description": "; ".join(sorted({i.description for i in role.identities if i.description}))[:1000],
            "policy_document": compact(policy_document(role.statements)),
            "trust_document": compact(trust),
            "associations": [{"name": f"{role.name}-{i.namespace}-{i.service_account}"[:253], "namespace": i.namespace,
                              "service_account": i.service_account} for i in role.identities if i.mode == "podIdentity"],
        })
    return {"ack": {"namespace": config.ack.namespace, "cluster_name": spec.cluster.name, "roles": roles}}
