"""Render every enabled pack: run its hooks, its templates (one kind per file, grouped by
component directory) and its Helm values templates, and parse the output into objects."""

from __future__ import annotations

import dataclasses
import re
import traceback
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jinja2

from strata import charts, nested, overrides, rules, yamlio
from strata.errors import PackError
from strata.packs import conformance, facts as pack_facts
from strata.packs.contract import Pack
from strata.packs.facts import PackFacts, pack_config
from strata.problems import Problem
from strata.render import inventory, memo as document_memo
from strata.render.environment import environment
from strata.render.objects import RenderedDocument, RenderedObject, RenderedRelease

MANAGED_BY = {"app.kubernetes.io/managed-by": "strata"}


@dataclasses.dataclass
class RenderResult:
    objects: list[RenderedObject] = dataclasses.field(default_factory=list)
    releases: list[RenderedRelease] = dataclasses.field(default_factory=list)
    documents: list[RenderedDocument] = dataclasses.field(default_factory=list)
    problems: list[Problem] = dataclasses.field(default_factory=list)
    memo: document_memo.Memo | None = None  # documents of the tree's last render, reused


__all__ = ["RenderResult", "pack_config", "render", "render_platform", "render_inventory"]


def _enabled(spec: Any, packs: tuple[Pack, ...]) -> list[tuple[Pack, Any]]:
    return [(p, c) for p in packs if (c := pack_config(spec, p)) is not None]


def render(spec: Any, packs: tuple[Pack, ...], hydrated: frozenset[str] = frozenset(),
           facts: PackFacts | None = None) -> RenderResult:
    """Every enabled pack: the platform, then the inventory packs describing it.
    ``hydrated``: the releases whose helm template output the tree holds. ``facts``: the
    packs' exports for this spec (computed here when not given)."""
    facts = facts if facts is not None else pack_facts.compute(spec, packs)
    result = render_platform(spec, packs, facts)
    render_inventory(spec, packs, facts, result, hydrated)
    return result


def render_platform(spec: Any, packs: tuple[Pack, ...], facts: PackFacts, memo: document_memo.Memo | None = None) -> RenderResult:
    """The packs that make the platform (all but inventory packs), with the values packs
    contribute to each other's Helm releases merged in. ``memo``: template documents parsed
    before, by their text (render/memo.py)."""
    result = RenderResult(memo=memo)
    core = pack_facts.core_spec(spec)
    contributed: list[tuple[str, dict[str, Any]]] = []
    for pack, config in _enabled(spec, packs):
        if not pack.manifest.inventory:
            contributed += _render_pack(core, pack, config, facts, result)
    result.releases = [_with_contributions(r, contributed) for r in result.releases]
    return result


def render_inventory(spec: Any, packs: tuple[Pack, ...], facts: PackFacts, result: RenderResult,
                     hydrated: frozenset[str] = frozenset()) -> None:
    """Inventory packs (GitOps) render last, from what the others rendered into ``result``
    and which releases are hydrated (``hydrated``: release names)."""
    describers = [(p, c) for p, c in _enabled(spec, packs) if p.manifest.inventory]
    if describers:
        core = pack_facts.core_spec(spec)
        rendered = inventory.build(result.objects, result.releases, hydrated)
        for pack, config in describers:
            _render_pack(core, pack, config, facts, result, rendered)


def _render_pack(spec: Any, pack: Pack, config: Any, facts: PackFacts, result: RenderResult,
                 rendered: inventory.Inventory | None = None) -> list[tuple[str, dict[str, Any]]]:
    """Render one pack into ``result``; returns the values it contributes to other packs' releases."""
    context: dict[str, Any] = {"spec": spec, "cluster": spec.cluster, "config": config}
    if pack.context:
        hook_args = (spec, config, facts.for_pack(pack), *((rendered,) if pack.manifest.inventory else ()))
        context.update(conformance.check_context(pack.name, pack.root / "pack.py", pack.call("context", *hook_args)))
    _render_templates(pack, context, result)
    _render_releases(pack, config, context, result, getattr(spec, "charts", {}))
    if pack.documents:
        _pack_documents(pack, pack.call("documents", spec, config, facts.for_pack(pack)), result)
    return [(c.release, _lookup(pack, context, f"releaseValues[{c.release}].values", c.values)) for c in pack.manifest.release_values]


def _with_contributions(release: RenderedRelease, contributed: list[tuple[str, dict[str, Any]]]) -> RenderedRelease:
    """Merge other packs' values into a release, under the owner's overrides (the user's word wins).
    A contribution to a release that is not rendered (absent, or off by its `when`) is dropped."""
    values = release.values
    for name, extra in contributed:
        if name == release.release.name and extra:
            values = nested.merge(nested.merge(values, extra), release.overrides)
    return dataclasses.replace(release, values=values)


