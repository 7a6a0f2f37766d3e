"""Pack rendering failures become located problems, never tracebacks."""

from __future__ import annotations

from pathlib import Path

import pytest

from strata import pipeline
from strata.packs.loader import discover, load_pack

SPEC = b'apiVersion: strata.dev/v1alpha1\nkind: Platform\ncluster: {name: c1, region: us-east-1, kubernetesVersion: "1.36"}\nbroken: {}\n'


def _pack(tmp_path: Path, template: str) -> tuple:
    root = tmp_path / "broken"
    (root / "templates" / "things").mkdir(parents=True)
    (root / "pack.yaml").write_text("name: broken\nversion: 0.0.1\nsummary: test pack\nlayer: test\n")
    (root / "pack.py").write_text("from strata.pack import StrictModel\n\nclass Config(StrictModel):\n    pass\n")
    (root / "templates" / "things" / "configmap.yaml.j2").write_text(template)
    return (*discover(), load_pack(root, "test"))


def _render_problems(packs: tuple) -> list[str]:
    loaded = pipeline.load([("spec.yaml", SPEC)], packs)
    assert loaded.problems == []
    _, problems = pipeline.render(loaded)
    return [p.format() for p in problems]


def test_template_output_that_is_not_yaml_is_a_problem(tmp_path):
    (line,) = _render_problems(_pack(tmp_path, "kind: [unclosed\n"))
    assert line.startswith("broken:templates/things/configmap.yaml.j2: output is not YAML") and line.endswith("[render/template]")


def test_undefined_template_variable_is_a_problem_with_its_line(tmp_path):
    (line,) = _render_problems(_pack(tmp_path, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: {{ missing }}}\n"))
    assert line.startswith("broken:templates/things/configmap.yaml.j2:3: UndefinedError") and line.endswith("[render/template]")


def test_a_document_that_is_no_kubernetes_object_is_a_problem(tmp_path):
    (line,) = _render_problems(_pack(tmp_path, "just: data\n"))
    assert "not a Kubernetes object" in line


def test_a_pack_outside_its_kubernetes_range_is_refused(tmp_path):
    packs = _pack(tmp_path, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: default}\n")
    manifest = tmp_path / "broken" / "pack.yaml"
    manifest.write_text(manifest.read_text() + 'kubernetes: ["1.36", "1.37"]\n')
    packs = (*packs[:-1], load_pack(tmp_path / "broken", "test"))
    spec = SPEC.replace(b'"1.36"', b'"1.35"')
    (line,) = [p.format() for p in pipeline.load([("spec.yaml", spec)], packs).problems]
    assert line == "spec.yaml:4:9: broken: pack broken 0.0.1 supports Kubernetes 1.36-1.37, not 1.35 [pack/kubernetes-range]"


def test_a_crashing_pack_hook_is_named_and_exits_3(tmp_path):

    packs = _pack(tmp_path, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: default}\n")
    (tmp_path / "broken" / "pack.py").write_text(
        "from strata.pack import StrictModel\n\nclass Config(StrictModel):\n    pass\n\n"
        "def check(spec, config, facts):\n    yield from []\n    raise KeyError('oops')\n")
    from strata.errors import PackFailure

    packs = (*packs[:-1], load_pack(tmp_path / "broken", "test"))
    with pytest.raises(PackFailure, match=r"pack broken \(test\) crashed in its check hook: KeyError") as failure:
        pipeline.load([("spec.yaml", SPEC)], packs)
    assert failure.value.exit_code == 3
