"""`strata init`, `strata schema` and `strata explain`: starting a spec, editor support, and
what a rule wants."""

from __future__ import annotations

import difflib
import json
from importlib import resources
from pathlib import Path

import click

from strata import explain as explain_lib, rules as core_rules
from strata.errors import OutputError, UsageError
from strata.packs.loader import discover
from strata.spec.describe import platform_schema

PRESETS = ("minimal", "jark")
SCHEMA_FILE = "strata.schema.json"


def schema_text() -> str:
    return json.dumps(platform_schema(discover()), indent=2) + "\n"


@click.command("init")
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path), default=Path("platform.yaml"))
@click.option("--preset", type=click.Choice(PRESETS), default="minimal", show_default=True,
              help="minimal: a CPU and a GPU pool and a team; jark: JupyterHub, Argo Workflows and KubeRay on them.")
def init(path: Path, preset: str) -> None:
    """Write a commented starter spec (never over an existing file) and the JSON Schema editors read."""
    if path.exists():
        raise UsageError(f"{path} exists; strata init never overwrites a file: give another path or remove it")
    if not path.parent.is_dir():
        raise UsageError(f"{path.parent}: no such directory")
    schema = path.parent / SCHEMA_FILE
    starter = resources.files("strata").joinpath("starters", f"{preset}.yaml").read_text(encoding="utf-8")
    text = f"# yaml-language-server: $schema=./{SCHEMA_FILE}\n{starter}"
    try:
        with open(path, "x", encoding="utf-8", newline="\n") as f:
            f.write(text)
        wrote_schema = not schema.exists()
        if wrote_schema:
            schema.write_text(schema_text(), encoding="utf-8")
    except OSError as exc:
        raise OutputError(f"cannot write {exc.filename or path}: {exc.strerror or exc}") from None
    click.echo(f"{path}: {preset} starter spec written"
               + (f", with {schema} for editors (yaml-language-server)" if wrote_schema
                  else f"; {schema} exists, refresh it with: strata schema -o {schema}"), err=True)
    click.echo(f"next: strata render -f {path} -o deploy", err=True)


@click.command("schema")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the schema to FILE instead of stdout.")
def schema(output: Path | None) -> None:
    """Print the JSON Schema of the whole spec, every installed pack's section included."""
    text = schema_text()
    if output is None:
        click.echo(text, nl=False)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise OutputError(f"cannot write {output}: {exc.strerror or exc}") from None
    click.echo(f"{output}: JSON Schema of the Platform spec written", err=True)


@click.command()
@click.argument("rule_id")
def explain(rule_id: str) -> None:
    """Explain a rule: why, how to fix it, a spec it fires on and one it accepts."""
    found = {r.id: r for r in core_rules.registry()}
    rule = found.get(rule_id)
    if rule is None:
        close = difflib.get_close_matches(rule_id, list(found), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else "; strata rules lists them"
        raise UsageError(f"no rule {rule_id!r}{hint}")
    shown = explain_lib.explain(rule)
    click.echo(f"{rule.id} ({rule.severity.value})\n\nwhy: {rule.summary}\nfix: {rule.fix}")
    if shown.bad is None:
        click.echo("\nThis rule judges rendered output or validation, not a spec field: no spec case shows it.")
        return
    click.echo(f"\nbad ({shown.bad.file}, the case its tests fire on):")
    _snippet(shown.bad)
    for message in shown.messages:
        click.echo(f"  -> {message}")
    if shown.good is not None:
        note = f"; {shown.good.note}" if shown.good.note else ""
        click.echo(f"\ngood ({shown.good.file}, an example no rule fires on{note}):")
        _snippet(shown.good)


def _snippet(snippet: explain_lib.Snippet) -> None:
    width = len(str(snippet.lines[-1][0])) if snippet.lines else 1
    for number, text, marked in snippet.lines:
        click.echo(f"{'>' if marked else ' '} {number:>{width}} | {text}".rstrip())
