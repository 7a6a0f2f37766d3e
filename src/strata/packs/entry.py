"""Where packs and the shared templates come from: the ``strata.packs`` entry points (built-in
packs included) and the directories they name. Light on purpose: a ``render --check`` that
proves a tree current from its record lists the installed packs without importing them."""

from __future__ import annotations

import types
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path

from strata.errors import PackError

GROUP = "strata.packs"


def pack_dir(ep: EntryPoint) -> Path:
    try:
        target = ep.load()
    except Exception as exc:  # third-party code: any failure is that pack's load error
        raise PackError(f"pack {ep.name!r} ({ep.value}) failed to import: {exc}") from exc
    if isinstance(target, types.ModuleType):
        if not target.__file__:
            raise PackError(f"pack {ep.name!r}: module {ep.value} has no directory")
        return Path(target.__file__).resolve().parent
    if isinstance(target, (str, Path)):
        return Path(target)
    raise PackError(f"pack {ep.name!r}: entry point {ep.value} must name a module or a directory")


def source(ep: EntryPoint) -> str:
    dist = ep.dist
    if dist is None or dist.name == "strata":
        return "builtin"
    return f"{dist.name} {dist.version}"


def entries() -> list[EntryPoint]:
    """The pack entry points, in the order packs are loaded."""
    return sorted(entry_points(group=GROUP), key=lambda e: (e.name, e.value))


def installed() -> list[tuple[str, str, Path]]:
    """(name, source, directory) of every installed pack, not imported."""
    return [(ep.name, source(ep), pack_dir(ep)) for ep in entries()]


def shared_templates_dir() -> Path:
    """The macros every pack may import: inside the package when installed from a wheel,
    the repository's templates/ in a source checkout."""
    here = Path(__file__).resolve().parent.parent
    packaged = here / "_shared_templates"
    return packaged if packaged.is_dir() else here.parents[1] / "templates"
