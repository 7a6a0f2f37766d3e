"""The core of the Platform spec: the facts several packs share (cluster, node pools, teams).
Each pack adds its own section through its ``Config`` model (see strata.packs)."""

from __future__ import annotations

import datetime
from collections import Counter
from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator

from strata.spec.base import DnsLabel, Duration, LabelKey, LabelValue, NonNegativeInt, PositiveInt, Quantity, StrictModel

API_VERSION = "strata.dev/v1alpha1"
SUPPORTED_KUBERNETES = ("1.34", "1.35", "1.36", "1.37")


class Cluster(StrictModel):
    name: DnsLabel
    region: Annotated[str, Field(pattern=r"^[a-z]{2}(-gov|-iso[a-z]*)?-[a-z]+-[0-9]$")]
    kubernetes_version: Annotated[str, Field(pattern=r"^1\.[0-9]{2}$")]
    environment: Literal["dev", "staging", "prod"] = "prod"
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
    key: LabelKey
    value: LabelValue | None = None
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"]


class RootVolume(StrictModel):
    size: Annotated[str, Field(pattern=r"^[0-9]+(Gi|Ti|G|T)$")] = "100Gi"
    type: Literal["gp3", "gp2", "io1", "io2"] = "gp3"
    iops: PositiveInt | None = None
    throughput: PositiveInt | None = None
    kms_key_id: str | None = None


class Budget(StrictModel):
    nodes: Annotated[str, Field(pattern=r"^((100|[0-9]{1,2})%|[0-9]+)$")] = "10%"
    reasons: tuple[Literal["Underutilized", "Empty", "Drifted"], ...] | None = None
    schedule: str | None = None
    duration: Annotated[str, Field(pattern=r"^([0-9]+(m|h))+$")] | None = None

    @model_validator(mode="after")
    def _schedule_with_duration(self) -> Budget:
        if (self.schedule is None) != (self.duration is None):
            raise ValueError("schedule and duration must be set together")
        return self


class Disruption(StrictModel):
    # Typed as str so v1beta1 leftovers reach the compute rules and get a precise message.
    consolidation_policy: str = "WhenEmptyOrUnderutilized"
    consolidate_after: Annotated[str, Field(pattern=r"^(([0-9]+(s|m|h))+|Never)$")] | None = None
    budgets: tuple[Budget, ...] = ()


class Limits(StrictModel):
    cpu: Quantity | None = None
    memory: Quantity | None = None
    gpus: NonNegativeInt | None = None  # nvidia.com/gpu
    neuron_devices: NonNegativeInt | None = None  # aws.amazon.com/neuron
    nodes: NonNegativeInt | None = None  # the only limit a static pool may set


class GpuClaims(StrictModel):
    """What the pool claims about its GPUs; rendered as Karpenter requirements and
    checked against the instance catalog (labels must match the instance types)."""

    name: Annotated[str, Field(pattern=r"^[a-z0-9-]+$")] | None = None
    memory_mib: PositiveInt | None = Field(None, alias="memoryMiB")  # per GPU, as Karpenter's instance-gpu-memory label
    count: PositiveInt | None = None


AvailabilityZone = Annotated[str, Field(pattern=r"^[a-z]{2}(-gov|-iso[a-z]*)?-[a-z]+-[0-9][a-z]$")]
Ec2Tags = Annotated[dict[Annotated[str, Field(min_length=1)], Annotated[str, Field(min_length=1)]], Field(min_length=1, max_length=20)]


class SecurityGroupSelector(StrictModel):
    """An EC2 security group by id or by tags (EC2NodeClass securityGroupSelectorTerms)."""

    id: Annotated[str, Field(pattern=r"^sg-[0-9a-z]+$")] | None = None
    tags: Ec2Tags | None = None

    @model_validator(mode="after")
    def _one(self) -> SecurityGroupSelector:
        if (self.id is None) == (self.tags is None):
            raise ValueError("set exactly one of id and tags")
        return self


class CapacityReservationSelector(StrictModel):
    """An EC2 capacity reservation (ODCR or Capacity Block) by id or by tags
    (EC2NodeClass capacityReservationSelectorTerms)."""

    id: Annotated[str, Field(pattern=r"^cr-[0-9a-z]+$")] | None = None
    tags: Ec2Tags | None = None
    owner_id: Annotated[str, Field(pattern=r"^[0-9]{12}$")] | None = Field(None, alias="ownerID")

    @model_validator(mode="after")
    def _one(self) -> CapacityReservationSelector:
        if (self.id is None) == (self.tags is None):
            raise ValueError("set exactly one of id and tags")
        if self.id is not None and self.owner_id is not None:
            raise ValueError("ownerID selects reservations by tags; an id names one reservation already")
        return self


class PlacementGroupSelector(StrictModel):
    """An existing EC2 cluster placement group by name or id (EC2NodeClass placementGroupSelector)."""

    name: Annotated[str, Field(min_length=1, max_length=255)] | None = None
    id: Annotated[str, Field(pattern=r"^pg-[0-9a-z]+$")] | None = None

    @model_validator(mode="after")
    def _one(self) -> PlacementGroupSelector:
        if (self.name is None) == (self.id is None):
            raise ValueError("set exactly one of name and id")
        return self


class Efa(StrictModel):
    """Elastic Fabric Adapter for the pool's nodes. EFA traffic stays inside one availability
    zone and needs a security group that allows all traffic to and from itself; the compute
    pack pins the pool to ``zone``, adds ``securityGroup`` to the node class, installs the EFA
    device plugin and states the security-group rule it needs (compute/infra/)."""

    zone: AvailabilityZone | None = None  # required (compute/efa-zone); one zone per pool
    security_group: SecurityGroupSelector | None = None  # required (compute/efa-security-group)
    capacity_reservations: tuple[CapacityReservationSelector, ...] = ()
    placement_group: PlacementGroupSelector | None = None


