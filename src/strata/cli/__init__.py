"""Command-line entry point. Commands only parse options, call the core and report;
exceptions become exit codes here and nowhere else:
0 success, 1 problems found, 2 usage error, 3 internal error."""

from __future__ import annotations

import gc
import os
import sys
import traceback

import click

from strata.cli import catalog, commands, onboarding, tooling
from strata.cli.report import echo_problems
from strata.errors import CheckFailed, ProblemsFound, StrataError

commands.cli.add_command(catalog.catalog)
commands.cli.add_command(tooling.tools)
commands.cli.add_command(tooling.doctor)
for command in (onboarding.init, onboarding.schema, onboarding.explain):
    commands.cli.add_command(command)

REPORT_URL = "https://github.com/strata-dev/strata/issues"


def main(argv: list[str] | None = None) -> None:
    # One command per process: a render allocates hundreds of thousands of small containers
    # (parsed YAML), none of them in a reference cycle worth collecting, and the cyclic
    # collector scanning them again and again took a sixth of a large render.
    gc.disable()
    try:
        code = commands.cli.main(args=argv, prog_name="strata", standalone_mode=False)
    except click.exceptions.Exit as exc:
        code = exc.exit_code
    except click.ClickException as exc:
        exc.show()
        code = 2
    except click.Abort:
        click.echo("strata: aborted", err=True)
        code = 2
    except ProblemsFound as exc:
        echo_problems(exc.problems, commands.current_format())
        code = 1
    except CheckFailed as exc:
        code = exc.exit_code  # the report is printed already
    except StrataError as exc:
        click.echo(f"strata: error: {exc}", err=True)
        code = exc.exit_code
    except OSError as exc:
        # The machine refused a file operation (a file where a directory must go, no permission,
        # a full or read-only disk): something to fix here, not a bug in strata. The writer
        # stages beside the output and moves in last, so nothing half-written is left behind.
        where = " -> ".join(str(f) for f in (exc.filename, exc.filename2) if f is not None)
        click.echo(f"strata: error: {where + ': ' if where else ''}{exc.strerror or exc}", err=True)
        code = 1
    except Exception as exc:  # noqa: BLE001 - a bug in strata or a pack, never a user mistake
        if os.environ.get("STRATA_DEBUG"):
            traceback.print_exc()
        click.echo(f"strata: internal error: {type(exc).__name__}: {exc}", err=True)
        click.echo(f"please report it at {REPORT_URL} with the command you ran (STRATA_DEBUG=1 shows the traceback)", err=True)
        code = 3
    gc.enable()  # for a caller that runs main() in its own process (tests)
    sys.exit(code or 0)
