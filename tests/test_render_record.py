"""Render records (output/rendered.py): a render remembers which exact inputs produced which
tree; a --check with the same inputs proves the tree current from the record without loading
the spec, and anything the record does not vouch for (a hand edit, a missing or an extra owned
file, another spec, another pack file, another day) falls back to the full check, whose answer
the record never changes."""

from __future__ import annotations

import datetime
import os
from pathlib import Path

import pytest
from conftest import VALUES, require_tool
from test_hydrate import _chart_cache

from strata import hydrate, pipeline, yamlio
from strata.output import lock as lockfile, rendered
from strata.packs import entry
from strata.render import memo

REALISTIC = VALUES / "realistic.yaml"
WAIVERS = VALUES / "waivers" / "platform.yaml"
NODEPOOL = "compute/karpenter/nodepool-system.yaml"


def request(spec: Path, out: Path, cache: Path | None, *, check: bool = False) -> pipeline.RenderRequest:
    return pipeline.RenderRequest([(str(spec), spec.read_bytes())], out, check=check, render_cache=cache)


def test_a_recorded_check_proves_the_tree_current_without_loading_the_spec(tmp_path, monkeypatch):
    cache, out = tmp_path / "cache", tmp_path / "out"
    written = pipeline.render_tree(request(REALISTIC, out, cache))
    assert not written.failed and len(list(cache.glob("*.json"))) == 1
    monkeypatch.setattr(pipeline, "load", lambda *a, **k: pytest.fail("the spec was loaded"))
    outcome = pipeline.render_tree(request(REALISTIC, out, cache, check=True))
    assert outcome.checked and not outcome.failed and outcome.drift == ()
    assert outcome.objects == written.objects > 0


@pytest.mark.parametrize("edit", ["hand edit", "missing file", "extra owned file", "lock edit"])
def test_whatever_the_record_does_not_vouch_for_gets_the_full_check(tmp_path, edit):
    cache, out = tmp_path / "cache", tmp_path / "out"
    assert not pipeline.render_tree(request(REALISTIC, out, cache)).failed
    target = out / NODEPOOL
    lock = out / lockfile.LOCK_NAME
    if edit == "hand edit":
        target.write_bytes(target.read_bytes().replace(b"system", b"sistem", 1))
    elif edit == "missing file":
        target.unlink()
    elif edit == "extra owned file":  # claimed by the lock, never rendered: the next render prunes it
        (out / "compute/karpenter/configmap-extra.yaml").write_bytes(b"kind: ConfigMap\n")
        lock.write_bytes(lock.read_bytes().replace(b"files:\n", b"files:\n  - compute/karpenter/configmap-extra.yaml\n", 1))
    else:
        lock.write_bytes(lock.read_bytes().replace(f"  - {NODEPOOL}\n".encode(), b""))
    with_record = pipeline.render_tree(request(REALISTIC, out, cache, check=True))
    without = pipeline.render_tree(request(REALISTIC, out, None, check=True))
    assert with_record.failed and with_record.drift
    assert [(d.status, d.path) for d in with_record.drift] == [(d.status, d.path) for d in without.drift]
    expected = {"hand edit": NODEPOOL, "missing file": NODEPOOL, "extra owned file": lockfile.LOCK_NAME,
                "lock edit": lockfile.LOCK_NAME}[edit]
    assert expected in {d.path for d in with_record.drift}


def test_another_spec_is_not_proven_by_the_record(tmp_path):
    cache, out = tmp_path / "cache", tmp_path / "out"
    assert not pipeline.render_tree(request(REALISTIC, out, cache)).failed
    edited = tmp_path / "realistic.yaml"
    edited.write_text(REALISTIC.read_text().replace("memory: 256Gi", "memory: 512Gi", 1))
    outcome = pipeline.render_tree(request(edited, out, cache, check=True))
    assert outcome.failed and outcome.drift


