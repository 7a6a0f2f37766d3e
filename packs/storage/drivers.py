"""What each CSI driver reads, from the pinned driver sources (aws-efs-csi-driver v3.4.1
pkg/driver/controller.go, aws-fsx-csi-driver v1.9.0 pkg/driver/controller.go and
pkg/util/util.go, mountpoint-s3-csi-driver v2.7.0 docs/CONFIGURATION.md)."""

from __future__ import annotations

import math

from strata.pack import quantity

EFS = "efs.csi.aws.com"
FSX = "fsx.csi.aws.com"
S3 = "s3.csi.aws.com"

# Kubernetes requires a capacity on every PV and PVC; EFS and Mountpoint ignore it.
NOMINAL_CAPACITY = "1Gi"

EFS_PARAMETERS = frozenset({
    "provisioningMode", "fileSystemId", "fileSystemIdConfigRef", "fileSystemIdSecretRef", "directoryPerms",
    "uid", "gid", "gidRangeStart", "gidRangeEnd", "basePath", "subPathPattern", "ensureUniqueDirectory",
    "reuseAccessPoint", "enableTagging", "az", "enforceZoneAffinity",
    # cross-account provisioning: a Secret with awsRoleArn / externalId
    "csi.storage.k8s.io/provisioner-secret-name", "csi.storage.k8s.io/provisioner-secret-namespace",
})
EFS_MODES = ("efs-ap", "s3files-ap")
EFS_ONLY_PARAMETERS = ("reuseAccessPoint", "az")  # not read for S3 Files access points
EFS_FILE_SYSTEM_KEYS = ("fileSystemId", "fileSystemIdConfigRef", "fileSystemIdSecretRef")
EFS_SUBPATH_VARIABLES = frozenset({"${.PVC.name}", "${.PVC.namespace}", "${.PV.name}"})
EFS_MAX_PATH_LENGTH = 100
EFS_MAX_PATH_DEPTH = 4
# The driver's defaults when neither uid/gid nor a range is given: DefaultGidMin and
# DefaultGidMin + AccessPointPerFsLimit (the docs' 7000000 is wrong).
EFS_DEFAULT_GID_RANGE = (50000, 60000)
EFS_VOLUME_ATTRIBUTES = frozenset({"encryptInTransit", "mounttargetip", "crossaccount"})

FSX_PARAMETERS = frozenset({
    "subnetId", "securityGroupIds", "deploymentType", "perUnitStorageThroughput", "storageType", "driveCacheType",
    "kmsKeyId", "dataCompressionType", "fileSystemTypeVersion", "metadataConfigurationMode", "metadataIops",
    "efaEnabled", "automaticBackupRetentionDays", "dailyAutomaticBackupStartTime", "copyTagsToBackups",
    "weeklyMaintenanceStartTime", "extraTags", "s3ImportPath", "s3ExportPath", "autoImportPolicy",
})
FSX_DEFAULT_DEPLOYMENT = "SCRATCH_1"  # what the driver uses when deploymentType is omitted
FSX_DEPLOYMENT_TYPES = ("SCRATCH_1", "SCRATCH_2", "PERSISTENT_1", "PERSISTENT_2")
# MB/s/TiB the AWS API accepts, per deployment type and storage type.
FSX_THROUGHPUT = {
    ("PERSISTENT_1", "SSD"): ("50", "100", "200"),
    ("PERSISTENT_1", "HDD"): ("12", "40"),
    ("PERSISTENT_2", "SSD"): ("125", "250", "500", "1000"),
}
FSX_VERSIONS = ("2.10", "2.12", "2.15")
FSX_COMPRESSION = ("NONE", "LZ4")
FSX_METADATA_MODES = ("AUTOMATIC", "USER_PROVISIONED")
# Legacy data-repository fields: PERSISTENT_2 links S3 through data repository associations.
FSX_LEGACY_REPOSITORY = ("s3ImportPath", "s3ExportPath", "autoImportPolicy")

# Mountpoint flags strata writes from bucket fields; repeating them in mountOptions conflicts.
S3_FIELD_OPTIONS = {
    "region": "region", "prefix": "prefix", "uid": "uid", "gid": "gid", "read-only": "readOnly",
    "allow-delete": "allowDelete", "allow-overwrite": "allowOverwrite", "cache": "cache",
}

def gib(size: str) -> int:
    """A Kubernetes quantity in GiB, rounded up."""
    return math.ceil(quantity(size) / 2**30)


def fsx_capacities(deployment: str, storage_type: str, throughput: str | None) -> tuple[tuple[int, ...], int]:
    """The capacity steps (GiB) of an FSx for Lustre file system: the first allowed sizes,
    then multiples of the returned increment (pkg/util/util.go rounds requests up to these)."""
    if storage_type == "HDD":
        return (), 6000 if throughput == "12" else 1800
    if deployment == "SCRATCH_1":
        return (1200, 2400), 3600
    return (1200,), 2400


def fsx_round_up(size_gib: int, steps: tuple[int, ...], increment: int) -> int:
    for step in steps:
        if size_gib <= step:
            return step
    return max(increment, math.ceil(size_gib / increment) * increment)
