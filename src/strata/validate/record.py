"""What validation proved, remembered outside the tree: a tree strata wrote is identified by
its lock (which holds every rendered file's digest), and its validation result depends on
nothing else but the validators, the binaries they run and the schema store. So after a
clean validation, an empty file named by the digest of all of those is left in the per-user
cache (``$XDG_CACHE_HOME/strata/validated/``; never in the schema store, which may be read-only); a later --check of the same, verified-unchanged tree with
the same tools and schemas need not prove it again. The tree's own bytes never depend on
it (a --no-validate render writes the same lock), and a fresh machine, or any change to
a binary or a schema, simply validates again."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from pathlib import Path

from strata import tools, usercache
from strata.errors import ToolMissing
from strata.packs import entry
from strata.validate import schema_store

DIRECTORY = "validated"
_TOOLS = ("kubeconform", "kustomize")


def key(lock: bytes, validators: Iterable[str], store: Path) -> str | None:
    """None when a binary is missing: nothing can be said about validating with it."""
    h = hashlib.sha256(lock)
    h.update(str(Path(store).resolve()).encode())
    h.update("\0".join(validators).encode())
    for name in _TOOLS:
        try:
            path = tools.find(name).resolve()
            stat = path.stat()
        except (OSError, ToolMissing):  # a missing or an unreadable binary
            return None
        h.update(f"\0{name}\0{path}\0{stat.st_size}\0{stat.st_mtime_ns}".encode())
    h.update(f"\0{schema_store.core_cache_dir().name}".encode())  # the converted core schemas' release
    # The schemas packs ship, named by their provenance files: found from the packs' directories,
    # not by loading the packs (a check proven from its record must not import them).
    for _, _, pack_root in entry.installed():
        for provenance in sorted((pack_root / "schemas").glob("*/PROVENANCE.tsv")):
            h.update(b"\0" + str(provenance.parent.name).encode() + b"\0" + provenance.read_bytes())
    root = Path(store)
    if not root.is_dir():
        return None
    for top, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not (top == str(root) and d == DIRECTORY))
        rel = os.path.relpath(top, root)
        if rel.split(os.sep)[0] == "core":
            # converted core schemas: named by the kubernetes-validate release they come from
            h.update(f"\0{rel}".encode())
            if rel.count(os.sep) >= 1:
                dirs[:] = []
            continue
        for name in sorted(files):
            stat = os.stat(os.path.join(top, name))
            h.update(f"\0{rel}/{name}\0{stat.st_size}\0{stat.st_mtime_ns}".encode())
    return h.hexdigest()


def recorded(digest: str | None, store: Path) -> bool:
    return digest is not None and (usercache.root() / DIRECTORY / digest).is_file()


def record(digest: str | None, store: Path) -> None:
    """Best effort: a read-only cache only means the next check validates again. (``store``
    is part of the digest already.)"""
    if digest is None:
        return
    try:
        (usercache.root() / DIRECTORY).mkdir(parents=True, exist_ok=True)
        (usercache.root() / DIRECTORY / digest).touch()
    except OSError:
        pass