def test_the_record_replays_the_problems_the_full_check_prints(tmp_path, monkeypatch):
    cache, out = tmp_path / "cache", tmp_path / "out"
    assert not pipeline.render_tree(request(WAIVERS, out, cache)).failed
    full = pipeline.render_tree(request(WAIVERS, out, None, check=True))
    assert full.problems, "the waivers example prints its waived error"
    monkeypatch.setattr(pipeline, "load", lambda *a, **k: pytest.fail("the spec was loaded"))
    recorded = pipeline.render_tree(request(WAIVERS, out, cache, check=True))
    assert recorded.problems == full.problems and not recorded.failed


def test_a_tree_not_yet_validated_gets_the_full_check(tmp_path, monkeypatch):
    cache, out = tmp_path / "cache", tmp_path / "out"
    assert not pipeline.render_tree(request(REALISTIC, out, cache)).failed  # --no-validate: nothing validated
    full = []
    monkeypatch.setattr(pipeline, "check_unchanged", lambda *a: full.append(a) or pipeline.Outcome(out, [], checked=True))
    check = pipeline.RenderRequest([(str(REALISTIC), REALISTIC.read_bytes())], out, check=True, render_cache=cache,
                                   validation=pipeline.Validation(tmp_path / "empty-store"))
    pipeline.render_tree(check)
    assert len(full) == 1, "validation was not recorded for this tree: the full check validates"


def test_the_inputs_key_follows_every_input(tmp_path, monkeypatch):
    pack = tmp_path / "pack"
    (pack / "templates").mkdir(parents=True)
    (pack / "templates" / "a.yaml.j2").write_text("a: 1\n")
    monkeypatch.setattr(entry, "installed", lambda: [("probe", "builtin", pack)])
    specs = [("spec.yaml", b"cluster: {}\n")]
    out = tmp_path / "out"
    base = rendered.inputs_key(specs, out)
    assert base == rendered.inputs_key(specs, out), "the same inputs, the same key"
    assert rendered.inputs_key([("spec.yaml", b"cluster: {} \n")], out) != base
    assert rendered.inputs_key([("other.yaml", b"cluster: {}\n")], out) != base, "problems name the spec file"
    (pack / "templates" / "a.yaml.j2").write_text("a: 22\n")
    assert rendered.inputs_key(specs, out) != base, "a pack file changed"
    edited = rendered.inputs_key(specs, out)

    class Tomorrow(datetime.date):
        @classmethod
        def today(cls):
            return datetime.date(2999, 1, 1)

    monkeypatch.setattr(rendered.datetime, "date", Tomorrow)
    assert rendered.inputs_key(specs, out) != edited, "waivers expire by the date"


def test_a_hydrated_tree_is_proven_by_the_record_and_a_hand_edit_of_helm_output_is_caught(strata, tmp_path, monkeypatch):
    require_tool("helm")
    minimal = VALUES / "minimal.yaml"
    out = tmp_path / "out"
    assert strata("render", "-f", minimal, "-o", out, "--no-validate").returncode == 0
    charts = _chart_cache(tmp_path, out)
    args = ("render", "-f", minimal, "-o", out, "--hydrate", "--charts", charts, "--no-validate")
    assert strata(*args).returncode == 0
    helm_output = out / "compute/hydrated/karpenter/deployment-kube-system-karpenter.yaml"
    assert helm_output.is_file()
    with monkeypatch.context() as patch:
        patch.setattr(hydrate, "template", lambda *a, **k: pytest.fail("helm template ran"))
        result = strata(*args, "--check")
    assert result.returncode == 0, result.stdout + result.stderr
    helm_output.write_bytes(helm_output.read_bytes().replace(b"replicas: 1", b"replicas: 2"))
    result = strata(*args, "--check")
    assert result.returncode == 1 and f"modified: {helm_output.relative_to(out).as_posix()}" in result.stdout


