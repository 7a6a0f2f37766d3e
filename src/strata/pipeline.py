"""The core of strata, free of any CLI concern. One sequence, each step a function below:

    load (merge layers, validate the spec)  ->  check (policy rules)
    ->  render the platform packs  ->  hydrate (helm template, in memory)
    ->  render the inventory packs (GitOps), seeing which releases are hydrated
    ->  plan (what changes on disk)  ->  validate (staged tree)  ->  write, or check drift

``render_tree`` runs it for `strata render` and returns a typed ``Outcome`` that the CLI only
prints; ``hydrate_tree`` and ``validate_tree`` are the same steps for an existing tree."""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from strata import __version__, rules
from strata.errors import UsageError
from strata.output import rendered
from strata.output.layout import HELM_DIR, KUSTOMIZATION, LOCK_NAME
from strata.problems import Problem, has_errors, sorted_problems
from strata.progress import step as progress_step
from strata.rules import Rule
from strata.validate import record

# The steps import what they run when they run it (pydantic models, Jinja, the packs): a
# `render --check` that a render record proves current needs none of it (output/rendered.py).
if TYPE_CHECKING:
    from strata import waivers as waiver_lib
    from strata.output import writer
    from strata.output.lock import Lock
    from strata.packs.contract import Pack
    from strata.packs.facts import PackFacts
    from strata.render import memo as render_memo
    from strata.spec import sources as spec_sources


@dataclasses.dataclass
class Loaded:
    spec: Any | None
    packs: tuple[Pack, ...]
    sources: spec_sources.SourceMap
    digest: str
    problems: list[Problem]
    facts: PackFacts | None = None  # every enabled pack's exports, computed once for the spec
    waivers: tuple[waiver_lib.Applied, ...] = ()  # the spec's waivers that accepted an error


def load(files: list[tuple[str, bytes]], packs: tuple[Pack, ...] | None = None, out_dir: Path | None = None) -> Loaded:
    """Merge the layers, validate them and run every policy check; problems are collected.
    With ``out_dir``, spec fields naming the tree's place in Git are checked against it."""
    from strata import waivers as waiver_lib
    from strata.output import repository
    from strata.packs import facts as pack_facts
    from strata.packs.loader import discover
    from strata.spec import sources as spec_sources, validate as spec_validate

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
        if out_dir is not None:
            problems.extend(_locate(repository.problems(spec, packs, out_dir), layers.sources))
    applied: tuple[waiver_lib.Applied, ...] = ()
    if spec is not None and spec.waivers:
        known = {r.id for r in rules.CORE_RULES} | {r.id for p in packs for r in p.rules}
        problems, applied = waiver_lib.apply(spec.waivers, problems, layers.data, known, datetime.date.today())
        problems = _locate(problems, layers.sources)
    digest = "sha256:" + hashlib.sha256(json.dumps(layers.data, sort_keys=True, default=str).encode()).hexdigest()
    return Loaded(spec, packs, layers.sources, digest, sorted_problems(problems), facts, applied)


def check(spec: Any, packs: tuple[Pack, ...], facts: PackFacts | None = None) -> list[Problem]:
    from strata import overrides
    from strata.charts import check as check_chart_pins
    from strata.packs import facts as pack_facts, paths as pack_paths
    from strata.spec.model import SUPPORTED_KUBERNETES

    facts = facts if facts is not None else pack_facts.compute(spec, packs)
    core = pack_facts.core_spec(spec)
    problems: list[Problem] = []
    version = spec.cluster.kubernetes_version
    if version not in SUPPORTED_KUBERNETES:
        problems.append(rules.KUBERNETES_VERSION.problem(
            ("cluster", "kubernetesVersion"), f"Kubernetes {version} is outside the supported range {SUPPORTED_KUBERNETES[0]}-{SUPPORTED_KUBERNETES[-1]}"))
    problems.extend(_check_region(spec.cluster.region))
    problems.extend(check_chart_pins(spec.charts, packs))
    minor = _minor(version)
    for pack in packs:
        config = pack_facts.pack_config(spec, pack)
        if config is None:
            continue
        low, high = pack.manifest.kubernetes
        # Outside strata's own range the core rule has said it already.
        if version in SUPPORTED_KUBERNETES and not _minor(low) <= minor <= _minor(high):
            problems.append(rules.PACK_KUBERNETES.problem(
                (pack.field_name,) if getattr(spec, pack.field_name, None) is not None else ("cluster", "kubernetesVersion"),
                f"pack {pack.name} {pack.version} supports Kubernetes {low}-{high}, not {version}"))
        own: list[Problem] = []
        if pack.check:
            found = pack.call("check", core, config, facts.for_pack(pack))
            own = [dataclasses.replace(p, path=pack_paths.resolve(p.path, pack.field_name, type(spec))) for p in found]
        problems.extend(own)
        # The engine's own override checks give whole spec paths; a pack rule that explains a key wins.
        problems.extend(overrides.unexplained(overrides.check(pack, config), own))
    return problems


