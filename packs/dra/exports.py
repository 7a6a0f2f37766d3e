"""What the dra pack tells other packs (pack.yaml `uses: [dra]`): the claims its workloads
mount, so the storage pack checks them where they are written."""

from __future__ import annotations

import dataclasses

from strata.pack import CoreSpec, Facts, SpecPath, spec_path

from .config import Config


@dataclasses.dataclass(frozen=True)
class Mount:
    """A pod of the dra pack that mounts a PersistentVolumeClaim by name."""

    path: SpecPath  # where the mount is written, for other packs' problems
    namespace: str  # where the pod runs
    claim: str
    mount_path: str
    read_only: bool


@dataclasses.dataclass(frozen=True)
class DraFacts:
    mounts: tuple[Mount, ...]


def exports(spec: CoreSpec, config: Config, facts: Facts) -> DraFacts:
    namespaces = spec.team_namespaces
    return DraFacts(tuple(
        Mount(spec_path("dra", "workloads", i, "volumes", j), namespaces.get(w.team, w.team), v.claim, v.mount_path, v.read_only)
        for i, w in enumerate(config.workloads) for j, v in enumerate(w.volumes)
    ))
