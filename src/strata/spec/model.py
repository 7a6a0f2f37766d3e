"""The core of the Platform spec: the facts several packs share (cluster, node pools, teams).
Each pack adds its own section through its ``Config`` model (see strata.packs)."""

from __future__ import annotations

import datetime
from collections import Counter
from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator

from strata.spec.base import (
    DnsLabel,
    Duration,
    LabelKey,
    LabelValue,
    NonNegativeInt,
    PositiveInt,
    Quantity,
    StrictModel,
    exactly_one,
)

API_VERSION = "strata.dev/v1alpha1"
SUPPORTED_KUBERNETES = ("1.34", "1.35", "1.36", "1.37")


class Cluster(StrictModel):
    name: DnsLabel  # the EKS cluster's name
    region: Annotated[str, Field(pattern=r"^[a-z]{2}(-gov|-iso[a-z]*)?-[a-z]+-[0-9]$")]  # the AWS region (us-west-2); instance types are checked against it
    kubernetes_version: Annotated[str, Field(pattern=r"^1\.[0-9]{2}$")]  # the EKS Kubernetes minor, quoted ("1.36"); 1.34 to 1.37
    environment: Literal["dev", "staging", "prod"] = "prod"  # prod turns on the strictest rules (no dummy sign-in, pinned AMIs, ...)
    # The AWS account the cluster runs in: the ARNs strata builds (IAM roles and the resources
    # their policies allow) need it. Quoted, because it may start with 0.
    account_id: Annotated[str, Field(pattern=r"^[0-9]{12}$")] | None = None

    @property
    def partition(self) -> str:
        """The AWS partition of the region, the second field of every ARN in it."""
        if self.region.startswith("cn-"):
            return "aws-cn"
        if self.region.startswith("us-gov-"):
            return "aws-us-gov"
        if self.region.startswith("us-isob-"):
            return "aws-iso-b"
        if self.region.startswith("us-iso-"):
            return "aws-iso"
        return "aws"

    @field_validator("kubernetes_version", mode="before")
    @classmethod
    def _version_is_quoted(cls, value: object) -> object:
        # YAML reads 1.30 as the float 1.3: refuse numbers instead of guessing.
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            # ValueError, not TypeError: pydantic reports only ValueError as a validation error
            raise ValueError(f'write the version as a quoted string, e.g. "{value}" (YAML reads 1.30 as 1.3)')  # noqa: TRY004
        return value


class Taint(StrictModel):
    key: LabelKey  # the taint key, e.g. nvidia.com/gpu
    value: LabelValue | None = None  # the taint value (optional)
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"]  # what the taint does to pods that do not tolerate it


class RootVolume(StrictModel):
    size: Annotated[str, Field(pattern=r"^[0-9]+(Gi|Ti|G|T)$")] = "100Gi"  # the root EBS volume size
    type: Literal["gp3", "gp2", "io1", "io2"] = "gp3"  # the EBS volume type
    iops: PositiveInt | None = None  # provisioned IOPS (gp3, io1, io2)
    throughput: PositiveInt | None = None  # throughput in MiB/s (gp3)
    kms_key_id: str | None = None  # the KMS key that encrypts the volume (default: the account's EBS key)


class Budget(StrictModel):
    nodes: Annotated[str, Field(pattern=r"^((100|[0-9]{1,2})%|[0-9]+)$")] = "10%"  # how many nodes may be disrupted at once: a count or a percentage
    reasons: tuple[Literal["Underutilized", "Empty", "Drifted"], ...] | None = None  # the disruption reasons the budget applies to (default: all)
    schedule: str | None = None  # a cron schedule when the budget is active (with duration)
    duration: Annotated[str, Field(pattern=r"^([0-9]+(m|h))+$")] | None = None  # how long the budget is active from each scheduled start

    @model_validator(mode="after")
    def _schedule_with_duration(self) -> Budget:
        if (self.schedule is None) != (self.duration is None):
            raise ValueError("schedule and duration must be set together")
        return self


