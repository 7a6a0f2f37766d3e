"""Tenancy policy checks."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator
from typing import Any

from strata.pack import Facts, Problem, quantity, spec_path

from . import rules as r
from .config import Config

# The widest range that still looks like load balancer subnets rather than a whole VPC.
WIDEST_INGRESS_PREFIX = 20


def check(spec: Any, config: Config, facts: Facts) -> Iterator[Problem]:
    if not spec.teams:
        return
    if config.pod_security.enforce == "privileged":
        yield r.PRIVILEGED_NAMESPACE.problem(("pod_security", "enforce"), "every team namespace would admit privileged Pods")
    for i, team in enumerate(spec.teams):
        if not team.groups:
            yield r.TEAM_WITHOUT_GROUPS.problem(spec_path("teams", i), f"team {team.name!r} has no groups")
    for i, cidr in enumerate(config.ingress_cidrs):
        if ipaddress.ip_network(cidr, strict=False).prefixlen < WIDEST_INGRESS_PREFIX:
            yield r.INGRESS_CIDR_TOO_WIDE.problem(("ingress_cidrs", i), f"{cidr} is wider than a /{WIDEST_INGRESS_PREFIX}")
    yield from _check_room_for_platform_claims(spec, facts)


def _check_room_for_platform_claims(spec: Any, facts: Facts) -> Iterator[Problem]:
    # The PersistentVolumeClaims the storage pack renders, so the quota counts exactly those.
    storage = facts["storage"]
    claims = storage.claims if storage is not None else ()
    for i, team in enumerate(spec.teams):
        quota, namespace = team.quota, team.namespace_name
        ours = [c for c in claims if c.namespace == namespace]
        if quota is None or not ours:
            continue
        names = ", ".join(f"{c.name} ({c.size})" for c in ours)
        if quota.persistent_volume_claims is not None and len(ours) > quota.persistent_volume_claims:
            yield r.QUOTA_BELOW_PLATFORM_CLAIMS.problem(spec_path("teams", i, "quota", "persistent_volume_claims"), (
                f"strata creates {len(ours)} claims in namespace {namespace} ({names}); the quota allows {quota.persistent_volume_claims}"))
        requested = sum(quantity(c.size) for c in ours)
        if quota.storage is not None and requested > quantity(quota.storage):
            yield r.QUOTA_BELOW_PLATFORM_CLAIMS.problem(spec_path("teams", i, "quota", "storage"), (
                f"the claims strata creates in namespace {namespace} request {requested / 2**30:g}Gi ({names}); the quota allows {quota.storage}"))
