"""Sync waves: every Application comes after the Applications it depends on, so operators
that install CRDs sync before the objects that use them, and Namespaces before their
contents. A dependency raises the wave by one; independent Applications share a wave."""

from __future__ import annotations

from functools import cache

from strata.pack import Component, Inventory, Release

Node = Component | Release


def _needs(node: Node, other: Node) -> bool:
    if node is other:
        return False
    if isinstance(node, Component):
        if isinstance(other, Release):
            return bool(node.groups & set(other.manifest.crd_groups))
        return bool(node.namespaces & other.creates_namespaces)
    if isinstance(other, Release):
        return bool(set(node.manifest.needs_crd_groups) & set(other.manifest.crd_groups))
    return node.manifest.namespace in other.creates_namespaces


def waves(inventory: Inventory) -> dict[Node, int]:
    nodes: list[Node] = [*inventory.components, *inventory.releases]

    @cache
    def wave(index: int, seen: frozenset[int] = frozenset()) -> int:
        deps = [j for j, other in enumerate(nodes) if _needs(nodes[index], other)]
        if any(j in seen for j in deps):
            raise ValueError(f"Applications depend on each other in a cycle through {nodes[index]}")
        return 1 + max((wave(j, seen | {index}) for j in deps), default=-1)

    return {node: wave(i) for i, node in enumerate(nodes)}
