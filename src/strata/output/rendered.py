"""What a render proved, remembered outside the tree: the exact inputs of a render (the spec
layers' bytes, strata's own code and data, every installed pack's files, the date waivers
expire against, where the tree sits in Git) are reduced to one digest, and a record under that
digest holds the lock it produced, a digest of every file it owns (hydrated output included)
and the spec's problems it printed. A later ``render --check`` with the very same inputs reads
the record instead of loading the spec and rendering: the tree is current when its lock and
every owned file still have the recorded digests. Anything else (no record, another input, a
hand edit, a missing or extra owned file) falls back to the full check, so the record can only
make a check faster, never change its answer. Stored in ``$STRATA_RENDER_CACHE`` (default
``$XDG_CACHE_HOME/strata/rendered``); a missing or read-only cache means a full check."""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import strata
from strata.output.layout import LOCK_NAME
from strata.problems import Mark, Problem, Severity

_FORMAT = 1  # bumped when the record's shape changes


def default_cache() -> Path:
    env = os.environ.get("STRATA_RENDER_CACHE")
    if env:
        return Path(env)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "strata" / "rendered"


def digest(content: bytes) -> str:
    return "sha256:" + hashlib.sha256(content).hexdigest()


# --- the inputs -----------------------------------------------------------------------------


def _tree_stats(root: Path, h: Any) -> None:
    """Every file below ``root`` by path, size and modification time (not content: stat is
    enough to notice an edit, and cheap enough for every check)."""
    for top, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        rel = os.path.relpath(top, root)
        for name in sorted(files):
            try:
                stat = os.stat(os.path.join(top, name))
            except OSError:
                continue
            h.update(f"\0{rel}/{name}\0{stat.st_size}\0{stat.st_mtime_ns}".encode())


def inputs_key(specs: Iterable[tuple[str, bytes]], out_dir: Path, hydration: tuple[Path, Path] | None = None) -> str | None:
    """The digest of everything a render of ``specs`` into ``out_dir`` depends on; None when
    some input cannot be read (a pack that fails to import): no record then."""
    from strata.output import repository
    from strata.packs import entry

    h = hashlib.sha256(f"strata record {_FORMAT} {strata.__version__}\0{datetime.date.today().isoformat()}".encode())
    for name, text in specs:
        h.update(f"\0spec\0{name}\0{len(text)}\0".encode())
        h.update(text)
    _tree_stats(Path(strata.__file__).resolve().parent, h)
    h.update(b"\0shared-templates")
    _tree_stats(entry.shared_templates_dir(), h)
    try:
        packs = entry.installed()
    except Exception:  # noqa: BLE001 - a broken pack: the full render reports it
        return None
    for name, source, root in packs:
        h.update(f"\0pack\0{name}\0{source}\0{root}".encode())
        _tree_stats(root, h)
    where = repository.placement(out_dir)  # the spec's repository paths are checked against it
    h.update(f"\0placement\0{where}".encode())
    if hydration is not None:  # helm template output: the chart archives, helm itself, the CRD scopes
        from strata import tools
        from strata.errors import ToolMissing

        chart_cache, store = hydration
        try:
            helm = tools.find("helm").resolve()
            stat = helm.stat()
        except (OSError, ToolMissing):
            return None
        h.update(f"\0hydrate\0{helm}\0{stat.st_size}\0{stat.st_mtime_ns}\0{chart_cache.resolve()}".encode())
        _tree_stats(chart_cache, h)
        h.update(b"\0store")
        _tree_stats(store, h)
    return h.hexdigest()


# --- the record -----------------------------------------------------------------------------


def _problem_data(p: Problem) -> dict[str, Any]:
    return {"rule": p.rule, "message": p.message, "path": list(p.path), "severity": p.severity.value,
            "mark": list(p.mark) if p.mark else None, "where": p.where}


def _problem(data: Mapping[str, Any]) -> Problem:
    mark = data["mark"]
    return Problem(data["rule"], data["message"], tuple(data["path"]), Severity(data["severity"]),
                   Mark(mark[0], mark[1], mark[2]) if mark else None, data["where"])


def remember(cache: Path, key: str | None, lock: bytes, files: Mapping[str, str], problems: Iterable[Problem], objects: int) -> None:
    """Record that the inputs ``key`` produced the tree with lock ``lock`` and owned files
    ``files`` (path -> digest). Best effort: a cache that cannot be written only means the
    next check is a full one."""
    if key is None:
        return
    record = {"format": _FORMAT, "lock": digest(lock), "files": dict(sorted(files.items())), "objects": objects,
              "problems": [_problem_data(p) for p in problems]}
    try:
        cache.mkdir(parents=True, exist_ok=True)
        tmp = cache / f".{key}.{os.getpid()}.tmp"
        tmp.write_text(json.dumps(record, separators=(",", ":")))
        os.replace(tmp, cache / f"{key}.json")
        prune(cache)
    except OSError:
        pass


KEEP_DAYS = 30  # records and memos not written again for this long are removed


def prune(cache: Path, now: float | None = None) -> None:
    """Remove what no render wrote for KEEP_DAYS (a record per spec state and a memo per tree
    would otherwise pile up)."""
    limit = (time.time() if now is None else now) - KEEP_DAYS * 86400
    for entry in os.scandir(cache):
        try:
            if entry.is_file() and entry.stat().st_mtime < limit:
                os.unlink(entry.path)
        except OSError:
            continue


class Current:
    """A tree proven to be what its recorded inputs produce."""

    def __init__(self, lock: bytes, problems: list[Problem], objects: int) -> None:
        self.lock = lock
        self.problems = problems
        self.objects = objects


def _file_digest(path: str) -> str:
    # os.read without the buffered file object: thousands of small files, each read once.
    fd = os.open(path, os.O_RDONLY)
    try:
        h = hashlib.sha256()
        while chunk := os.read(fd, 1 << 20):
            h.update(chunk)
    finally:
        os.close(fd)
    return "sha256:" + h.hexdigest()


def current(cache: Path, key: str | None, out_dir: Path) -> Current | None:
    """The record of ``key`` when the tree in ``out_dir`` is exactly the one it describes:
    the same lock bytes, and every file the lock owns with its recorded digest."""
    if key is None:
        return None
    try:
        record = json.loads((cache / f"{key}.json").read_bytes())
        if record.get("format") != _FORMAT:
            return None
        lock = (out_dir / LOCK_NAME).read_bytes()
        if digest(lock) != record["lock"]:
            return None
        root = str(out_dir)
        for rel, expected in record["files"].items():
            if _file_digest(os.path.join(root, rel)) != expected:
                return None
        return Current(lock, [_problem(p) for p in record["problems"]], int(record["objects"]))
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return None  # no record, an unreadable one, or a file that is gone: the full check decides
