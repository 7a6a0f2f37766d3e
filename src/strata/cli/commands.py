"""The click commands. Each parses its options, calls strata.pipeline or a core module,
and reports; none decides anything itself."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import click

from strata import __version__, pipeline, rules as core_rules
from strata import hydrate as hydrate_lib
from strata.cli.report import echo_problems
from strata.errors import ProblemsFound, UsageError
from strata.output import lock as lockfile
from strata.output import writer
from strata.packs.loader import discover
from strata.problems import has_errors
from strata.validate import schema_store as store_lib

_format = "text"


def current_format() -> str:
    return _format


def _set_format(ctx: click.Context, param: click.Parameter, value: str) -> str:
    global _format
    _format = value
    return value


format_option = click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
                             callback=_set_format, expose_value=True, is_eager=True, help="Output for people or machines.")
store_option = click.option("--schema-store", type=click.Path(file_okay=False, path_type=Path), default=None,
                            help="CRD schema store (default: $STRATA_SCHEMA_STORE or ~/.cache/strata/schemas).")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="strata")
def cli() -> None:
    """Render a typed GPU-platform spec for Amazon EKS into validated, Git-ready manifests."""


def _read_specs(paths: tuple[Path, ...]) -> list[tuple[str, bytes]]:
    if not paths:
        raise UsageError("give at least one spec file with -f")
    return [(str(p), p.read_bytes()) for p in paths]


@cli.command()
@click.option("-f", "--file", "files", multiple=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="A spec layer; repeat to layer files left to right (maps merge).")
@click.option("-o", "--output", "out_dir", required=True, type=click.Path(path_type=Path), help="The output directory.")
@click.option("--check", is_flag=True, help="Write nothing; exit 1 with a diff if the tree on disk differs.")
@click.option("--no-validate", is_flag=True, help="Skip kubeconform and kustomize.")
@click.option("--hydrate", "with_hydration", is_flag=True, help="Also run helm template for every release (offline, from --charts).")
@click.option("--charts", "chart_cache", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Chart cache for --hydrate (default: $STRATA_CHART_CACHE or ~/.cache/strata/charts).")
@store_option
@format_option
def render(files: tuple[Path, ...], out_dir: Path, check: bool, no_validate: bool, with_hydration: bool,
           chart_cache: Path | None, schema_store: Path | None, fmt: str) -> None:
    """Render spec layers into an output tree (validated before it is written)."""
    loaded = pipeline.load(_read_specs(files))
    problems = list(loaded.problems)
    if has_errors(problems):
        raise ProblemsFound(problems)
    previous = lockfile.read(out_dir) if out_dir.is_dir() else None
    tree, render_problems = pipeline.render(loaded, previous)
    problems += render_problems
    if with_hydration and not has_errors(problems):
        cache = chart_cache or hydrate_lib.default_chart_cache()
        tree = hydrate_lib.render_hydrated(loaded, tree, cache, schema_store or schema_store_default())
    if has_errors(problems):
        raise ProblemsFound(problems)
    if check:
        _check(out_dir, tree, problems, fmt)
        return
    version = loaded.spec.cluster.kubernetes_version
    _write(out_dir, tree, problems, None if no_validate else (version, schema_store or schema_store_default()), fmt)


def _write(out_dir: Path, tree: dict[str, bytes], problems: list, validation: tuple[str, Path] | None, fmt: str) -> None:
    """Stage the tree, validate it there (kubernetes version, schema store) unless told not
    to, then move it in and report; nothing is written when validation finds an error."""
    the_plan = writer.plan(out_dir, tree)
    with writer.staged(out_dir, tree) as stage:
        if validation:
            problems = problems + pipeline.validate_tree(stage, list(tree), *validation, str(out_dir))
            if has_errors(problems):
                raise ProblemsFound(problems)
        writer.commit(stage, out_dir, tree, the_plan)
    echo_problems(problems, fmt, {"written": list(the_plan.changed), "removed": list(the_plan.stale)})
    if fmt == "text":
        click.echo(f"{out_dir}: {len(the_plan.changed)} written, {len(the_plan.unchanged)} unchanged, {len(the_plan.stale)} removed", err=True)


def schema_store_default() -> Path:
    return store_lib.default_store()


def _check(out_dir: Path, tree: dict[str, bytes], problems: list, fmt: str) -> None:
    """CI output: a line per changed file and object, then the unified diff; exit 1 on drift."""
    drifts = writer.diff(out_dir, tree)
    drift_problems = [dataclasses.replace(core_rules.DRIFT.problem((), d.summary()), where=str(out_dir)) for d in drifts]
    if fmt == "json":
        echo_problems(problems + drift_problems, fmt, {
            "diff": [{"status": d.status, "path": d.path, "object": d.what or None, "diff": d.diff} for d in drifts]})
    else:
        echo_problems(problems, fmt)
        for d in drifts:
            click.echo(d.summary())
        for d in drifts:
            click.echo(d.diff, nl=False)
    if drifts:
        if fmt == "text":
            click.echo(f"{out_dir}: {len(drifts)} file(s) differ from the spec; run strata render to update", err=True)
        sys.exit(1)


@cli.command()
@click.argument("out_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@store_option
@format_option
def validate(out_dir: Path, schema_store: Path | None, fmt: str) -> None:
    """Validate an output tree with kubeconform (strict) and kustomize build."""
    previous = lockfile.read(out_dir)
    if previous is None or not previous.kubernetes_version:
        raise UsageError(f"{out_dir} has no {lockfile.LOCK_NAME}; validate works on trees strata rendered")
    problems = pipeline.validate_tree(out_dir, sorted(previous.files), previous.kubernetes_version,
                                      schema_store or schema_store_default(), str(out_dir))
    if has_errors(problems):
        raise ProblemsFound(problems)
    echo_problems(problems, fmt, {"files": len(pipeline.manifest_files(list(previous.files)))})
    if fmt == "text":
        click.echo(f"{out_dir}: {len(pipeline.manifest_files(list(previous.files)))} objects valid", err=True)


chart_cache_option = click.option("--charts", "chart_cache", type=click.Path(file_okay=False, path_type=Path), default=None,
                                  help="Chart cache of `helm pull` archives (default: $STRATA_CHART_CACHE or ~/.cache/strata/charts).")


def _read_lock(out_dir: Path) -> lockfile.Lock:
    previous = lockfile.read(out_dir)
    if previous is None or not previous.kubernetes_version:
        raise UsageError(f"{out_dir} has no {lockfile.LOCK_NAME}; run strata render first")
    return previous


@cli.command()
@click.argument("out_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@chart_cache_option
@click.option("--no-validate", is_flag=True, help="Skip kubeconform and kustomize.")
@store_option
@format_option
def hydrate(out_dir: Path, chart_cache: Path | None, no_validate: bool, schema_store: Path | None, fmt: str) -> None:
    """Add `helm template` output of every pinned release to a rendered tree (offline)."""
    previous = _read_lock(out_dir)
    store = schema_store or schema_store_default()
    tree = hydrate_lib.hydrate(out_dir, previous, chart_cache or hydrate_lib.default_chart_cache(), store)
    _write(out_dir, tree, [], None if no_validate else (previous.kubernetes_version, store), fmt)


@cli.group()
def charts() -> None:
    """Manage the local chart cache hydration reads."""


@charts.command("pull")
@click.argument("out_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@chart_cache_option
def charts_pull(out_dir: Path, chart_cache: Path | None) -> None:
    """Download (helm pull) the pinned chart of every release in a rendered tree's lock."""
    cache = chart_cache or hydrate_lib.default_chart_cache()
    fetched = hydrate_lib.pull(cache, _read_lock(out_dir))
    click.echo(f"{cache}: {len(fetched)} chart(s) pulled", err=True)


