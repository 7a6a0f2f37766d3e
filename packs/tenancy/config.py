"""The ``tenancy`` section: platform-wide settings for every team namespace. Teams themselves
(name, namespace, groups, quota) are core facts in ``teams:`` because other packs place
workloads in them."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from strata.pack import DnsLabel, Quantity, StrictModel

PodSecurityLevel = Literal["privileged", "baseline", "restricted"]
Cidr = Annotated[str, Field(pattern=r"^[0-9]{1,3}(\.[0-9]{1,3}){3}/[0-9]{1,2}$")]


class PodSecurity(StrictModel):
    # Every pod template strata writes into team namespaces (Ray heads, workers and RayJob
    # submitters, Argo steps and executors, DRA workloads) passes restricted, and the tests dry-run
    # them on a real API server enforcing it. A team's own Pods must then run as non-root with
    # seccomp RuntimeDefault, drop ALL capabilities and disallow privilege escalation.
    enforce: PodSecurityLevel = "restricted"
    warn: PodSecurityLevel = "restricted"  # the team namespace's pod-security.kubernetes.io/warn level
    audit: PodSecurityLevel = "restricted"  # the team namespace's pod-security.kubernetes.io/audit level


class DefaultRequests(StrictModel):
    """Requests the LimitRange gives containers that set none, so quota-bound namespaces
    still admit them. No default limits: a default memory limit below a container's own
    request makes the API server reject the Pod."""

    cpu: Quantity = "100m"  # the LimitRange's defaultRequest.cpu
    memory: Quantity = "256Mi"  # the LimitRange's defaultRequest.memory


PRIVATE_RANGES = ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16")


class Egress(StrictModel):
    # Isolate egress: DNS to kube-system, the team's own namespace, the API server
    # (`apiServerCidrs`, TCP 443) and `cidrs` only. The default keeps the internet and AWS's
    # public endpoints reachable and blocks instance metadata and every private address.
    restrict: bool = True
    cidrs: tuple[Cidr, ...] = ("0.0.0.0/0",)  # the address ranges team Pods may reach besides DNS, their namespace and the API server
    # Keep Pods away from the node's instance metadata (and so the node role's credentials);
    # IRSA and EKS Pod Identity do not need it.
    block_instance_metadata: bool = True
    # Keep team Pods out of everything with a private address (the VPC, other Pods, the
    # platform's and kube-system's Services) except the API server on 443 and what `cidrs`
    # lists on its own (a database subnet, an internal service): the private ranges are cut out
    # of the wider `cidrs`.
    exclude_private_ranges: bool = True


class Config(StrictModel):
    pod_security: PodSecurity = PodSecurity()  # the Pod Security Admission labels of every team namespace
    # Namespaces whose Pods may reach every team namespace: the ingress controller and the
    # monitoring stack (Prometheus scrapes Pods directly).
    ingress_namespaces: tuple[DnsLabel, ...] = ("ingress-nginx",)
    monitoring_namespaces: tuple[DnsLabel, ...] = ("monitoring",)  # namespaces whose Pods may reach every team namespace (scraping)
    # Address ranges that may reach team Pods too: an AWS ALB in `ip` target mode sends
    # traffic from its own ENIs, not from a namespace. List the ALB's subnets only: Pods get
    # VPC addresses too, so the whole VPC would let every Pod in.
    ingress_cidrs: tuple[Cidr, ...] = ()
    default_requests: DefaultRequests = DefaultRequests()  # the LimitRange default requests of every team namespace
    team_role: Literal["admin", "edit", "view"] = "edit"  # the ClusterRole the team's groups get
    egress: Egress = Egress()  # the egress NetworkPolicy of every team namespace
    # Where Pods reach the Kubernetes API server, on TCP 443: on EKS the control-plane ENIs in
    # the cluster's subnets, and the `kubernetes` Service's ClusterIP (policy engines that match
    # before DNAT, like the VPC CNI's network policy agent, see that address). The default, every
    # private range, also reaches VPC interface endpoints (STS, ECR, S3), which serve 443 too;
    # narrow it to the cluster's subnets and Service CIDR. Team Pods (the Ray autoscaler, Argo's
    # executor) and the platform's operators get exactly this.
    api_server_cidrs: Annotated[tuple[Cidr, ...], Field(min_length=1)] = PRIVATE_RANGES
