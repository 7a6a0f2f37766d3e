"""The pinned binaries: the install script and strata agree on the pins, the script skips
what is installed, and strata explains how to install a missing binary."""

from __future__ import annotations

import os
import re
import subprocess

import pytest

from reference import REPO_ROOT
from strata import tools
from strata.errors import ToolMissing

SCRIPT = REPO_ROOT / "scripts" / "install-tools.sh"


def test_install_script_pins_match_strata():
    pins = dict(re.findall(r'"(\w+)\|([^|]+\|v[0-9.]+)"', SCRIPT.read_text()))
    expected = {name: f"{pin.module}|{pin.version}" for name, pin in tools.PINS.items()}
    assert pins == expected


def test_install_script_skips_installed_tools():
    if os.environ.get("STRATA_TOOLS_DIR"):
        pytest.skip("uses the project-local tool dir")
    result = subprocess.run([str(SCRIPT)], capture_output=True, text=True, check=True)
    for name in tools.PINS:
        assert f"install-tools: {name} {tools.PINS[name].version} already installed" in result.stdout


def test_missing_tool_names_the_install_command(monkeypatch, tmp_path):
    monkeypatch.setenv("STRATA_TOOLS_DIR", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ToolMissing, match=r"scripts/install-tools.sh .*go install github.com/yannh/kubeconform/cmd/kubeconform@v0.7.0"):
        tools.find("kubeconform")


@pytest.mark.parametrize("name", ["kubeconform", "helm", "kustomize", "promtool"])
def test_pinned_binaries_run(name):
    from conftest import require_tool

    require_tool(name)
    args = {"kubeconform": ["-v"], "helm": ["version", "--short"], "kustomize": ["version"], "promtool": ["--version"]}[name]
    result = tools.run(name, args)
    assert result.returncode == 0, result.stderr
