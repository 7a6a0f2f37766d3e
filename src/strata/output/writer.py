"""Write an output tree safely. The new tree is staged in a temporary directory beside the
output (validated there, by the caller), then moved in: a missing output directory is
swapped in with one rename; an existing one gets the new lock first (claiming every old and
new path, so an interrupted write is still owned and recoverable), then each file by atomic
rename, then the removal of stale owned files, then the final lock. Files strata does not
own are never touched; a new file that would overwrite one stops the run before any write."""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from strata import yamlio
from strata.errors import OutputError
from strata.output import lock as lockfile
from strata.output.lock import Lock


@dataclasses.dataclass(frozen=True)
class Plan:
    changed: tuple[str, ...]  # new or different content
    unchanged: tuple[str, ...]
    stale: tuple[str, ...]  # owned before, no longer produced: removed


def plan(out_dir: Path, tree: dict[str, bytes], owned_after: frozenset[str], previous: Lock | None) -> Plan:
    """What writing ``tree`` changes. ``owned_after``: the files its lock claims (the tree
    and hydrated output that stays on disk); ``previous``: the lock on disk."""
    if out_dir.exists() and not out_dir.is_dir():
        raise OutputError(f"{out_dir} exists and is not a directory")
    owned = previous.owned if previous else frozenset()
    on_disk, directories = _scan(out_dir)  # one walk instead of a few stats per file
    conflicts: list[str] = []
    changed, unchanged = [], []
    for rel, content in tree.items():
        if rel in directories or _blocked_by_file(on_disk, rel):
            conflicts.append(rel)
        elif rel not in on_disk:
            changed.append(rel)
        elif rel not in owned:
            conflicts.append(rel)
        elif _read(out_dir, rel) != content:
            changed.append(rel)
        else:
            unchanged.append(rel)
    if conflicts:
        listed = "\n  ".join(conflicts[:20])
        raise OutputError(
            f"strata would overwrite files it does not own in {out_dir} (not listed in its {lockfile.LOCK_NAME}):\n  {listed}\n"
            "move them away or choose another output directory; nothing was written"
        )
    stale = sorted(f for f in owned - owned_after if f in on_disk)
    return Plan(tuple(changed), tuple(unchanged), tuple(stale))


def _scan(out_dir: Path) -> tuple[frozenset[str], frozenset[str]]:
    """Every file (anything not a directory) and directory below ``out_dir``, relative."""
    files: list[str] = []
    directories: list[str] = []
    root = str(out_dir)
    for top, dirs, names in os.walk(root):
        prefix = "" if top == root else os.path.relpath(top, root).replace(os.sep, "/") + "/"
        files += [prefix + n for n in names]
        directories += [prefix + d for d in dirs]
    return frozenset(files), frozenset(directories)


def _read(out_dir: Path, rel: str) -> bytes:
    # os.read without a buffered file object: a plan reads every file of the tree once.
    fd = os.open(os.path.join(out_dir, rel), os.O_RDONLY)
    try:
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _write(path: str, content: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)  # what open(path, "wb") does
    try:
        view = memoryview(content)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def _blocked_by_file(on_disk: frozenset[str], rel: str) -> bool:
    """A parent directory of ``rel`` exists as a file."""
    parent = rel.rpartition("/")[0]
    while parent:
        if parent in on_disk:
            return True
        parent = parent.rpartition("/")[0]
    return False


@contextlib.contextmanager
def staged(out_dir: Path, tree: dict[str, bytes], beside: bool = True) -> Iterator[Path]:
    """The tree written to a temporary directory, removed afterwards: beside ``out_dir`` so
    that commit can move it in by rename, or (``beside=False``, to validate only) in the
    system's temporary directory, leaving the output's parent untouched."""
    if beside:
        out_dir.parent.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.strata-", dir=out_dir.parent if beside else None))
    try:
        made = {""}
        for rel, content in tree.items():
            directory = rel.rpartition("/")[0]
            if directory not in made:
                os.makedirs(os.path.join(stage, directory), exist_ok=True)
                made.add(directory)
            _write(os.path.join(stage, rel), content)
        yield stage
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def commit(stage: Path, out_dir: Path, tree: dict[str, bytes], the_plan: Plan, previous: Lock | None) -> None:
    if not out_dir.exists():
        os.rename(stage, out_dir)
        return
    claimed = sorted(set(tree) | (previous.owned if previous else frozenset()))
    _atomic_write(out_dir / lockfile.LOCK_NAME, lockfile.claim(claimed))
    for rel in the_plan.changed:
        if rel == lockfile.LOCK_NAME:
            continue
        (out_dir / rel).parent.mkdir(parents=True, exist_ok=True)
        os.replace(stage / rel, out_dir / rel)
    for rel in the_plan.stale:
        (out_dir / rel).unlink(missing_ok=True)
        _remove_empty_parents(out_dir, Path(rel).parent)
    _atomic_write(out_dir / lockfile.LOCK_NAME, tree[lockfile.LOCK_NAME])


def _atomic_write(path: Path, content: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(content)
    os.replace(tmp, path)


def _remove_empty_parents(out_dir: Path, rel_dir: Path) -> None:
    while str(rel_dir) not in ("", "."):
        directory = out_dir / rel_dir
        if not directory.is_dir() or any(directory.iterdir()):
            return
        directory.rmdir()
        rel_dir = rel_dir.parent


@dataclasses.dataclass(frozen=True)
class Drift:
    status: str  # added | modified | removed
    path: str
    what: str  # the object in the file, e.g. "NodePool/gpu", when it holds one
    diff: str

    def summary(self) -> str:
        return f"{self.status}: {self.path}" + (f" ({self.what})" if self.what else "")


def diff(out_dir: Path, tree: dict[str, bytes], owned_after: frozenset[str], previous: Lock | None) -> list[Drift]:
    """Every file that differs from the rendered tree, with a unified diff."""
    owned = previous.owned if previous else frozenset()
    out = []
    for rel, content in tree.items():
        target = out_dir / rel
        old = target.read_bytes() if target.is_file() else None
        if old == content:
            continue
        status = "added" if old is None else "modified"
        out.append(Drift(status, rel, _describe(content), _unified(rel, old or b"", content)))
    for rel in sorted(owned - owned_after):
        target = out_dir / rel
        if target.is_file():
            old = target.read_bytes()
            out.append(Drift("removed", rel, _describe(old), _unified(rel, old, b"")))
    return out


def _describe(content: bytes) -> str:
    try:
        doc = yamlio.load(content)
    except yamlio.YAMLError:
        return ""
    if isinstance(doc, dict) and doc.get("kind") and isinstance(doc.get("metadata"), dict):
        ns = doc["metadata"].get("namespace")
        return f"{doc['kind']}/{ns + '/' if ns else ''}{doc['metadata'].get('name', '')}"
    return ""


def _unified(rel: str, old: bytes, new: bytes) -> str:
    lines = difflib.unified_diff(
        old.decode("utf-8", "replace").splitlines(keepends=True),
        new.decode("utf-8", "replace").splitlines(keepends=True),
        fromfile=f"a/{rel}", tofile=f"b/{rel}",
    )
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)
