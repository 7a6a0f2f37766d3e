"""The ``storage`` section of the Platform spec: the CSI drivers to install (EFS, FSx for
Lustre, Mountpoint for S3), their StorageClasses and static volumes, and the claims teams
mount. StorageClass ``parameters`` are written as in Kubernetes (every value a quoted
string) and checked against what each driver reads, so mistakes get a rule, not a guess."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from strata.pack import ChartOverrides, ControllerIdentity, DnsLabel, NonNegativeInt, Quantity, StrictModel

FileSystemId = Annotated[str, Field(pattern=r"^fs-[0-9a-f]{8,17}$")]
MountOption = Annotated[str, Field(min_length=1)]


class StorageClass(StrictModel):
    name: DnsLabel
    parameters: dict[str, Any] = {}  # typed Any so that unquoted values reach storage/unquoted-parameter
    reclaim_policy: Literal["Delete", "Retain"] = "Delete"
    volume_binding_mode: Literal["Immediate", "WaitForFirstConsumer"] = "Immediate"
    mount_options: tuple[MountOption, ...] = ()
    default: bool = False  # the cluster's default StorageClass


class EfsVolume(StrictModel):
    """An existing EFS access point (or file system path), mounted through a static PV."""

    name: DnsLabel
    file_system_id: FileSystemId
    access_point_id: Annotated[str, Field(pattern=r"^fsap-[0-9a-f]{8,17}$")] | None = None
    path: Annotated[str, Field(pattern=r"^/")] | None = None
    volume_attributes: dict[str, Any] = {}  # encryptInTransit, mounttargetip, crossaccount


class Efs(ControllerIdentity, ChartOverrides):
    delete_access_point_root_dir: bool = False
    storage_classes: tuple[StorageClass, ...] = ()
    volumes: tuple[EfsVolume, ...] = ()


class FsxVolume(StrictModel):
    """An existing FSx for Lustre file system, mounted through a static PV."""

    name: DnsLabel
    file_system_id: FileSystemId
    mount_name: Annotated[str, Field(pattern=r"^[a-z0-9]+$")]  # LustreConfiguration.MountName, per file system
    dns_name: str | None = None  # defaults to <id>.fsx.<cluster region>.amazonaws.com
    capacity: Quantity  # the file system's size
    mount_options: tuple[MountOption, ...] = ("flock",)


class Fsx(ControllerIdentity, ChartOverrides):
    storage_classes: tuple[StorageClass, ...] = ()
    volumes: tuple[FsxVolume, ...] = ()


class S3Cache(StrictModel):
    """Mountpoint's local cache, kept in an emptyDir of the Mountpoint pod (v2)."""

    size_limit: Quantity
    medium: Literal["", "Memory"] = ""


class S3Bucket(StrictModel):
    """An existing S3 bucket (Mountpoint supports only static provisioning)."""

    name: DnsLabel
    bucket: Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$")]
    region: Annotated[str, Field(pattern=r"^[a-z]{2}(-gov|-iso[a-z]*)?-[a-z]+-[0-9]$")] | None = None  # default: the cluster's
    prefix: Annotated[str, Field(pattern=r"^[^/].*/$")] | None = None
    uid: NonNegativeInt | None = None
    gid: NonNegativeInt | None = None
    read_only: bool = True
    allow_delete: bool = False
    allow_overwrite: bool = False
    # What the bucket holds; home directories, checkpoints and scratch space need POSIX
    # semantics (rename, append, chmod) that Mountpoint does not offer.
    usage: Literal["models", "datasets", "outputs", "checkpoints", "home", "scratch"] = "datasets"
    authentication_source: Literal["driver", "pod"] = "driver"
    cache: S3Cache | None = None
    mount_options: tuple[MountOption, ...] = ()  # further Mountpoint flags, without the leading --


class S3(ChartOverrides):
    # The node plugin's identity: an EKS Pod Identity association for s3-csi-driver-sa
    # (or pod-level credentials with authenticationSource: pod); nothing goes into the chart.
    buckets: tuple[S3Bucket, ...] = ()


class Claim(StrictModel):
    """A PersistentVolumeClaim in the namespace of the pods that mount it: a team's
    namespace, or an explicit one (e.g. a JupyterHub namespace)."""

    name: DnsLabel
    team: DnsLabel | None = None
    namespace: DnsLabel | None = None
    storage_class: DnsLabel | None = None  # dynamic provisioning (EFS, FSx)
    volume: DnsLabel | None = None  # a static EFS or FSx volume, or an S3 bucket
    size: Quantity | None = None
    access_mode: Literal["ReadWriteMany", "ReadOnlyMany", "ReadWriteOnce", "ReadWriteOncePod"] | None = None

    def namespace_in(self, spec: Any) -> str:
        return self.namespace or spec.team_namespaces.get(self.team, self.team)

    @model_validator(mode="after")
    def _one_owner_one_source(self) -> Claim:
        if (self.team is None) == (self.namespace is None):
            raise ValueError("set exactly one of team and namespace")
        if (self.storage_class is None) == (self.volume is None):
            raise ValueError("set exactly one of storageClass and volume")
        return self


class Config(StrictModel):
    efs: Efs | None = None  # present: install the aws-efs-csi-driver chart
    fsx: Fsx | None = None  # present: install the aws-fsx-csi-driver chart
    s3: S3 | None = None  # present: install the aws-mountpoint-s3-csi-driver chart
    claims: tuple[Claim, ...] = ()
    # StorageClasses the cluster has already, made outside strata (EKS's gp2, your gp3), that
    # other sections may name (jark.jupyterhub.home.storageClass).
    existing_classes: tuple[DnsLabel, ...] = ()

    # What the pack's checks and its exports (other packs' view of storage) derive.
    @property
    def class_names(self) -> list[str]:
        """Every StorageClass a Pod may name: strata's own and the declared existing ones."""
        own = [sc.name for part in (self.efs, self.fsx) if part is not None for sc in part.storage_classes]
        return [*own, *(c for c in self.existing_classes if c not in own)]

    def claim_namespaces(self, spec: Any) -> dict[str, set[str]]:
        """The namespaces strata creates each claim in, by claim name."""
        out: dict[str, set[str]] = {}
        for claim in self.claims:
            out.setdefault(claim.name, set()).add(claim.namespace_in(spec))
        return out
