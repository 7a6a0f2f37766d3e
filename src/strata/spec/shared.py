"""Models several packs' sections share: tolerations, IAM role ARNs, and how a controller
gets AWS credentials (EKS Pod Identity or IRSA) with the check that goes with it."""

from __future__ import annotations

from typing import Annotated, Iterator, Literal

from pydantic import Field

from strata.problems import Path, Problem
from strata.rules import Rule
from strata.spec.base import LabelKey, LabelValue, StrictModel

RoleArn = Annotated[str, Field(pattern=r"^arn:aws[a-z-]*:iam::[0-9]{12}:role/.+$")]


class Toleration(StrictModel):
    key: LabelKey | None = None
    operator: Literal["Exists", "Equal"] = "Exists"
    value: LabelValue | None = None
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"] | None = None


class ControllerIdentity(StrictModel):
    # How a controller gets AWS credentials: an EKS Pod Identity association (made outside
    # the cluster, nothing in the chart) or IRSA (a role ARN on its service account).
    identity: Literal["podIdentity", "irsa"] = "podIdentity"
    controller_role_arn: RoleArn | None = None

    @property
    def irsa_role_arn(self) -> str | None:
        return self.controller_role_arn if self.identity == "irsa" else None


def identity_problems(rule: Rule, path: Path, part: ControllerIdentity) -> Iterator[Problem]:
    if part.identity == "irsa" and not part.controller_role_arn:
        yield rule.problem(path + ("identity",), "identity irsa needs controllerRoleArn")
    if part.identity == "podIdentity" and part.controller_role_arn:
        yield rule.problem(path + ("controllerRoleArn",),
                           "with podIdentity the role comes from the Pod Identity association; remove controllerRoleArn or use identity: irsa")
