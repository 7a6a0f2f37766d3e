"""The wheel path, as a new user takes it: build strata's wheel, install it into a fresh
virtualenv, and in an empty directory outside the repository run `strata tools install`,
`strata init`, `strata render` (validation on, the pinned binaries from the per-user cache),
`strata doctor`, `strata schema` and `strata explain`, with no source tree and no
../shared reference in reach.

Offline: the wheel's dependencies are not downloaded but linked from this environment (their
installed files, without strata's own), and the per-user tool cache is filled with
`strata tools install --from` the checkout's already-built binaries (their versions checked),
so no Go build runs here."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from importlib.metadata import Distribution, distribution
from pathlib import Path

import pytest
from conftest import require_tool
from packaging.requirements import Requirement
from reference import REPO_ROOT

from strata import tools


def _closure(name: str, seen: dict[str, Distribution]) -> None:
    dist = distribution(name)
    key = dist.metadata["Name"].lower()
    if key in seen:
        return
    seen[key] = dist
    for text in dist.requires or ():
        requirement = Requirement(text)
        if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
            _closure(requirement.name, seen)


def _link_dependencies(target: Path) -> None:
    """Every installed file of strata's runtime dependencies, linked under ``target``."""
    found: dict[str, Distribution] = {}
    _closure("strata", found)
    del found["strata"]
    for dist in found.values():
        root = Path(str(dist.locate_file("")))
        tops = {Path(str(f)).parts[0] for f in dist.files or () if not str(f).startswith("..")}
        for top in tops:
            source, link = root / top, target / top
            if source.exists() and not link.exists() and top != "__pycache__" and not top.endswith(".pth"):
                link.symlink_to(source)


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("wheel")
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                            "--disable-pip-version-check", "-w", str(work / "dist"), str(REPO_ROOT)],
                           capture_output=True, text=True, check=False)
    assert built.returncode == 0, built.stderr
    [wheel] = (work / "dist").glob("strata-*.whl")
    env_dir = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(env_dir)], check=True)
    python = env_dir / "bin" / "python"
    installed = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
                                "--disable-pip-version-check", str(wheel)], capture_output=True, text=True, check=False)
    assert installed.returncode == 0, installed.stderr
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    deps = work / "deps"
    deps.mkdir()
    _link_dependencies(deps)
    (site / "zz-strata-test-dependencies.pth").write_text(f"{deps}\n")
    return env_dir


def _run(venv: Path, home: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache"),
           "LANG": "C.UTF-8"}
    return subprocess.run([str(venv / "bin" / "strata"), *map(str, args)], cwd=home / "work", env=env,
                          capture_output=True, text=True, check=False)


def test_wheel_in_a_fresh_venv_inits_renders_validated_and_explains(venv, tmp_path):
    for pin in tools.PINS.values():
        if not pin.server:
            require_tool(pin.name)
    built = tools.find("kubeconform").parent
    home = tmp_path / "home"
    (home / "work").mkdir(parents=True)

    where = subprocess.run([str(venv / "bin" / "python"), "-c", "import strata; print(strata.__file__)"],
                           cwd=home / "work", capture_output=True, text=True, check=True, env={"PATH": "/usr/bin:/bin"})
    assert where.stdout.startswith(str(venv)), f"strata must come from the wheel, not the checkout: {where.stdout}"

    missing = _run(venv, home, "render", "-f", "nothing.yaml", "-o", "x")
    assert missing.returncode == 2
    init = _run(venv, home, "init", "--preset", "jark")
    assert init.returncode == 0, init.stderr
    no_tools = _run(venv, home, "render", "-f", "platform.yaml", "-o", "deploy")
    assert no_tools.returncode == 1 and "kubeconform, kustomize are not installed: run strata tools install" in no_tools.stderr, no_tools.stderr
    assert "scripts/" not in no_tools.stderr, "never a script the wheel lacks"

    adopted = _run(venv, home, "tools", "install", "--from", built)
    assert adopted.returncode == 0, adopted.stderr
    again = _run(venv, home, "tools", "install")  # no Go on PATH: nothing left to build
    assert again.returncode == 0 and again.stdout.count("already installed") == 4, again.stdout + again.stderr

    rendered = _run(venv, home, "render", "-f", "platform.yaml", "-o", "deploy")
    assert rendered.returncode == 0, rendered.stdout + rendered.stderr
    assert (home / "work" / "deploy" / "strata.lock").is_file() and (home / "work" / "deploy" / "jark").is_dir()
    assert sorted(os.listdir(home / "work")) == ["deploy", "platform.yaml", "strata.schema.json"], "nothing else in the work dir"
    check = _run(venv, home, "render", "-f", "platform.yaml", "-o", "deploy", "--check")
    assert check.returncode == 0, check.stdout + check.stderr

    doctor = _run(venv, home, "doctor")
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    for pin in tools.PINS.values():
        row = next(line for line in doctor.stdout.splitlines() if line.startswith(f"tool {pin.name} "))
        assert (" optional " in row) if pin.server else (" ok " in row and "(user cache: " in row), row
    assert re.search(r"^CRD schemas karpenter-1\.14\.1 .* ok .*_builtin_packs/compute/schemas/karpenter-1\.14\.1", doctor.stdout, re.MULTILINE)
    assert str(REPO_ROOT) not in doctor.stdout.replace(str(built), ""), "nothing from the checkout but the linked binaries"

    schema = _run(venv, home, "schema")
    assert schema.returncode == 0 and "jark" in json.loads(schema.stdout)["properties"]
    explained = _run(venv, home, "explain", "compute/ami-family")
    assert explained.returncode == 0 and "bad (tests/cases/invalid/ami-family.yaml" in explained.stdout
    assert "good (values/" in explained.stdout