class Disruption(StrictModel):
    # Typed as str so v1beta1 leftovers reach the compute rules and get a precise message.
    consolidation_policy: str = "WhenEmptyOrUnderutilized"  # WhenEmpty or WhenEmptyOrUnderutilized (Karpenter v1)
    consolidate_after: Annotated[str, Field(pattern=r"^(([0-9]+(s|m|h))+|Never)$")] | None = None  # how long a node stays empty or underutilized before it is consolidated, or Never
    budgets: tuple[Budget, ...] = ()  # limits on how many nodes Karpenter disrupts at once


class Limits(StrictModel):
    cpu: Quantity | None = None  # the pool's total CPU
    memory: Quantity | None = None  # the pool's total memory
    gpus: NonNegativeInt | None = None  # nvidia.com/gpu
    neuron_devices: NonNegativeInt | None = None  # aws.amazon.com/neuron
    nodes: NonNegativeInt | None = None  # the only limit a static pool may set


class GpuClaims(StrictModel):
    """What the pool claims about its GPUs; rendered as Karpenter requirements and
    checked against the instance catalog (labels must match the instance types)."""

    name: Annotated[str, Field(pattern=r"^[a-z0-9-]+$")] | None = None  # the GPU model (h100, a100, l4, ...) as Karpenter's instance-gpu-name label
    memory_mib: PositiveInt | None = Field(None, alias="memoryMiB")  # per GPU, as Karpenter's instance-gpu-memory label
    count: PositiveInt | None = None  # GPUs per node


AvailabilityZone = Annotated[str, Field(pattern=r"^[a-z]{2}(-gov|-iso[a-z]*)?-[a-z]+-[0-9][a-z]$")]
Ec2Tags = Annotated[dict[Annotated[str, Field(min_length=1)], Annotated[str, Field(min_length=1)]], Field(min_length=1, max_length=20)]


class SecurityGroupSelector(StrictModel):
    """An EC2 security group by id or by tags (EC2NodeClass securityGroupSelectorTerms)."""

    id: Annotated[str, Field(pattern=r"^sg-[0-9a-z]+$")] | None = None  # the security group's id (sg-...)
    tags: Ec2Tags | None = None  # EC2 tags the security group carries, all of them

    @model_validator(mode="after")
    def _one(self) -> SecurityGroupSelector:
        exactly_one(self, "id", "tags")
        return self


class CapacityReservationSelector(StrictModel):
    """An EC2 capacity reservation (ODCR or Capacity Block) by id or by tags
    (EC2NodeClass capacityReservationSelectorTerms)."""

    id: Annotated[str, Field(pattern=r"^cr-[0-9a-z]+$")] | None = None  # the reservation's id (cr-...)
    tags: Ec2Tags | None = None  # EC2 tags the reservations carry, all of them
    owner_id: Annotated[str, Field(pattern=r"^[0-9]{12}$")] | None = Field(None, alias="ownerID")  # with tags: the AWS account that owns the reservations

    @model_validator(mode="after")
    def _one(self) -> CapacityReservationSelector:
        exactly_one(self, "id", "tags")
        if self.id is not None and self.owner_id is not None:
            raise ValueError("ownerID selects reservations by tags; an id names one reservation already")
        return self


class PlacementGroupSelector(StrictModel):
    """An existing EC2 cluster placement group by name or id (EC2NodeClass placementGroupSelector)."""

    name: Annotated[str, Field(min_length=1, max_length=255)] | None = None  # the placement group's name
    id: Annotated[str, Field(pattern=r"^pg-[0-9a-z]+$")] | None = None  # the placement group's id (pg-...)

    @model_validator(mode="after")
    def _one(self) -> PlacementGroupSelector:
        exactly_one(self, "name", "id")
        return self


class Efa(StrictModel):
    """Elastic Fabric Adapter for the pool's nodes. EFA traffic stays inside one availability
    zone and needs a security group that allows all traffic to and from itself; the compute
    pack pins the pool to ``zone``, adds ``securityGroup`` to the node class, installs the EFA
    device plugin and states the security-group rule it needs (compute/infra/)."""

    zone: AvailabilityZone | None = None  # required (compute/efa-zone); one zone per pool
    security_group: SecurityGroupSelector | None = None  # required (compute/efa-security-group)
    capacity_reservations: tuple[CapacityReservationSelector, ...] = ()  # capacity reservations the node class may launch into (capacityReservationSelectorTerms)
    placement_group: PlacementGroupSelector | None = None  # the cluster placement group the nodes launch into (placementGroupSelector)


