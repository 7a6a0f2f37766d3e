"""The core of strata, free of any CLI concern: load and merge spec layers, validate them,
run the policy checks, render the packs into an output tree, validate that tree."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path
from typing import Any

from strata import __version__, isolation, rules
from strata.output import secrets
from strata.output import tree as output_tree
from strata.output.lock import Lock, PackEntry
from strata.packs import facts as pack_facts
from strata.packs import paths as pack_paths
from strata.packs.contract import Pack
from strata.packs.facts import PackFacts
from strata.packs.loader import discover
from strata.problems import Problem, has_errors, sorted_problems
from strata.render import engine
from strata.spec import sources as spec_sources
from strata.spec import validate as spec_validate
from strata.spec.model import SUPPORTED_KUBERNETES
from strata.validate.tree import validate as validate_tree_files
from strata.output.layout import HELM_DIR, KUSTOMIZATION
from strata.output.lock import LOCK_NAME


@dataclasses.dataclass
class Loaded:
    spec: Any | None
    packs: tuple[Pack, ...]
    sources: spec_sources.SourceMap
    digest: str
    problems: list[Problem]
    facts: PackFacts | None = None  # every enabled pack's exports, computed once for the spec


def load(files: list[tuple[str, bytes]], packs: tuple[Pack, ...] | None = None) -> Loaded:
    """Merge the layers, validate them and run every policy check; problems are collected."""
    packs = discover() if packs is None else packs
    layers = spec_sources.load_layers(files)
    problems = list(layers.problems)
    spec = None
    facts = None
    if rules.YAML.id not in {p.rule for p in problems}:
        spec, spec_problems = spec_validate.validate(layers.data, layers.sources, packs)
        problems.extend(spec_problems)
    if spec is not None:
        facts = pack_facts.compute(spec, packs)
        problems.extend(_locate(check(spec, packs, facts), layers.sources))
    digest = "sha256:" + hashlib.sha256(json.dumps(layers.data, sort_keys=True, default=str).encode()).hexdigest()
    return Loaded(spec, packs, layers.sources, digest, sorted_problems(problems), facts)


def check(spec: Any, packs: tuple[Pack, ...], facts: PackFacts | None = None) -> list[Problem]:
    facts = facts if facts is not None else pack_facts.compute(spec, packs)
    core = pack_facts.core_spec(spec)
    problems: list[Problem] = []
    version = spec.cluster.kubernetes_version
    if version not in SUPPORTED_KUBERNETES:
        problems.append(rules.KUBERNETES_VERSION.problem(
            ("cluster", "kubernetesVersion"), f"Kubernetes {version} is outside the supported range {SUPPORTED_KUBERNETES[0]}-{SUPPORTED_KUBERNETES[-1]}"))
    minor = _minor(version)
    for pack in packs:
        config = engine.pack_config(spec, pack)
        if config is None:
            continue
        low, high = pack.manifest.kubernetes
        # Outside strata's own range the core rule has said it already.
        if version in SUPPORTED_KUBERNETES and not _minor(low) <= minor <= _minor(high):
            problems.append(rules.PACK_KUBERNETES.problem(
                (pack.field_name,) if getattr(spec, pack.field_name, None) is not None else ("cluster", "kubernetesVersion"),
                f"pack {pack.name} {pack.version} supports Kubernetes {low}-{high}, not {version}"))
        if pack.check:
            found = pack.call("check", core, config, facts.for_pack(pack))
            problems.extend(dataclasses.replace(p, path=pack_paths.resolve(p.path, pack.field_name, type(spec))) for p in found)
    return problems


def _minor(version: str) -> tuple[int, ...]:
    return tuple(int(x) for x in version.split("."))


def _locate(problems: list[Problem], sources: spec_sources.SourceMap) -> list[Problem]:
    return [p if p.mark else dataclasses.replace(p, mark=sources.lookup(p.path, prefer_key=False)) for p in problems]


def render(loaded: Loaded, previous: Lock | None = None) -> tuple[dict[str, bytes], list[Problem]]:
    """The output tree. Hydrated Helm output recorded in ``previous`` stays owned (and on disk)
    while its release's chart version and values are unchanged."""
    spec = loaded.spec
    result = engine.render(spec, loaded.packs, previous.hydrated if previous else (), loaded.facts)
    enabled = [p for p in loaded.packs if engine.pack_config(spec, p) is not None]
    lock = Lock(
        strata_version=__version__,
        spec_digest=loaded.digest,
        kubernetes_version=spec.cluster.kubernetes_version,
        packs=tuple(PackEntry(name=p.name, version=p.version, source=p.source)
                    for p in sorted(enabled, key=lambda p: (p.name, p.version, p.source))),
        schemas=tuple(sorted({s for p in enabled for s in p.manifest.crds})),
        hydrated=result.hydrated,
    )
    outside_root = frozenset(p.manifest.layer for p in enabled if not p.manifest.in_root_kustomization)
    tree, problems = output_tree.build(result.objects, result.releases, lock, outside_root)
    return tree, sorted_problems([*result.problems, *problems, *isolation.check(result.objects), *secrets.scan(tree)])


def manifest_files(files: list[str] | frozenset[str]) -> list[str]:
    """The Kubernetes objects of a tree: not kustomizations, Helm values or the lock."""
    return sorted(
        f for f in files
        if f.endswith(".yaml") and Path(f).name != KUSTOMIZATION and f != LOCK_NAME and f"/{HELM_DIR}/" not in f"/{f}"
    )


def validate_tree(root: Path, files: list[str] | frozenset[str], kubernetes_version: str, store: Path, display: str) -> list[Problem]:
    return validate_tree_files(root, manifest_files(files), kubernetes_version, store, display)


__all__ = ["Loaded", "load", "check", "render", "validate_tree", "manifest_files", "has_errors"]
