"""Storage policy checks. Each yields problems located at the spec path of the offending value."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator
from typing import Any

from strata.pack import Facts, Problem, catalog, identity_problems, mount_problem, quantity

from . import drivers as d, rules as r
from .config import Config, S3Bucket, StorageClass
from .inventory import Source, all_sources, resolve, sources_by_name

POSIX_USAGES = ("home", "checkpoints", "scratch")
POSIX_MOUNT_PATH = re.compile(r"home|checkpoint|scratch", re.IGNORECASE)


def check(spec: Any, config: Config, facts: Facts) -> Iterator[Problem]:
    for section in ("efs", "fsx"):
        part = getattr(config, section)
        if part is not None:
            yield from identity_problems(r.CONTROLLER_IDENTITY, (section,), part, spec.cluster)
    yield from _check_names(config)
    for source in all_sources(config):
        if source.kind == "class":
            yield from _check_class(source)
        elif source.driver == d.EFS:
            yield from _check_efs_volume(source)
        elif source.driver == d.S3:
            yield from _check_bucket(source)
        elif source.item.mount_name == "fsx":
            yield r.FSX_MOUNT_NAME.problem(source.path + ("mount_name",), "'fsx' is not this file system's mount name; copy LustreConfiguration.MountName from describe-file-systems")
    yield from _check_claims(spec, config, facts)


def _check_names(config: Config) -> Iterator[Problem]:
    seen: dict[str, Source] = {}
    for source in all_sources(config):
        first = seen.setdefault(source.item.name, source)
        if first is not source:
            yield r.DUPLICATE_NAME.problem(source.path + ("name",), f"{source.item.name!r} is already the name of a {first.kind} under storage.{first.path[0]}")


# --- StorageClasses ---------------------------------------------------------------------


def _check_class(source: Source) -> Iterator[Problem]:
    sc: StorageClass = source.item
    base = source.path + ("parameters",)
    known = d.EFS_PARAMETERS if source.driver == d.EFS else d.FSX_PARAMETERS
    params: dict[str, str] = {}
    for key, value in sc.parameters.items():
        if key not in known:
            close = difflib.get_close_matches(key, sorted(known), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            yield r.UNKNOWN_PARAMETER.problem(base + (key,), f"{source.driver} does not read the parameter {key!r}{hint}")
        elif not isinstance(value, str):
            shown = "null" if value is None else str(value).lower() if isinstance(value, bool) else str(value)
            yield r.UNQUOTED_PARAMETER.problem(base + (key,), f"{key}: {shown} is not a string; write {key}: \"{shown}\"")
        else:
            params[key] = value
    if source.driver == d.EFS:
        yield from _check_efs_class(base, sc, params)
    else:
        yield from _check_fsx_class(base, params)


def _check_efs_class(base: tuple, sc: StorageClass, p: dict[str, str]) -> Iterator[Problem]:
    given = sc.parameters
    mode = p.get("provisioningMode")
    if "provisioningMode" not in given:
        yield r.EFS_PARAMETERS.problem(base, "provisioningMode is required (efs-ap, or s3files-ap for S3 Files)")
    elif mode is not None and mode not in d.EFS_MODES:
        yield r.EFS_PARAMETERS.problem(base + ("provisioningMode",), f"{mode!r} is not one of {', '.join(d.EFS_MODES)}")
    elif mode == "s3files-ap":
        for key in d.EFS_ONLY_PARAMETERS:
            if key in given:
                yield r.EFS_PARAMETERS.problem(base + (key,), f"{key} applies to EFS access points only, not to S3 Files (s3files-ap)")
    refs = [k for k in d.EFS_FILE_SYSTEM_KEYS if k in given]
    if len(refs) != 1:
        yield r.EFS_PARAMETERS.problem(base, f"set exactly one of {', '.join(d.EFS_FILE_SYSTEM_KEYS)} (found {len(refs)})")
    if "fileSystemId" in p and not re.fullmatch(r"fs-[0-9a-f]{8,17}", p["fileSystemId"]):
        yield r.EFS_PARAMETERS.problem(base + ("fileSystemId",), f"{p['fileSystemId']!r} is not a file system id (fs-0123456789abcdef0)")
    if "directoryPerms" not in given:
        yield r.EFS_PARAMETERS.problem(base, 'directoryPerms is required, e.g. "700"')
    elif "directoryPerms" in p and not re.fullmatch(r"[0-7]{3,4}", p["directoryPerms"]):
        yield r.EFS_PARAMETERS.problem(base + ("directoryPerms",), f"{p['directoryPerms']!r} is not an octal mode like \"700\"")
    for key in ("uid", "gid", "gidRangeStart", "gidRangeEnd"):
        if key in p and not p[key].isdigit():
            yield r.EFS_PARAMETERS.problem(base + (key,), f"{key} must be a non-negative integer in quotes, not {p[key]!r}")
    for key in ("ensureUniqueDirectory", "reuseAccessPoint", "enableTagging", "enforceZoneAffinity"):
        if key in p and p[key] not in ("true", "false"):
            yield r.EFS_PARAMETERS.problem(base + (key,), f'{key} is "true" or "false", not {p[key]!r}')
    yield from _check_gid_range(base, given, p)
    yield from _check_sub_path(base, p)


def _check_gid_range(base: tuple, given: dict[str, Any], p: dict[str, str]) -> Iterator[Problem]:
    has_start, has_end = "gidRangeStart" in given, "gidRangeEnd" in given
    if has_start != has_end:
        missing = "gidRangeEnd" if has_start else "gidRangeStart"
        lo, hi = d.EFS_DEFAULT_GID_RANGE
        yield r.EFS_GID_RANGE.problem(base + ("gidRangeStart" if has_start else "gidRangeEnd",),
                                      f"{missing} is missing; the driver's default range is {lo}-{hi} (not the documented 7000000), so set both")
    elif (has_start and p.get("gidRangeStart", "").isdigit() and p.get("gidRangeEnd", "").isdigit()
          and int(p["gidRangeEnd"]) <= int(p["gidRangeStart"])):
        yield r.EFS_GID_RANGE.problem(base + ("gidRangeEnd",), "gidRangeEnd must be greater than gidRangeStart")
    if "gid" in given and (has_start or has_end):
        yield r.EFS_GID_RANGE.problem(base + ("gidRangeStart" if has_start else "gidRangeEnd",), "with gid set, every access point gets that gid and the range is never used")


def _check_sub_path(base: tuple, p: dict[str, str]) -> Iterator[Problem]:
    pattern = p.get("subPathPattern")
    if pattern is None:
        return
    for variable in re.findall(r"\$\{[^}]*\}", pattern):
        if variable not in d.EFS_SUBPATH_VARIABLES:
            yield r.EFS_SUB_PATH.problem(base + ("subPathPattern",), f"{variable} is not a subPathPattern variable ({', '.join(sorted(d.EFS_SUBPATH_VARIABLES))})")
    full = "/".join(part.strip("/") for part in (p.get("basePath", ""), pattern) if part.strip("/"))
    levels = [s for s in full.split("/") if s]
    if len(levels) > d.EFS_MAX_PATH_DEPTH:
        yield r.EFS_SUB_PATH.problem(base + ("subPathPattern",), f"basePath + subPathPattern has {len(levels)} levels; the driver allows {d.EFS_MAX_PATH_DEPTH}")
    literal = re.sub(r"\$\{[^}]*\}", "", full)
    if len(literal) + 1 > d.EFS_MAX_PATH_LENGTH:
        yield r.EFS_SUB_PATH.problem(base + ("subPathPattern",), f"the path is over {d.EFS_MAX_PATH_LENGTH} characters before its variables are even filled in")


def _check_fsx_class(base: tuple, p: dict[str, str]) -> Iterator[Problem]:
    deployment = p.get("deploymentType", d.FSX_DEFAULT_DEPLOYMENT)
    if deployment not in d.FSX_DEPLOYMENT_TYPES:
        yield r.FSX_PARAMETERS.problem(base + ("deploymentType",), f"{deployment!r} is not one of {', '.join(d.FSX_DEPLOYMENT_TYPES)}")
        return
    storage_type = p.get("storageType", "SSD")
    if storage_type not in ("SSD", "HDD"):
        yield r.FSX_PARAMETERS.problem(base + ("storageType",), f"storageType is SSD or HDD, not {storage_type!r}")
    elif storage_type == "HDD" and deployment != "PERSISTENT_1":
        yield r.FSX_PARAMETERS.problem(base + ("storageType",), f"HDD storage exists only for PERSISTENT_1, not {deployment}")
    elif storage_type == "HDD" and p.get("driveCacheType") not in ("NONE", "READ"):
        yield r.FSX_PARAMETERS.problem(base + ("driveCacheType",) if "driveCacheType" in p else base, 'HDD file systems need driveCacheType "NONE" or "READ"')
    throughput = p.get("perUnitStorageThroughput")
    allowed = d.FSX_THROUGHPUT.get((deployment, storage_type))
    if throughput is not None and allowed is None:
        yield r.FSX_PARAMETERS.problem(base + ("perUnitStorageThroughput",), f"{deployment} file systems take no perUnitStorageThroughput")
    elif allowed is not None and throughput is None:
        yield r.FSX_PARAMETERS.problem(base, f"{deployment} {storage_type} needs perUnitStorageThroughput, one of {', '.join(allowed)}")
    elif allowed is not None and throughput not in allowed:
        yield r.FSX_PARAMETERS.problem(base + ("perUnitStorageThroughput",), f"{deployment} {storage_type} accepts {', '.join(allowed)} MB/s/TiB, not {throughput}")
    version = p.get("fileSystemTypeVersion")
    metadata = p.get("metadataConfigurationMode")
    if version is not None and version not in d.FSX_VERSIONS:
        yield r.FSX_PARAMETERS.problem(base + ("fileSystemTypeVersion",), f"Lustre {version} is not one of {', '.join(d.FSX_VERSIONS)} (2.15 is recommended)")
    elif version == "2.10" and deployment == "PERSISTENT_2":
        yield r.FSX_PARAMETERS.problem(base + ("fileSystemTypeVersion",), "Lustre 2.10 exists only for SCRATCH and PERSISTENT_1; use 2.15 for PERSISTENT_2")
    elif version == "2.12" and metadata is not None:
        yield r.FSX_PARAMETERS.problem(base + ("fileSystemTypeVersion",), "a metadata configuration needs Lustre 2.15")
    if metadata is not None:
        if deployment != "PERSISTENT_2":
            yield r.FSX_PARAMETERS.problem(base + ("metadataConfigurationMode",), "a metadata configuration exists only for PERSISTENT_2")
        elif metadata not in d.FSX_METADATA_MODES:
            yield r.FSX_PARAMETERS.problem(base + ("metadataConfigurationMode",), f"{metadata!r} is not one of {', '.join(d.FSX_METADATA_MODES)}")
        elif metadata == "USER_PROVISIONED" and "metadataIops" not in p:
            yield r.FSX_PARAMETERS.problem(base + ("metadataConfigurationMode",), "USER_PROVISIONED needs metadataIops")
    if "dataCompressionType" in p and p["dataCompressionType"] not in d.FSX_COMPRESSION:
        yield r.FSX_PARAMETERS.problem(base + ("dataCompressionType",), f"dataCompressionType is NONE or LZ4, not {p['dataCompressionType']!r}")
    subnet = p.get("subnetId")
    if subnet is None:
        yield r.FSX_PARAMETERS.problem(base, "subnetId is required: the subnet the file system is created in")
    elif "," in subnet or not re.fullmatch(r"subnet-[0-9a-f]{8,17}", subnet):
        yield r.FSX_PARAMETERS.problem(base + ("subnetId",), f"{subnet!r} is not one subnet id; FSx for Lustre file systems live in exactly one subnet")
    if "securityGroupIds" in p and not all(re.fullmatch(r"sg-[0-9a-f]{8,17}", g.strip()) for g in p["securityGroupIds"].split(",")):
        yield r.FSX_PARAMETERS.problem(base + ("securityGroupIds",), "securityGroupIds is a comma-separated list of sg- ids")
    if deployment == "PERSISTENT_2":
        for key in d.FSX_LEGACY_REPOSITORY:
            if key in p:
                yield r.FSX_DATA_REPOSITORY.problem(base + (key,), f"{key} is not supported for PERSISTENT_2 file systems; create a data repository association (aws fsx create-data-repository-association, AWS::FSx::DataRepositoryAssociation or Terraform aws_fsx_data_repository_association) outside the CSI driver, which has no parameter for it")


# --- static volumes ---------------------------------------------------------------------


def _check_efs_volume(source: Source) -> Iterator[Problem]:
    for key, value in source.item.volume_attributes.items():
        where = source.path + ("volume_attributes", key)
        if key == "az":
            yield r.EFS_STATIC_VOLUME.problem(where, "a static EFS PV has no az attribute (az is a StorageClass parameter for cross-account mount targets)")
        elif key not in d.EFS_VOLUME_ATTRIBUTES:
            yield r.EFS_STATIC_VOLUME.problem(where, f"{key!r} is not a static EFS volume attribute ({', '.join(sorted(d.EFS_VOLUME_ATTRIBUTES))})")
        elif not isinstance(value, str):
            yield r.EFS_STATIC_VOLUME.problem(where, f"volume attributes are strings; quote {key}")


def _check_bucket(source: Source) -> Iterator[Problem]:
    bucket: S3Bucket = source.item
    if bucket.region is not None and bucket.region not in catalog.regions():
        close = catalog.suggest_region(bucket.region)
        hint = f"; did you mean {close!r}?" if close else ""
        yield r.UNKNOWN_REGION.problem(source.path + ("region",), f"{bucket.region!r} is not an AWS region{hint}")
    if bucket.read_only and (bucket.allow_delete or bucket.allow_overwrite):
        field = "allowDelete" if bucket.allow_delete else "allowOverwrite"
        yield r.S3_MOUNT_OPTIONS.problem(source.path + (field,), f"{field} contradicts readOnly (the default); set readOnly: false for a writable mount")
    for i, option in enumerate(bucket.mount_options):
        where = source.path + ("mount_options", i)
        flag = option.lstrip("-").split("=", 1)[0].split(" ", 1)[0]
        if option.startswith("-o") or flag == "o":
            yield r.S3_MOUNT_OPTIONS.problem(where, "Mountpoint refuses -o mount flags; write the flag itself, e.g. allow-other")
        elif flag in d.S3_FIELD_OPTIONS:
            advice = "v1-style --cache host paths are gone in v2; set cache (an emptyDir in the Mountpoint pod)" if flag == "cache" else f"set the bucket field {d.S3_FIELD_OPTIONS[flag]} instead"
            yield r.S3_MOUNT_OPTIONS.problem(where, f"{flag}: {advice}")
        elif option.startswith("-"):
            yield r.S3_MOUNT_OPTIONS.problem(where, f"write Mountpoint flags without the leading dashes: {option.lstrip('-')}")
    if bucket.usage in POSIX_USAGES:
        yield r.S3_POSIX.problem(source.path + ("usage",), f"bucket {bucket.bucket} holds {bucket.usage}, which need rename, append or chmod; Mountpoint cannot do those")


# --- claims -----------------------------------------------------------------------------


def _check_claims(spec: Any, config: Config, facts: Facts) -> Iterator[Problem]:
    sources = sources_by_name(config)
    teams = spec.team_namespaces
    where_claims: dict[tuple[str, str], Any] = {}
    for i, claim in enumerate(config.claims):
        path = ("claims", i)
        namespace = claim.namespace_in(spec)
        where_claims[(namespace, claim.name)] = claim
        if claim.team is not None and claim.team not in teams:
            known = ", ".join(sorted(teams)) or "none"
            yield r.CLAIM_NAMESPACE.problem(path + ("team",), f"team {claim.team!r} is not in teams (known: {known}), so no namespace holds the pods that would mount it")
        source = resolve(claim, sources)
        field = "storageClass" if claim.storage_class else "volume"
        if source is None:
            name = claim.storage_class or claim.volume
            other = sources.get(name) if name is not None else None
            what = f"{name!r} is a {other.kind}, not a {'volume' if field == 'volume' else 'class'}" if other else f"no {field} named {name!r} is defined"
            yield r.CLAIM_SOURCE.problem(path + (field,), what)
            continue
        yield from _check_claim_fit(path, claim, source)
    created = config.claim_namespaces(spec)
    # Claims mounted by the dra pack's workloads (the pods strata renders that mount PVCs).
    dra = facts["dra"]
    for mount in (dra.mounts if dra is not None else ()):
        if why := mount_problem(mount.claim, mount.namespace, created.get(mount.claim, ())):
            yield r.CLAIM_NAMESPACE.problem(mount.path + ("claim",), why)
            continue
        mounted = where_claims.get((mount.namespace, mount.claim))
        source = resolve(mounted, sources) if mounted is not None else None
        if source is not None and source.driver == d.S3 and POSIX_MOUNT_PATH.search(mount.mount_path):
            yield r.S3_POSIX.problem(mount.path + ("mount_path",), f"{mount.mount_path} is backed by S3 (claim {mount.claim}); Mountpoint cannot rename, append or chmod")


def _check_claim_fit(path: tuple, claim: Any, source: Source) -> Iterator[Problem]:
    if source.driver == d.EFS and claim.size is not None:
        yield r.EFS_CAPACITY.problem(path + ("size",), f"EFS ignores the requested {claim.size}: the file system grows without limit; drop size")
    if source.driver == d.FSX and source.kind == "class":
        yield from _check_fsx_size(path, claim, source.item)
    if source.driver == d.S3:
        bucket: S3Bucket = source.item
        wanted = "ReadOnlyMany" if bucket.read_only else "ReadWriteMany"
        if claim.access_mode is not None and claim.access_mode != wanted:
            yield r.ACCESS_MODE.problem(path + ("access_mode",), f"bucket {bucket.name} is {'read-only' if bucket.read_only else 'writable'}: Mountpoint claims use {wanted}")


def _check_fsx_size(path: tuple, claim: Any, sc: StorageClass) -> Iterator[Problem]:
    p = {k: v for k, v in sc.parameters.items() if isinstance(v, str)}
    deployment = p.get("deploymentType", d.FSX_DEFAULT_DEPLOYMENT)
    steps, increment = d.fsx_capacities(deployment, p.get("storageType", "SSD"), p.get("perUnitStorageThroughput"))
    if claim.size is None:
        yield r.FSX_CAPACITY.problem(path, f"an FSx claim needs a size; {deployment} starts at {(steps or (increment,))[0]}Gi")
        return
    size = d.gib(claim.size)
    rounded = d.fsx_round_up(size, steps, increment)
    if rounded * 2**30 != quantity(claim.size):
        yield r.FSX_CAPACITY.problem(path + ("size",), f"{claim.size} is not a {deployment} size; the driver creates {rounded}Gi, so request {rounded}Gi")