class Kubelet(StrictModel):
    max_pods: PositiveInt | None = None  # the kubelet's maxPods
    system_reserved: dict[Literal["cpu", "memory", "ephemeral-storage", "pid"], str] | None = None  # resources reserved for the OS
    kube_reserved: dict[Literal["cpu", "memory", "ephemeral-storage", "pid"], str] | None = None  # resources reserved for the kubelet and container runtime


class NodePool(StrictModel):
    name: DnsLabel  # the NodePool and EC2NodeClass name
    instance_families: tuple[Annotated[str, Field(pattern=r"^[a-z0-9-]+$")], ...] = ()  # EC2 instance families (g6e, p5, m7i); or instanceTypes
    instance_types: tuple[Annotated[str, Field(pattern=r"^[a-z0-9-]+\.[a-z0-9-]+$")], ...] = ()  # exact EC2 instance types (p5.48xlarge); or instanceFamilies
    capacity_types: tuple[Literal["on-demand", "spot", "reserved"], ...] = ("on-demand",)  # on-demand, spot and/or reserved (capacity reservations)
    architecture: Literal["amd64", "arm64"] = "amd64"  # the CPU architecture
    # Karpenter AMI alias, family@version. The family is checked by a compute rule so that
    # AL2 and Ubuntu get an explanation rather than a bare enum error.
    ami_alias: Annotated[str, Field(pattern=r"^[a-zA-Z0-9]+@[a-zA-Z0-9.-]+$")] = "al2023@latest"
    gpu: GpuClaims | None = None  # what the pool claims about its GPUs, checked against the instance catalog
    efa: Efa | None = None  # EFA networking for the pool's nodes (one zone, placement, the device plugin)
    # The network bandwidth the pool's workloads need, in Gbps: the instance's aggregate over all
    # its interfaces (Karpenter's instance-network-bandwidth), never interfaces x per-interface speed.
    network_bandwidth_gbps: Annotated[float, Field(gt=0)] | None = None
    taints: tuple[Taint, ...] = ()  # taints on the pool's nodes (a GPU pool should taint nvidia.com/gpu)
    labels: dict[LabelKey, LabelValue] = {}  # labels on the pool's nodes
    limits: Limits | None = None  # the most the pool may grow to
    disruption: Disruption | None = None  # when Karpenter may consolidate the pool's nodes
    expire_after: Annotated[str, Field(pattern=r"^(([0-9]+(s|m|h))+|Never)$")] = "720h"  # the node lifetime before Karpenter replaces it, or Never
    termination_grace_period: Duration | None = None  # how long a draining node waits for its pods before it is terminated
    root_volume: RootVolume = RootVolume()  # the nodes' root EBS volume
    instance_store_policy: Literal["RAID0"] | None = None  # RAID0: the instance's local NVMe disks as one volume for ephemeral storage
    imds_hop_limit: Literal[1, 2] = 1  # the instance metadata hop limit (1 keeps pods from reaching IMDS)
    kubelet: Kubelet | None = None  # kubelet settings of the pool's nodes
    weight: Annotated[int, Field(ge=1, le=100)] | None = None  # Karpenter's preference among pools that fit a pod (higher first)
    replicas: NonNegativeInt | None = None  # a static pool (Karpenter staticCapacity gate)

    @model_validator(mode="after")
    def _has_instances(self) -> NodePool:
        if not self.instance_families and not self.instance_types:
            raise ValueError("set instanceFamilies or instanceTypes")
        return self


