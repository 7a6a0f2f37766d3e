"""The ``identity`` section of the Platform spec: how the roles strata generates are trusted,
the roles of your own workloads, and whether to render them as ACK objects."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from strata.pack import DnsLabel, RoleArn, StrictModel

# The issuer of the cluster's IAM OIDC provider without https://, e.g.
# oidc.eks.us-west-2.amazonaws.com/id/EXAMPLED539D4633E53DE1B71EXAMPLE (aws eks describe-cluster).
OidcProvider = Annotated[str, Field(pattern=r"^oidc\.eks\.[a-z0-9-]+\.amazonaws\.com(\.cn)?/id/[A-Za-z0-9]+$")]


class Statement(StrictModel):
    """An Allow statement of one of your roles. Resources are ARNs; "*" only for actions that
    have no resource type (identity/wildcard-resource)."""

    sid: Annotated[str, Field(pattern=r"^[A-Za-z0-9]+$")]  # the statement's Sid in the policy document
    actions: Annotated[tuple[str, ...], Field(min_length=1)]  # IAM actions allowed (service:Action), checked against the action catalog
    resources: Annotated[tuple[str, ...], Field(min_length=1)]  # resource ARNs the actions apply to
    reason: str | None = None  # why Resource "*": printed into identity/roles.json


class Role(StrictModel):
    """A role for a workload strata renders that calls AWS itself (Ray workers reading a
    bucket, a notebook writing to one), bound to one of the service accounts strata renders."""

    name: DnsLabel  # the role is <cluster>-<name>, or roleArn
    namespace: DnsLabel  # the namespace of the service account the role is bound to
    service_account: DnsLabel  # the service account the role is bound to (a Pod Identity association or the IRSA trust)
    identity: Literal["podIdentity", "irsa"] = "podIdentity"  # how the service account gets the role: an EKS Pod Identity association or IRSA
    role_arn: RoleArn | None = None  # your own role instead of the generated one
    statements: Annotated[tuple[Statement, ...], Field(min_length=1)]  # the Allow statements of the role's policy (at least one)


class Ack(StrictModel):
    """Also render the roles as AWS Controllers for Kubernetes objects (iam.services.k8s.aws
    Policy and Role, eks.services.k8s.aws PodIdentityAssociation), for Argo CD to reconcile."""

    namespace: DnsLabel = "ack-system"  # where the ACK objects live (the ACK controllers watch it)


class Config(StrictModel):
    oidc_provider: OidcProvider | None = None  # needed by IRSA trust policies
    roles: tuple[Role, ...] = ()  # roles for your own workloads, beside those the packs export
    ack: Ack | None = None  # present: render the ACK objects
