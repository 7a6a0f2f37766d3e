"""render/repo-path: the gitops pack's Argo CD path must be where `strata render -o` writes the
tree in its Git repository (compared only inside a Git work tree, and not for ignored dirs)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import VALUES

from strata.cli import main

SPEC = VALUES / "realistic.yaml"  # gitops.argocd.path: clusters/ml-prod, at line 134


def _git_repo(root: Path) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is not on PATH")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".gitignore").write_text("/scratch/\n")
    return root


def _render(capsys, out: str) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(["render", "-f", str(SPEC), "-o", out, "--no-validate"])
    captured = capsys.readouterr()
    return int(exit_info.value.code or 0), captured.out + captured.err


def test_tree_elsewhere_in_the_repository_is_refused_at_the_path_line(tmp_path, monkeypatch, capsys):
    repo = _git_repo(tmp_path / "platform")
    monkeypatch.chdir(repo)
    code, output = _render(capsys, "deploy/prod")
    assert code == 1, output
    assert f"{SPEC}:134:" in output and "[render/repo-path]" in output
    assert "gitops.argocd.path: 'clusters/ml-prod' names this tree's place in its Git repository, but strata writes it to 'deploy/prod'" in output
    assert not (repo / "deploy").exists(), "nothing is written when the path is wrong"


def test_tree_at_the_declared_path_renders(tmp_path, monkeypatch, capsys):
    repo = _git_repo(tmp_path / "platform")
    monkeypatch.chdir(repo)
    code, output = _render(capsys, "clusters/ml-prod")
    assert code == 0, output
    assert (repo / "clusters/ml-prod/strata.lock").is_file()


def test_ignored_directory_and_outside_git_are_not_compared(tmp_path, monkeypatch, capsys):
    repo = _git_repo(tmp_path / "platform")
    monkeypatch.chdir(repo)
    assert _render(capsys, "scratch/try")[0] == 0
    outside = tmp_path / "no-git"
    outside.mkdir()
    monkeypatch.chdir(outside)
    assert _render(capsys, "deploy/prod")[0] == 0
