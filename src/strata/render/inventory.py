"""What a render produced, by component and Helm release: the input of inventory packs
(GitOps), which describe the rest of the tree rather than the platform itself."""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Set as AbstractSet

from strata.output.layout import component_dir, hydrated_dir, release_dir
from strata.packs.contract import HelmReleaseManifest
from strata.render.objects import RenderedObject, RenderedRelease


@dataclasses.dataclass(frozen=True)
class Component:
    pack: str
    layer: str
    name: str
    path: str  # directory in the output tree
    groups: frozenset[str]  # API groups of its objects ("" for the core group)
    namespaces: frozenset[str]  # namespaces its objects live in
    creates_namespaces: frozenset[str]  # Namespace objects it holds
    cluster_scoped_kinds: frozenset[str]  # "group/Kind" of its objects without a namespace


@dataclasses.dataclass(frozen=True)
class Release:
    pack: str
    layer: str
    manifest: HelmReleaseManifest
    path: str  # directory of its values file and chart reference
    values_file: str
    hydrated: str | None = None  # directory of its helm template output, when hydrated and current


@dataclasses.dataclass(frozen=True)
class Inventory:
    components: tuple[Component, ...]
    releases: tuple[Release, ...]


def build(objects: list[RenderedObject], releases: list[RenderedRelease], hydrated: AbstractSet[str] = frozenset()) -> Inventory:
    grouped: dict[tuple[str, str, str], list[RenderedObject]] = defaultdict(list)
    for obj in objects:
        grouped[(obj.pack, obj.layer, obj.component)].append(obj)
    components = tuple(
        Component(
            pack=pack, layer=layer, name=name, path=component_dir(layer, name),
            groups=frozenset(o.group for o in objs),
            namespaces=frozenset(o.namespace for o in objs if o.namespace),
            creates_namespaces=frozenset(o.name for o in objs if o.kind == "Namespace" and o.group == ""),
            cluster_scoped_kinds=frozenset(f"{o.group}/{o.kind}" for o in objs if not o.namespace),
        )
        for (pack, layer, name), objs in sorted(grouped.items(), key=lambda item: (item[0][1], item[0][2]))
    )
    rels = tuple(
        Release(r.pack, r.layer, r.release, release_dir(r.layer, r.release.name), f"{release_dir(r.layer, r.release.name)}/values.yaml",
                hydrated_dir(r.layer, r.release.name) if r.release.name in hydrated else None)
        for r in sorted(releases, key=lambda r: (r.layer, r.release.name))
    )
    return Inventory(components, rels)
