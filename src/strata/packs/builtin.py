"""Built-in packs, registered under the ``strata.packs`` entry-point group in pyproject.toml
exactly like third-party packs: each name below resolves to its pack directory."""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def _builtin_root() -> Path:
    # Inside a wheel: package data (a real directory: the templates, CRD schemas and chart key
    # indexes are read as files, kubeconform reads the schemas itself).
    packaged = Path(str(resources.files("strata").joinpath("_builtin_packs")))
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[3] / "packs"  # a source checkout / editable install


ROOT = _builtin_root()
compute = ROOT / "compute"
tenancy = ROOT / "tenancy"
jark = ROOT / "jark"
storage = ROOT / "storage"
dra = ROOT / "dra"
observability = ROOT / "observability"
gitops = ROOT / "gitops"
agents = ROOT / "agents"
identity = ROOT / "identity"
