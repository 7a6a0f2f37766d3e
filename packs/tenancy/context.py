"""Everything the tenancy templates print, one entry per team."""

from __future__ import annotations

import ipaddress
from typing import Any

from strata.pack import Facts

from .config import Config

METADATA_ADDRESS = ipaddress.ip_network("169.254.169.254/32")


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
        quota = {"requests.cpu": q.cpu, "requests.memory": q.memory, "requests.nvidia.com/gpu": str(q.gpus)}
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
        block: dict[str, Any] = {"cidr": cidr}
        if e.block_instance_metadata and METADATA_ADDRESS.subnet_of(ipaddress.ip_network(cidr, strict=False)):
            block["except"] = [str(METADATA_ADDRESS)]
        blocks.append({"ipBlock": block})
    return {"destinations": blocks}
