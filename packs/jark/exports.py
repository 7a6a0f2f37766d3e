"""What the jark pack tells other packs (pack.yaml `uses: [jark]`): the KubeRay it installs,
so the observability pack's monitors target it without anyone listing it twice, and the AWS
access of the Argo Workflows runners, for the identity pack."""

from __future__ import annotations

import dataclasses

from strata.pack import AwsIdentity, CoreSpec, Facts

from .config import Config
from .identity import argo_identities


@dataclasses.dataclass(frozen=True)
class KubeRayFacts:
    operator_namespace: str
    cluster_namespaces: tuple[str, ...]  # the team namespaces its RayClusters run in


@dataclasses.dataclass(frozen=True)
class JarkFacts:
    kuberay: KubeRayFacts | None  # None: jark does not install KubeRay
    aws_identities: tuple[AwsIdentity, ...] = ()  # the workflow runners'


def exports(spec: CoreSpec, config: Config, facts: Facts) -> JarkFacts:
    ray = config.kuberay
    argo = config.argo_workflows
    identities = argo_identities(spec, argo) if argo is not None and argo.enabled else ()
    if ray is None or not ray.enabled:
        return JarkFacts(None, identities)
    return JarkFacts(KubeRayFacts(ray.operator_namespace, tuple(ray.cluster_namespaces(spec))), identities)
