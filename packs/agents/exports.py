"""What the agents pack tells other packs (pack.yaml `uses: [agents]`): the ServiceAccounts
whose AWS identity it relies on and what each must reach, so an identity pack can write the
IAM policies and associations instead of anyone assuming them."""

from __future__ import annotations

import dataclasses

from strata.pack import CoreSpec, Facts

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


def exports(spec: CoreSpec, config: Config, facts: Facts) -> AgentsFacts:
    parts = active(config)
    storage = facts["storage"]
    buckets = storage.buckets if storage is not None else {}
    out = []
    if (lf := parts.get("langfuse")) is not None:
        blob = lf.blob_storage
        name = buckets[blob.bucket].bucket if blob.bucket in buckets else blob.bucket_name
        if name:
            out.append(WorkloadIdentity("langfuse", LANGFUSE_NAMESPACE, LANGFUSE_SERVICE_ACCOUNT, lf.identity, lf.irsa_role_arn,
                                        (name,), blob.kms_key_id))
    if (milvus := parts.get("milvus")) is not None and milvus.object_storage.bucket in buckets:
        out.append(WorkloadIdentity("milvus", MILVUS_NAMESPACE, MILVUS_SERVICE_ACCOUNT, milvus.identity, milvus.irsa_role_arn,
                                    (buckets[milvus.object_storage.bucket].bucket,)))
    return AgentsFacts(tuple(out))
