"""The ``dra`` section of the Platform spec: which node pools hand out NVIDIA GPUs through
Dynamic Resource Allocation, how the NVIDIA DRA driver is installed, the claim templates
teams use (the resource.k8s.io/v1 request shape), workloads and a smoke test."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from strata.pack import DnsLabel, GpuSmokeTest, NonNegativeInt, PositiveInt, Quantity, StrictModel, exactly_one

# DeviceClass names are DNS subdomains (gpu.nvidia.com, h100.gpu.example.com).
DnsSubdomain = Annotated[str, Field(pattern=r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$", max_length=253)]
Cel = Annotated[str, Field(min_length=1, max_length=10240)]


class DeviceRequest(StrictModel):
    """One way to satisfy a request: ``exactly`` or an entry of ``firstAvailable``."""

    device_class_name: Annotated[str, Field(min_length=1)]  # checked by dra/device-class
    selectors: tuple[Cel, ...] = ()  # CEL expressions over device.attributes / device.capacity
    allocation_mode: Literal["ExactCount", "All"] = "ExactCount"  # ExactCount: count devices; All: every matching device (allocationMode)
    count: PositiveInt | None = None  # ExactCount only; Kubernetes defaults it to 1


class Subrequest(DeviceRequest):
    name: DnsLabel  # the subrequest's name (firstAvailable[].name)


class Request(StrictModel):
    name: DnsLabel  # the request's name, which constraints and sharing name
    exactly: DeviceRequest | None = None  # the one way to satisfy the request
    first_available: tuple[Subrequest, ...] = ()  # alternatives, best first (at most 8)

    @model_validator(mode="after")
    def _one_shape(self) -> Request:
        if (self.exactly is None) == (not self.first_available):
            raise ValueError("set exactly one of exactly and firstAvailable")
        if len(self.first_available) > 8:
            raise ValueError("firstAvailable takes at most 8 alternatives")
        return self


class Constraint(StrictModel):
    requests: tuple[DnsLabel, ...] = ()  # empty: every request of the claim
    match_attribute: str  # a qualified attribute, e.g. gpu.nvidia.com/parentUUID


class Sharing(StrictModel):
    """GPU sharing inside one claim (GpuConfig); needs the driver's feature gate."""

    strategy: Literal["MPS", "TimeSlicing"]  # MPS or TimeSlicing (the GpuConfig's sharing.strategy)
    requests: tuple[DnsLabel, ...] = ()  # empty: every request of the claim
    interval: Literal["Default", "Short", "Medium", "Long"] | None = None  # TimeSlicing
    active_thread_percentage: Annotated[int, Field(ge=1, le=100)] | None = None  # MPS
    pinned_device_memory_limit: Quantity | None = None  # MPS


class ClaimTemplate(StrictModel):
    name: DnsLabel  # the ResourceClaimTemplate's (or shared ResourceClaim's) name
    teams: tuple[DnsLabel, ...] = ()  # the namespaces it is created in; empty: every team
    # shared: one ResourceClaim per namespace that every referencing pod shares, instead of
    # a ResourceClaimTemplate from which each pod gets its own claim.
    shared: bool = False
    requests: Annotated[tuple[Request, ...], Field(min_length=1, max_length=32)]  # the device requests (1 to 32)
    constraints: tuple[Constraint, ...] = ()  # matchAttribute constraints across the claim's requests
    sharing: Sharing | None = None  # GPU sharing (MPS or time slicing) of the claim's devices; unset: none


class DeviceClass(StrictModel):
    name: DnsSubdomain  # the DeviceClass's name, a DNS subdomain
    selectors: Annotated[tuple[Cel, ...], Field(min_length=1)]  # CEL expressions a device must match (at least one)


