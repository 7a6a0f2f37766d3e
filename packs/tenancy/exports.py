"""What the tenancy pack tells other packs (pack.yaml `uses: [tenancy]`): the platform
namespaces its team policies admit, so the namespaces other packs isolate admit the same ones,
and the egress rules of NetworkPolicies every namespace strata isolates builds from (DNS, the
API server, public HTTPS, the Pod Identity agent), so they are written once."""

from __future__ import annotations

import dataclasses
from typing import Any

from strata.pack import CoreSpec, Facts

from .config import PRIVATE_RANGES, Config

DNS_PORTS = ({"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53})
API_SERVER_PORT = 443
# The EKS Pod Identity agent (a host-network DaemonSet on every node) hands out a Pod's IAM
# credentials at this link-local address, on port 80.
POD_IDENTITY_AGENT = "169.254.170.23/32"


def dns_rule() -> dict[str, Any]:
    return {"to": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}},
                    "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}}}],
            "ports": [dict(p) for p in DNS_PORTS]}


def api_server_rule(cidrs: tuple[str, ...]) -> dict[str, Any]:
    return {"to": [{"ipBlock": {"cidr": c}} for c in cidrs], "ports": [{"protocol": "TCP", "port": API_SERVER_PORT}]}


@dataclasses.dataclass(frozen=True)
class TenancyFacts:
    monitoring_namespaces: tuple[str, ...]  # Prometheus scrapes from here
    ingress_namespaces: tuple[str, ...]  # ingress controllers
    api_server_cidrs: tuple[str, ...] = PRIVATE_RANGES  # tenancy.apiServerCidrs
    private_ranges: tuple[str, ...] = PRIVATE_RANGES

    def dns(self) -> dict[str, Any]:
        """Egress rule: the cluster DNS (kube-dns in kube-system), UDP and TCP 53."""
        return dns_rule()

    def api_server(self) -> dict[str, Any]:
        """Egress rule: the Kubernetes API server (tenancy.apiServerCidrs), TCP 443."""
        return api_server_rule(self.api_server_cidrs)

    def public_https(self) -> dict[str, Any]:
        """Egress rule: public addresses on TCP 443 (AWS's public endpoints, identity providers,
        webhook receivers); no private address."""
        return {"to": [{"ipBlock": {"cidr": "0.0.0.0/0", "except": list(self.private_ranges)}}],
                "ports": [{"protocol": "TCP", "port": 443}]}

    def pod_identity_agent(self) -> dict[str, Any]:
        """Egress rule: the EKS Pod Identity agent, where Pods get their IAM credentials."""
        return {"to": [{"ipBlock": {"cidr": POD_IDENTITY_AGENT}}], "ports": [{"protocol": "TCP", "port": 80}]}

    def private_addresses(self) -> dict[str, Any]:
        """Egress rule: every private address on any port (nodes, Pods, Services)."""
        return {"to": [{"ipBlock": {"cidr": c}} for c in self.private_ranges]}


def exports(spec: CoreSpec, config: Config, facts: Facts) -> TenancyFacts:
    return TenancyFacts(tuple(sorted(config.monitoring_namespaces)), tuple(sorted(config.ingress_namespaces)),
                        tuple(config.api_server_cidrs))