class Quota(StrictModel):
    cpu: Quantity  # CPU requests the team may hold in total
    memory: Quantity  # memory requests the team may hold in total
    gpus: NonNegativeInt = 0  # nvidia.com/gpu, and the devices of every GPU DeviceClass (dra pack)
    neuron_devices: NonNegativeInt = 0  # aws.amazon.com/neuron (whole Inferentia/Trainium devices); like GPUs, none unless given
    neuron_cores: NonNegativeInt = 0  # aws.amazon.com/neuroncore; like GPUs, none unless given
    resource_claims: NonNegativeInt | None = None  # DRA ResourceClaims at once; default: the dra pack's, per GPU
    persistent_volume_claims: NonNegativeInt | None = None  # PersistentVolumeClaims the team may hold
    storage: Quantity | None = None  # storage requests of the team's claims in total


class Team(StrictModel):
    name: DnsLabel  # the team's name
    namespace: DnsLabel | None = None  # defaults to the team name
    groups: tuple[str, ...] = ()  # the identity-provider groups bound to the team's namespace
    quota: Quota | None = None  # the team's ResourceQuota

    @property
    def namespace_name(self) -> str:
        return self.namespace or self.name


class Waiver(StrictModel):
    """An accepted exception to one rule at one place, with a reason; see strata.waivers."""

    rule: Annotated[str, Field(pattern=r"^[a-z0-9-]+(/[a-z0-9-]+)?$")]  # the rule id waived (strata rules lists them)
    # Where: a spec path as problems print it (storage.claims[0].size; covers what is below
    # it). Set path or object.
    path: Annotated[str, Field(min_length=1)] | None = None
    object: Annotated[str, Field(pattern=r"^[A-Za-z0-9_.\[\]-]+/[a-z0-9]([-a-z0-9.]*[a-z0-9])?$")] | None = None  # or a named entry of a spec list (storage.claims/scratch), stable when lists move
    reason: Annotated[str, Field(min_length=10)]  # who accepted what and why; printed on every render
    expires: datetime.date | None = None  # after this date the waiver stops applying (waiver/expired)

    @model_validator(mode="after")
    def _one_place(self) -> Waiver:
        exactly_one(self, "path", "object")
        return self


class ChartPin(StrictModel):
    """A Helm release's chart, chosen instead of its pack's pin: a version within the range the
    pack supports, a repository (an OCI registry or HTTP mirror of the same chart), or both."""

    version: Annotated[str, Field(pattern=r"^v?[0-9]+\.[0-9]+\.[0-9]+$")] | None = None  # within the pack's supportedVersions
    repo: Annotated[str, Field(pattern=r"^(oci|https?)://[^\s]+$")] | None = None  # e.g. oci://registry.internal/charts

    @model_validator(mode="after")
    def _something(self) -> ChartPin:
        if self.version is None and self.repo is None:
            raise ValueError("set version, repo or both")
        return self


class CoreSpec(StrictModel):
    api_version: Literal["strata.dev/v1alpha1"]  # always strata.dev/v1alpha1
    kind: Literal["Platform"]  # always Platform
    cluster: Cluster  # the EKS cluster the platform runs on
    node_pools: tuple[NodePool, ...] = ()  # Karpenter node pools; each becomes a NodePool + EC2NodeClass
    teams: tuple[Team, ...] = ()  # teams, each with a namespace, quota, RBAC and network isolation
    waivers: tuple[Waiver, ...] = ()  # accepted exceptions to rules, each with a reason
    # Helm releases by name (karpenter, gpu-operator, ...): the chart version and repository to
    # use instead of the pack's pin; recorded in strata.lock, used by charts pull and hydrate.
    charts: dict[DnsLabel, ChartPin] = {}

    @property
    def team_namespaces(self) -> dict[str, str]:
        """Each team's namespace by team name: where packs place the team's objects."""
        return {t.name: t.namespace_name for t in self.teams}

    @model_validator(mode="after")
    def _unique_names(self) -> CoreSpec:
        for what, names in (
            ("node pool", [p.name for p in self.node_pools]),
            ("team", [t.name for t in self.teams]),
            ("team namespace", [t.namespace_name for t in self.teams]),
        ):
            seen = {n for n, count in Counter(names).items() if count > 1}
            if seen:
                raise ValueError(f"{what} names must be unique: {', '.join(sorted(seen))}")
        return self