@cli.group()
def packs() -> None:
    """Inspect installed packs."""


@packs.command("list")
@format_option
def packs_list(fmt: str) -> None:
    """Show every pack: name, version, source."""
    found = discover()
    if fmt == "json":
        click.echo(json.dumps([{"name": p.name, "version": p.version, "source": p.source, "layer": p.manifest.layer,
                                "summary": p.manifest.summary} for p in found], indent=2))
        return
    width = max((len(p.name) for p in found), default=4)
    for p in found:
        click.echo(f"{p.name:<{width}}  {p.version:<8}  {p.source:<12}  {p.manifest.summary}")


def _all_rules() -> list[core_rules.Rule]:
    found = [*core_rules.CORE_RULES, *hydrate_lib.RULES]
    for pack in discover():
        found.extend(pack.rules)
    return sorted(found, key=lambda r: r.id)


@cli.command("rules")
@format_option
def list_rules(fmt: str) -> None:
    """List every rule id with its reason."""
    found = _all_rules()
    if fmt == "json":
        click.echo(json.dumps([{"id": r.id, "severity": r.severity.value, "summary": r.summary, "fix": r.fix} for r in found], indent=2))
        return
    width = max(len(r.id) for r in found)
    for r in found:
        click.echo(f"{r.id:<{width}}  {r.severity.value:<7}  {r.summary}")


@cli.command()
@click.argument("rule_id")
def explain(rule_id: str) -> None:
    """Explain a rule: why it exists and how to fix what it reports."""
    found = {r.id: r for r in _all_rules()}
    rule = found.get(rule_id)
    if rule is None:
        import difflib

        close = difflib.get_close_matches(rule_id, list(found), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else "; strata rules lists them"
        raise UsageError(f"no rule {rule_id!r}{hint}")
    click.echo(f"{rule.id} ({rule.severity.value})\n\nwhy: {rule.summary}\nfix: {rule.fix}")


@cli.group()
def schemas() -> None:
    """Manage the CRD schema store kubeconform validates against."""


@schemas.command("import")
@click.argument("sources", nargs=-1)
@click.option("--pack-crds", type=click.Path(exists=True, file_okay=False, path_type=Path), default=None,
              help="A directory of CRD sets (<set>/*.yaml): import the sets the installed packs declare.")
@store_option
def schemas_import(sources: tuple[str, ...], pack_crds: Path | None, schema_store: Path | None) -> None:
    """Convert CustomResourceDefinitions (files, directories or -) into the schema store."""
    store = schema_store or schema_store_default()
    if not sources and pack_crds is None:
        raise UsageError("give CRD files or directories, '-', or --pack-crds DIR")
    for source in sources:
        if source != "-" and not Path(source).exists():
            raise UsageError(f"{source}: no such file or directory")
    chosen = [*sources, *(pack_crd_sets(pack_crds) if pack_crds else [])]
    written = store_lib.import_crds(chosen, store, stdin=sys.stdin)
    click.echo(f"{store}: {len(written)} schema(s) written", err=True)


def pack_crd_sets(directory: Path) -> list[Path]:
    """The CRD set directories (pack.yaml `crds`) of every installed pack."""
    sets = sorted({s for pack in discover() for s in pack.manifest.crds})
    missing = [s for s in sets if not (directory / s).is_dir()]
    if missing:
        raise UsageError(f"{directory} lacks the CRD sets {', '.join(missing)}")
    return [directory / s for s in sets]
