"""What the jark pack tells other packs (pack.yaml `uses: [jark]`): the KubeRay it installs,
so the observability pack's monitors target it without anyone listing it twice."""

from __future__ import annotations

import dataclasses

from strata.pack import CoreSpec, Facts

from .config import Config


@dataclasses.dataclass(frozen=True)
class KubeRayFacts:
    operator_namespace: str
    cluster_namespaces: tuple[str, ...]  # the team namespaces its RayClusters run in


@dataclasses.dataclass(frozen=True)
class JarkFacts:
    kuberay: KubeRayFacts | None  # None: jark does not install KubeRay


def exports(spec: CoreSpec, config: Config, facts: Facts) -> JarkFacts:
    ray = config.kuberay
    if ray is None or not ray.enabled:
        return JarkFacts(None)
    return JarkFacts(KubeRayFacts(ray.operator_namespace, tuple(ray.cluster_namespaces(spec))))
