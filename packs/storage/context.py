"""Everything the storage templates print, computed here so the templates stay plain."""

from __future__ import annotations

from typing import Any

from strata.pack import Facts

from . import drivers as d
from .config import Claim, Config, ControllerIdentity, EfsVolume, FsxVolume, S3Bucket
from .inventory import Source, all_sources, resolve, sources_by_name

# Service accounts the charts create; a Pod Identity association must name them.
SERVICE_ACCOUNTS = {
    "efs": "efs-csi-controller-sa",
    "fsx": "fsx-csi-controller-sa",
    "s3": "s3-csi-driver-sa",
}
# The components that call AWS, as the identity pack names their roles (<cluster>-<component>).
COMPONENTS = {"efs": "efs-csi-controller", "fsx": "fsx-csi-controller", "s3": "s3-csi-driver"}


def context(spec: Any, config: Config, facts: Facts) -> dict[str, Any]:
    claims = _resolved_claims(spec, config)
    return {
        "efs_enabled": config.efs is not None,
        "fsx_enabled": config.fsx is not None,
        "s3_enabled": config.s3 is not None,
        "service_accounts": SERVICE_ACCOUNTS,
        "efs": _controller(spec, config.efs, "efs") | {"delete_access_point_root_dir": config.efs.delete_access_point_root_dir} if config.efs else None,
        "fsx": _controller(spec, config.fsx, "fsx") | {"region": spec.cluster.region} if config.fsx else None,
        "storage_classes": [_storage_class(s) for s in all_sources(config) if s.kind == "class"],
        "volumes": [c["volume"] for c in claims if c["volume"]],
        "claims": [c["claim"] for c in claims],
    }


def _resolved_claims(spec: Any, config: Config) -> list[dict[str, Any]]:
    """Each claim whose class or volume exists: its PersistentVolumeClaim (and static volume)."""
    sources = sources_by_name(config)
    resolved = ((c, resolve(c, sources)) for c in config.claims)
    return [_claim(spec, c, source) for c, source in resolved if source is not None]


def rendered_claims(spec: Any, config: Config) -> list[dict[str, Any]]:
    """The PersistentVolumeClaims the pack renders (namespace, name, size), for its exports."""
    return [c["claim"] for c in _resolved_claims(spec, config)]


def _controller(spec: Any, part: ControllerIdentity, driver: str) -> dict[str, Any]:
    return {"irsa_role_arn": part.irsa_role_arn(spec.cluster, COMPONENTS[driver])}


def _storage_class(source: Source) -> dict[str, Any]:
    sc = source.item
    return {
        "name": sc.name,
        "provisioner": source.driver,
        # Values are strings already (storage/unquoted-parameter refuses anything else).
        "parameters": dict(sorted(sc.parameters.items())),
        "reclaim_policy": sc.reclaim_policy,
        "volume_binding_mode": sc.volume_binding_mode,
        "mount_options": list(sc.mount_options),
        "default": sc.default,
    }


def _access_mode(claim: Claim, source: Source) -> str:
    if claim.access_mode:
        return claim.access_mode
    read_only = source.driver == d.S3 and source.item.read_only
    return "ReadOnlyMany" if read_only else "ReadWriteMany"


def _claim(spec: Any, claim: Claim, source: Source) -> dict[str, Any]:
    namespace = claim.namespace_in(spec)
    mode = _access_mode(claim, source)
    body: dict[str, Any] = {"name": claim.name, "namespace": namespace, "access_mode": mode}
    if source.kind == "class":
        # EFS ignores the size (storage/efs-capacity-not-a-limit); FSx claims always carry one.
        size = claim.size if source.driver != d.EFS and claim.size else d.NOMINAL_CAPACITY
        return {"claim": body | {"storage_class": source.item.name, "size": size, "volume_name": None}, "volume": None}
    pv_name = f"{namespace}-{claim.name}"
    capacity = source.item.capacity if source.driver == d.FSX else d.NOMINAL_CAPACITY
    volume = {
        "name": pv_name,
        "capacity": capacity,
        "access_mode": mode,
        "claim": {"namespace": namespace, "name": claim.name},
        **_csi(spec, source, pv_name),
    }
    return {"claim": body | {"storage_class": "", "size": capacity, "volume_name": pv_name}, "volume": volume}


def _csi(spec: Any, source: Source, pv_name: str) -> dict[str, Any]:
    """The PV's csi block and mount options for a static volume of each driver."""
    item = source.item
    if source.driver == d.EFS:
        return {"mount_options": [], "csi": {"driver": d.EFS, "volumeHandle": _efs_handle(item), **_attributes(item.volume_attributes)}}
    if source.driver == d.FSX:
        return {"mount_options": list(item.mount_options), "csi": {"driver": d.FSX, "volumeHandle": item.file_system_id,
                                                                   "volumeAttributes": _fsx_attributes(spec, item)}}
    return {"mount_options": _s3_options(spec, item), "csi": {"driver": d.S3, "volumeHandle": pv_name,  # unique per PV
                                                              "volumeAttributes": _s3_attributes(item)}}


def _attributes(attributes: dict[str, Any]) -> dict[str, Any]:
    return {"volumeAttributes": dict(sorted(attributes.items()))} if attributes else {}


def _efs_handle(volume: EfsVolume) -> str:
    # The legacy handle form (fs-ID[:path][:fsap-ID]) is read by every driver version,
    # unlike the efs: prefix of v3.
    if volume.access_point_id:
        return f"{volume.file_system_id}:{volume.path or ''}:{volume.access_point_id}"
    return f"{volume.file_system_id}:{volume.path}" if volume.path else volume.file_system_id


def _fsx_attributes(spec: Any, volume: FsxVolume) -> dict[str, str]:
    dns = volume.dns_name or f"{volume.file_system_id}.fsx.{spec.cluster.region}.amazonaws.com"
    return {"dnsname": dns, "mountname": volume.mount_name}


def _s3_options(spec: Any, bucket: S3Bucket) -> list[str]:
    options = [f"region {bucket.region or spec.cluster.region}"]
    if bucket.prefix:
        options.append(f"prefix {bucket.prefix}")
    if bucket.uid is not None:
        options.append(f"uid={bucket.uid}")
    if bucket.gid is not None:
        options.append(f"gid={bucket.gid}")
    if bucket.uid is not None or bucket.gid is not None:
        options.append("allow-other")  # else only root could read a mount owned by uid/gid
    if bucket.read_only:
        options.append("read-only")
    if bucket.allow_delete:
        options.append("allow-delete")
    if bucket.allow_overwrite:
        options.append("allow-overwrite")
    options += list(bucket.mount_options)
    return [o for o in options if o]


def _s3_attributes(bucket: S3Bucket) -> dict[str, str]:
    attributes = {"bucketName": bucket.bucket}
    if bucket.authentication_source != "driver":
        attributes["authenticationSource"] = bucket.authentication_source
    if bucket.cache:
        attributes["cache"] = "emptyDir"
        attributes["cacheEmptyDirSizeLimit"] = bucket.cache.size_limit
        if bucket.cache.medium:
            attributes["cacheEmptyDirMedium"] = bucket.cache.medium
    return attributes
