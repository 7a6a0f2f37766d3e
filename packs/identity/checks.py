"""The identity pack's checks: every component that calls AWS gets a role it can assume, no
role serves different needs, every statement is scoped where AWS allows it, every action
exists, every document follows the IAM grammar, and your roles bind service accounts that
strata renders."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from strata.pack import AwsIdentity, Facts, IamStatement, Problem, spec_path

from . import rules as r
from .config import Config
from .grammar import grammar_errors, scopable, unknown_action
from .roles import identities, plan, policy_document, trust_policy

FIELDS = {"Action": "actions", "Resource": "resources", "Sid": "sid"}  # IAM element -> field of identity.roles[].statements[]


def check(spec: Any, config: Config, facts: Facts) -> Iterator[Problem]:
    found = identities(spec, config, facts)
    if not found:
        return
    if not spec.cluster.account_id:
        names = ", ".join(i.component for i in found)
        yield r.MISSING_IDENTITY.problem(spec_path("cluster"), f"cluster.accountId is not set, so no role ARN can be built for {names}")
        return  # every ARN would name no account: nothing below could be judged
    for identity in found:
        if identity.mode == "irsa" and identity.generated and config.oidc_provider is None:
            yield r.MISSING_IDENTITY.problem(identity.path, f"{identity.component} uses IRSA, but identity.oidcProvider is not set: "
                                             "its generated role would trust no one")
    yield from _shared_roles(spec, found)
    yield from _service_accounts(spec, config, found)
    for identity in found:
        for j, statement in enumerate(identity.statements):
            yield from _statement(identity, j, statement)
    for role in plan(spec, found):
        trust = trust_policy(spec, config, role)
        for where, message in grammar_errors(trust) if trust is not None else ():
            yield r.POLICY_GRAMMAR.problem(role.first.path, f"trust policy of {role.name}: {'/'.join(map(str, where))}: {message}")


def _own(identity: AwsIdentity) -> bool:
    """A role of identity.roles (its problems point into its statements)."""
    return tuple(identity.path[:2]) == ("identity", "roles")


def _shared_roles(spec: Any, found: list[AwsIdentity]) -> Iterator[Problem]:
    for role in plan(spec, found):
        first = role.first
        for other in role.identities[1:]:
            if other.statements != first.statements:
                yield r.SHARED_ROLE.problem(other.path, f"role {role.arn} serves {first.component} and {other.component}, "
                                            "whose needs differ: each would get the other's permissions")
    seen: dict[tuple[str, str], AwsIdentity] = {}
    for identity in found:
        key = (identity.namespace, identity.service_account)
        if key in seen:
            yield r.SHARED_ROLE.problem(identity.path, f"service account {key[0]}/{key[1]} already has the role of "
                                        f"{seen[key].component}; it can have only one")
        seen.setdefault(key, identity)


def _service_accounts(spec: Any, config: Config, found: list[AwsIdentity]) -> Iterator[Problem]:
    rendered = {(i.namespace, i.service_account) for i in found if not _own(i)}
    rendered |= {(namespace, "default") for namespace in spec.team_namespaces.values()}
    for i, role in enumerate(config.roles):
        if (role.namespace, role.service_account) not in rendered:
            known = ", ".join(f"{ns}/{sa}" for ns, sa in sorted(rendered))
            yield r.UNKNOWN_SERVICE_ACCOUNT.problem(("roles", i, "service_account"),
                                                    f"no pack renders service account {role.namespace}/{role.service_account} "
                                                    f"(strata renders {known})")


def _statement(identity: AwsIdentity, j: int, statement: IamStatement) -> Iterator[Problem]:
    base = identity.path + ("statements", j) if _own(identity) else identity.path
    what = f"{identity.component}: statement {statement.sid}"
    errors = list(grammar_errors(policy_document((statement,))))
    for where, message in errors:
        # Statement/0/<Element>[/<index>]: point at the field of identity.roles that wrote it
        element = FIELDS.get(str(where[2])) if len(where) > 2 else None
        at = base + (element, *where[3:]) if _own(identity) and element else base
        yield r.POLICY_GRAMMAR.problem(at, f"{what}: {message}")
    if errors:
        return
    for k, action in enumerate(statement.actions):
        if (why := unknown_action(action)) is not None:
            yield r.UNKNOWN_ACTION.problem(base + ("actions", k) if _own(identity) else base, f"{what}: {why}")
    if statement.unscoped:
        scoped = [a for a in statement.actions if unknown_action(a) is None and scopable(a)]
        if scoped:
            at = base + ("resources", statement.resources.index("*")) if _own(identity) else base
            yield r.WILDCARD_RESOURCE.problem(at, f'{what}: Resource "*" for {", ".join(scoped)}, which an ARN can scope')
