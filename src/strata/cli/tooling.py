"""`strata tools install` and `strata doctor`: what strata needs on this machine."""

from __future__ import annotations

import json
from pathlib import Path

import click

from strata import doctor as doctor_lib, tools as tools_lib
from strata.cli.commands import chart_cache_option, format_option, progress, schema_store_default, store_option
from strata.errors import CheckFailed
from strata.tools import install as install_lib


@click.group("tools")
def tools() -> None:
    """The pinned binaries strata runs (kubeconform, helm, kustomize, promtool; etcd and kube-apiserver)."""


@tools.command("install")
@click.option("--server", is_flag=True,
              help="Also build etcd and kube-apiserver for validate --server (slow: about a quarter of an hour, once).")
@click.option("--from", "source", type=click.Path(exists=True, file_okay=False, path_type=Path), default=None,
              help="Link binaries already built (e.g. a checkout's .tools/bin) instead of building them; "
                   "each must be of the pinned version.")
def tools_install(server: bool, source: Path | None) -> None:
    """Build the pinned binaries with `go install` into the per-user cache (what is there is kept)."""
    if source is not None:
        installed = install_lib.adopt(source, server)
    else:
        installed = install_lib.install(server, progress)
    by_name = {i.pin.name: i for i in installed}
    for pin in install_lib.selected(server):
        item = by_name.get(pin.name)
        state = "missing" if item is None else "installed" if item.built else "already installed"
        click.echo(f"{pin.name:<15} {pin.version:<9} {state:<18} {item.path if item else ''}".rstrip())
    missing = [p.name for p in install_lib.selected(server) if p.name not in by_name]
    if missing:
        raise CheckFailed(f"{', '.join(missing)} not in {source}")
    if not server:
        click.echo(f"{tools_lib.cache_dir()}: etcd and kube-apiserver (validate --server) need strata tools install --server",
                   err=True)


@click.command("doctor")
@store_option
@chart_cache_option
@format_option
def doctor(schema_store: Path | None, chart_cache: Path | None, fmt: str) -> None:
    """One table: the pinned tools (found where, which version), schemas, chart cache, Kubernetes versions."""
    rows = doctor_lib.rows(schema_store or schema_store_default(), chart_cache or doctor_lib.default_chart_cache())
    if fmt == "json":
        click.echo(json.dumps([{"check": r.check, "expected": r.expected, "found": r.found, "status": r.status, "hint": r.hint}
                               for r in rows], indent=2))
    else:
        widths = [max(len(getattr(r, f)) for r in rows) for f in ("check", "expected", "status")]
        click.echo(f"{'CHECK':<{widths[0]}}  {'EXPECTED':<{widths[1]}}  {'STATUS':<{max(widths[2], 6)}}  FOUND")
        for r in rows:
            hint = f"  -> {r.hint}" if r.hint and r.status != doctor_lib.OK else ""
            click.echo(f"{r.check:<{widths[0]}}  {r.expected:<{widths[1]}}  {r.status:<{max(widths[2], 6)}}  {r.found}{hint}")
    failed = [r for r in rows if r.failed]
    if failed:
        if fmt == "text":
            click.echo(f"strata doctor: {len(failed)} problem(s): {', '.join(r.check for r in failed)}", err=True)
        raise CheckFailed("doctor found problems")
