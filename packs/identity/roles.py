"""From the identities the packs export (and the spec's own identity.roles) to the roles
strata writes: one per role ARN, with its policy document, its trust policy and, for EKS Pod
Identity, its associations. Pure functions of the spec: the checks and the documents hook
compute the same plan."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable
from typing import Any

from strata.pack import Arns, AwsIdentity, Facts, IamStatement, role_arn, role_name, spec_path

from .config import Config

POLICY_VERSION = "2012-10-17"


@dataclasses.dataclass(frozen=True)
class PlannedRole:
    """One IAM role and the components that use it (several only when their needs are equal)."""

    arn: str
    name: str
    directory: str  # identity/<directory>/policy.json, trust-policy.json
    identities: tuple[AwsIdentity, ...]

    @property
    def first(self) -> AwsIdentity:
        return self.identities[0]

    @property
    def generated(self) -> bool:
        return self.first.generated

    @property
    def statements(self) -> tuple[IamStatement, ...]:
        return self.first.statements


def identities(spec: Any, config: Config, facts: Facts) -> list[AwsIdentity]:
    """Every component's identity: the packs' exports, in pack order, then identity.roles."""
    out: list[AwsIdentity] = []
    for pack in facts:
        exported = facts[pack]
        out.extend(getattr(exported, "aws_identities", ()) if exported is not None else ())
    for i, role in enumerate(config.roles):
        statements = tuple(IamStatement(s.sid, s.actions, s.resources, unscoped_reason=s.reason) for s in role.statements)
        out.append(AwsIdentity(
            component=role.name, namespace=role.namespace, service_account=role.service_account, mode=role.identity,
            statements=statements, path=spec_path("identity", "roles", i),
            role_arn=role.role_arn if role.identity == "irsa" or role.role_arn else None,
            description=f"what identity.roles[{i}] ({role.name}) allows"))
    return out


def plan(spec: Any, found: Iterable[AwsIdentity]) -> list[PlannedRole]:
    """One role per ARN, in the order the components come."""
    cluster = spec.cluster
    grouped: dict[str, list[AwsIdentity]] = {}
    for identity in found:
        arn = role_arn(cluster, identity.component, identity.role_arn) or f"arn:{cluster.partition}:iam::${{AWS::AccountId}}:role/" \
            + role_name(cluster.name, identity.component)
        grouped.setdefault(arn, []).append(identity)
    return [PlannedRole(arn, arn.rsplit("/", 1)[1], members[0].component, tuple(members)) for arn, members in grouped.items()]


def policy_document(statements: Iterable[IamStatement]) -> dict[str, Any]:
    return {"Version": POLICY_VERSION, "Statement": [s.document() for s in statements]}


def trust_policy(spec: Any, config: Config, role: PlannedRole) -> dict[str, Any] | None:
    """Who may assume the role: the EKS Pod Identity agent of this account, or (IRSA) exactly
    the role's service accounts through the cluster's OIDC provider (None without it)."""
    cluster = spec.cluster
    statements: list[dict[str, Any]] = []
    if any(i.mode == "podIdentity" for i in role.identities):
        statements.append({
            "Sid": "EksPodIdentity", "Effect": "Allow", "Principal": {"Service": "pods.eks.amazonaws.com"},
            "Action": ["sts:AssumeRole", "sts:TagSession"],
            # The confused-deputy guard: only the Pod Identity agent acting for this account.
            "Condition": {"StringEquals": {"aws:SourceAccount": cluster.account_id or "${AWS::AccountId}"}},
        })
    irsa = [i for i in role.identities if i.mode == "irsa"]
    if irsa:
        if config.oidc_provider is None:
            return None
        provider = config.oidc_provider
        subjects = sorted({f"system:serviceaccount:{i.namespace}:{i.service_account}" for i in irsa})
        statements.append({
            "Sid": "EksIrsa", "Effect": "Allow",
            "Principal": {"Federated": Arns.of(cluster).iam(f"oidc-provider/{provider}")},
            "Action": "sts:AssumeRoleWithWebIdentity",
            "Condition": {"StringEquals": {f"{provider}:aud": "sts.amazonaws.com",
                                           f"{provider}:sub": subjects[0] if len(subjects) == 1 else subjects}},
        })
    return {"Version": POLICY_VERSION, "Statement": statements}


def documents(spec: Any, config: Config, roles: list[PlannedRole], unscoped_reason: Any) -> dict[str, Any]:
    """The files under identity/: per role its policy and trust policy, the role list and the
    Pod Identity associations. ``unscoped_reason(statement)``: why a statement has Resource "*"."""
    cluster = spec.cluster
    out: dict[str, Any] = {}
    listed = []
    associations = []
    for role in roles:
        policy = f"{role.directory}/policy.json"
        out[policy] = policy_document(role.statements)
        trust = trust_policy(spec, config, role)
        entry: dict[str, Any] = {
            "name": role.name, "arn": role.arn, "createdBy": "strata" if role.generated else "you",
            "policy": policy,
        }
        if trust is not None:
            out[f"{role.directory}/trust-policy.json"] = trust
            entry["trustPolicy"] = f"{role.directory}/trust-policy.json"
        entry["serviceAccounts"] = [
            {"component": i.component, "namespace": i.namespace, "name": i.service_account, "identity": i.mode,
             "uses": i.description} for i in role.identities]
        unscoped = [{"sid": s.sid, "actions": list(s.actions), "why": unscoped_reason(s)} for s in role.statements if s.unscoped]
        if unscoped:
            entry["unscopedStatements"] = unscoped
        listed.append(entry)
        associations += [{"clusterName": cluster.name, "namespace": i.namespace, "serviceAccount": i.service_account,
                          "roleArn": role.arn} for i in role.identities if i.mode == "podIdentity"]
    out["roles.json"] = {"cluster": cluster.name, "accountId": cluster.account_id, "region": cluster.region,
                         "partition": cluster.partition, "roles": listed}
    out["associations.json"] = {"clusterName": cluster.name, "associations": associations}
    return out


def compact(document: dict[str, Any]) -> str:
    """A policy as one JSON string, the form IAM APIs and ACK's policyDocument fields take."""
    return json.dumps(document, separators=(",", ":"))
