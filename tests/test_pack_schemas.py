"""The CRD schemas packs ship: generated from the upstream CRDs of the sets each pack declares
by scripts/build-pack-schemas.py (checked byte for byte against the reference, and for any
pack directory, a third-party one too), and enough on their own to validate a tree, with a
schema store that is absent or read-only and left untouched."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import yaml
from conftest import VALUES, require_tool
from reference import REPO_ROOT, load_script, reference_dir

from strata.validate import schema_store

SCRIPT = REPO_ROOT / "scripts" / "build-pack-schemas.py"
PACKS = REPO_ROOT / "packs"


def _script():
    return load_script("build-pack-schemas.py")


def test_pack_schemas_are_regenerated_from_the_reference():
    result = subprocess.run([sys.executable, str(SCRIPT), "--check", "--reference", str(reference_dir() / "crds")],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr


def test_every_declared_crd_set_ships_with_its_provenance():
    for manifest_file in sorted(PACKS.glob("*/pack.yaml")):
        declared = yaml.safe_load(manifest_file.read_text()).get("crds") or []
        schemas = manifest_file.parent / "schemas"
        assert sorted(p.name for p in schemas.iterdir()) == sorted(declared) if declared else not schemas.exists()
        for crd_set in declared:
            directory = schemas / crd_set
            rows = [line.split("\t") for line in (directory / "PROVENANCE.tsv").read_text().splitlines()[2:]]
            generated = {path: digest for kind, path, digest in rows if kind == "generated"}
            assert any(kind == "source" for kind, _, _ in rows)
            on_disk = {p.relative_to(directory).as_posix() for p in directory.rglob("*") if p.is_file()} - {"PROVENANCE.tsv"}
            assert set(generated) == on_disk, f"{directory}: files the provenance does not list"
            for path, digest in generated.items():
                assert hashlib.sha256((directory / path).read_bytes()).hexdigest() == digest, f"{directory / path} was edited"


def test_the_generator_covers_any_pack_and_its_declared_sets(tmp_path):
    """A pack that declares other CRD sets (a third-party pack, or a new built-in one) gets
    their schemas by running the script over its directory."""
    crds = reference_dir() / "crds"
    other = sorted(p.name for p in crds.iterdir() if p.name.startswith(("kagent-", "dra-driver-")))
    assert other, "the reference has CRD sets no built-in pack declares"
    pack = tmp_path / "packs" / "extra"
    pack.mkdir(parents=True)
    (pack / "pack.yaml").write_text(yaml.safe_dump({"name": "extra", "crds": other}))
    (pack / "schemas" / "old-set").mkdir(parents=True)
    (pack / "schemas" / "old-set" / "x.json").write_text("{}")
    script = _script()
    assert script.main(["--reference", str(crds), "--packs", str(tmp_path / "packs"), "--check"]) == 1
    assert script.main(["--reference", str(crds), "--packs", str(tmp_path / "packs")]) == 0
    assert sorted(p.name for p in (pack / "schemas").iterdir()) == other, "a set no longer declared is removed"
    for crd_set in other:
        assert list((pack / "schemas" / crd_set).glob("*.*/*.json")), crd_set
    assert script.main(["--reference", str(crds), "--packs", str(tmp_path / "packs"), "--check"]) == 0


def test_shipped_schemas_keep_the_strict_shape_without_descriptions():
    nodepool = (PACKS / "compute" / "schemas" / "karpenter-1.14.1" / "karpenter.sh" / "nodepool_v1.json").read_text()
    assert '"description"' not in nodepool and '"additionalProperties":false' in nodepool
    imported, _ = schema_store.convert_crds([reference_dir() / "crds" / "karpenter-1.14.1" / "karpenter.sh_nodepools.yaml"])
    assert '"description"' in imported[Path("karpenter.sh/nodepool_v1.json")]


def _snapshot(root: Path) -> dict[str, tuple[int, int]]:
    return {p.relative_to(root).as_posix(): (p.stat().st_size, p.stat().st_mtime_ns) for p in root.rglob("*")}


def test_a_tree_validates_with_an_absent_or_read_only_store_left_untouched(tmp_path):
    require_tool("kubeconform")
    require_tool("kustomize")
    read_only = tmp_path / "read-only-store"
    shutil.copytree(reference_dir() / "crds" / "dra-driver-nvidia-gpu-0.4.1", read_only / "unrelated")
    read_only.chmod(0o555)
    before = _snapshot(read_only)
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"))
    try:
        for store in (tmp_path / "absent", read_only):
            result = subprocess.run([sys.executable, "-m", "strata", "render", "-f", VALUES / "realistic.yaml", "-o",
                                     tmp_path / f"out-{store.name}", "--schema-store", store],
                                    env=env, capture_output=True, text=True, check=False)
            assert result.returncode == 0, result.stdout + result.stderr
        assert not (tmp_path / "absent").exists()
        assert _snapshot(read_only) == before
    finally:
        read_only.chmod(0o755)


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None, reason="needs root and setpriv to drop to nobody")
def test_a_store_the_user_cannot_write_works():
    """As root a mode bit does not stop a write; as nobody it does."""
    require_tool("kubeconform")
    require_tool("kustomize")
    root = Path(tempfile.mkdtemp(prefix="strata-nobody-"))  # pytest's tmp_path is private to root
    try:
        _render_as_nobody(root)
    finally:
        shutil.rmtree(root)


def _render_as_nobody(root: Path) -> None:
    root.chmod(0o755)
    home = root / "home"
    home.mkdir()
    store = root / "store"
    store.mkdir(mode=0o555)
    links = root / "tools" / "bin"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "XDG_CACHE_HOME": str(home / "cache"),
           "STRATA_TOOLS_DIR": str(links.parent), "PYTHONDONTWRITEBYTECODE": "1"}
    from strata import tools

    links.mkdir(parents=True)
    for name in ("kubeconform", "kustomize"):
        (links / name).symlink_to(tools.find(name))
    shutil.chown(home, "nobody")
    result = subprocess.run(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", sys.executable, "-m", "strata",
                             "render", "-f", VALUES / "minimal.yaml", "-o", home / "out", "--schema-store", store],
                            env=env, capture_output=True, text=True, check=False, cwd=home)
    assert result.returncode == 0, result.stdout + result.stderr
    assert list(store.iterdir()) == []
