"""Name resolution shared by the checks and the context: the StorageClasses and static
volumes a claim can name."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any, Literal

from . import drivers
from .config import Claim, Config


@dataclasses.dataclass(frozen=True)
class Source:
    """A StorageClass or a static volume that claims refer to by name."""

    driver: str  # drivers.EFS | drivers.FSX | drivers.S3
    kind: Literal["class", "volume"]
    path: tuple  # its path in the storage section
    item: Any  # StorageClass | EfsVolume | FsxVolume | S3Bucket


def all_sources(config: Config) -> Iterator[Source]:
    for section, driver in (("efs", drivers.EFS), ("fsx", drivers.FSX)):
        part = getattr(config, section)
        if part is None:
            continue
        for i, sc in enumerate(part.storage_classes):
            yield Source(driver, "class", (section, "storage_classes", i), sc)
        for i, volume in enumerate(part.volumes):
            yield Source(driver, "volume", (section, "volumes", i), volume)
    if config.s3 is not None:
        for i, bucket in enumerate(config.s3.buckets):
            yield Source(drivers.S3, "volume", ("s3", "buckets", i), bucket)


def sources_by_name(config: Config) -> dict[str, Source]:
    """Each name's first definition (later duplicates are a storage/duplicate-name problem)."""
    out: dict[str, Source] = {}
    for source in all_sources(config):
        out.setdefault(source.item.name, source)
    return out


def resolve(claim: Claim, sources: dict[str, Source]) -> Source | None:
    """The class or volume a claim names, if it exists with the kind the claim asks for."""
    name, kind = (claim.storage_class, "class") if claim.storage_class else (claim.volume, "volume")
    source = sources.get(name) if name is not None else None
    return source if source is not None and source.kind == kind else None