def _check_region(region: str) -> list[Problem]:
    from strata import catalog

    if region in catalog.regions():
        return []
    close = catalog.suggest_region(region)
    hint = f"; did you mean {close!r}?" if close else ""
    return [rules.UNKNOWN_REGION.problem(("cluster", "region"), f"{region!r} is not an AWS region{hint}")]


def _minor(version: str) -> tuple[int, ...]:
    return tuple(int(x) for x in version.split("."))


def _locate(problems: list[Problem], sources: spec_sources.SourceMap) -> list[Problem]:
    return [p if p.mark else dataclasses.replace(p, mark=sources.lookup(p.path, prefer_key=False)) for p in problems]


# --- settings of a run -------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Target:
    """What a validator checks: a tree staged on disk, before it is written or accepted."""

    root: Path
    files: tuple[str, ...]  # every file of the tree, relative to root
    lock: Lock  # the tree's lock: Kubernetes version, CRD schema sets, releases
    display: str  # how problems name the tree (the output directory as the user gave it)

    @property
    def manifests(self) -> list[str]:
        return manifest_files(self.files)


Validator = Callable[[Target], list[Problem]]


@dataclasses.dataclass(frozen=True)
class Validation:
    """How trees are validated. Offline validation always runs; every validator sees the
    same staged tree and their problems are reported together."""

    schema_store: Path
    server: Validator | None = None  # `--server`: validate.server.ServerValidation

    def validators(self) -> tuple[Validator, ...]:
        return (self.offline,) if self.server is None else (self.offline, self.server)

    def record_key(self, lock: bytes) -> str | None:
        return record.key(lock, [v.__name__ for v in self.validators()], self.schema_store)

    def offline(self, target: Target) -> list[Problem]:
        """kubeconform (strict, schema store) over every manifest, and kustomize build."""
        from strata import tools
        from strata.validate.tree import validate as validate_tree_files

        tools.require(["kubeconform", "kustomize"])  # every missing one named at once
        manifests = target.manifests
        with progress_step(f"validating {len(manifests)} files (kubeconform, kustomize build)"):
            return validate_tree_files(target.root, manifests, target.lock.kubernetes_version, self.schema_store, target.display)


@dataclasses.dataclass(frozen=True)
class Hydration:
    """Run helm template for every release, offline, from ``chart_cache``; API versions
    and custom kinds' scopes come from ``schema_store``."""

    chart_cache: Path
    schema_store: Path


@dataclasses.dataclass(frozen=True)
class RenderRequest:
    specs: list[tuple[str, bytes]]  # (file name, content), merged left to right
    out_dir: Path
    check: bool = False  # write nothing; report drift against the tree on disk
    validation: Validation | None = None  # None only for an explicit --no-validate
    hydration: Hydration | None = None
    # Where render records are kept (output/rendered.py): a check whose inputs a record
    # names proves the tree current without loading the spec. None: no records.
    render_cache: Path | None = None


# --- what a run produced ------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Outcome:
    """The result of a run, for the CLI to print. Nothing was written when ``problems`` holds
    an error, and never in a check."""

    out_dir: Path
    problems: list[Problem]
    objects: int = 0  # Kubernetes manifests in the tree
    plan: writer.Plan | None = None  # written: changed / unchanged / removed files
    drift: tuple[writer.Drift, ...] = ()  # check: how the tree on disk differs
    checked: bool = False
    validated: bool = False

    @property
    def failed(self) -> bool:
        return has_errors(self.problems) or bool(self.drift)

    def drift_problems(self, rule: Rule = rules.DRIFT) -> list[Problem]:
        return [dataclasses.replace(rule.problem((), d.summary()), where=str(self.out_dir)) for d in self.drift]


@dataclasses.dataclass(frozen=True)
class Produced:
    """A tree in memory: every file (path -> bytes, the lock included) and its lock."""

    files: dict[str, bytes]
    lock: Lock
    problems: list[Problem]


# --- the steps ----------------------------------------------------------------------------


