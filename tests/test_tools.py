"""The pinned binaries: the install script and strata agree on the pins, the script skips
what is installed, and strata explains how to install a missing binary."""

from __future__ import annotations

import os
import re
import subprocess

import pytest
from conftest import require_tool
from reference import REPO_ROOT

from strata import tools
from strata.errors import ToolMissing
from strata.spec.model import SUPPORTED_KUBERNETES

SCRIPT = REPO_ROOT / "scripts" / "install-tools.sh"
SERVER_TOOLS = REPO_ROOT / "scripts" / "server-tools"


def test_the_install_script_reads_the_one_pin_list():
    script = SCRIPT.read_text()
    assert "src/strata/tools/pins.tsv" in script
    for pin in tools.PINS.values():  # no pin of its own that could drift
        assert pin.version not in script and pin.module not in script, pin


@pytest.mark.parametrize("name", list(tools.PINS))
def test_strata_and_the_install_script_stamp_a_build_alike(name):
    """A binary the script built counts as installed for `strata tools install` (and the
    other way round): both write the same recipe."""
    stamp = tools.project_tools_dir() / f".{name}.version"
    if not stamp.is_file():
        require_tool(name)
        pytest.skip(f"{name} was not built by scripts/install-tools.sh")
    assert stamp.read_text().strip() == tools.PINS[name].recipe()


def test_server_tools_match_the_newest_supported_kubernetes_and_their_wrapper_modules():
    apiserver, etcd = tools.PINS["kube-apiserver"], tools.PINS["etcd"]
    newest = SUPPORTED_KUBERNETES[-1]
    assert apiserver.version.startswith(f"v{newest}."), f"kube-apiserver {apiserver.version} is not Kubernetes {newest}"
    gomod = (SERVER_TOOLS / "kube-apiserver" / "go.mod").read_text()
    assert re.search(rf"^\tk8s\.io/kubernetes {re.escape(apiserver.version)}( // indirect)?$", gomod, re.MULTILINE)
    # Every staging module k8s.io/kubernetes replaces with ./staging is pinned to its release.
    replaced = re.findall(r"^\t(k8s\.io/[\w-]+) => (k8s\.io/[\w-]+) (v\S+)$", gomod, re.MULTILINE)
    staging_version = "v0." + apiserver.version.removeprefix("v1.")
    assert len(replaced) > 20 and all(a == b and v == staging_version for a, b, v in replaced), replaced
    etcd_mod = (SERVER_TOOLS / "etcd" / "go.mod").read_text()
    assert re.search(rf"^\t{re.escape(etcd.module)} {re.escape(etcd.version)}( // indirect)?$", etcd_mod, re.MULTILINE)
    for name in ("etcd", "kube-apiserver"):
        assert (SERVER_TOOLS / name / "go.sum").is_file(), "go.sum pins every dependency of the build"


@pytest.mark.parametrize("step", ["", "server"])
def test_install_script_skips_installed_tools(step):
    if os.environ.get("STRATA_TOOLS_DIR"):
        pytest.skip("uses the project-local tool dir")
    pins = [pin for pin in tools.PINS.values() if pin.server == bool(step)]
    for pin in pins:
        require_tool(pin.name)
    result = subprocess.run([str(SCRIPT), *([step] if step else [])], capture_output=True, text=True, check=True)
    for pin in pins:
        assert f"install-tools: {pin.name} {pin.version} already installed" in result.stdout
    assert result.stdout.count("already installed") == len(pins), "each step installs only its own tools"


def test_missing_tool_names_the_install_command(monkeypatch, tmp_path):
    monkeypatch.setenv("STRATA_TOOLS_DIR", str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ToolMissing, match=r"^kubeconform is not installed: run strata tools install \(builds "
                                          r"github.com/yannh/kubeconform/cmd/kubeconform@v0.7.0 with Go into .*/cache/strata/tools\)$"):
        tools.find("kubeconform")
    with pytest.raises(ToolMissing, match=r"^kube-apiserver is not installed: run strata tools install --server "):
        tools.find("kube-apiserver")
    with pytest.raises(ToolMissing, match=r"^kubeconform, kustomize are not installed: run strata tools install \(builds them with Go into .*/cache/strata/tools\)$"):
        tools.require(["kubeconform", "kustomize"])


@pytest.mark.parametrize("name", ["kubeconform", "helm", "kustomize", "promtool", "etcd", "kube-apiserver"])
def test_pinned_binaries_run(name):
    require_tool(name)
    args = {"kubeconform": ["-v"], "helm": ["version", "--short"], "kustomize": ["version"], "promtool": ["--version"],
            "etcd": ["--version"], "kube-apiserver": ["--version"]}[name]
    result = tools.run(name, args)
    assert result.returncode == 0, result.stderr
    if name in ("etcd", "kube-apiserver"):  # built from the wrapper modules at the pinned version
        assert tools.PINS[name].version.removeprefix("v") in result.stdout, result.stdout


def _fake_tool(tmp_path, monkeypatch, name: str, content: bytes):
    """A broken stand-in for a pinned binary, found first (STRATA_TOOLS_DIR)."""
    binary = tmp_path / "bin" / name
    binary.parent.mkdir(exist_ok=True)
    binary.write_bytes(content)
    binary.chmod(0o755)
    monkeypatch.setenv("STRATA_TOOLS_DIR", str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return binary


def test_a_crashing_tool_raises_tool_failed_naming_the_signal(monkeypatch, tmp_path):
    from strata.errors import ToolError, ToolFailed

    _fake_tool(tmp_path, monkeypatch, "kubeconform", b"#!/bin/sh\necho 'runtime: out of memory' >&2\nkill -SEGV $$\n")
    with pytest.raises(ToolFailed, match=r"kubeconform \(.*\) crashed \(SIGSEGV\): runtime: out of memory; reinstall it with strata tools install \(") as raised:
        tools.run("kubeconform", ["-v"])
    assert isinstance(raised.value, ToolError) and raised.value.exit_code == 1


def test_a_binary_that_cannot_be_executed_raises_tool_failed(monkeypatch, tmp_path):
    from strata.errors import ToolFailed

    _fake_tool(tmp_path, monkeypatch, "helm", b"\x7fELF not really a program")
    with pytest.raises(ToolFailed, match=r"helm \(.*\) cannot be run: Exec format error; reinstall it with strata tools install"):
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
