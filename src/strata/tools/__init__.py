"""The one place strata runs external binaries: pinned versions, discovery and install hints.

The pins live in ``pins.tsv`` beside this module, the one list strata, ``strata tools
install`` and ``scripts/install-tools.sh`` read. A pinned binary is looked up, in order, in
the explicit tool dir (``--tools-dir`` or ``$STRATA_TOOLS_DIR``, its ``bin/``), the per-user
cache ``strata tools install`` builds into (``$XDG_CACHE_HOME/strata/tools/<name>-<version>/``),
the source checkout's ``.tools/bin`` (``make``; only when no tool dir is given) and PATH."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import shutil
import signal
import subprocess
from functools import cache
from importlib import resources
from pathlib import Path

from strata import usercache
from strata.errors import ToolFailed, ToolMissing

INSTALL_COMMAND = "strata tools install"


@dataclasses.dataclass(frozen=True)
class Pin:
    name: str
    module: str  # the Go package built (for the server tools: inside the wrapper module <name>)
    version: str
    server: bool = False  # built only by `strata tools install --server` (slow)

    def install_command(self) -> str:
        return f"{INSTALL_COMMAND} --server" if self.server else INSTALL_COMMAND

    def install_hint(self) -> str:
        if self.server:
            return f"run {self.install_command()} (builds {self.name} {self.version} once, about a quarter of an hour)"
        return f"run {INSTALL_COMMAND} (builds {self.module}@{self.version} with Go into {cache_dir()})"

    def recipe(self) -> str:
        """What a build of this pin is made from, stored beside the binary as its stamp: a
        binary whose stamp differs is rebuilt. scripts/install-tools.sh writes the same text."""
        if not self.server:
            return f"{self.module}@{self.version}"
        wrapper = server_module_dir(self.name)
        content = (wrapper / "go.mod").read_bytes() + (wrapper / "go.sum").read_bytes() + (self.ldflags() + "\n").encode()
        return f"{self.module}@{self.version} {hashlib.sha256(content).hexdigest()[:16]}"

    def ldflags(self) -> str:
        if self.name != "kube-apiserver":
            return ""
        # What upstream's release build stamps in, so /version reports the real release
        # (the default is v0.0.0-master).
        minor = self.version.removeprefix("v1.").split(".")[0]
        return (f"-X k8s.io/component-base/version.gitVersion={self.version} -X k8s.io/component-base/version.gitMajor=1"
                f" -X k8s.io/component-base/version.gitMinor={minor} -X k8s.io/component-base/version.gitTreeState=clean")


def _read_pins() -> dict[str, Pin]:
    pins = {}
    for line in resources.files(__name__).joinpath("pins.tsv").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, module, version, step = line.split("\t")
            pins[name] = Pin(name, module, version, server=step == "server")
    return pins


PINS: dict[str, Pin] = _read_pins()
_SOURCE_ROOT = Path(__file__).resolve().parents[3]


@cache
def server_module_dir(name: str) -> Path:
    """The wrapper module a server tool is built in: shipped in the wheel, or the checkout's."""
    shipped = Path(str(resources.files("strata").joinpath("_server_tools", name)))
    return shipped if shipped.is_dir() else _SOURCE_ROOT / "scripts" / "server-tools" / name


_explicit_dir: Path | None = None


def use_tools_dir(directory: Path | None) -> None:
    """The CLI's --tools-dir: searched first, as $STRATA_TOOLS_DIR would be."""
    global _explicit_dir
    _explicit_dir = directory


def explicit_tools_dir() -> Path | None:
    if _explicit_dir is not None:
        return _explicit_dir
    env = os.environ.get("STRATA_TOOLS_DIR")
    return Path(env) if env else None


def cache_dir() -> Path:
    """Where `strata tools install` builds the pinned binaries: one directory per version."""
    return usercache.root() / "tools"


def cached_binary(pin: Pin) -> Path:
    return cache_dir() / f"{pin.name}-{pin.version}" / pin.name


def checkout_tools_dir() -> Path | None:
    """``.tools`` of the source checkout strata runs from (``make tools``); None for a wheel."""
    if (_SOURCE_ROOT / "pyproject.toml").is_file() and (_SOURCE_ROOT / "src" / "strata").is_dir():
        return _SOURCE_ROOT / ".tools"
    return None


