"""Problems are collected, never raised one by one, and printed as
``file:line:col: spec.path: message [rule-id]``."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from enum import StrEnum
from typing import NamedTuple


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    WAIVED = "waived"  # an error the spec's waivers: list accepts, with a reason; reported, never silent


Path = tuple[str | int, ...]


class Mark(NamedTuple):  # a tuple: one is made for every node of every spec file
    file: str
    line: int  # 1-based
    column: int  # 1-based

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclasses.dataclass(frozen=True)
class Problem:
    """One finding. ``path`` is a spec path (for spec and policy problems); ``where``
    is a free-form location (an output file and object) for validation problems."""

    rule: str
    message: str
    path: Path = ()
    severity: Severity = Severity.ERROR
    mark: Mark | None = None
    where: str = ""

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def sort_key(self) -> tuple:
        mark = self.mark or Mark("", 0, 0)
        return (mark.file, mark.line, mark.column, self.where, format_path(self.path), self.rule, self.message)

    def format(self) -> str:
        location = str(self.mark) if self.mark else (self.where or "<spec>")
        prefix = "" if self.severity is Severity.ERROR else f"{self.severity.value}: "
        path = f" {format_path(self.path)}:" if self.path else ""
        return f"{location}:{path} {prefix}{self.message} [{self.rule}]"

    def as_dict(self) -> dict:
        return {
            "rule": self.rule,
            "severity": self.severity.value,
            "message": self.message,
            "path": format_path(self.path),
            "file": self.mark.file if self.mark else None,
            "line": self.mark.line if self.mark else None,
            "column": self.mark.column if self.mark else None,
            "where": self.where or None,
        }


def format_path(path: Path) -> str:
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def sorted_problems(problems: Iterable[Problem]) -> list[Problem]:
    return sorted(set(problems), key=Problem.sort_key)


def has_errors(problems: Iterable[Problem]) -> bool:
    return any(p.is_error for p in problems)
