"""The one place strata runs external binaries: pinned versions, discovery and install hints."""

from __future__ import annotations

import dataclasses
import os
import shutil
import signal
import subprocess
from pathlib import Path

from strata.errors import ToolFailed, ToolMissing


@dataclasses.dataclass(frozen=True)
class Pin:
    name: str
    module: str  # the Go package built (for the server tools: inside scripts/server-tools/<name>)
    version: str
    server: bool = False  # built by the separate, slow `scripts/install-tools.sh server` step

    def install_hint(self) -> str:
        if self.server:
            return f"run scripts/install-tools.sh server (builds {self.name} {self.version} once, about a quarter of an hour)"
        return f"run scripts/install-tools.sh (or: GOBIN=$PWD/.tools/bin go install {self.module}@{self.version})"


# Keep in sync with scripts/install-tools.sh (tests/test_tools.py checks it).
PINS: dict[str, Pin] = {
    "kubeconform": Pin("kubeconform", "github.com/yannh/kubeconform/cmd/kubeconform", "v0.7.0"),
    "helm": Pin("helm", "helm.sh/helm/v4/cmd/helm", "v4.3.1"),
    "kustomize": Pin("kustomize", "sigs.k8s.io/kustomize/kustomize/v5", "v5.8.2"),
    "promtool": Pin("promtool", "github.com/prometheus/prometheus/cmd/promtool", "v0.316.0"),
    # For `validate --server`: the newest Kubernetes minor strata supports
    # (spec.model.SUPPORTED_KUBERNETES) and the etcd minor it is tested with.
    "etcd": Pin("etcd", "go.etcd.io/etcd/server/v3", "v3.7.3", server=True),
    "kube-apiserver": Pin("kube-apiserver", "k8s.io/kubernetes/cmd/kube-apiserver", "v1.37.2", server=True),
}


def project_tools_dir() -> Path:
    """``$STRATA_TOOLS_DIR``, else ``.tools/bin`` of the source checkout strata runs from."""
    env = os.environ.get("STRATA_TOOLS_DIR")
    if env:
        return Path(env) / "bin"
    return Path(__file__).resolve().parents[3] / ".tools" / "bin"


def find(name: str) -> Path:
    """The project-local binary if installed there, else the one on PATH."""
    local = project_tools_dir() / name
    if local.is_file() and os.access(local, os.X_OK):
        return local
    on_path = shutil.which(name)
    if on_path:
        return Path(on_path)
    raise ToolMissing(f"{name} is not installed: {PINS[name].install_hint()}")


# Generous: kubeconform over a 9,000-object tree takes seconds; a hung binary must still end.
TIMEOUT_SECONDS = 900.0


def run(name: str, args: list[str], *, cwd: Path | None = None, input: str | None = None,
        timeout: float = TIMEOUT_SECONDS) -> subprocess.CompletedProcess[str]:
    """Run a pinned tool and capture its output; the caller interprets its exit code. A tool
    that cannot start, is killed by a signal or times out raises ToolFailed (one typed error,
    whatever the tool), so no caller mistakes a crash for the tool's verdict."""
    binary = find(name)
    env = dict(os.environ, LC_ALL="C", LANG="C")
    reinstall = f"reinstall it with scripts/install-tools.sh ({PINS[name].module}@{PINS[name].version})"
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