def render_tree(request: RenderRequest) -> Outcome:
    """`strata render`: load, check, render, hydrate, plan, validate, then write or check."""
    key = _inputs_key(request)
    if request.check and key is not None:
        proven = check_recorded(request, key)
        if proven is not None:
            return proven
    loaded = load(request.specs, out_dir=request.out_dir)
    if has_errors(loaded.problems):
        return Outcome(request.out_dir, loaded.problems)
    previous = read_previous(request.out_dir)
    if request.check and previous is not None and unchanged(request, loaded, previous):
        outcome = check_unchanged(request.out_dir, loaded, previous, request.validation)
        if not outcome.failed:
            _remember(request, key, (request.out_dir / LOCK_NAME).read_bytes(), previous.digests, loaded.problems, outcome.objects)
        return outcome
    memo, previous_lock = _memo(request, previous)
    produced = produce(loaded, previous, request.hydration, memo)
    produced = dataclasses.replace(produced, problems=sorted_problems([*loaded.problems, *produced.problems]))  # spec warnings
    if has_errors(produced.problems):
        return Outcome(request.out_dir, produced.problems)
    if request.check:
        return check_tree(request.out_dir, produced, previous, request.validation)
    outcome = write_tree(request.out_dir, produced, previous, request.validation)
    if outcome.plan is not None and not has_errors(outcome.problems):
        _remember(request, key, produced.files[LOCK_NAME], _owned_digests(request.out_dir, produced), loaded.problems, outcome.objects)
        if memo is not None and request.render_cache is not None:
            from strata.render import memo as render_memo

            render_memo.save(request.render_cache, memo, rendered.digest(produced.files[LOCK_NAME]), previous_lock)
    return outcome


def _memo(request: RenderRequest, previous: Lock | None) -> tuple[render_memo.Memo | None, str | None]:
    """The documents of the tree's last render (an empty memo for a first render), and the
    digest of the lock they belong to; none without a render cache."""
    if request.render_cache is None:
        return None, None
    from strata.render import memo as render_memo

    if previous is None:
        return render_memo.Memo(), None
    try:
        lock_digest = rendered.digest((request.out_dir / LOCK_NAME).read_bytes())
    except OSError:
        return render_memo.Memo(), None
    return render_memo.load(request.render_cache, lock_digest), lock_digest


def _inputs_key(request: RenderRequest) -> str | None:
    if request.render_cache is None:
        return None
    hydration = (request.hydration.chart_cache, request.hydration.schema_store) if request.hydration else None
    return rendered.inputs_key(request.specs, request.out_dir, hydration)


def check_recorded(request: RenderRequest, key: str) -> Outcome | None:
    """--check of a tree that a render record proves current (output/rendered.py): the
    spec's problems as that render printed them, and no validation when the same tree
    already validated with the same validators, binaries and schemas. None: check fully."""
    assert request.render_cache is not None
    proven = rendered.current(request.render_cache, key, request.out_dir)
    if proven is None:
        return None
    if request.validation and not record.recorded(request.validation.record_key(proven.lock), request.validation.schema_store):
        return None  # the full check validates (and records it)
    return Outcome(request.out_dir, sorted_problems(proven.problems), objects=proven.objects, checked=True,
                   validated=request.validation is not None)


def _remember(request: RenderRequest, key: str | None, lock: bytes, digests: dict[str, str], problems: list[Problem],
              objects: int) -> None:
    if request.render_cache is not None:
        rendered.remember(request.render_cache, key, lock, digests, problems, objects)


def _owned_digests(out_dir: Path, produced: Produced) -> dict[str, str]:
    """The digest of every file the written tree's lock owns but the lock: rendered files
    from the lock, hydrated output from this run or, kept from an earlier one, from disk."""
    digests = dict(produced.lock.digests)
    for rel in produced.lock.hydrated_files:
        content = produced.files.get(rel)
        if content is None:
            try:
                content = (out_dir / rel).read_bytes()
            except OSError:
                continue  # not on disk: the record cannot vouch for it, a check renders
        digests[rel] = rendered.digest(content)
    return digests


