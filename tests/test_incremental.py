"""An unchanged tree is proven current from its lock (spec digest, versions, a digest per
owned file) without rendering; a change renders and diffs as before; a re-render rewrites
only the files that change and leaves the others untouched."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from conftest import VALUES

from strata import pipeline
from strata.output import lock as lockfile
from strata.render import engine
from strata.validate import record

MINIMAL = VALUES / "minimal.yaml"
REALISTIC = VALUES / "realistic.yaml"


def request(spec: Path, out: Path, *, check: bool = False, store: Path | None = None) -> pipeline.RenderRequest:
    return pipeline.RenderRequest([(str(spec), spec.read_bytes())], out, check=check,
                                  validation=pipeline.Validation(store) if store else None)


def test_the_lock_records_a_digest_per_rendered_file(tmp_path):
    out = tmp_path / "out"
    assert not pipeline.render_tree(request(REALISTIC, out)).failed
    lock = lockfile.read(out)
    assert set(lock.digests) == set(lock.files) - {lockfile.LOCK_NAME}
    assert all(lockfile.digest((out / f).read_bytes()) == d for f, d in lock.digests.items())


def test_an_unchanged_tree_is_checked_without_rendering(tmp_path, monkeypatch):
    out = tmp_path / "out"
    assert not pipeline.render_tree(request(REALISTIC, out)).failed
    monkeypatch.setattr(engine, "render_platform", lambda *a, **k: pytest.fail("rendered"))
    outcome = pipeline.render_tree(request(REALISTIC, out, check=True))
    assert outcome.checked and not outcome.failed and outcome.drift == ()


@pytest.mark.parametrize("edit", ["hand edit", "missing file", "lock edit"])
def test_anything_the_lock_does_not_vouch_for_renders_and_shows_the_drift(tmp_path, edit):
    out = tmp_path / "out"
    assert not pipeline.render_tree(request(REALISTIC, out)).failed
    target = out / "compute" / "karpenter" / "nodepool-system.yaml"
    if edit == "hand edit":
        target.write_bytes(target.read_bytes().replace(b"system", b"sistem", 1))
    elif edit == "missing file":
        target.unlink()
    else:  # the owned file dropped from the lock: the rendered lock differs
        lock = out / lockfile.LOCK_NAME
        lock.write_bytes(lock.read_bytes().replace(b"  - compute/karpenter/nodepool-system.yaml\n", b""))
    outcome = pipeline.render_tree(request(REALISTIC, out, check=True))
    assert outcome.failed
    changed = {d.path for d in outcome.drift}
    assert changed == ({lockfile.LOCK_NAME} if edit == "lock edit" else {"compute/karpenter/nodepool-system.yaml"})


def test_a_spec_change_renders(tmp_path):
    out = tmp_path / "out"
    assert not pipeline.render_tree(request(REALISTIC, out)).failed
    edited = tmp_path / "edited.yaml"
    edited.write_text(REALISTIC.read_text().replace("memory: 256Gi", "memory: 512Gi", 1))
    outcome = pipeline.render_tree(request(edited, out, check=True))
    assert outcome.failed and outcome.drift


def test_a_tree_that_validated_is_not_validated_again_until_a_schema_changes(tmp_path, schema_store, monkeypatch):
    store = tmp_path / "store"
    # a store of its own (its mtimes) and a user cache of its own (without the records other tests left)
    shutil.copytree(schema_store, store)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    out = tmp_path / "out"
    assert not pipeline.render_tree(request(MINIMAL, out, store=store)).failed  # validated, recorded
    assert len(list((tmp_path / "cache" / "strata" / record.DIRECTORY).iterdir())) == 1
    assert not (store / record.DIRECTORY).exists(), "nothing is written into the store"

    calls = []
    real = pipeline.Validation.offline
    def offline(self, target):
        calls.append(target)
        return real(self, target)
    monkeypatch.setattr(pipeline.Validation, "offline", offline)
    checked = pipeline.render_tree(request(MINIMAL, out, check=True, store=store))
    assert not checked.failed and checked.validated and calls == []

    schema = next(p for p in store.rglob("*.json") if "core" not in p.parts and record.DIRECTORY not in p.parts)
    schema.touch()
    os.utime(schema, ns=(0, 0))
    checked = pipeline.render_tree(request(MINIMAL, out, check=True, store=store))
    assert not checked.failed and len(calls) == 1  # validated again: the store changed


def test_a_one_team_change_rewrites_only_that_teams_files(tmp_path):
    out = tmp_path / "out"
    assert not pipeline.render_tree(request(REALISTIC, out)).failed
    before = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}
    for p in before:  # so that a rewrite shows even on a coarse clock
        os.utime(p, ns=(1, 1))
    edited = tmp_path / "edited.yaml"
    text = REALISTIC.read_text()
    team = "      memory: 1600Gi\n      gpus: 32\n"
    assert text.count(team) == 1
    edited.write_text(text.replace(team, "      memory: 1600Gi\n      gpus: 16\n"))
    outcome = pipeline.render_tree(request(edited, out))
    assert not outcome.failed
    rewritten = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file() and p.stat().st_mtime_ns != 1)
    assert rewritten == sorted(outcome.plan.changed)
    assert lockfile.LOCK_NAME in rewritten and any(r.startswith("tenancy/teams/resourcequota-") for r in rewritten)
    assert len(rewritten) <= 3, rewritten
