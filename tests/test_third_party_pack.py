"""A pack installed as a wheel (registered under the strata.packs entry point) goes through
the same loader as the built-in packs: listed, validated, checked and rendered."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

FIXTURE = Path(__file__).parent / "fixtures" / "strata-pack-hello"
SPEC = """\
apiVersion: strata.dev/v1alpha1
kind: Platform
cluster: {name: c1, region: us-east-1, kubernetesVersion: "1.36"}
teams:
  - {name: research, quota: {cpu: "10", memory: 10Gi}}
hello:
  message: {message}
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("site")
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                    "--disable-pip-version-check", "--target", str(target), str(FIXTURE)], check=True)
    return target


@pytest.fixture
def strata_with_pack(strata_process, site):
    """A fresh process: entry points are read from the environment the interpreter starts with."""
    return lambda *args: strata_process(*args, env={"PYTHONPATH": str(site)})


def test_installed_pack_is_listed_with_its_distribution(strata_with_pack, strata):
    listing = strata_with_pack("packs", "list").stdout
    assert any(line.split()[:3] == ["hello", "0.1.0", "strata-pack-hello"] for line in listing.splitlines()), listing
    assert any(line.split()[:3] == ["compute", "0.1.0", "builtin"] for line in listing.splitlines())
    assert "hello" not in strata("packs", "list").stdout  # not installed in the plain environment
    assert "hello/shouting" in strata_with_pack("rules").stdout


def test_installed_pack_renders_through_the_same_pipeline(strata_with_pack, tmp_path):
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC.replace("{message}", "hi there"))
    out = tmp_path / "out"
    result = strata_with_pack("render", "-f", spec, "-o", out)
    assert result.returncode == 0, result.stdout + result.stderr
    configmap = (out / "apps/greeting/configmap-research-greeting.yaml").read_text()
    assert "message: hi there" in configmap and "namespace: research" in configmap
    assert "- apps" in (out / "kustomization.yaml").read_text()
    assert "source: strata-pack-hello 0.1.0" in (out / "strata.lock").read_text()


def test_installed_pack_section_is_validated_and_checked(strata_with_pack, tmp_path):
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC.replace("{message}", "HELLO") + "  colour: red\n")
    result = strata_with_pack("render", "-f", spec, "-o", tmp_path / "out")
    assert result.returncode == 1
    assert f"{spec}:8:3: hello.colour: unknown field 'colour' [spec]" in result.stdout
    spec.write_text(SPEC.replace("{message}", "HELLO"))
    result = strata_with_pack("render", "-f", spec, "-o", tmp_path / "out")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "hello.message: warning: 'HELLO' is all caps [hello/shouting]" in result.stdout