def unchanged(request: RenderRequest, loaded: Loaded, previous: Lock) -> bool:
    """The tree on disk is exactly what rendering would write, proven without rendering:
    the lock was written by this strata version from this spec with these packs, and every
    file it owns has the digest it records. Anything else (hydration, a lock without
    digests, a hand edit, a missing or extra owned file) renders and diffs as usual."""
    from strata.packs.facts import pack_config

    spec = loaded.spec
    enabled = sorted((p.name, p.version, p.source) for p in loaded.packs if pack_config(spec, p) is not None)
    if (previous.strata_version != __version__ or previous.spec_digest != loaded.digest
            or [(p.name, p.version, p.source) for p in previous.packs] != enabled
            or request.hydration is not None or previous.hydrated or not previous.digests
            or set(previous.files) != {*previous.digests, LOCK_NAME}):
        return False
    out = str(request.out_dir)
    try:
        with open(os.path.join(out, LOCK_NAME), "rb") as f:
            if f.read() != previous.dump():  # the lock itself as strata writes it
                return False
        for rel, expected in previous.digests.items():
            with open(os.path.join(out, rel), "rb") as f:
                if rendered.digest(f.read()) != expected:
                    return False
    except OSError:
        return False
    return True


def check_unchanged(out_dir: Path, loaded: Loaded, previous: Lock, validation: Validation | None) -> Outcome:
    """--check of a tree proven current: validated unless the same tree already validated
    with the same validators, binaries and schemas (validate/record.py)."""
    problems = list(loaded.problems)
    if validation:
        key = validation.record_key((out_dir / LOCK_NAME).read_bytes())
        if not record.recorded(key, validation.schema_store):
            target = Target(out_dir, tuple(sorted(previous.files)), previous, str(out_dir))
            found = sorted_problems(p for validator in validation.validators() for p in validator(target))
            if not found:
                record.record(key, validation.schema_store)
            problems += found
    return Outcome(out_dir, sorted_problems(problems), objects=_objects(previous), checked=True,
                   validated=validation is not None)


def read_previous(out_dir: Path) -> Lock | None:
    from strata.output import lock as lockfile

    return lockfile.read(out_dir) if out_dir.is_dir() else None


def produce(loaded: Loaded, previous: Lock | None, hydration: Hydration | None = None,
            memo: render_memo.Memo | None = None) -> Produced:
    """The whole output tree in memory, hydrated when asked. Hydrated output a previous lock
    records stays owned (and on disk) while its release's chart version and values are
    unchanged. ``memo``: the documents of the tree's last render (render/memo.py)."""
    from strata import hydrate, isolation, secrets
    from strata.output import lock as lockfile, tree as output_tree
    from strata.output.lock import Lock, PackEntry
    from strata.packs import facts as pack_facts
    from strata.render import engine

    spec = loaded.spec
    assert spec is not None, "produce() takes a spec that loaded"
    version = spec.cluster.kubernetes_version
    facts = loaded.facts if loaded.facts is not None else pack_facts.compute(spec, loaded.packs)
    result = engine.render_platform(spec, loaded.packs, facts, memo)
    releases = [(output_tree.release_entry(r), output_tree.values_file(r.values)) for r in result.releases]
    hydrated: list[hydrate.Hydrated] = []
    if hydration is None:
        kept = hydrate.still_current(previous.hydrated if previous else (), releases)
    elif has_errors(result.problems):
        kept = ()
    else:
        with progress_step(f"helm template of {len(releases)} release(s)"):
            hydrated, problems = hydrate.template(releases, version, hydration.chart_cache, hydration.schema_store)
        if problems:
            return Produced({}, Lock(), sorted_problems([*result.problems, *problems]))
        kept = tuple(h.entry for h in hydrated)
    engine.render_inventory(spec, loaded.packs, facts, result, frozenset(h.release for h in kept))
    enabled = [p for p in loaded.packs if engine.pack_config(spec, p) is not None]
    lock = Lock(
        strata_version=__version__,
        spec_digest=loaded.digest,
        kubernetes_version=version,
        packs=tuple(PackEntry(name=p.name, version=p.version, source=p.source)
                    for p in sorted(enabled, key=lambda p: (p.name, p.version, p.source))),
        schemas=tuple(sorted({s for p in enabled for s in p.manifest.crds})),
        hydrated=kept,
        waivers=tuple(lockfile.WaiverEntry(**w.as_dict()) for w in loaded.waivers),
    )
    outside_root = frozenset(p.manifest.layer for p in enabled if not p.manifest.in_root_kustomization)
    files, lock, problems = output_tree.build(result.objects, result.releases, lock, outside_root, memo, result.documents)
    problems = [*result.problems, *problems, *isolation.check(result.objects), *secrets.scan(files)]
    for h in hydrated:  # beside the tree: neither in its kustomizations nor in the secret scan
        files.update(h.files)
    return Produced(dict(sorted(files.items())), lock, sorted_problems(problems))


