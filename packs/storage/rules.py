"""The storage pack's policy rules: CSI driver mistakes that schemas cannot see."""

from strata.pack import Rule

UNQUOTED_PARAMETER = Rule(
    "storage/unquoted-parameter",
    "every StorageClass parameter is a string; the API server rejects a YAML boolean or number",
    'quote the value, e.g. ensureUniqueDirectory: "true", uid: "1000"',
)
UNKNOWN_PARAMETER = Rule(
    "storage/unknown-parameter",
    "the driver does not read this StorageClass parameter, so it silently has no effect (or fails provisioning)",
    "use a parameter the driver documents; strata names the closest one",
)
EFS_PARAMETERS = Rule(
    "storage/efs-parameters",
    "access-point provisioning needs provisioningMode, one file system reference and directoryPerms, with valid values",
    'set provisioningMode: efs-ap, fileSystemId: fs-..., directoryPerms: "700" (and uid/gid or a gid range)',
)
EFS_GID_RANGE = Rule(
    "storage/efs-gid-range",
    "gidRangeStart and gidRangeEnd go together (the driver's defaults are 50000-60000, not the docs' 7000000) and are unused with gid",
    "set both bounds with end > start, or set uid/gid instead",
)
EFS_SUB_PATH = Rule(
    "storage/efs-sub-path",
    "subPathPattern knows only ${.PVC.name}, ${.PVC.namespace} and ${.PV.name}; the path may have at most 4 levels and 100 characters",
    "use only those variables and keep basePath plus subPathPattern short",
)
EFS_CAPACITY = Rule(
    "storage/efs-capacity-not-a-limit",
    "EFS is elastic: the requested capacity of an EFS claim is ignored, it is neither a quota nor a size",
    "drop size from EFS claims (strata writes a nominal request); limit usage with separate file systems and monitoring",
)
EFS_STATIC_VOLUME = Rule(
    "storage/efs-static-volume",
    "a static EFS PV reads only encryptInTransit, mounttargetip and crossaccount (there is no az), as strings",
    "remove the attribute or use a StorageClass parameter where one exists",
)
FSX_DATA_REPOSITORY = Rule(
    "storage/fsx-data-repository",
    "s3ImportPath, s3ExportPath and autoImportPolicy are not supported for PERSISTENT_2; the AWS API rejects the file system",
    "link S3 through a data repository association created outside the CSI driver (CloudFormation, Terraform or the AWS CLI)",
)
FSX_PARAMETERS = Rule(
    "storage/fsx-parameters",
    "the FSx for Lustre parameters contradict each other or the AWS API (deployment type, throughput, version, storage type, subnet)",
    "use the values the message lists for this deployment type",
)
FSX_CAPACITY = Rule(
    "storage/fsx-capacity",
    "FSx for Lustre sizes come in fixed increments; the driver rounds a request up, so the claim gets (and bills) more than it asks",
    "request the size the message names",
)
FSX_MOUNT_NAME = Rule(
    "storage/fsx-mount-name",
    "the Lustre mount name is per file system (LustreConfiguration.MountName); 'fsx' is only right for old SCRATCH_1 file systems",
    "copy MountName from aws fsx describe-file-systems",
)
S3_STATIC_ONLY = Rule(
    "storage/s3-static-only",
    "Mountpoint for S3 supports only static provisioning of existing buckets: no StorageClass, no dynamic volumes, no bucket creation",
    "declare the bucket under storage.s3.buckets and claim it with volume: <bucket entry>",
)
S3_MOUNT_OPTIONS = Rule(
    "storage/s3-mount-options",
    "Mountpoint options are flags without --; -o and v1-style --cache are refused, and options strata derives from fields must not be repeated",
    "use the bucket fields (region, prefix, uid, gid, readOnly, allowDelete, cache) and plain flags like allow-other",
)
S3_POSIX = Rule(
    "storage/s3-posix-semantics",
    "Mountpoint is not POSIX: no rename, append, random writes, chmod, symlinks or locks, and files are unreadable until closed",
    "use EFS for home directories and FSx for Lustre for checkpoints and scratch; keep S3 for datasets, models and write-once outputs",
)
ACCESS_MODE = Rule(
    "storage/access-mode",
    "the access mode does not suit the volume (Mountpoint needs ReadWriteMany or ReadOnlyMany, matching readOnly)",
    "omit accessMode (strata picks ReadWriteMany, or ReadOnlyMany for read-only buckets) or fix it as the message says",
)
CLAIM_SOURCE = Rule(
    "storage/claim-source",
    "a claim names a StorageClass or volume that the spec does not define, or that its driver's section does not install",
    "define the class or volume under storage.efs, storage.fsx or storage.s3 (or fix the name)",
)
CLAIM_NAMESPACE = Rule(
    "storage/claim-namespace",
    "a PVC can only be mounted by pods in its own namespace; the claim's namespace is not where its pods run",
    "claim the volume for the team (or namespace) whose pods mount it, one claim per namespace",
)
DUPLICATE_NAME = Rule(
    "storage/duplicate-name",
    "StorageClass and volume names share one namespace in strata (claims refer to them by name); a name is used twice",
    "rename one of them",
)
CONTROLLER_IDENTITY = Rule(
    "storage/controller-identity",
    "IRSA needs the controller's role ARN on its service account; Pod Identity must not carry one",
    "with identity irsa set controllerRoleArn, or cluster.accountId for the role strata generates; with podIdentity remove it and create the association",
)

UNKNOWN_REGION = Rule(
    "storage/unknown-region",
    "an S3 bucket's region is no AWS region, so Mountpoint can never reach the bucket and every Pod mounting it hangs",
    "use the bucket's AWS region code (aws s3api get-bucket-location), or leave region unset for the cluster's",
)

RULES = (
    UNKNOWN_REGION,
    UNQUOTED_PARAMETER, UNKNOWN_PARAMETER, EFS_PARAMETERS, EFS_GID_RANGE, EFS_SUB_PATH, EFS_CAPACITY,
    EFS_STATIC_VOLUME, FSX_DATA_REPOSITORY, FSX_PARAMETERS, FSX_CAPACITY, FSX_MOUNT_NAME, S3_STATIC_ONLY,
    S3_MOUNT_OPTIONS, S3_POSIX, ACCESS_MODE, CLAIM_SOURCE, CLAIM_NAMESPACE, DUPLICATE_NAME, CONTROLLER_IDENTITY,
)
