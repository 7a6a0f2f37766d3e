"""``strata.lock``: what strata wrote into an output directory. One typed model reads and
writes it. Its ``files`` list is the ownership list used for pruning, for refusing to
overwrite others' files, and by --check."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Annotated, Any

import pydantic
from pydantic import AfterValidator

from strata import yamlio
from strata.errors import OutputError
from strata.output.layout import LOCK_NAME
from strata.spec.base import StrictModel

HEADER = "# strata.lock: written by strata. It lists the files strata owns in this directory.\n"
# Written first by an interrupted-safe write (output/writer.py): it claims every old and new path.
CLAIM_HEADER = "# strata.lock: a write is in progress or was interrupted; run strata render again.\n"


def _relative(path: str) -> str:
    # String tests, not PurePosixPath: a lock lists every file of the tree (thousands).
    if not path or path.startswith("/") or ".." in path.split("/") or "\\" in path:
        raise ValueError(f"{path!r} is not a path inside the directory")
    return path


RelativePath = Annotated[str, AfterValidator(_relative)]


class PackEntry(StrictModel):
    name: str
    version: str
    source: str  # "builtin" or "<distribution> <version>"


class HelmReleaseEntry(StrictModel):
    """A pinned Helm release of the tree and where its values file is."""

    name: str
    namespace: str
    repo: str
    chart: str
    version: str
    values_file: RelativePath

    @property
    def layer(self) -> str:
        return self.values_file.split("/", 1)[0]


class HydratedEntry(StrictModel):
    """`helm template` output of one release, current while the chart version and the
    digest of the values file stay the same."""

    release: str
    version: str
    values_digest: str
    files: tuple[RelativePath, ...]


class WaiverEntry(StrictModel):
    """A waiver of the spec that accepted an error, and the spec paths of what it accepted."""

    rule: str
    where: str  # the waiver's path or object, as written
    reason: str
    expires: str | None = None  # ISO date
    waived: tuple[str, ...]


class Lock(StrictModel):
    """A whole lock. An interrupted write leaves a lock with only ``files`` (every path it
    may have touched); such a lock has no ``kubernetes_version`` and is no rendered tree."""

    strata_version: str = ""
    spec_digest: str = ""
    kubernetes_version: str = ""
    packs: tuple[PackEntry, ...] = ()
    schemas: tuple[str, ...] = ()  # CRD schema sets the output was validated against
    helm_releases: tuple[HelmReleaseEntry, ...] = ()
    hydrated: tuple[HydratedEntry, ...] = ()
    waivers: tuple[WaiverEntry, ...] = ()  # the spec's waivers that accepted an error
    files: tuple[RelativePath, ...] = ()
    # sha256 of every file strata rendered into the tree (not the lock, not hydrated output,
    # whose entries carry their own inputs): --check proves an unchanged tree current with them.
    digests: dict[str, str] = {}  # keys are files (checked there), not validated twice

    @property
    def owned(self) -> frozenset[str]:
        return frozenset(self.files)

    @property
    def hydrated_files(self) -> frozenset[str]:
        return frozenset(f for h in self.hydrated for f in h.files)

    def as_dict(self) -> dict[str, Any]:
        # Key order is part of the file's bytes; hydrated and waivers appear only when there are some.
        data = self.model_dump(by_alias=True, mode="json")
        for optional in ("hydrated", "waivers", "digests"):
            if not getattr(self, optional):
                del data[optional]
        return data

    def dump(self) -> bytes:
        return (HEADER + yamlio.dump(self.as_dict())).encode()


def digest(content: bytes) -> str:
    return "sha256:" + hashlib.sha256(content).hexdigest()


def claim(files: list[str]) -> bytes:
    """The lock written before any file of a write is moved: it owns every path involved."""
    return (CLAIM_HEADER + yamlio.dump({"files": files})).encode()


def read(out_dir: Path) -> Lock | None:
    path = out_dir / LOCK_NAME
    return parse(path.read_bytes(), path) if path.is_file() else None


def parse(content: bytes, path: Path | str = LOCK_NAME) -> Lock:
    try:
        data = yamlio.load(content)
    except yamlio.YAMLError as exc:
        raise OutputError(f"{path}: not a valid strata.lock ({exc}); restore it from Git") from exc
    if not isinstance(data, dict) or not isinstance(data.get("files"), list):
        raise OutputError(f"{path}: the files list is missing; restore it from Git")
    try:
        return Lock.model_validate(data)
    except pydantic.ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise OutputError(f"{path}: {where}: {first['msg']}; restore it from Git") from exc
