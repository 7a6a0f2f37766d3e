"""Where the output tree lands in its Git repository, for the spec fields that name that
place for a reader of the repository (Argo CD's ``path`` in the gitops pack).

The rule: when the output directory is inside a Git work tree (the nearest directory above it
holding ``.git``) and Git does not ignore it, its path relative to that work tree's root must
be the path the spec declares. Outside any Git work tree, or in an ignored directory (a scratch
render such as ``out/``), nothing reads the tree from Git, so nothing is compared."""

from __future__ import annotations

import dataclasses
from pathlib import Path, PurePosixPath
from typing import Any

from strata import rules, tools
from strata.problems import Problem


@dataclasses.dataclass(frozen=True)
class Placement:
    root: Path  # the Git work tree's root
    path: str  # the output directory relative to it, POSIX, "." for the root itself


def placement(out_dir: Path) -> Placement | None:
    """The output directory's place in its Git work tree, or None when no Git reads it."""
    target = out_dir.resolve()
    for parent in (target, *target.parents):
        if (parent / ".git").exists():
            rel = PurePosixPath(target.relative_to(parent).as_posix()).as_posix()
            if rel != "." and _ignored(parent, rel):
                return None
            return Placement(parent, rel)
    return None


def _ignored(root: Path, rel: str) -> bool:
    # git check-ignore exits 0 for an ignored path, 1 for a tracked-or-trackable one; without
    # git (or on its error) the directory counts as not ignored, so it is still compared.
    result = tools.run_system("git", ["-C", str(root), "check-ignore", "-q", "--no-index", "--", rel + "/"])
    return result is not None and result.returncode == 0


def problems(spec: Any, packs: tuple, out_dir: Path) -> list[Problem]:
    """A problem for each enabled pack's declared repository path that is not where the
    output directory is in its Git work tree."""
    declared = []
    for pack in packs:
        field = pack.manifest.repo_path
        section = getattr(spec, pack.field_name, None)
        if field is None or section is None:
            continue
        value: Any = section
        for part in field.split("."):
            value = getattr(value, _attribute(value, part), None)
        if isinstance(value, str):
            declared.append(((pack.field_name, *field.split(".")), value))
    if not declared:
        return []
    where = placement(out_dir)
    if where is None:
        return []
    found = []
    for path, value in declared:
        if PurePosixPath(value).as_posix() != where.path:
            found.append(rules.REPO_PATH.problem(path, (
                f"{value!r} names this tree's place in its Git repository, but strata writes it to {where.path!r} "
                f"of the repository at {where.root}; set {'.'.join(map(str, path))}: {where.path} or render with "
                f"-o {where.root / value}")))
    return found


def _attribute(model: Any, key: str) -> str:
    """The model attribute behind a camelCase spec key."""
    fields = getattr(type(model), "model_fields", {})
    return next((name for name, f in fields.items() if (f.alias or name) == key), key)
