"""The AWS access of each team's Argo Workflows runner: its own prefix of the artifact
bucket. The artifact repository writes every key under <namespace>/ (keyFormat in
helm/argo-workflows.yaml.j2), so a team's role reaches only its own workflows' artifacts."""

from __future__ import annotations

from typing import Any

from strata.pack import Arns, AwsIdentity, Condition, IamStatement, spec_path

from .config import ArgoWorkflows, runner_component
from .context import RUNNER


def argo_identities(spec: Any, argo: ArgoWorkflows) -> tuple[AwsIdentity, ...]:
    cluster = spec.cluster
    arns = Arns.of(cluster)
    bucket = argo.artifacts.bucket
    namespaces = spec.team_namespaces
    out = []
    for i, team in enumerate(argo.teams):
        namespace = namespaces.get(team.name, team.name)
        statements = (
            IamStatement("ListOwnArtifacts", ("s3:ListBucket",), (arns.s3(bucket),),
                         (Condition("StringLike", "s3:prefix", (f"{namespace}/*",)),)),
            IamStatement("ReadWriteOwnArtifacts", ("s3:GetObject", "s3:PutObject"), (arns.s3(f"{bucket}/{namespace}/*"),)),
        )
        out.append(AwsIdentity(
            component=runner_component(team.name), namespace=namespace, service_account=RUNNER, mode=argo.identity,
            statements=statements, path=spec_path("jark", "argoWorkflows", "teams", i),
            role_arn=team.role_arn if argo.identity == "irsa" else None,
            description=f"reads and writes the artifacts of team {team.name}'s workflows"))
    return tuple(out)
