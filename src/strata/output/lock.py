"""``strata.lock``: what strata wrote into an output directory. Its ``files`` list is the
ownership list used for pruning, for refusing to overwrite others' files, and by --check."""

from __future__ import annotations

import dataclasses
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from strata.errors import OutputError
from strata.output import emit
from strata.packs.contract import HelmReleaseManifest

LOCK_NAME = "strata.lock"
HEADER = "# strata.lock: written by strata. It lists the files strata owns in this directory.\n"
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclasses.dataclass(frozen=True)
class Lock:
    strata_version: str
    spec_digest: str
    kubernetes_version: str
    packs: tuple[tuple[str, str, str], ...]  # (name, version, source)
    schemas: tuple[str, ...] = ()  # CRD schema sets the output was validated against
    helm_releases: tuple[tuple[HelmReleaseManifest, str], ...] = ()
    files: tuple[str, ...] = ()
    hydrated: tuple[dict[str, Any], ...] = ()  # kept from the previous lock: still-valid helm template output

    def as_dict(self) -> dict[str, Any]:
        return {
            "strataVersion": self.strata_version,
            "specDigest": self.spec_digest,
            "kubernetesVersion": self.kubernetes_version,
            "packs": [{"name": n, "version": v, "source": s} for n, v, s in self.packs],
            "schemas": list(self.schemas),
            "helmReleases": [
                {"name": r.name, "namespace": r.namespace, "repo": r.repo, "chart": r.chart, "version": r.version, "valuesFile": values}
                for r, values in self.helm_releases
            ],
            **({"hydrated": list(self.hydrated)} if self.hydrated else {}),
            "files": list(self.files),
        }

    def dump(self) -> bytes:
        return (HEADER + emit.dump(self.as_dict())).encode()


@dataclasses.dataclass(frozen=True)
class PreviousLock:
    """The parts of an existing lock that strata relies on."""

    files: frozenset[str]
    kubernetes_version: str | None
    helm_releases: tuple[dict[str, Any], ...]
    hydrated: tuple[dict[str, Any], ...]  # {release, version, valuesDigest, files}
    raw: dict[str, Any]


def _safe_relative(path: Any) -> bool:
    if not isinstance(path, str) or not path:
        return False
    p = PurePosixPath(path)
    return not p.is_absolute() and ".." not in p.parts and "\\" not in path


def read(out_dir: Path) -> PreviousLock | None:
    path = out_dir / LOCK_NAME
    return parse(path.read_bytes(), path) if path.is_file() else None


def parse(content: bytes, path: Path | str = LOCK_NAME) -> PreviousLock:
    try:
        data = yaml.load(content, Loader=_Loader)
    except yaml.YAMLError as exc:
        raise OutputError(f"{path}: not a valid strata.lock ({exc}); restore it from Git") from exc
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, list) or not all(_safe_relative(f) for f in files):
        raise OutputError(f"{path}: the files list is missing or names paths outside the directory; restore it from Git")
    releases = data.get("helmReleases") or []
    hydrated = [h for h in data.get("hydrated") or [] if isinstance(h, dict) and all(_safe_relative(f) for f in h.get("files", []))]
    return PreviousLock(frozenset(files), data.get("kubernetesVersion"), tuple(r for r in releases if isinstance(r, dict)),
                        tuple(hydrated), data)


def dump_raw(data: dict[str, Any]) -> bytes:
    """Write back a lock read with :func:`read` after changing its hydrated and files lists."""
    return (HEADER + emit.dump(data)).encode()
