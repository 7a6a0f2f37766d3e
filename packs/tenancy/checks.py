"""Tenancy policy checks."""

from __future__ import annotations

import ipaddress
from typing import Any, Iterator

from strata.problems import Problem

from . import rules as r
from .config import Config

# The widest range that still looks like load balancer subnets rather than a whole VPC.
WIDEST_INGRESS_PREFIX = 20


def check(spec: Any, config: Config) -> Iterator[Problem]:
    if not spec.teams:
        return
    if config.pod_security.enforce == "privileged":
        yield r.PRIVILEGED_NAMESPACE.problem(("tenancy", "podSecurity", "enforce"), "every team namespace would admit privileged Pods")
    for i, team in enumerate(spec.teams):
        if not team.groups:
            yield r.TEAM_WITHOUT_GROUPS.problem(("teams", i), f"team {team.name!r} has no groups")
    for i, cidr in enumerate(config.ingress_cidrs):
        if ipaddress.ip_network(cidr, strict=False).prefixlen < WIDEST_INGRESS_PREFIX:
            yield r.INGRESS_CIDR_TOO_WIDE.problem(("tenancy", "ingressCidrs", i), f"{cidr} is wider than a /{WIDEST_INGRESS_PREFIX}")
