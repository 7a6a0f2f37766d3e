"""Shared fixtures: the real CLI (in process, or as a subprocess where the process itself is under
test), the CRD schema store imported from the pinned reference CRDs, and the golden-tree snapshot
extension (tests/golden_tree.py, trees stored under golden/)."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parent))

from golden_tree import GoldenTreeExtension
from reference import REPO_ROOT, reference_dir

from strata import pipeline, tools
from strata.cli import main as strata_main
from strata.cli.commands import pack_crd_sets
from strata.errors import ToolMissing
from strata.validate.schema_store import import_crds

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


@pytest.fixture(scope="session", autouse=True)
def render_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Render records (output/rendered.py) of every CLI run in the tests go to a directory of
    this session, never into the user's cache."""
    cache = tmp_path_factory.mktemp("rendered")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("STRATA_RENDER_CACHE", str(cache))
        yield cache


@pytest.fixture(scope="session")
def schema_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Schemas for every CRD set a pack declares, imported from the reference CRDs."""
    store = tmp_path_factory.mktemp("schemas")
    import_crds(pack_crd_sets(reference_dir() / "crds"), store)
    return store


@dataclasses.dataclass(frozen=True)
class CliResult:
    """What a run of the CLI gave: the same three fields as subprocess.CompletedProcess."""

    returncode: int
    stdout: str
    stderr: str


def run_cli(args: list[str | Path], *, cwd: Path | None = None, env: dict[str, str] | None = None) -> CliResult:
    """``strata ARGS`` in this process through the real entry point (``strata.cli.main``, which
    maps exceptions to exit codes), with click's CliRunner capturing stdout and stderr."""
    runner = CliRunner()
    with runner.isolation(env=env) as (stdout, stderr, _), contextlib.chdir(cwd or REPO_ROOT):
        try:
            strata_main([str(a) for a in args])
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    return CliResult(code, stdout.getvalue().decode(), stderr.getvalue().decode())


@pytest.fixture
def strata(schema_store: Path):
    """Run the CLI in process: ``strata("render", "-f", ...)`` -> CliResult."""
    require_tool("kubeconform")
    require_tool("kustomize")

    def run(*args: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None) -> CliResult:
        return run_cli(list(args), cwd=cwd, env={"STRATA_SCHEMA_STORE": str(schema_store), **(env or {})})

    return run


@pytest.fixture
def strata_process(schema_store: Path):
    """Run the installed ``strata`` script (the console entry point pyproject.toml declares) as
    its own process, for tests of the process itself (hash seed, environment, installed
    packs): ``strata_process("render", ...)`` -> CompletedProcess."""
    require_tool("kubeconform")
    require_tool("kustomize")
    script = Path(sys.executable).with_name("strata")
    assert script.is_file(), f"{script} is missing: install strata (pip install -e '.[test]')"

    def run(*args: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        full_env = dict(os.environ, STRATA_SCHEMA_STORE=str(schema_store), **(env or {}))
        return subprocess.run([str(script), *map(str, args)], cwd=cwd or REPO_ROOT,
                              env=full_env, capture_output=True, text=True, check=False)

    return run


@pytest.fixture
def without_shipped_schemas(monkeypatch):
    """As if the packs shipped no CRD schemas (a third-party pack may not): custom kinds then
    need the store (the in-process CLI only)."""
    from strata.validate import schema_store

    monkeypatch.setattr(schema_store, "pack_schema_sets", list)


@pytest.fixture
def golden(snapshot):
    return snapshot.use_extension(GoldenTreeExtension)