# --- the document memo: a re-render parses and emits only new documents --------------------


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_an_incremental_render_writes_the_bytes_of_a_cold_render_and_parses_only_new_documents(tmp_path, monkeypatch):
    cache, out = tmp_path / "cache", tmp_path / "out"
    assert not pipeline.render_tree(request(REALISTIC, out, cache)).failed
    assert len(list(cache.glob("documents-*"))) == 1
    edited = tmp_path / "edited.yaml"
    text = REALISTIC.read_text()
    team = "      memory: 1600Gi\n      gpus: 32\n"
    assert text.count(team) == 1
    edited.write_text(text.replace(team, "      memory: 1600Gi\n      gpus: 16\n"))
    for p in out.rglob("*"):
        if p.is_file():
            os.utime(p, ns=(1, 1))

    parsed: list[str] = []
    real = yamlio.load_all

    def counting(text):
        parsed.append(text)
        return real(text)

    monkeypatch.setattr(yamlio, "load_all", counting)
    incremental = pipeline.render_tree(request(edited, out, cache))
    monkeypatch.setattr(yamlio, "load_all", real)
    cold = pipeline.render_tree(request(edited, tmp_path / "cold", None))
    assert not incremental.failed and not cold.failed
    assert _tree(out) == _tree(tmp_path / "cold"), "an incremental render writes exactly what a cold one does"
    documents = [d for t in parsed for d in (memo.documents(t) or [t]) if yamlio.load_all(d)]
    assert 0 < len(documents) <= 4, "only the changed team's documents (and the Helm values) are parsed"
    untouched = [p for p in out.rglob("*") if p.is_file() and p.stat().st_mtime_ns == 1]
    assert len(untouched) == len(_tree(out)) - len(incremental.plan.changed), "unchanged files keep their mtime"
    assert len(list(cache.glob("documents-*"))) == 1, "the memo of the replaced tree is dropped"


def test_a_memo_made_by_other_code_is_not_used(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    kept = memo.Memo()
    kept.keep(memo.key("---\na: 1\n"), {"a": 2}, b"a: 2\n")
    memo.save(cache, kept, "sha256:feed", None)
    assert memo.load(cache, "sha256:feed").object(memo.key("---\na: 1\n")) == {"a": 2}
    monkeypatch.setattr(memo, "_code_key", lambda: "other strata")
    assert memo.load(cache, "sha256:feed").previous == {}


STREAM = """\
# a comment before the first document
kind: A
---
kind: B
text: |
  ---
  not a document start: indented
--- {kind: C}
---
# only a comment
---kind: not-a-marker-start
"""


def test_documents_split_a_stream_where_its_parser_does():
    parts = memo.documents(STREAM)
    assert parts is not None and "".join(parts) == STREAM
    assert [d for part in parts for d in yamlio.load_all(part)] == yamlio.load_all(STREAM)
    assert len(parts) == 4
    assert memo.documents("a: 1\n...\n---\nb: 2\n") is None, "a document end marker: the whole stream is parsed"
    assert memo.documents("%YAML 1.1\n---\na: 1\n") is None


def test_a_template_error_reads_the_same_with_a_memo():
    broken = "---\nkind: A\n---\nkind: [B\n"
    with pytest.raises(yamlio.YAMLError) as plain:
        yamlio.load_all(broken)
    with pytest.raises(yamlio.YAMLError) as memoized:
        list(memo.parse(broken, memo.Memo(), yamlio.load_all))
    assert str(memoized.value) == str(plain.value)


def test_records_and_memos_not_written_for_a_month_are_pruned(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    old, fresh = cache / "old.json", cache / "documents-fresh.marshal"
    old.write_text("{}")
    fresh.write_bytes(b"")
    os.utime(old, (0, 0))
    rendered.remember(cache, "k", b"lock", {}, [], 0)
    assert not old.exists() and fresh.exists() and (cache / "k.json").exists()
