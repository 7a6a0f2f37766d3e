"""The module versions a Go binary was built from, read from the build information the Go
linker embeds (what ``go version -m`` prints), so ``strata doctor`` can say which version a
binary is without Go and whatever its own ``--version`` prints (kubeconform's says
"development", promtool's is empty when built with ``go install``)."""

from __future__ import annotations

import mmap
from pathlib import Path

_MAGIC = b"\xff Go buildinf:"


def modules(binary: Path) -> dict[str, str]:
    """module path -> version for the main module and every dependency; empty when the file
    is not a Go binary (or was built before Go 1.18)."""
    try:
        with open(binary, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            start = data.find(_MAGIC)
            if start < 0 or not data[start + 15] & 0x2:  # flag 2: the strings follow inline
                return {}
            pos = start + 32
            _, pos = _string(data, pos)  # the Go version
            info, _ = _string(data, pos)
    except (OSError, ValueError, IndexError):
        return {}
    found = {}
    for line in info.decode("utf-8", "replace").splitlines():
        parts = line.split("\t")
        if parts[0] in ("mod", "dep") and len(parts) >= 3:
            found[parts[1]] = parts[2]
        elif parts[0] == "=>" and len(parts) >= 3 and found:  # a replaced dependency: the replacement's version
            found[list(found)[-1]] = parts[2]
    return found


def main_module(binary: Path) -> str | None:
    """``path version`` of the module the binary was built as (its first entry)."""
    found = modules(binary)
    return " ".join(next(iter(found.items()))) if found else None


def version_of(binary: Path, package: str) -> str | None:
    """The version of the module that provides ``package`` (the longest module path that is
    a prefix of it), e.g. k8s.io/kubernetes v1.37.2 for k8s.io/kubernetes/cmd/kube-apiserver."""
    best = None
    for module, version in modules(binary).items():
        if (package == module or package.startswith(module + "/")) and (best is None or len(module) > len(best[0])):
            best = (module, version)
    return best[1] if best else None


def _string(data: mmap.mmap, pos: int) -> tuple[bytes, int]:
    length, shift = 0, 0
    while True:
        byte = data[pos]
        pos += 1
        length |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            break
    return data[pos:pos + length], pos + length
