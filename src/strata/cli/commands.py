"""The click commands. Each parses its options, calls strata.pipeline or a core module,
and reports; none decides anything itself."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from strata import __version__, pipeline, progress as progress_lib, rules as core_rules, tools
from strata.cli.report import echo_problems
from strata.errors import CheckFailed, ProblemsFound, UsageError
from strata.output import rendered
from strata.problems import has_errors
from strata.validate import schema_store as store_lib

# Imported where a command needs them (hydrate, the API server, the packs): a render --check
# proven current by its record loads none of them.

_format = "text"


def current_format() -> str:
    return _format


def _set_format(ctx: click.Context, param: click.Parameter, value: str) -> str:
    global _format
    _format = value
    return value


format_option = click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
                             callback=_set_format, expose_value=True, is_eager=True, help="Output for people or machines.")
server_option = click.option(
    "--server", "server", is_flag=True,
    help="Also dry-run every object on a throwaway local kube-apiserver (CEL rules, built-in validation, Pod Security).")
crds_option = click.option("--crds", "crds_dir", type=click.Path(exists=True, file_okay=False, path_type=Path), default=None,
                           help="CRD YAML for --server, one directory per CRD set (default: $STRATA_CRDS).")
store_option = click.option("--schema-store", type=click.Path(file_okay=False, path_type=Path), default=None,
                            help="CRD schema store (default: $STRATA_SCHEMA_STORE or ~/.cache/strata/schemas).")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="strata")
@click.option("-q", "--quiet", is_flag=True, help="No progress lines on stderr (they are off anyway when stderr is not a terminal).")
@click.option("--tools-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Look for the pinned binaries in DIR/bin first (default: $STRATA_TOOLS_DIR; then the user cache "
                   "`strata tools install` fills, then PATH).")
def cli(quiet: bool, tools_dir: Path | None) -> None:
    """Render a typed GPU-platform spec for Amazon EKS into validated, Git-ready manifests."""
    progress_lib.configure(quiet)
    tools.use_tools_dir(tools_dir)


def progress(message: str) -> None:
    progress_lib.note(message)


def _read_specs(paths: tuple[Path, ...]) -> list[tuple[str, bytes]]:
    if not paths:
        raise UsageError("give at least one spec file with -f")
    return [(str(p), p.read_bytes()) for p in paths]


@cli.command()
@click.option("-f", "--file", "files", multiple=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="A spec layer; repeat to layer files left to right (maps merge).")
@click.option("-o", "--output", "out_dir", required=True, type=click.Path(path_type=Path), help="The output directory.")
@click.option("--check", is_flag=True, help="Write nothing; exit 1 with a diff if the tree on disk differs, or if it is not valid.")
@click.option("--no-validate", is_flag=True, help="Skip kubeconform and kustomize (with --check too).")
@click.option("--hydrate", "with_hydration", is_flag=True, help="Also run helm template for every release (offline, from --charts).")
@click.option("--charts", "chart_cache", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Chart cache for --hydrate (default: $STRATA_CHART_CACHE or ~/.cache/strata/charts).")
@server_option
@crds_option
@store_option
@format_option
def render(files: tuple[Path, ...], out_dir: Path, check: bool, no_validate: bool, with_hydration: bool,
           chart_cache: Path | None, server: bool, crds_dir: Path | None, schema_store: Path | None, fmt: str) -> None:
    """Render spec layers into an output tree (validated before it is written)."""
    store = schema_store or schema_store_default()
    outcome = pipeline.render_tree(pipeline.RenderRequest(
        specs=_read_specs(files),
        out_dir=out_dir,
        check=check,
        validation=None if no_validate else _validation(store, server, crds_dir),
        hydration=pipeline.Hydration(chart_cache or _default_chart_cache(), store) if with_hydration else None,
        render_cache=rendered.default_cache(),
    ))
    if outcome.checked:
        _report_check(outcome, fmt)
    else:
        _report_written(outcome, fmt)


def _report_written(outcome: pipeline.Outcome, fmt: str) -> None:
    if has_errors(outcome.problems) or outcome.plan is None:
        raise ProblemsFound(outcome.problems)
    the_plan = outcome.plan
    echo_problems(outcome.problems, fmt, {"written": list(the_plan.changed), "removed": list(the_plan.stale)})
    if fmt == "text":
        click.echo(f"{outcome.out_dir}: {len(the_plan.changed)} written, {len(the_plan.unchanged)} unchanged, {len(the_plan.stale)} removed", err=True)


def schema_store_default() -> Path:
    return store_lib.default_store()


def _default_chart_cache() -> Path:
    from strata import hydrate as hydrate_lib

    return hydrate_lib.default_chart_cache()


def _validation(store: Path, server: bool, crds_dir: Path | None) -> pipeline.Validation:
    if not server:
        return pipeline.Validation(store)
    from strata.validate import server as api_server

    return pipeline.Validation(store, server=api_server.ServerValidation(crds_dir))


def _report_check(outcome: pipeline.Outcome, fmt: str) -> None:
    """CI output: problems, a line per changed file and object, then the unified diff."""
    drifts = outcome.drift
    if fmt == "json":
        echo_problems(outcome.problems + outcome.drift_problems(), fmt, {
            "validated": outcome.validated,
            "diff": [{"status": d.status, "path": d.path, "object": d.what or None, "diff": d.diff} for d in drifts]})
    else:
        echo_problems(outcome.problems, fmt)
        for d in drifts:
            click.echo(d.summary())
        for d in drifts:
            click.echo(d.diff, nl=False)
        if drifts:
            click.echo(f"{outcome.out_dir}: {len(drifts)} file(s) differ from the spec; run strata render to update", err=True)
    if outcome.failed:
        raise CheckFailed("render --check failed")


@cli.command()
@click.argument("out_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@server_option
@crds_option
@store_option
@format_option
def validate(out_dir: Path, server: bool, crds_dir: Path | None, schema_store: Path | None, fmt: str) -> None:
    """Validate an output tree with kubeconform (strict) and kustomize build (--server: and a real API server)."""
    outcome = pipeline.validate_tree(out_dir, _validation(schema_store or schema_store_default(), server, crds_dir))
    if has_errors(outcome.problems):
        raise ProblemsFound(outcome.problems)
    echo_problems(outcome.problems, fmt, {"files": outcome.objects})
    if fmt == "text":
        from strata.validate import server as api_server

        on_server = f" (and on kube-apiserver {api_server.versions()['kube-apiserver']})" if server else ""
        click.echo(f"{out_dir}: {outcome.objects} objects valid{on_server}", err=True)


chart_cache_option = click.option("--charts", "chart_cache", type=click.Path(file_okay=False, path_type=Path), default=None,
                                  help="Chart cache of `helm pull` archives (default: $STRATA_CHART_CACHE or ~/.cache/strata/charts).")


@cli.command()
@click.argument("out_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@chart_cache_option
@click.option("--no-validate", is_flag=True, help="Skip kubeconform and kustomize.")
@store_option
@format_option
def hydrate(out_dir: Path, chart_cache: Path | None, no_validate: bool, schema_store: Path | None, fmt: str) -> None:
    """Add `helm template` output of every pinned release to a rendered tree (offline)."""
    store = schema_store or schema_store_default()
    outcome = pipeline.hydrate_tree(out_dir, pipeline.Hydration(chart_cache or _default_chart_cache(), store),
                                    None if no_validate else pipeline.Validation(store))
    _report_written(outcome, fmt)


@cli.group()
def charts() -> None:
    """Manage the local chart cache hydration reads."""


@charts.command("pull")
@click.argument("out_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@chart_cache_option
def charts_pull(out_dir: Path, chart_cache: Path | None) -> None:
    """Download (helm pull) the pinned chart of every release in a rendered tree's lock."""
    from strata import hydrate as hydrate_lib

    cache = chart_cache or _default_chart_cache()
    fetched = hydrate_lib.pull(cache, pipeline.rendered_lock(out_dir))
    click.echo(f"{cache}: {len(fetched)} chart(s) pulled", err=True)


