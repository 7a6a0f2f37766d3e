"""What the tenancy pack tells other packs (pack.yaml `uses: [tenancy]`): the platform
namespaces its team policies admit, so the namespaces other packs isolate admit the same ones."""

from __future__ import annotations

import dataclasses

from strata.pack import CoreSpec, Facts

from .config import Config


@dataclasses.dataclass(frozen=True)
class TenancyFacts:
    monitoring_namespaces: tuple[str, ...]  # Prometheus scrapes from here
    ingress_namespaces: tuple[str, ...]  # ingress controllers


def exports(spec: CoreSpec, config: Config, facts: Facts) -> TenancyFacts:
    return TenancyFacts(tuple(sorted(config.monitoring_namespaces)), tuple(sorted(config.ingress_namespaces)))
