"""The one place strata runs external binaries: pinned versions, discovery and install hints."""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
from pathlib import Path

from strata.errors import ToolMissing


@dataclasses.dataclass(frozen=True)
class Pin:
    name: str
    module: str
    version: str


# Keep in sync with scripts/install-tools.sh (tests/test_tools.py checks it).
PINS: dict[str, Pin] = {
    "kubeconform": Pin("kubeconform", "github.com/yannh/kubeconform/cmd/kubeconform", "v0.7.0"),
    "helm": Pin("helm", "helm.sh/helm/v4/cmd/helm", "v4.3.1"),
    "kustomize": Pin("kustomize", "sigs.k8s.io/kustomize/kustomize/v5", "v5.7.1"),
    "promtool": Pin("promtool", "github.com/prometheus/prometheus/cmd/promtool", "v0.316.0"),
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
    pin = PINS[name]
    raise ToolMissing(
        f"{name} is not installed: run scripts/install-tools.sh "
        f"(or: GOBIN=$PWD/.tools/bin go install {pin.module}@{pin.version})"
    )


def run(name: str, args: list[str], *, cwd: Path | None = None, input: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run a pinned tool and capture its output; the caller interprets the exit code."""
    env = dict(os.environ, LC_ALL="C", LANG="C")
    return subprocess.run(
        [str(find(name)), *args], cwd=cwd, input=input, capture_output=True, text=True, env=env, check=False
    )
