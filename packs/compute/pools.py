"""Facts derived from a node pool: its instance types from the catalog, whether it has
NVIDIA GPUs, its AMI family. Shared by the checks and the template context."""

from __future__ import annotations

import dataclasses

from strata import catalog
from strata.spec.model import NodePool


@dataclasses.dataclass(frozen=True)
class PoolFacts:
    pool: NodePool
    instance_types: tuple[catalog.InstanceType, ...]

    @property
    def ami_family(self) -> str:
        return self.pool.ami_alias.split("@", 1)[0].lower()

    @property
    def nvidia(self) -> bool:
        return any(t.gpu and t.gpu.manufacturer == "nvidia" for t in self.instance_types)

    @property
    def neuron(self) -> bool:
        return any(t.accelerator and t.accelerator.manufacturer == "aws" for t in self.instance_types)


def facts(pool: NodePool) -> PoolFacts:
    return PoolFacts(pool, catalog.resolve(pool.instance_families, pool.instance_types))