def project_tools_dir() -> Path:
    """The tool dir whose ``bin/`` the install scripts fill: the explicit one, else the checkout's."""
    explicit = explicit_tools_dir()
    if explicit is not None:
        return explicit / "bin"
    return (checkout_tools_dir() or Path(".tools")) / "bin"


def candidates(name: str) -> list[tuple[str, Path]]:
    """Where a pinned binary is looked for, in order: (what the place is, the path)."""
    places: list[tuple[str, Path]] = []
    explicit = explicit_tools_dir()
    if explicit is not None:
        places.append(("tools dir", explicit / "bin" / name))
    places.append(("user cache", cached_binary(PINS[name])))
    checkout = checkout_tools_dir()
    if explicit is None and checkout is not None:
        places.append(("checkout", checkout / "bin" / name))
    on_path = shutil.which(name)
    if on_path:
        places.append(("PATH", Path(on_path)))
    return places


def locate(name: str) -> tuple[str, Path] | None:
    for where, path in candidates(name):
        if path.is_file() and os.access(path, os.X_OK):
            return where, path
    return None


def find(name: str) -> Path:
    """The first installed binary of the lookup order (module docstring)."""
    found = locate(name)
    if found is None:
        raise ToolMissing(f"{name} is not installed: {PINS[name].install_hint()}")
    return found[1]


def require(names: list[str]) -> None:
    """Every binary a step needs, all missing ones named in one error."""
    missing = [PINS[n] for n in names if locate(n) is None]
    if len(missing) == 1:
        find(missing[0].name)
    if missing:
        what = ", ".join(p.name for p in missing)
        if all(p.server for p in missing):
            hint = f"run {INSTALL_COMMAND} --server (builds them once, about a quarter of an hour)"
        elif not any(p.server for p in missing):
            hint = f"run {INSTALL_COMMAND} (builds them with Go into {cache_dir()})"
        else:
            hint = f"run {INSTALL_COMMAND} --server (builds them with Go into {cache_dir()})"
        raise ToolMissing(f"{what} are not installed: {hint}")


# Generous: kubeconform over a 9,000-object tree takes seconds; a hung binary must still end.
TIMEOUT_SECONDS = 900.0


def run(name: str, args: list[str], *, cwd: Path | None = None, input: str | None = None,
        timeout: float = TIMEOUT_SECONDS) -> subprocess.CompletedProcess[str]:
    """Run a pinned tool and capture its output; the caller interprets its exit code. A tool
    that cannot start, is killed by a signal or times out raises ToolFailed (one typed error,
    whatever the tool), so no caller mistakes a crash for the tool's verdict."""
    binary = find(name)
    env = dict(os.environ, LC_ALL="C", LANG="C")
    reinstall = f"reinstall it with {PINS[name].install_command()} ({PINS[name].module}@{PINS[name].version})"
    try:
        proc = subprocess.run(
            [str(binary), *args], cwd=cwd, input=input, capture_output=True, text=True, env=env, check=False, timeout=timeout
        )
    except subprocess.TimeoutExpired as exc:
        raise ToolFailed(f"{name} ({binary}) did not finish within {timeout:g} s and was stopped") from exc
    except OSError as exc:
        raise ToolFailed(f"{name} ({binary}) cannot be run: {exc.strerror or exc}; {reinstall}") from exc
    if proc.returncode < 0:
        signal_name = _signal_name(-proc.returncode)
        stderr = " ".join(proc.stderr.split())[-300:]
        raise ToolFailed(f"{name} ({binary}) crashed ({signal_name}){': ' + stderr if stderr else ''}; {reinstall}")
    return proc


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def run_system(name: str, args: list[str], *, cwd: Path | None = None) -> subprocess.CompletedProcess[str] | None:
    """Run an unpinned system binary (git) when it is on PATH; None when it is not, for the
    callers that can do without it."""
    found = shutil.which(name)
    if found is None:
        return None
    env = dict(os.environ, LC_ALL="C", LANG="C")
    return subprocess.run([found, *args], cwd=cwd, capture_output=True, text=True, env=env, check=False)