class Kubelet(StrictModel):
    max_pods: PositiveInt | None = None
    system_reserved: dict[Literal["cpu", "memory", "ephemeral-storage", "pid"], str] | None = None
    kube_reserved: dict[Literal["cpu", "memory", "ephemeral-storage", "pid"], str] | None = None


class NodePool(StrictModel):
    name: DnsLabel
    instance_families: tuple[Annotated[str, Field(pattern=r"^[a-z0-9-]+$")], ...] = ()
    instance_types: tuple[Annotated[str, Field(pattern=r"^[a-z0-9-]+\.[a-z0-9-]+$")], ...] = ()
    capacity_types: tuple[Literal["on-demand", "spot", "reserved"], ...] = ("on-demand",)
    architecture: Literal["amd64", "arm64"] = "amd64"
    # Karpenter AMI alias, family@version. The family is checked by a compute rule so that
    # AL2 and Ubuntu get an explanation rather than a bare enum error.
    ami_alias: Annotated[str, Field(pattern=r"^[a-zA-Z0-9]+@[a-zA-Z0-9.-]+$")] = "al2023@latest"
    gpu: GpuClaims | None = None
    efa: Efa | None = None
    # The network bandwidth the pool's workloads need, in Gbps: the instance's aggregate over all
    # its interfaces (Karpenter's instance-network-bandwidth), never interfaces x per-interface speed.
    network_bandwidth_gbps: Annotated[float, Field(gt=0)] | None = None
    taints: tuple[Taint, ...] = ()
    labels: dict[LabelKey, LabelValue] = {}
    limits: Limits | None = None
    disruption: Disruption | None = None
    expire_after: Annotated[str, Field(pattern=r"^(([0-9]+(s|m|h))+|Never)$")] = "720h"
    termination_grace_period: Duration | None = None
    root_volume: RootVolume = RootVolume()
    instance_store_policy: Literal["RAID0"] | None = None
    imds_hop_limit: Literal[1, 2] = 1
    kubelet: Kubelet | None = None
    weight: Annotated[int, Field(ge=1, le=100)] | None = None
    replicas: NonNegativeInt | None = None  # a static pool (Karpenter staticCapacity gate)

    @model_validator(mode="after")
    def _has_instances(self) -> NodePool:
        if not self.instance_families and not self.instance_types:
            raise ValueError("set instanceFamilies or instanceTypes")
        return self


class Quota(StrictModel):
    cpu: Quantity
    memory: Quantity
    gpus: NonNegativeInt = 0  # nvidia.com/gpu, and the devices of every GPU DeviceClass (dra pack)
    # aws.amazon.com/neuron (whole Inferentia/Trainium devices) and aws.amazon.com/neuroncore:
    # like GPUs, a team holds none unless its quota gives them.
    neuron_devices: NonNegativeInt = 0
    neuron_cores: NonNegativeInt = 0
    resource_claims: NonNegativeInt | None = None  # DRA ResourceClaims at once; default: the dra pack's, per GPU
    persistent_volume_claims: NonNegativeInt | None = None
    storage: Quantity | None = None


class Team(StrictModel):
    name: DnsLabel
    namespace: DnsLabel | None = None  # defaults to the team name
    groups: tuple[str, ...] = ()
    quota: Quota | None = None

    @property
    def namespace_name(self) -> str:
        return self.namespace or self.name


class Waiver(StrictModel):
    """An accepted exception to one rule at one place, with a reason; see strata.waivers."""

    rule: Annotated[str, Field(pattern=r"^[a-z0-9-]+(/[a-z0-9-]+)?$")]
    # Where: a spec path as problems print it (storage.claims[0].size; covers what is below
    # it), or a named entry of a spec list (storage.claims/scratch), stable when lists move.
    path: Annotated[str, Field(min_length=1)] | None = None
    object: Annotated[str, Field(pattern=r"^[A-Za-z0-9_.\[\]-]+/[a-z0-9]([-a-z0-9.]*[a-z0-9])?$")] | None = None
    reason: Annotated[str, Field(min_length=10)]  # who accepted what and why; printed on every render
    expires: datetime.date | None = None

    @model_validator(mode="after")
    def _one_place(self) -> Waiver:
        if (self.path is None) == (self.object is None):
            raise ValueError("set exactly one of path and object")
        return self


class ChartPin(StrictModel):
    """A Helm release's chart, chosen instead of its pack's pin: a version within the range the
    pack supports, a repository (an OCI registry or HTTP mirror of the same chart), or both."""

    version: Annotated[str, Field(pattern=r"^v?[0-9]+\.[0-9]+\.[0-9]+$")] | None = None
    repo: Annotated[str, Field(pattern=r"^(oci|https?)://[^\s]+$")] | None = None  # e.g. oci://registry.internal/charts

    @model_validator(mode="after")
    def _something(self) -> ChartPin:
        if self.version is None and self.repo is None:
            raise ValueError("set version, repo or both")
        return self


class CoreSpec(StrictModel):
    api_version: Literal["strata.dev/v1alpha1"]
    kind: Literal["Platform"]
    cluster: Cluster
    node_pools: tuple[NodePool, ...] = ()
    teams: tuple[Team, ...] = ()
    waivers: tuple[Waiver, ...] = ()
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
