"""Models several packs' sections share: tolerations, IAM role ARNs, how a controller gets
AWS credentials (EKS Pod Identity or IRSA) with the check that goes with it, and the GPU
smoke test (``nvidia-smi -L`` in a one-shot Job) with the Job it becomes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any, Literal

from pydantic import Field

from strata.iam import role_arn
from strata.problems import Path, Problem
from strata.rules import Rule
from strata.spec.base import DnsLabel, LabelKey, LabelValue, StrictModel
from strata.spec.pools import PoolFacts

RoleArn = Annotated[str, Field(pattern=r"^arn:aws[a-z-]*:iam::[0-9]{12}:role/.+$")]


class Toleration(StrictModel):
    key: LabelKey | None = None  # the taint key tolerated; unset with Exists tolerates every taint
    operator: Literal["Exists", "Equal"] = "Exists"  # Exists matches any value; Equal needs value
    value: LabelValue | None = None  # the taint value, with operator Equal
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"] | None = None  # the taint effect tolerated; unset: all


class ControllerIdentity(StrictModel):
    # How a controller gets AWS credentials: an EKS Pod Identity association (nothing in the
    # chart) or IRSA (a role ARN on its service account): your own role (controllerRoleArn),
    # or the role strata generates, <cluster>-<component> in cluster.accountId (identity pack).
    identity: Literal["podIdentity", "irsa"] = "podIdentity"
    controller_role_arn: RoleArn | None = None  # with irsa: your own role, instead of the one strata generates

    def irsa_role_arn(self, cluster: Any, component: str) -> str | None:
        """The eks.amazonaws.com/role-arn of the controller's service account (None: Pod Identity)."""
        return role_arn(cluster, component, self.controller_role_arn) if self.identity == "irsa" else None


def identity_problems(rule: Rule, path: Path, part: ControllerIdentity, cluster: Any) -> Iterator[Problem]:
    if part.identity == "irsa" and not part.controller_role_arn and not cluster.account_id:
        yield rule.problem(path + ("identity",), "identity irsa needs controllerRoleArn (your own role) "
                           "or cluster.accountId (the role strata generates)")
    if part.identity == "podIdentity" and part.controller_role_arn:
        yield rule.problem(path + ("controllerRoleArn",),
                           "with podIdentity the role comes from the Pod Identity association; remove controllerRoleArn or use identity: irsa")


class ChartOverrides(StrictModel):
    """A component that renders a Helm release. Its ``valuesOverrides`` are chart values merged
    over what strata renders; the engine checks every key against the pinned chart and refuses
    the keys typed fields own (pack.yaml: ``valuesOverrides`` and ``typedValues`` of the release)."""

    values_overrides: dict[str, Any] = {}  # chart values merged over strata's, each key checked against the pinned chart

    def effective(self, keys: tuple[str, ...], typed: Any, typed_path: Path, base: Path) -> tuple[Any, Path]:
        """The value chart key ``keys`` ends up with and the spec path that decides it: the
        override's when it sets the key (``base`` is the component's path), else ``typed``
        (what the typed field renders) at ``typed_path``."""
        value: Any = self.values_overrides
        for key in keys:
            if not isinstance(value, dict) or key not in value:
                return typed, typed_path
            value = value[key]
        return value, base + ("values_overrides",) + keys


CUDA_BASE_IMAGE = "nvcr.io/nvidia/cuda:12.9.0-base-ubuntu24.04"
RESTRICTED_CONTAINER = {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}}


class GpuSmokeTest(StrictModel):
    """The shape of every GPU smoke test. A pack subclasses it to give its own defaults: the
    namespace (required here) and, in a comment, which pool an unset ``nodePool`` means."""

    enabled: bool = False  # render the smoke test Job (nvidia-smi -L holding one GPU)
    node_pool: DnsLabel | None = None  # the GPU pool the Job runs on
    namespace: DnsLabel  # the namespace of the Job
    image: str = CUDA_BASE_IMAGE  # the image that runs nvidia-smi -L


def smoke_test_job(test: GpuSmokeTest, name: str, pool: PoolFacts, run_as: int,
                   claim_template: str | None = None) -> dict[str, Any]:
    """What ``strata/smoke_test.j2`` prints: a Job pinned to ``pool``, tolerating exactly its
    taints, running as ``run_as`` under the restricted Pod Security profile, holding one GPU
    by an ``nvidia.com/gpu`` limit or, with ``claim_template``, by a DRA claim from it."""
    limits: dict[str, Any] = {"memory": "128Mi"}
    resources: dict[str, Any] = {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": limits}
    if claim_template is None:
        limits["nvidia.com/gpu"] = 1
    else:
        resources["claims"] = [{"name": "gpu"}]
    return {
        "name": name,
        "namespace": test.namespace,
        "image": test.image,
        "node_pool": pool.pool.name,
        "node_selector": pool.node_selector,
        "tolerations": pool.tolerations,
        "pod_security": {"runAsNonRoot": True, "runAsUser": run_as, "runAsGroup": run_as,
                         "seccompProfile": {"type": "RuntimeDefault"}},
        "claim_template": claim_template,
        "resources": resources,
        # nvidia-smi writes nothing: the root file system stays read-only.
        "container_security": {**RESTRICTED_CONTAINER, "readOnlyRootFilesystem": True},
    }
