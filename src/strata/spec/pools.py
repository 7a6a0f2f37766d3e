"""Facts derived from a node pool that several packs share: its instance types from the
catalog, whether it has NVIDIA GPUs or Neuron devices, its AMI family, and how a workload
gets scheduled onto it (node selector and the tolerations of exactly its taints)."""

from __future__ import annotations

import dataclasses
from typing import Any

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

    @property
    def efa_interfaces(self) -> int:
        """The EFA interfaces every node of an EFA pool offers (the fewest of its instance
        types); 0 when the pool does not set efa."""
        if self.pool.efa is None:
            return 0
        return min((t.efa_interfaces for t in self.instance_types), default=0)

    @property
    def max_gpus_per_node(self) -> int:
        """The most GPUs one node of this pool can offer (0 for CPU pools)."""
        return max((t.gpu.count for t in self.instance_types if t.gpu), default=0)

    @property
    def node_selector(self) -> dict[str, str]:
        return {"karpenter.sh/nodepool": self.pool.name}

    @property
    def tolerations(self) -> list[dict[str, Any]]:
        """Tolerations matching exactly this pool's taints."""
        out = []
        for t in self.pool.taints:
            if t.value:
                out.append({"key": t.key, "operator": "Equal", "value": t.value, "effect": t.effect})
            else:
                out.append({"key": t.key, "operator": "Exists", "effect": t.effect})
        return out

    def tolerated_by(self, tolerations: list[dict[str, Any]]) -> list[str]:
        """The pool's NoSchedule/NoExecute taints that none of ``tolerations`` tolerates."""
        missing = []
        for taint in self.pool.taints:
            if taint.effect == "PreferNoSchedule":
                continue
            if not any(tolerates(t, taint.key, taint.value, taint.effect) for t in tolerations):
                missing.append(f"{taint.key}={taint.value or ''}:{taint.effect}")
        return missing


def tolerates(toleration: dict[str, Any], key: str, value: str | None, effect: str) -> bool:
    """Kubernetes toleration semantics for one taint."""
    if toleration.get("effect") and toleration["effect"] != effect:
        return False
    if not toleration.get("key"):
        return toleration.get("operator") == "Exists"
    if toleration["key"] != key:
        return False
    return toleration.get("operator", "Equal") == "Exists" or (toleration.get("value") or "") == (value or "")


def facts(pool: NodePool) -> PoolFacts:
    return PoolFacts(pool, catalog.resolve(pool.instance_families, pool.instance_types))


def all_facts(spec: Any) -> dict[str, PoolFacts]:
    """Every node pool of the spec by name, in spec order."""
    return {p.name: facts(p) for p in spec.node_pools}
