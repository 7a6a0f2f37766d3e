"""Validate an output tree: kubeconform (strict) over its objects and the kustomize
structure, both with the real binaries, all of it in parallel on every core."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from strata.problems import Problem, sorted_problems
from strata.validate import kubeconform, kustomize


def validate(root: Path, objects: Sequence[str], kubernetes_version: str, store: Path, display: str) -> list[Problem]:
    """``objects``: the tree's object files, relative to ``root``; problems name files as
    ``display/<file>``."""
    # One pool of processes for both (threads only wait for them); two threads to drive it.
    with ThreadPoolExecutor(os.cpu_count() or 1) as pool, ThreadPoolExecutor(2) as parts:
        conform = parts.submit(kubeconform.validate_files, root, objects, kubernetes_version, store, pool)
        structure = parts.submit(kustomize.build, root, display, pool)
        problems = [dataclasses.replace(p, where=f"{display}/{p.where}") if p.where else p for p in conform.result()]
        problems += structure.result()
    return sorted_problems(problems)