def _template_names(pack: Pack) -> list[str]:
    root = pack.root / "templates"
    return sorted(p.relative_to(pack.root).as_posix() for p in root.glob("*/*.j2")) if root.is_dir() else []


def _render_source(pack: Pack, name: str, context: dict[str, Any], result: RenderResult) -> str | None:
    try:
        return environment(pack.root).get_template(name).render(context)
    except jinja2.TemplateError as exc:
        line = f":{_template_line(exc, name)}" if _template_line(exc, name) else ""
        result.problems.append(dataclasses.replace(rules.TEMPLATE.problem((), f"{type(exc).__name__}: {exc}"),
                                                   where=f"{pack.name}:{name}{line}"))
        return None


def _render_text(pack: Pack, name: str, context: dict[str, Any], result: RenderResult) -> list[Any] | None:
    text = _render_source(pack, name, context, result)
    if text is None:
        return None
    try:
        return yamlio.load_all(text)
    except yamlio.YAMLError as exc:
        result.problems.append(dataclasses.replace(rules.TEMPLATE.problem((), f"output is not YAML: {exc}"), where=f"{pack.name}:{name}"))
        return None


def _render_documents(pack: Pack, name: str, context: dict[str, Any], result: RenderResult) -> list[tuple[Any, bytes | None]]:
    """A template's documents with their memo keys (parsed only when the memo lacks them)."""
    text = _render_source(pack, name, context, result)
    if text is None:
        return []
    try:
        return list(document_memo.parse(text, result.memo, yamlio.load_all))
    except yamlio.YAMLError as exc:
        result.problems.append(dataclasses.replace(rules.TEMPLATE.problem((), f"output is not YAML: {exc}"), where=f"{pack.name}:{name}"))
        return []


def _template_line(exc: Exception, name: str) -> int | None:
    """The template line of a render error: syntax errors carry it, runtime errors (an
    undefined variable) only in the traceback Jinja rewrites to point into the template."""
    if getattr(exc, "lineno", None):
        return exc.lineno  # type: ignore[attr-defined]
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename.endswith(name)]
    return frames[-1].lineno if frames else None


def _render_templates(pack: Pack, context: dict[str, Any], result: RenderResult) -> None:
    for name in _template_names(pack):
        component = Path(name).parent.name
        for doc, document in _render_documents(pack, name, context, result):
            if not isinstance(doc, dict) or not doc.get("kind") or not isinstance(doc.get("metadata"), dict):
                result.problems.append(dataclasses.replace(
                    rules.TEMPLATE.problem((), "rendered a document that is not a Kubernetes object"), where=f"{pack.name}:{name}"))
                continue
            labels = doc["metadata"].setdefault("labels", {})
            labels.update(MANAGED_BY)
            result.objects.append(RenderedObject(pack.name, pack.manifest.layer, component, doc, document))


DOCUMENT_PATH = re.compile(r"^[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*)*\.json$")


def _pack_documents(pack: Pack, documents: Any, result: RenderResult) -> None:
    """The pack's JSON documents; a path outside its layer, or not .json, is the pack's bug."""
    if not isinstance(documents, Mapping):
        raise PackError(f"pack {pack.name}: documents in {pack.root / 'pack.py'} returned {type(documents).__name__}, "
                        "not a mapping of paths to JSON data")
    for path, data in sorted(documents.items()):
        if not isinstance(path, str) or not DOCUMENT_PATH.match(path) or ".." in path.split("/"):
            raise PackError(f"pack {pack.name}: document path {path!r} must be relative, lower case and end in .json")
        result.documents.append(RenderedDocument(pack.name, pack.manifest.layer, path, data))


def _lookup(pack: Pack, context: dict[str, Any], what: str, dotted: str) -> Any:
    return conformance.lookup(pack.name, pack.root / "pack.yaml", what, context, dotted)


def _render_releases(pack: Pack, config: Any, context: dict[str, Any], result: RenderResult, pins: Any) -> None:
    for pinned in pack.manifest.helm_releases:
        release = charts.apply(pinned, pins)  # the spec's charts: entry, if any
        if release.when and not _lookup(pack, context, f"helmReleases[{release.name}].when", release.when):
            continue
        docs = _render_text(pack, release.values, context, result)
        if docs is None:
            continue
        values = docs[0] if docs else {}
        user = overrides.values(config, release)
        values = nested.merge(values, user)
        result.releases.append(RenderedRelease(pack.name, pack.manifest.layer, release, values, user))
