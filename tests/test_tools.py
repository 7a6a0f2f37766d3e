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


def _fake_tool(tmp_path, monkeypatch, name: str, content: bytes):
    """A broken stand-in for a pinned binary, found first (STRATA_TOOLS_DIR)."""
    binary = tmp_path / "bin" / name
    binary.parent.mkdir(exist_ok=True)
    binary.write_bytes(content)
    binary.chmod(0o755)
    monkeypatch.setenv("STRATA_TOOLS_DIR", str(tmp_path))
    return binary


def test_a_crashing_tool_raises_tool_failed_naming_the_signal(monkeypatch, tmp_path):
    from strata.errors import ToolError, ToolFailed

    _fake_tool(tmp_path, monkeypatch, "kubeconform", b"#!/bin/sh\necho 'runtime: out of memory' >&2\nkill -SEGV $$\n")
    with pytest.raises(ToolFailed, match=r"kubeconform \(.*\) crashed \(SIGSEGV\): runtime: out of memory; reinstall it") as raised:
        tools.run("kubeconform", ["-v"])
    assert isinstance(raised.value, ToolError) and raised.value.exit_code == 1


def test_a_binary_that_cannot_be_executed_raises_tool_failed(monkeypatch, tmp_path):
    from strata.errors import ToolFailed

    _fake_tool(tmp_path, monkeypatch, "helm", b"\x7fELF not really a program")
    with pytest.raises(ToolFailed, match=r"helm \(.*\) cannot be run: Exec format error; reinstall it with scripts/install-tools.sh"):
        tools.run("helm", ["version"])


def test_a_hung_tool_is_stopped_at_its_time_limit(monkeypatch, tmp_path):
    from strata.errors import ToolFailed

    _fake_tool(tmp_path, monkeypatch, "kustomize", b"#!/bin/sh\nexec sleep 30\n")
    with pytest.raises(ToolFailed, match=r"kustomize \(.*\) did not finish within 0.5 s and was stopped"):
        tools.run("kustomize", ["build"], timeout=0.5)


def test_a_failing_exit_code_is_the_callers_to_read(monkeypatch, tmp_path):
    _fake_tool(tmp_path, monkeypatch, "kubeconform", b"#!/bin/sh\necho invalid >&2\nexit 1\n")
    proc = tools.run("kubeconform", [])
    assert (proc.returncode, proc.stderr) == (1, "invalid\n")
