"""Golden output trees as plain files: ``golden/<tree>/`` holds exactly the files ``strata render``
writes for one example (strata.lock included), so a reviewer reads a normal diff and
``kustomize build golden/<tree>`` works on it.

The trees change only through syrupy: ``pytest tests/test_golden.py --snapshot-update`` rewrites
the trees of the tests it ran and deletes the trees no test claims any more. This module is the
syrupy extension that stores a snapshot as a directory instead of a string in an .ambr file.

Syrupy groups snapshots in collections addressed by a location. All golden trees form one
collection whose location, ``golden/test_golden``, is named after the owning test module (that is
how syrupy relates snapshots to tests when it looks for unused ones); it is an address, never a
file. The snapshot named ``<TEST_NAME>[<tree>]`` is the directory ``golden/<tree>``; a directory is
a golden tree when it holds strata.lock, the file by which strata marks a tree it wrote.
"""

from __future__ import annotations

import difflib
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from reference import REPO_ROOT
from syrupy.data import Snapshot, SnapshotCollection, SnapshotCollections
from syrupy.extensions.base import AbstractSyrupyExtension
from syrupy.location import PyTestLocation

GOLDEN = REPO_ROOT / "golden"
OWNER_MODULE = "test_golden"  # tests/test_golden.py
TEST_NAME = "test_example_renders_its_golden_tree"
UPDATE_COMMAND = f"pytest tests/{OWNER_MODULE}.py --snapshot-update"
LOCK = "strata.lock"

Tree = dict[str, bytes]


def read_tree(root: Path) -> Tree:
    """Every file under root by its POSIX path relative to root, as bytes."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def golden_tree_names() -> list[str]:
    """The trees stored under golden/, e.g. ``realistic`` or ``fleet/prod``."""
    return sorted(lock.parent.relative_to(GOLDEN).as_posix() for lock in GOLDEN.rglob(LOCK))


def _tree_of(snapshot_name: str) -> str:
    prefix = f"{TEST_NAME}["
    if not (snapshot_name.startswith(prefix) and snapshot_name.endswith("]")):
        raise ValueError(f"{snapshot_name!r} is not a golden-tree snapshot: use {TEST_NAME} parametrized by tree")
    return snapshot_name[len(prefix):-1]


def _snapshot_name(tree: str) -> str:
    return f"{TEST_NAME}[{tree}]"


def _remove_tree(tree: str) -> None:
    root = GOLDEN / tree
    if not (root / LOCK).is_file():
        return  # not a tree strata wrote: leave it alone
    shutil.rmtree(root)
    for parent in root.parents:  # drop the directories that held only this tree (golden/fleet/)
        if parent == GOLDEN or any(parent.iterdir()):
            break
        parent.rmdir()


class GoldenTreeExtension(AbstractSyrupyExtension):
    """A snapshot is a mapping of relative path to bytes, stored as the files of golden/<tree>/."""

    # Written as soon as the test asserts, not when the session ends: the tests after it in the
    # same --snapshot-update run (kustomize build, validate) then check the new tree.
    write_immediately = True

    @classmethod
    def dirname(cls, *, test_location: PyTestLocation) -> str:
        return str(GOLDEN)

    def serialize(self, data: Any, **_: Any) -> Tree:
        if not isinstance(data, Mapping) or not all(isinstance(k, str) and isinstance(v, bytes) for k, v in data.items()):
            raise TypeError("a golden tree is a mapping of relative path (str) to file content (bytes)")
        return dict(sorted(data.items()))

    # -- storage ------------------------------------------------------------------------------
    def _owns(self, location: str) -> bool:
        return Path(location) == GOLDEN / OWNER_MODULE

    def discover_snapshots(self, *, test_location: PyTestLocation, ignore_extensions: list[str] | None = None) -> SnapshotCollections:
        # Never syrupy's default walk: it would take every file under golden/ for a collection
        # of its own and delete it as unused.
        discovered = SnapshotCollections()
        collection = self.read_snapshot_collection(snapshot_location=self.get_location(test_location=test_location, index=0))
        if collection.has_snapshots:
            discovered.add(collection)
        return discovered

    def read_snapshot_collection(self, *, snapshot_location: str) -> SnapshotCollection:
        collection = SnapshotCollection(location=snapshot_location)
        if self._owns(snapshot_location):
            for tree in golden_tree_names():
                collection.add(Snapshot(name=_snapshot_name(tree)))
        return collection

    def read_snapshot_data_from_location(self, *, snapshot_location: str, snapshot_name: str, session_id: str) -> Tree | None:
        root = GOLDEN / _tree_of(snapshot_name)
        return read_tree(root) if (root / LOCK).is_file() else None

    @classmethod
    def write_snapshot_collection(cls, *, snapshot_collection: SnapshotCollection, name_order: dict[str, int] | None = None) -> None:
        for snapshot in snapshot_collection:
            tree = _tree_of(snapshot.name)
            if not isinstance(snapshot.data, dict) or LOCK not in snapshot.data:
                raise ValueError(f"golden tree {tree!r} has no {LOCK}: it is not what strata render writes")
            root = GOLDEN / tree
            if root.exists():
                shutil.rmtree(root)
            for rel, content in snapshot.data.items():
                path = root / rel
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(content)

    def delete_snapshots(self, *, snapshot_location: str, snapshot_names: set[str]) -> None:
        for name in snapshot_names:
            _remove_tree(_tree_of(name))

    # -- comparison and report ----------------------------------------------------------------
    def diff_lines(self, serialized_data: Any, snapshot_data: Any) -> Iterator[str]:
        rendered: Tree = serialized_data or {}
        golden: Tree = snapshot_data or {}
        # First, so that it shows even where pytest truncates the rest.
        yield f"the render differs from the golden tree; if that is intended: {UPDATE_COMMAND}, then review git diff golden/"
        for rel in sorted(golden.keys() - rendered.keys()):
            yield f"missing: {rel} is in the golden tree but no longer rendered"
        for rel in sorted(rendered.keys() - golden.keys()):
            yield f"extra: {rel} is rendered but not in the golden tree"
        for rel in sorted(golden.keys() & rendered.keys()):
            if golden[rel] != rendered[rel]:
                yield f"changed: {rel}"
                yield from difflib.unified_diff(
                    golden[rel].decode(errors="replace").splitlines(),
                    rendered[rel].decode(errors="replace").splitlines(),
                    f"golden/{rel}", f"rendered/{rel}", lineterm="",
                )
