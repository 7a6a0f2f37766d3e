"""`strata tools install`: build the pinned binaries with Go into the per-user cache, one
directory per tool and version, each with the stamp of what it was built from. What is
installed already is left alone; what is missing is named all at once."""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

from strata.errors import ToolFailed, ToolMissing
from strata.tools import PINS, Pin, buildinfo, cached_binary, server_module_dir

GO_DOWNLOAD = "https://go.dev/dl/"
STAMP = ".stamp"  # beside the binary: the pin's recipe


@dataclasses.dataclass(frozen=True)
class Installed:
    pin: Pin
    path: Path
    built: bool  # False: it was installed already


def installed(pin: Pin) -> bool:
    binary = cached_binary(pin)
    stamp = binary.parent / STAMP
    return binary.is_file() and os.access(binary, os.X_OK) and stamp.is_file() and stamp.read_text().strip() == pin.recipe()


def selected(server: bool) -> list[Pin]:
    return [p for p in PINS.values() if not p.server or server]


def install(server: bool, progress: Callable[[str], None]) -> list[Installed]:
    """Install every pinned binary that is missing (with ``server``: etcd and kube-apiserver
    too). Without Go, or when a build fails, the error names every tool left missing."""
    pins = selected(server)
    missing = [p for p in pins if not installed(p)]
    done = [Installed(p, cached_binary(p), built=False) for p in pins if p not in missing]
    if not missing:
        return done
    go = shutil.which("go")
    if go is None:
        raise ToolMissing(_without_go(missing))
    failed = []
    for pin in missing:
        progress(f"building {pin.name} {pin.version} ({pin.module}){' - slow, once' if pin.server else ''}")
        try:
            _build(go, pin)
            done.append(Installed(pin, cached_binary(pin), built=True))
        except ToolFailed as exc:
            failed.append(f"{pin.name} {pin.version}: {exc}")
    if failed:
        raise ToolFailed("could not build " + "; ".join(failed))
    return sorted(done, key=lambda i: list(PINS).index(i.pin.name))


def adopt(source: Path, server: bool) -> list[Installed]:
    """Link the pinned binaries found in ``source`` (e.g. a checkout's .tools/bin, or binaries
    built elsewhere) into the cache, after checking the version their Go build information
    names. A binary of another version is refused, not linked."""
    done, wrong = [], []
    for pin in selected(server):
        if installed(pin):
            done.append(Installed(pin, cached_binary(pin), built=False))
            continue
        binary = source / pin.name
        if not (binary.is_file() and os.access(binary, os.X_OK)):
            continue
        version = buildinfo.version_of(binary, pin.module)
        if version != pin.version:
            wrong.append(f"{binary} is {version or 'not a Go binary with build information'}, not {pin.version}")
            continue
        target = cached_binary(pin)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.unlink(missing_ok=True)
        target.symlink_to(binary.resolve())
        (target.parent / STAMP).write_text(pin.recipe() + "\n")
        done.append(Installed(pin, target, built=True))
    if wrong:
        raise ToolFailed("; ".join(wrong))
    return done


def _without_go(missing: list[Pin]) -> str:
    names = ", ".join(f"{p.name} {p.version}" for p in missing)
    lines = [f"Go is needed to build the missing pinned binaries ({names}) and is not on PATH. Either:",
             f"  - install Go 1.26 or newer ({GO_DOWNLOAD}) and run strata tools install again, or",
             "  - put binaries of these versions on PATH, or in DIR/bin with --tools-dir DIR (or $STRATA_TOOLS_DIR):"]
    lines += [f"      {p.name}: go install {p.module}@{p.version}" + (" (in its wrapper module)" if p.server else "") for p in missing]
    return "\n".join(lines)


def _build(go: str, pin: Pin) -> None:
    target = cached_binary(pin)
    target.parent.mkdir(parents=True, exist_ok=True)
    # Build into a temporary directory beside the target and move the result into place: an
    # interrupted build never leaves a binary that looks installed.
    work = Path(tempfile.mkdtemp(prefix=f".{pin.name}.", dir=target.parent))
    env = dict(os.environ, CGO_ENABLED="0")
    try:
        if pin.server:
            env["GOFLAGS"] = "-trimpath -buildvcs=false -mod=readonly"
            command = [go, "build", "-C", str(server_module_dir(pin.name)), f"-ldflags={pin.ldflags()}", "-o", str(work / pin.name), pin.module]
        else:
            env.update(GOBIN=str(work), GOFLAGS="-trimpath")
            command = [go, "install", f"{pin.module}@{pin.version}"]
        result = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            tail = " ".join(result.stderr.split())[-500:]
            raise ToolFailed(f"{' '.join(command[1:3])} ... failed (exit {result.returncode}): {tail}")
        os.replace(work / pin.name, target)
        (target.parent / STAMP).write_text(pin.recipe() + "\n")
    finally:
        shutil.rmtree(work, ignore_errors=True)

