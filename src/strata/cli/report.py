"""Print problems for people (one line each, sorted) or machines (JSON)."""

from __future__ import annotations

import json
from typing import Any

import click

from strata.problems import Problem, Severity, sorted_problems


def echo_problems(problems: list[Problem], fmt: str, extra: dict[str, Any] | None = None) -> None:
    problems = sorted_problems(problems)
    errors = sum(p.severity is Severity.ERROR for p in problems)
    waived = sum(p.severity is Severity.WAIVED for p in problems)
    warnings = len(problems) - errors - waived
    if fmt == "json":
        click.echo(json.dumps({"problems": [p.as_dict() for p in problems], "errors": errors, "warnings": warnings,
                               "waived": waived, **(extra or {})}, indent=2))
        return
    for p in problems:
        click.echo(p.format())
    if problems:
        click.echo(f"{errors} error(s), {warnings} warning(s)" + (f", {waived} waived" if waived else ""), err=True)
