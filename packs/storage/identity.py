"""The AWS access of the storage drivers, scoped to what the spec declares: the EFS file
systems of the dynamic classes, the FSx for Lustre file systems the FSx classes create (and
their S3 data repositories and KMS keys), and the S3 buckets Mountpoint mounts with the
driver's own credentials. Least-privilege equivalents of the managed policies the drivers
document (AmazonEFSCSIDriverPolicy; the FSx CSI driver's example policy; Mountpoint's
docs/CONFIGURATION.md policy), with Resource "*" only where an action has no resource type."""

from __future__ import annotations

from typing import Any

from strata.pack import Arns, AwsIdentity, Condition, IamStatement, kms_statements, spec_path

from .config import Config, S3Bucket
from .context import COMPONENTS, SERVICE_ACCOUNTS

NAMESPACE = "kube-system"  # every storage driver release's namespace (pack.yaml)
EFS_TAG = "efs.csi.aws.com/cluster"  # the tag the EFS driver puts on the access points it creates


def storage_identities(spec: Any, config: Config) -> tuple[AwsIdentity, ...]:
    arns = Arns.of(spec.cluster)
    out = []
    if config.efs is not None and config.efs.storage_classes:
        out.append(_efs(arns, config))
    if config.fsx is not None and config.fsx.storage_classes:
        out.append(_fsx(arns, config))
    if config.s3 is not None and (statements := _s3_statements(arns, config.s3.buckets)):
        out.append(AwsIdentity(
            component=COMPONENTS["s3"], namespace=NAMESPACE, service_account=SERVICE_ACCOUNTS["s3"], mode="podIdentity",
            statements=statements, path=spec_path("storage", "s3"),
            description="mounts the S3 buckets whose authenticationSource is driver"))
    return tuple(out)


def _efs(arns: Arns, config: Config) -> AwsIdentity:
    efs = config.efs
    assert efs is not None
    ids = sorted({str(sc.parameters["fileSystemId"]) for sc in efs.storage_classes if "fileSystemId" in sc.parameters})
    # A file system named through a ConfigMap or Secret is known only in the cluster: any of the account's.
    dynamic_ids = any("fileSystemId" not in sc.parameters for sc in efs.storage_classes)
    file_systems = tuple(arns.regional("elasticfilesystem", f"file-system/{i}") for i in ids)
    if dynamic_ids or not file_systems:
        file_systems = (arns.regional("elasticfilesystem", "file-system/*"),)
    access_points = (arns.regional("elasticfilesystem", "access-point/*"),)
    tagged = lambda op, key: Condition(op, f"{key}/{EFS_TAG}", ("true",))
    statements = (
        IamStatement("DescribeFileSystems", ("elasticfilesystem:DescribeAccessPoints", "elasticfilesystem:DescribeFileSystems",
                                             "elasticfilesystem:DescribeMountTargets"), file_systems),
        IamStatement("DescribeAvailabilityZones", ("ec2:DescribeAvailabilityZones",), ("*",),
                     unscoped_reason="ec2:DescribeAvailabilityZones has no resource type"),
        IamStatement("CreateTaggedAccessPoints", ("elasticfilesystem:CreateAccessPoint",), file_systems,
                     (tagged("StringLike", "aws:RequestTag"),)),
        IamStatement("TagOwnAccessPoints", ("elasticfilesystem:TagResource",), access_points,
                     (tagged("StringLike", "aws:ResourceTag"),)),
        IamStatement("DeleteOwnAccessPoints", ("elasticfilesystem:DeleteAccessPoint",), access_points,
                     (tagged("StringEquals", "aws:ResourceTag"),)),
    )
    return AwsIdentity(
        component=COMPONENTS["efs"], namespace=NAMESPACE, service_account=SERVICE_ACCOUNTS["efs"], mode=efs.identity,
        statements=statements, path=spec_path("storage", "efs"),
        role_arn=efs.controller_role_arn if efs.identity == "irsa" else None,
        description="creates and deletes the access points of the dynamic EFS classes")


def _fsx(arns: Arns, config: Config) -> AwsIdentity:
    fsx = config.fsx
    assert fsx is not None
    file_systems = (arns.regional("fsx", "file-system/*"),)  # created per claim: their ids are not known before
    lustre_role = arns.iam("role/aws-service-role/s3.data-source.lustre.fsx.amazonaws.com/*")
    statements = [
        IamStatement("CreateFsxServiceLinkedRole", ("iam:CreateServiceLinkedRole",),
                     (arns.iam("role/aws-service-role/fsx.amazonaws.com/*"),),
                     (Condition("StringLike", "iam:AWSServiceName", ("fsx.amazonaws.com",)),)),
        IamStatement("ManageFileSystems", ("fsx:CreateFileSystem", "fsx:DeleteFileSystem", "fsx:TagResource",
                                           "fsx:UpdateFileSystem"), file_systems),
        IamStatement("DescribeFileSystems", ("fsx:DescribeFileSystems",), ("*",),
                     unscoped_reason="fsx:DescribeFileSystems has no resource type"),
    ]
    buckets = sorted({_bucket(str(v)) for sc in fsx.storage_classes for k, v in sc.parameters.items()
                      if k in ("s3ImportPath", "s3ExportPath")})
    if buckets:
        statements += [
            IamStatement("CreateLustreS3ServiceLinkedRole", ("iam:CreateServiceLinkedRole", "iam:AttachRolePolicy",
                                                             "iam:PutRolePolicy"), (lustre_role,)),
            IamStatement("ListDataRepositoryBuckets", ("s3:ListBucket",), tuple(arns.s3(b) for b in buckets)),
        ]
    keys = [str(sc.parameters["kmsKeyId"]) for sc in fsx.storage_classes if "kmsKeyId" in sc.parameters]
    statements += kms_statements("UseFileSystemKmsKeys", keys, arns,
                                 ("kms:CreateGrant", "kms:Decrypt", "kms:DescribeKey", "kms:GenerateDataKey"), via_service="fsx")
    return AwsIdentity(
        component=COMPONENTS["fsx"], namespace=NAMESPACE, service_account=SERVICE_ACCOUNTS["fsx"], mode=fsx.identity,
        statements=tuple(statements), path=spec_path("storage", "fsx"),
        role_arn=fsx.controller_role_arn if fsx.identity == "irsa" else None,
        description="creates, resizes and deletes the FSx for Lustre file systems of the FSx classes")


def _s3_statements(arns: Arns, buckets: tuple[S3Bucket, ...]) -> tuple[IamStatement, ...]:
    """Per bucket the driver mounts with its own credentials: list it (under the prefix), read
    its objects, and write or delete them only where the mount allows it."""
    statements = []
    for b in buckets:
        if b.authentication_source != "driver":
            continue  # the Pods that mount it bring their own identity
        sid = "".join(part.capitalize() for part in b.name.split("-"))
        prefix = b.prefix or ""
        list_conditions = (Condition("StringLike", "s3:prefix", (f"{prefix}*",)),) if prefix else ()
        statements.append(IamStatement(f"List{sid}", ("s3:ListBucket",), (arns.s3(b.bucket),), list_conditions))
        actions = ["s3:GetObject"]
        if not b.read_only:
            actions += ["s3:PutObject", "s3:AbortMultipartUpload"]
            if b.allow_delete:
                actions.append("s3:DeleteObject")
        statements.append(IamStatement(f"Objects{sid}", tuple(actions), (arns.s3(f"{b.bucket}/{prefix}*"),)))
    return tuple(statements)


def _bucket(s3_path: str) -> str:
    return s3_path.removeprefix("s3://").split("/", 1)[0]
