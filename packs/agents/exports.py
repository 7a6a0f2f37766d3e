"""What the agents pack tells other packs (pack.yaml `uses: [agents]`): the ServiceAccounts
whose AWS identity it relies on and what each must reach, so an identity pack can write the
IAM policies and associations instead of anyone assuming them."""

from __future__ import annotations

import dataclasses

from strata.pack import Arns, AwsIdentity, ControllerIdentity, CoreSpec, Facts, IamStatement, kms_statements, spec_path

from .config import Config
from .context import LANGFUSE_NAMESPACE, LANGFUSE_SERVICE_ACCOUNT, MILVUS_NAMESPACE, MILVUS_SERVICE_ACCOUNT, active


@dataclasses.dataclass(frozen=True)
class WorkloadIdentity:
    component: str  # langfuse, milvus
    namespace: str
    service_account: str
    mechanism: str  # podIdentity or irsa (the role ARN is then on the ServiceAccount)
    role_arn: str | None
    s3_buckets: tuple[str, ...]  # bucket names it reads and writes
    kms_key_id: str | None = None  # the SSE-KMS key it encrypts with


@dataclasses.dataclass(frozen=True)
class AgentsFacts:
    identities: tuple[WorkloadIdentity, ...]
    aws_identities: tuple[AwsIdentity, ...] = ()  # the same, as the identity pack reads them


def exports(spec: CoreSpec, config: Config, facts: Facts) -> AgentsFacts:
    parts = active(config)
    storage = facts["storage"]
    buckets = storage.buckets if storage is not None else {}
    out = []
    if (lf := parts.get("langfuse")) is not None:
        blob = lf.blob_storage
        name = buckets[blob.bucket].bucket if blob.bucket in buckets else blob.bucket_name
        if name:
            out.append(WorkloadIdentity("langfuse", LANGFUSE_NAMESPACE, LANGFUSE_SERVICE_ACCOUNT, lf.identity, _own_role(lf),
                                        (name,), blob.kms_key_id))
    if (milvus := parts.get("milvus")) is not None and milvus.object_storage.bucket in buckets:
        out.append(WorkloadIdentity("milvus", MILVUS_NAMESPACE, MILVUS_SERVICE_ACCOUNT, milvus.identity, _own_role(milvus),
                                    (buckets[milvus.object_storage.bucket].bucket,)))
    return AgentsFacts(tuple(out), tuple(_aws_identity(spec, w) for w in out))


def _own_role(part: ControllerIdentity) -> str | None:
    """The user's own role (IRSA with controllerRoleArn); None: the one strata generates."""
    return part.controller_role_arn if part.identity == "irsa" else None


# What each component does in its bucket: Langfuse stores and deletes events, media and exports;
# Milvus writes, compacts and drops segments and its log.
OBJECT_ACTIONS = ("s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload")


def _aws_identity(spec: CoreSpec, w: WorkloadIdentity) -> AwsIdentity:
    arns = Arns.of(spec.cluster)
    statements = [
        IamStatement("ListBuckets", ("s3:ListBucket",), tuple(arns.s3(b) for b in w.s3_buckets)),
        IamStatement("ReadWriteObjects", OBJECT_ACTIONS, tuple(arns.s3(f"{b}/*") for b in w.s3_buckets)),
        *kms_statements("UseBucketKmsKey", (w.kms_key_id,) if w.kms_key_id else (), arns,
                        ("kms:Decrypt", "kms:GenerateDataKey"), via_service="s3"),
    ]
    return AwsIdentity(component=w.component, namespace=w.namespace, service_account=w.service_account,
                       mode="irsa" if w.mechanism == "irsa" else "podIdentity", statements=tuple(statements),
                       path=spec_path("agents", w.component), role_arn=w.role_arn,
                       description=f"reads and writes its objects in {', '.join(w.s3_buckets)}")
