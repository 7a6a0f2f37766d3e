"""AWS identity facts: what a component needs from AWS, as packs export it to the identity
pack (pack.yaml ``uses:``), and the names both sides derive from the spec the same way.

A pack that runs a component calling AWS APIs exports, in its ``exports`` hook, a field
``aws_identities: tuple[AwsIdentity, ...]``: the service account the component runs as, how
it gets credentials (EKS Pod Identity or IRSA), the role the user brings (if any) and the IAM
statements it needs, with resources built from the spec by ``Arns``. The identity pack turns
them into policy documents, trust policies and Pod Identity associations. The role strata
generates for a component is named by ``role_name``, so a pack can annotate an IRSA service
account with the generated role's ARN (``role_arn``) without reading the identity pack."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any, Literal

from strata.packs.paths import SpecPath

IdentityMode = Literal["podIdentity", "irsa"]
ROLE_NAME_LIMIT = 64  # IAM role names are at most 64 characters


@dataclasses.dataclass(frozen=True)
class Condition:
    """One IAM condition: ``{operator: {key: values}}``."""

    operator: str  # StringEquals, StringLike, ForAllValues:StringEquals, Bool ...
    key: str  # aws:RequestTag/karpenter.sh/nodepool, s3:prefix ...
    values: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class IamStatement:
    """One Allow statement. ``resources`` are ARNs; ``("*",)`` only for actions that have no
    resource type, and then ``unscoped_reason`` says why (the identity pack checks both)."""

    sid: str  # [A-Za-z0-9]+, names the statement in the rendered document
    actions: tuple[str, ...]
    resources: tuple[str, ...]
    conditions: tuple[Condition, ...] = ()
    unscoped_reason: str | None = None

    @property
    def unscoped(self) -> bool:
        return "*" in self.resources

    def document(self) -> dict[str, Any]:
        """The statement as IAM JSON (single values written as strings, as AWS prints them)."""
        body: dict[str, Any] = {"Sid": self.sid, "Effect": "Allow", "Action": _one_or_list(self.actions),
                                "Resource": _one_or_list(self.resources)}
        if self.conditions:
            grouped: dict[str, dict[str, Any]] = {}
            for c in self.conditions:
                grouped.setdefault(c.operator, {})[c.key] = _one_or_list(c.values)
            body["Condition"] = grouped
        return body


@dataclasses.dataclass(frozen=True)
class AwsIdentity:
    """The AWS access one component needs, as its pack exports it."""

    component: str  # names the generated role: <cluster>-<component>, e.g. karpenter, argo-workflow-research
    namespace: str
    service_account: str
    mode: IdentityMode
    statements: tuple[IamStatement, ...]
    path: SpecPath  # the spec section that configures the component (problems point there)
    role_arn: str | None = None  # the user's own role; strata then generates none
    description: str = ""  # one line: what the component does with the access

    @property
    def generated(self) -> bool:
        return self.role_arn is None


def role_name(cluster_name: str, component: str) -> str:
    """The IAM role strata generates for a component: <cluster>-<component>, cut to 64 characters."""
    return f"{cluster_name}-{component}"[:ROLE_NAME_LIMIT]


def role_arn(cluster: Any, component: str, own: str | None = None) -> str | None:
    """The role a component's service account uses: the user's own (``own``), else the one
    strata generates, whose ARN needs cluster.accountId (None without it)."""
    if own:
        return own
    if not cluster.account_id:
        return None
    return f"arn:{cluster.partition}:iam::{cluster.account_id}:role/{role_name(cluster.name, component)}"


@dataclasses.dataclass(frozen=True)
class Arns:
    """ARNs of the cluster's partition, region and account. Without cluster.accountId the
    account field is ``${AWS::AccountId}``: the identity pack refuses to render then."""

    partition: str
    region: str
    account: str
    cluster_name: str

    @classmethod
    def of(cls, cluster: Any) -> Arns:
        return cls(cluster.partition, cluster.region, cluster.account_id or "${AWS::AccountId}", cluster.name)

    def regional(self, service: str, resource: str, *, account: str | None = None) -> str:
        """arn:<partition>:<service>:<region>:<account>:<resource>; ``account=""`` for resources
        that belong to no account (public AMIs and SSM parameters), ``"*"`` for any account."""
        return f"arn:{self.partition}:{service}:{self.region}:{self.account if account is None else account}:{resource}"

    def iam(self, resource: str) -> str:
        return f"arn:{self.partition}:iam::{self.account}:{resource}"

    def s3(self, resource: str) -> str:
        return f"arn:{self.partition}:s3:::{resource}"

    @property
    def cluster(self) -> str:
        return self.regional("eks", f"cluster/{self.cluster_name}")

    def kms_key(self, key: str) -> str:
        """A KMS key given as an ARN or a key id (an alias cannot scope a key policy: see kms_alias)."""
        return key if key.startswith("arn:") else self.regional("kms", f"key/{key}")


def kms_statements(sid: str, keys: Iterable[str], arns: Arns, actions: tuple[str, ...],
                   via_service: str | None = None) -> tuple[IamStatement, ...]:
    """Use of the KMS keys the spec declares, by ARN, key id or alias (alias/...). An alias
    cannot be a policy's resource for key use: it matches the key it names through the
    kms:ResourceAliases condition, in a statement of its own. ``via_service``: only through
    that service (ec2, fsx ...) in the cluster's region."""
    wanted = sorted(set(keys))
    via = (Condition("StringEquals", "kms:ViaService", (f"{via_service}.{arns.region}.amazonaws.com",)),) if via_service else ()
    aliases = tuple(k for k in wanted if k.startswith("alias/"))
    direct = tuple(arns.kms_key(k) for k in wanted if not k.startswith("alias/"))
    out = []
    if direct:
        out.append(IamStatement(sid, actions, direct, via))
    if aliases:
        out.append(IamStatement(f"{sid}ByAlias", actions, (arns.regional("kms", "key/*"),),
                                (*via, Condition("ForAnyValue:StringEquals", "kms:ResourceAliases", aliases))))
    return tuple(out)


def _one_or_list(values: tuple[str, ...]) -> str | list[str]:
    return values[0] if len(values) == 1 else list(values)