class ComputeDomain(StrictModel):
    """A multi-node NVLink (IMEX) domain; pods join it through its channel claim template."""

    name: DnsLabel  # the ComputeDomain's name
    team: DnsLabel  # the team (of the core spec) whose namespace holds the ComputeDomain
    node_pool: DnsLabel  # the node pool (multi-node NVLink instances) the domain spans
    num_nodes: NonNegativeInt = 0  # 0 is recommended with IMEXDaemonsWithDNSNames (on in 0.4)
    allocation_mode: Literal["Single", "All"] = "Single"  # the channel's allocationMode: one IMEX channel per pod, or all of them


class ClaimRef(StrictModel):
    name: DnsLabel  # the pod's name for the claim (resources.claims[].name)
    template: DnsLabel | None = None  # a claim template of this section
    compute_domain: DnsLabel | None = None  # the channel of a ComputeDomain

    @model_validator(mode="after")
    def _one_target(self) -> ClaimRef:
        exactly_one(self, "template", "compute_domain")
        return self


class VolumeMount(StrictModel):
    claim: DnsLabel  # a PVC in the workload's namespace (storage.claims)
    mount_path: Annotated[str, Field(pattern=r"^/")]  # where the claim is mounted in the container
    read_only: bool = False  # mount it read-only


class Workload(StrictModel):
    name: DnsLabel  # the Job's or Deployment's name
    kind: Literal["Job", "Deployment"] = "Job"  # render a Job or a Deployment
    team: DnsLabel  # the team (of the core spec) whose namespace runs the workload
    # Karpenter 1.14 ignores ResourceClaims when it picks nodes: the pool pins the pod to
    # GPU capacity (node selector and tolerations of exactly that pool).
    node_pool: DnsLabel | None = None
    image: str  # the container image
    command: tuple[str, ...] = ()  # the container's command
    args: tuple[str, ...] = ()  # the container's args
    replicas: PositiveInt = 1  # Deployment replicas, or Job parallelism and completions
    cpu: Quantity = "1"  # the container's CPU request
    memory: Quantity = "4Gi"  # the container's memory request and limit
    claims: Annotated[tuple[ClaimRef, ...], Field(min_length=1)]  # the DRA claims the pod holds (at least one)
    volumes: tuple[VolumeMount, ...] = ()  # PVCs mounted into the container
    # A Deployment that serves: its HTTP port gets readiness and liveness probes on health_path
    # (vLLM and Triton answer /health), and a PodDisruptionBudget keeps all but one replica up.
    port: Annotated[int, Field(ge=1, le=65535)] | None = None
    health_path: Annotated[str, Field(pattern=r"^/")] = "/health"  # the HTTP path of the readiness and liveness probes (with port)


class SmokeTest(GpuSmokeTest):
    namespace: DnsLabel = "dra-smoke-test"  # the Job's namespace; an unset nodePool means the first DRA pool


class Config(StrictModel):
    # Node pools whose NVIDIA GPUs are allocated through DRA (no device plugin there).
    node_pools: Annotated[tuple[DnsLabel, ...], Field(min_length=1)]
    # Who installs the NVIDIA DRA driver: the standalone chart, or the GPU Operator in
    # GPUCluster mode (compute.gpuOperator.gpuCluster). Default: follow the compute section.
    driver: Literal["standalone", "gpuOperator"] | None = None
    feature_gates: dict[Annotated[str, Field(pattern=r"^[A-Za-z0-9]+$")], bool] = {}  # standalone driver gates
    device_classes: tuple[DeviceClass, ...] = ()  # DeviceClasses strata renders, for requests to name
    claim_templates: tuple[ClaimTemplate, ...] = ()  # claim templates created in team namespaces
    compute_domains: tuple[ComputeDomain, ...] = ()  # multi-node NVLink (IMEX) domains
    workloads: tuple[Workload, ...] = ()  # Jobs and Deployments that hold DRA claims
    smoke_test: SmokeTest = SmokeTest()  # a one-shot nvidia-smi Job holding a GPU through a DRA claim