@cli.group()
def packs() -> None:
    """Inspect installed packs."""


@packs.command("list")
@format_option
def packs_list(fmt: str) -> None:
    """Show every pack: name, version, source."""
    from strata.packs.loader import discover

    found = discover()
    if fmt == "json":
        click.echo(json.dumps([{"name": p.name, "version": p.version, "source": p.source, "layer": p.manifest.layer,
                                "summary": p.manifest.summary} for p in found], indent=2))
        return
    width = max((len(p.name) for p in found), default=4)
    for p in found:
        click.echo(f"{p.name:<{width}}  {p.version:<8}  {p.source:<12}  {p.manifest.summary}")


def _all_rules() -> list[core_rules.Rule]:
    return core_rules.registry()


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
    chosen: list[str | Path] = [*sources, *(pack_crd_sets(pack_crds) if pack_crds else [])]
    written = store_lib.import_crds(chosen, store, stdin=sys.stdin)
    click.echo(f"{store}: {len(written)} schema(s) written", err=True)


def pack_crd_sets(directory: Path) -> list[Path]:
    """The CRD set directories (pack.yaml `crds`) of every installed pack."""
    from strata.packs.loader import discover

    sets = sorted({s for pack in discover() for s in pack.manifest.crds})
    missing = [s for s in sets if not (directory / s).is_dir()]
    if missing:
        raise UsageError(f"{directory} lacks the CRD sets {', '.join(missing)}")
    return [directory / s for s in sets]
