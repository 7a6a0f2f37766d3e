"""Shared fixtures: the real CLI as a subprocess, the CRD schema store imported from the
pinned reference CRDs, and the golden-tree snapshot extension (stored under golden/)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from syrupy.extensions.amber import AmberSnapshotExtension

sys.path.insert(0, str(Path(__file__).parent))

from reference import REPO_ROOT, reference_dir  # noqa: E402

from strata import pipeline, tools  # noqa: E402
from strata.errors import ToolMissing  # noqa: E402
from strata.cli.commands import pack_crd_sets  # noqa: E402
from strata.validate.schema_store import import_crds  # noqa: E402

VALUES = REPO_ROOT / "values"
EXAMPLES = sorted(p.stem for p in VALUES.glob("*.yaml"))


def render_clean(*layers: tuple[str, bytes]) -> dict[str, bytes]:
    """Spec layers (name, text) rendered without validation; neither the spec nor the render
    may raise a single problem."""
    loaded = pipeline.load(list(layers))
    assert loaded.problems == []
    tree, problems = pipeline.render(loaded)
    assert problems == []
    return tree


def require_tool(name: str) -> None:
    try:
        tools.find(name)
    except ToolMissing as exc:
        if os.environ.get("STRATA_REQUIRE_TOOLS") == "1":
            pytest.fail(f"{exc} (and STRATA_REQUIRE_TOOLS=1)", pytrace=False)
        pytest.skip(str(exc))


@pytest.fixture(scope="session")
def schema_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Schemas for every CRD set a pack declares, imported from the reference CRDs."""
    store = tmp_path_factory.mktemp("schemas")
    import_crds(pack_crd_sets(reference_dir() / "crds"), store)
    return store


@pytest.fixture
def strata(schema_store: Path):
    """Run the installed CLI for real: ``strata("render", "-f", ...)`` -> CompletedProcess."""
    require_tool("kubeconform")
    require_tool("kustomize")

    def run(*args: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        full_env = dict(os.environ, STRATA_SCHEMA_STORE=str(schema_store), **(env or {}))
        return subprocess.run([sys.executable, "-m", "strata", *map(str, args)], cwd=cwd or REPO_ROOT,
                              env=full_env, capture_output=True, text=True, check=False)

    return run


class GoldenTree(AmberSnapshotExtension):
    """Golden output trees live in golden/, reviewed like code, changed only by --snapshot-update."""

    @classmethod
    def dirname(cls, *, test_location) -> str:
        return str(REPO_ROOT / "golden")


@pytest.fixture
def golden(snapshot):
    return snapshot.use_extension(GoldenTree)
