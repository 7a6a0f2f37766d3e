"""What the storage pack tells other packs (pack.yaml `uses: [storage]`): the StorageClasses a
Pod may name, the claims strata creates and the S3 buckets it declares, so quotas, mounts and
other packs' object storage are checked against exactly what is rendered, and the AWS access of
the drivers, for the identity pack."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from strata.pack import AwsIdentity, CoreSpec, Facts

from .config import Config
from .context import rendered_claims
from .identity import storage_identities


@dataclasses.dataclass(frozen=True)
class RenderedClaim:
    namespace: str
    name: str
    size: str  # the requested storage


@dataclasses.dataclass(frozen=True)
class Bucket:
    bucket: str  # the S3 bucket name
    region: str  # the bucket's region (the cluster's unless declared)


@dataclasses.dataclass(frozen=True)
class StorageFacts:
    class_names: tuple[str, ...]  # every StorageClass a Pod may name: strata's own and the existing ones
    claim_namespaces: Mapping[str, frozenset[str]]  # the namespaces each claim is created in, by claim name
    claims: tuple[RenderedClaim, ...]  # the PersistentVolumeClaims the pack renders
    buckets: Mapping[str, Bucket] = dataclasses.field(default_factory=dict)  # storage.s3.buckets by entry name
    aws_identities: tuple[AwsIdentity, ...] = ()  # the drivers that call AWS


def exports(spec: CoreSpec, config: Config, facts: Facts) -> StorageFacts:
    return StorageFacts(
        class_names=tuple(config.class_names),
        claim_namespaces={name: frozenset(ns) for name, ns in config.claim_namespaces(spec).items()},
        claims=tuple(RenderedClaim(c["namespace"], c["name"], c["size"]) for c in rendered_claims(spec, config)),
        buckets={b.name: Bucket(b.bucket, b.region or spec.cluster.region) for b in (config.s3.buckets if config.s3 else ())},
        aws_identities=storage_identities(spec, config),
    )
