"""Everything the tenancy templates print, one entry per team."""

from __future__ import annotations

import ipaddress
from typing import Any

from strata.pack import Facts

from .config import PRIVATE_RANGES as PRIVATE_CIDRS, Config
from .exports import api_server_rule, dns_rule

METADATA_ADDRESS = ipaddress.IPv4Network("169.254.169.254/32")
PRIVATE_RANGES = tuple(ipaddress.IPv4Network(n) for n in PRIVATE_CIDRS)


def context(spec: Any, config: Config, facts: Facts) -> dict[str, Any]:
    return {
        "teams": [_team(t, config) for t in spec.teams],
        "pod_security": config.pod_security.model_dump(),
        "default_requests": config.default_requests.model_dump(),
        "team_role": config.team_role,
        "platform_peers": _platform_peers(config),
        "egress": _egress(config),
    }


def _team(team: Any, config: Config) -> dict[str, Any]:
    quota = None
    if team.quota is not None:
        q = team.quota
        quota = {"requests.cpu": q.cpu, "requests.memory": q.memory, "requests.nvidia.com/gpu": str(q.gpus),
                 "requests.aws.amazon.com/neuron": str(q.neuron_devices), "requests.aws.amazon.com/neuroncore": str(q.neuron_cores)}
        if q.persistent_volume_claims is not None:
            quota["persistentvolumeclaims"] = str(q.persistent_volume_claims)
        if q.storage is not None:
            quota["requests.storage"] = q.storage
    return {"name": team.name, "namespace": team.namespace_name, "groups": list(team.groups), "quota": quota}


def _platform_peers(config: Config) -> list[dict[str, Any]]:
    namespaces = sorted(set(config.ingress_namespaces) | set(config.monitoring_namespaces))
    peers: list[dict[str, Any]] = []
    if namespaces:
        peers.append({"namespaceSelector": {"matchExpressions": [
            {"key": "kubernetes.io/metadata.name", "operator": "In", "values": namespaces}]}})
    peers.extend({"ipBlock": {"cidr": cidr}} for cidr in config.ingress_cidrs)
    return peers


def _egress(config: Config) -> dict[str, Any] | None:
    e = config.egress
    if not e.restrict:
        return None
    blocks = []
    for cidr in e.cidrs:
        network = ipaddress.IPv4Network(cidr, strict=False)  # the Cidr type admits IPv4 only
        block: dict[str, Any] = {"cidr": cidr}
        excepted = [METADATA_ADDRESS] if e.block_instance_metadata else []
        if e.exclude_private_ranges:
            # A range listed on its own (a VPC endpoint subnet, the API server) stays reachable.
            excepted += [r for r in PRIVATE_RANGES if r != network]
        excepted = [r for r in excepted if r.subnet_of(network) and r != network]
        if excepted:
            block["except"] = [str(r) for r in sorted(excepted)]
        blocks.append({"ipBlock": block})
    return {"destinations": blocks, "dns": dns_rule(), "api_server": api_server_rule(tuple(config.api_server_cidrs))}
