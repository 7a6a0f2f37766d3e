"""`kustomize build` of the output tree, with the real binary."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from strata import rules, tools
from strata.problems import Problem


def build(root: Path, display: str) -> list[Problem]:
    proc = tools.run("kustomize", ["build", "."], cwd=root)
    if proc.returncode == 0:
        return []
    message = " ".join(proc.stderr.replace(str(root), display).split()) or f"exit code {proc.returncode}"
    return [dataclasses.replace(rules.KUSTOMIZE.problem((), message), where=display)]