def render(loaded: Loaded, previous: Lock | None = None) -> tuple[dict[str, bytes], list[Problem]]:
    """The output tree of a loaded spec, not hydrated (for tests and embedding)."""
    produced = produce(loaded, previous)
    return produced.files, produced.problems


def write_tree(out_dir: Path, produced: Produced, previous: Lock | None, validation: Validation | None) -> Outcome:
    """Plan, stage the tree beside the output, validate it there, then move it in. Nothing
    is written when validation finds an error."""
    from strata.output import writer

    the_plan = writer.plan(out_dir, produced.files, produced.lock.owned, previous)
    problems = list(produced.problems)
    # Unvalidated, only what changes is staged: unchanged files are neither written nor touched.
    staging = produced.files if validation or not out_dir.exists() else {f: produced.files[f] for f in the_plan.changed}
    with writer.staged(out_dir, staging) as stage:
        if validation:
            found = validate_staged(stage, produced, validation, str(out_dir))
            problems += found
            if has_errors(problems):
                return Outcome(out_dir, sorted_problems(problems), validated=True)
            if not found:
                record.record(validation.record_key(produced.files[LOCK_NAME]), validation.schema_store)
        writer.commit(stage, out_dir, produced.files, the_plan, previous)
    return Outcome(out_dir, sorted_problems(problems), objects=_objects(produced.lock), plan=the_plan,
                   validated=validation is not None)


def check_tree(out_dir: Path, produced: Produced, previous: Lock | None, validation: Validation | None) -> Outcome:
    """--check: the drift between the tree on disk and the rendered one, and the same
    validation as a render, so a green check means current and valid. Writes nothing."""
    from strata.output import writer

    drift = writer.diff(out_dir, produced.files, produced.lock.owned, previous)
    problems = list(produced.problems)
    if validation:
        with writer.staged(out_dir, produced.files, beside=False) as stage:
            found = validate_staged(stage, produced, validation, str(out_dir))
        if not found:
            record.record(validation.record_key(produced.files[LOCK_NAME]), validation.schema_store)
        problems += found
    return Outcome(out_dir, sorted_problems(problems), objects=_objects(produced.lock), drift=tuple(drift), checked=True,
                   validated=validation is not None)


def validate_staged(root: Path, produced: Produced, validation: Validation, display: str) -> list[Problem]:
    """Every validator over a tree staged at ``root``: the files of this run, not the hydrated
    output kept on disk from an earlier one."""
    target = Target(root, tuple(produced.files), produced.lock, display)
    return sorted_problems(p for validator in validation.validators() for p in validator(target))


def _objects(lock: Lock) -> int:
    return len(manifest_files(lock.files))


def hydrate_tree(out_dir: Path, hydration: Hydration, validation: Validation | None) -> Outcome:
    """`strata hydrate DIR`: add helm template output to a tree rendered earlier."""
    from strata import hydrate

    previous = rendered_lock(out_dir)
    files, lock, problems = hydrate.hydrate_tree(out_dir, previous, hydration.chart_cache, hydration.schema_store)
    if problems:
        return Outcome(out_dir, problems)
    return write_tree(out_dir, Produced(files, lock, []), previous, validation)


def validate_tree(out_dir: Path, validation: Validation) -> Outcome:
    """`strata validate DIR`: every validator over a tree on disk, as strata wrote it."""
    previous = rendered_lock(out_dir, "validate works on trees strata rendered")
    target = Target(out_dir, tuple(sorted(previous.files)), previous, str(out_dir))
    problems = sorted_problems(p for validator in validation.validators() for p in validator(target))
    return Outcome(out_dir, problems, objects=_objects(previous), validated=True)


def rendered_lock(out_dir: Path, hint: str = "run strata render first") -> Lock:
    from strata.output import lock as lockfile

    previous = lockfile.read(out_dir)
    if previous is None or not previous.kubernetes_version:
        raise UsageError(f"{out_dir} has no {LOCK_NAME}; {hint}")
    return previous


def manifest_files(files: Iterable[str]) -> list[str]:
    """The Kubernetes objects of a tree: not kustomizations, Helm values or the lock."""
    return sorted(
        f for f in files
        if f.endswith(".yaml") and Path(f).name != KUSTOMIZATION and f != LOCK_NAME and f"/{HELM_DIR}/" not in f"/{f}"
    )


__all__ = [
    "Loaded", "load", "check", "render", "produce", "render_tree", "hydrate_tree", "validate_tree",
    "RenderRequest", "Validation", "Hydration", "Target", "Validator", "Outcome", "Produced", "manifest_files", "has_errors",
]
