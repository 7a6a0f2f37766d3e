"""`strata tools install`, the lookup order of the pinned binaries and `strata doctor`, run
through the real CLI against the real binaries (linked from the checkout's tool dir, never
rebuilt here) and an isolated per-user cache."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from conftest import require_tool, run_cli

from strata import tools
from strata.tools import install as install_lib

BASE = [p for p in tools.PINS.values() if not p.server]


@pytest.fixture
def built() -> Path:
    """The directory the already-built binaries are in (the checkout's .tools/bin)."""
    for pin in BASE:
        require_tool(pin.name)
    return tools.find("kubeconform").parent


@pytest.fixture
def isolated(tmp_path, monkeypatch):
    """An empty per-user cache, no tool dir, and a PATH without Go or any pinned binary."""
    empty_path = tmp_path / "path"
    empty_path.mkdir()
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "PATH": str(empty_path), "STRATA_TOOLS_DIR": ""}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setattr(tools, "checkout_tools_dir", lambda: None)  # as for a wheel
    return env


def test_without_go_every_missing_tool_is_named_with_what_to_do(isolated):
    result = run_cli(["tools", "install"], env=isolated)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    message = result.stderr
    assert message.startswith("strata: error: Go is needed to build the missing pinned binaries "
                              "(kubeconform v0.7.0, helm v4.3.1, kustomize v5.8.2, promtool v0.316.0) and is not on PATH")
    assert "install Go 1.26 or newer (https://go.dev/dl/) and run strata tools install again" in message
    assert "--tools-dir DIR" in message
    for pin in BASE:
        assert f"{pin.name}: go install {pin.module}@{pin.version}" in message
    assert "etcd" not in message, "the server tools only with --server"
    assert "kube-apiserver" in run_cli(["tools", "install", "--server"], env=isolated).stderr


def test_tools_install_links_built_binaries_then_finds_them_installed(built, isolated, tmp_path):
    adopted = run_cli(["tools", "install", "--from", built], env=isolated)
    assert adopted.returncode == 0, adopted.stderr
    cache = tmp_path / "cache" / "strata" / "tools"
    for pin in BASE:
        binary = cache / f"{pin.name}-{pin.version}" / pin.name
        assert binary.resolve() == (built / pin.name).resolve()
        assert f"{pin.name:<15} {pin.version:<9} installed" in adopted.stdout
        assert tools.find(pin.name) == binary, "the user cache is searched before PATH"
    # No Go on PATH: a second run has nothing to build.
    again = run_cli(["tools", "install"], env=isolated)
    assert again.returncode == 0, again.stderr
    assert again.stdout.count("already installed") == len(BASE)


def test_a_binary_of_another_version_is_not_adopted(built, isolated, tmp_path):
    impostor = tmp_path / "impostor"
    impostor.mkdir()
    (impostor / "helm").symlink_to(built / "kustomize")  # a Go binary, but not helm v4.3.1
    result = run_cli(["tools", "install", "--from", impostor], env=isolated)
    assert result.returncode == 1
    assert f"{impostor / 'helm'} is not v4.3.1" in result.stderr or "not a Go binary" in result.stderr, result.stderr
    assert not (tmp_path / "cache" / "strata" / "tools" / "helm-v4.3.1").exists()


def test_lookup_order_tool_dir_then_user_cache_then_path(isolated, tmp_path, monkeypatch):
    def executable(path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("#!/bin/sh\n")
        path.chmod(0o755)
        return path

    pin = tools.PINS["helm"]
    on_path = executable(Path(isolated["PATH"]) / "helm")
    assert tools.find("helm") == on_path
    cached = executable(tools.cached_binary(pin))
    assert tools.find("helm") == cached
    explicit = executable(tmp_path / "dir" / "bin" / "helm")
    monkeypatch.setenv("STRATA_TOOLS_DIR", str(tmp_path / "dir"))
    assert tools.find("helm") == explicit
    flag = executable(tmp_path / "flag" / "bin" / "helm")
    tools.use_tools_dir(tmp_path / "flag")
    try:
        assert tools.find("helm") == flag, "--tools-dir wins over $STRATA_TOOLS_DIR"
    finally:
        tools.use_tools_dir(None)


def test_the_checkout_tool_dir_comes_after_the_user_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("STRATA_TOOLS_DIR", raising=False)
    places = [where for where, _ in tools.candidates("kubeconform")]
    assert places[:2] == ["user cache", "checkout"]


def test_doctor_reports_every_tool_and_the_schemas_in_one_table(built, isolated, tmp_path):
    missing = run_cli(["doctor"], env=isolated)
    assert missing.returncode == 1
    lines = missing.stdout.splitlines()
    assert lines[0].split() == ["CHECK", "EXPECTED", "STATUS", "FOUND"]
    for pin in BASE:
        row = next(line for line in lines if line.startswith(f"tool {pin.name} "))
        assert row.split()[2:5] == [pin.version, "missing", "not"] and "strata tools install" in row
    assert "optional" in next(line for line in lines if line.startswith("tool etcd"))
    for check in ("core schemas", "schema store", "chart cache", "kubernetes versions"):
        assert any(line.startswith(check) for line in lines), check

    assert run_cli(["tools", "install", "--from", built], env=isolated).returncode == 0
    found = run_cli(["doctor", "--format", "json"], env=isolated)
    import json

    rows = {r["check"]: r for r in json.loads(found.stdout)}
    for pin in BASE:
        row = rows[f"tool {pin.name}"]
        assert row["status"] == "ok" and row["found"].startswith(f"{pin.version} (user cache: "), row


def test_doctor_names_a_wrong_version_on_path(built, isolated):
    shutil.copy(built / "kustomize", Path(isolated["PATH"]) / "helm")  # helm on PATH, but it is kustomize
    os.chmod(Path(isolated["PATH"]) / "helm", 0o755)
    result = run_cli(["doctor"], env=isolated)
    row = next(line for line in result.stdout.splitlines() if line.startswith("tool helm "))
    assert " mismatch " in row and "a build of sigs.k8s.io/kustomize/kustomize/v5 v5.8.2 (PATH: " in row, row
    assert result.returncode == 1


def test_install_without_anything_missing_needs_no_go(built, isolated):
    install_lib.adopt(built, server=False)
    assert all(not i.built for i in install_lib.install(False, print))
