"""Name resolution shared by the checks and the context: the StorageClasses and static
volumes a claim can name, and who mounts which claim."""

from __future__ import annotations

import dataclasses
from typing import Any, Iterator, Literal

from . import drivers
from .config import Claim, Config


@dataclasses.dataclass(frozen=True)
class Source:
    """A StorageClass or a static volume that claims refer to by name."""

    driver: str  # drivers.EFS | drivers.FSX | drivers.S3
    kind: Literal["class", "volume"]
    path: tuple  # its spec path
    item: Any  # StorageClass | EfsVolume | FsxVolume | S3Bucket


def all_sources(config: Config) -> Iterator[Source]:
    for section, driver in (("efs", drivers.EFS), ("fsx", drivers.FSX)):
        part = getattr(config, section)
        if part is None:
            continue
        for i, sc in enumerate(part.storage_classes):
            yield Source(driver, "class", ("storage", section, "storageClasses", i), sc)
        for i, volume in enumerate(part.volumes):
            yield Source(driver, "volume", ("storage", section, "volumes", i), volume)
    if config.s3 is not None:
        for i, bucket in enumerate(config.s3.buckets):
            yield Source(drivers.S3, "volume", ("storage", "s3", "buckets", i), bucket)


def sources_by_name(config: Config) -> dict[str, Source]:
    """Each name's first definition (later duplicates are a storage/duplicate-name problem)."""
    out: dict[str, Source] = {}
    for source in all_sources(config):
        out.setdefault(source.item.name, source)
    return out


def resolve(claim: Claim, sources: dict[str, Source]) -> Source | None:
    """The class or volume a claim names, if it exists with the kind the claim asks for."""
    name, kind = (claim.storage_class, "class") if claim.storage_class else (claim.volume, "volume")
    source = sources.get(name)
    return source if source is not None and source.kind == kind else None


@dataclasses.dataclass(frozen=True)
class Mount:
    """A pod of another pack that mounts a claim by name."""

    path: tuple  # spec path of the mount
    namespace: str  # where the pod runs
    claim: str
    mount_path: str
    read_only: bool


def mounts(spec: Any) -> Iterator[Mount]:
    """Claims mounted by the DRA pack's workloads (the pods strata renders that mount PVCs)."""
    dra = getattr(spec, "dra", None)
    if dra is None:
        return
    namespaces = spec.team_namespaces
    for i, workload in enumerate(dra.workloads):
        namespace = namespaces.get(workload.team, workload.team)
        for j, volume in enumerate(workload.volumes):
            yield Mount(("dra", "workloads", i, "volumes", j), namespace, volume.claim, volume.mount_path, volume.read_only)
