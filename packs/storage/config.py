"""The ``storage`` section of the Platform spec: the CSI drivers to install (EFS, FSx for
Lustre, Mountpoint for S3), their StorageClasses and static volumes, and the claims teams
mount. StorageClass ``parameters`` are written as in Kubernetes (every value a quoted
string) and checked against what each driver reads, so mistakes get a rule, not a guess."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from strata.pack import ChartOverrides, ControllerIdentity, DnsLabel, NonNegativeInt, Quantity, StrictModel, exactly_one

FileSystemId = Annotated[str, Field(pattern=r"^fs-[0-9a-f]{8,17}$")]
MountOption = Annotated[str, Field(min_length=1)]


class StorageClass(StrictModel):
    name: DnsLabel  # the StorageClass's name
    parameters: dict[str, Any] = {}  # typed Any so that unquoted values reach storage/unquoted-parameter
    reclaim_policy: Literal["Delete", "Retain"] = "Delete"  # the StorageClass's reclaimPolicy
    volume_binding_mode: Literal["Immediate", "WaitForFirstConsumer"] = "Immediate"  # the StorageClass's volumeBindingMode
    mount_options: tuple[MountOption, ...] = ()  # the StorageClass's mountOptions
    default: bool = False  # the cluster's default StorageClass


class EfsVolume(StrictModel):
    """An existing EFS access point (or file system path), mounted through a static PV."""

    name: DnsLabel  # the static PersistentVolume's name, which claims name as their volume
    file_system_id: FileSystemId  # the EFS file system (fs-...)
    access_point_id: Annotated[str, Field(pattern=r"^fsap-[0-9a-f]{8,17}$")] | None = None  # the EFS access point (fsap-...) mounted; part of the PV's volumeHandle
    path: Annotated[str, Field(pattern=r"^/")] | None = None  # the directory of the file system mounted; part of the PV's volumeHandle
    volume_attributes: dict[str, Any] = {}  # encryptInTransit, mounttargetip, crossaccount


class Efs(ControllerIdentity, ChartOverrides):
    delete_access_point_root_dir: bool = False  # the chart's controller.deleteAccessPointRootDir: delete a dynamic volume's directory with it
    storage_classes: tuple[StorageClass, ...] = ()  # StorageClasses of the EFS driver (dynamic provisioning through access points)
    volumes: tuple[EfsVolume, ...] = ()  # existing EFS file systems or access points, each a static PersistentVolume


class FsxVolume(StrictModel):
    """An existing FSx for Lustre file system, mounted through a static PV."""

    name: DnsLabel  # the static PersistentVolume's name, which claims name as their volume
    file_system_id: FileSystemId  # the FSx for Lustre file system (fs-...)
    mount_name: Annotated[str, Field(pattern=r"^[a-z0-9]+$")]  # LustreConfiguration.MountName, per file system
    dns_name: str | None = None  # defaults to <id>.fsx.<cluster region>.amazonaws.com
    capacity: Quantity  # the file system's size
    mount_options: tuple[MountOption, ...] = ("flock",)  # the PersistentVolume's mountOptions


class Fsx(ControllerIdentity, ChartOverrides):
    storage_classes: tuple[StorageClass, ...] = ()  # StorageClasses of the FSx for Lustre driver (dynamic provisioning)
    volumes: tuple[FsxVolume, ...] = ()  # existing FSx for Lustre file systems, each a static PersistentVolume


class S3Cache(StrictModel):
    """Mountpoint's local cache, kept in an emptyDir of the Mountpoint pod (v2)."""

    size_limit: Quantity  # the cache emptyDir's sizeLimit (volume attribute cacheEmptyDirSizeLimit)
    medium: Literal["", "Memory"] = ""  # the cache emptyDir's medium: the node's disk, or Memory (cacheEmptyDirMedium)


class S3Bucket(StrictModel):
    """An existing S3 bucket (Mountpoint supports only static provisioning)."""

    name: DnsLabel  # the static PersistentVolume's name, which claims name as their volume
    bucket: Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$")]  # the S3 bucket mounted (volume attribute bucketName)
    region: Annotated[str, Field(pattern=r"^[a-z]{2}(-gov|-iso[a-z]*)?-[a-z]+-[0-9]$")] | None = None  # default: the cluster's
    prefix: Annotated[str, Field(pattern=r"^[^/].*/$")] | None = None  # mount only the keys under this prefix (Mountpoint --prefix); ends with /
    uid: NonNegativeInt | None = None  # the owner of the mounted files (Mountpoint --uid; adds --allow-other)
    gid: NonNegativeInt | None = None  # the group of the mounted files (Mountpoint --gid; adds --allow-other)
    read_only: bool = True  # mount read-only (Mountpoint --read-only; claims default to ReadOnlyMany)
    allow_delete: bool = False  # allow deleting objects (Mountpoint --allow-delete)
    allow_overwrite: bool = False  # allow overwriting objects (Mountpoint --allow-overwrite)
    # What the bucket holds; home directories, checkpoints and scratch space need POSIX
    # semantics (rename, append, chmod) that Mountpoint does not offer.
    usage: Literal["models", "datasets", "outputs", "checkpoints", "home", "scratch"] = "datasets"
    authentication_source: Literal["driver", "pod"] = "driver"  # whose credentials Mountpoint uses: the driver's, or the Pod's (volume attribute authenticationSource)
    cache: S3Cache | None = None  # Mountpoint's local cache; unset: none
    mount_options: tuple[MountOption, ...] = ()  # further Mountpoint flags, without the leading --


class S3(ChartOverrides):
    """The node plugin's identity: an EKS Pod Identity association for s3-csi-driver-sa
    (or pod-level credentials with authenticationSource: pod); nothing goes into the chart."""

    buckets: tuple[S3Bucket, ...] = ()  # existing S3 buckets, each a static PersistentVolume


class Claim(StrictModel):
    """A PersistentVolumeClaim in the namespace of the pods that mount it: a team's
    namespace, or an explicit one (e.g. a JupyterHub namespace)."""

    name: DnsLabel  # the PersistentVolumeClaim's name
    team: DnsLabel | None = None  # the team (of the core spec) whose namespace holds the claim
    namespace: DnsLabel | None = None  # the namespace that holds the claim, instead of team
    storage_class: DnsLabel | None = None  # dynamic provisioning (EFS, FSx)
    volume: DnsLabel | None = None  # a static EFS or FSx volume, or an S3 bucket
    size: Quantity | None = None  # the requested storage; EFS claims get a nominal request instead
    access_mode: Literal["ReadWriteMany", "ReadOnlyMany", "ReadWriteOnce", "ReadWriteOncePod"] | None = None  # the claim's access mode; default: ReadOnlyMany for a read-only S3 bucket, else ReadWriteMany

    def namespace_in(self, spec: Any) -> str:
        return self.namespace or spec.team_namespaces.get(self.team, self.team)

    @model_validator(mode="after")
    def _one_owner_one_source(self) -> Claim:
        exactly_one(self, "team", "namespace")
        exactly_one(self, "storage_class", "volume")
        return self


class Config(StrictModel):
    efs: Efs | None = None  # present: install the aws-efs-csi-driver chart
    fsx: Fsx | None = None  # present: install the aws-fsx-csi-driver chart
    s3: S3 | None = None  # present: install the aws-mountpoint-s3-csi-driver chart
    claims: tuple[Claim, ...] = ()  # PersistentVolumeClaims teams mount, from a StorageClass or a static volume
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
