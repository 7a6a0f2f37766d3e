"""Linear validation: the kustomize structure is proven by the real binary in small builds
plus a stand-in build of the composition, and kubeconform runs in batches. Whatever way the
tree is split, every problem the whole build would find is found and names its file."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import VALUES, render_clean, require_tool

from strata import pipeline, tools
from strata.validate import kubeconform, kustomize


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    require_tool("kustomize")
    out = tmp_path / "out"
    for rel, content in render_clean(("realistic.yaml", (VALUES / "realistic.yaml").read_bytes())).items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_bytes(content)
    return out


@pytest.fixture(params=[1, 3, kustomize.OBJECTS_PER_BUILD], ids=lambda n: f"{n}-per-build")
def per_build(request, monkeypatch) -> int:
    monkeypatch.setattr(kustomize, "OBJECTS_PER_BUILD", request.param)
    return request.param


def whole_build_ok(root: Path) -> bool:
    return tools.run("kustomize", ["build", str(root)]).returncode == 0


def test_a_rendered_tree_is_proven_in_parts(tree, per_build):
    assert whole_build_ok(tree)
    assert kustomize.build(tree, "out") == []


def test_a_broken_object_file_is_named(tree, per_build):
    pool = tree / "compute" / "karpenter" / "nodepool-gpu-training.yaml"
    pool.write_text("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {labels: {a: b}}\n")
    assert not whole_build_ok(tree)
    problems = kustomize.build(tree, "out")
    assert [(p.rule, p.where) for p in problems] == [("validate/kustomize", "out/compute/karpenter/nodepool-gpu-training.yaml")]
    assert "missing metadata.name" in problems[0].message and str(tree) not in problems[0].message


def test_a_missing_object_file_is_named(tree, per_build):
    (tree / "compute" / "karpenter" / "nodepool-system.yaml").unlink()
    problems = kustomize.build(tree, "out")
    assert [p.where for p in problems] == ["out/compute/karpenter/nodepool-system.yaml"]


def test_a_layer_referencing_a_missing_directory_fails_the_composition(tree):
    shutil.rmtree(tree / "tenancy")
    assert not whole_build_ok(tree)
    problems = kustomize.build(tree, "out")
    assert len(problems) == 1 and problems[0].rule == "validate/kustomize"
    assert "tenancy" in problems[0].message and "strata-kustomize-" not in problems[0].message


def test_a_directory_included_twice_fails_the_composition(tree):
    kustomization = tree / "kustomization.yaml"
    kustomization.write_text(kustomization.read_text() + "  - compute/karpenter\n")
    assert not whole_build_ok(tree)
    problems = kustomize.build(tree, "out")
    assert problems and all(p.rule == "validate/kustomize" for p in problems)


def test_one_object_in_two_builds_is_refused_as_the_whole_build_would(tree, per_build):
    # The same NodePool in another component of another layer: only a build of the root,
    # or the identity check across builds, sees the conflict.
    source = tree / "compute" / "karpenter" / "nodepool-system.yaml"
    copy = tree / "tenancy" / "teams" / "nodepool-system.yaml"
    shutil.copy(source, copy)
    kustomization = tree / "tenancy" / "teams" / "kustomization.yaml"
    kustomization.write_text(kustomization.read_text() + "  - nodepool-system.yaml\n")
    assert not whole_build_ok(tree)
    problems = kustomize.build(tree, "out")
    assert [p.where for p in problems] == ["out/tenancy/teams/nodepool-system.yaml"]
    assert "NodePool/system" in problems[0].message and "out/compute/karpenter/nodepool-system.yaml" in problems[0].message


def test_a_kustomization_strata_did_not_write_is_built_whole(tree):
    kustomization = tree / "tenancy" / "teams" / "kustomization.yaml"
    kustomization.write_text(kustomization.read_text() + "commonAnnotations: {team: all}\n")
    assert kustomize.build(tree, "out") == []
    kustomization.write_text(kustomization.read_text() + "patches: [{path: missing-patch.yaml}]\n")
    problems = kustomize.build(tree, "out")
    assert [p.where for p in problems] == ["out/tenancy/teams/kustomization.yaml"]
    assert "missing-patch.yaml" in problems[0].message


def test_kubeconform_batches_group_kinds_and_cover_every_file():
    files = [f"t/networkpolicy-{i}.yaml" for i in range(10)] + [f"t/namespace-{i}.yaml" for i in range(4)] + ["t/role-a.yaml"]
    batches = kubeconform._batches(files, 2)
    assert sorted(f for b in batches for f in b) == sorted(files)
    assert max(map(len, batches)) - min(map(len, batches)) <= 1
    # only the kind bigger than a batch is split
    assert sum(any("namespace-" in f for f in b) for b in batches) == 1
    assert [sorted(b) for b in kubeconform._batches(files, 1)] == [sorted(files)]


def test_kubeconform_problems_do_not_depend_on_the_batches(tree, schema_store, monkeypatch):
    require_tool("kubeconform")
    (tree / "compute" / "karpenter" / "nodepool-system.yaml").write_text(
        "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: system}\nspec: {weight: many}\n")
    (tree / "tenancy" / "teams" / "namespace-research.yaml").write_text(
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: research}\nspec: {finalizers: 3}\n")
    files = pipeline.manifest_files([p.relative_to(tree).as_posix() for p in tree.rglob("*.yaml")])
    seen = []
    for cores in (1, 2, 7):
        monkeypatch.setattr("os.cpu_count", lambda cores=cores: cores)
        seen.append(kubeconform.validate_files(tree, files, "1.36", schema_store))
    assert seen[0] == seen[1] == seen[2]
    assert {p.where for p in seen[0]} == {"compute/karpenter/nodepool-system.yaml: NodePool/system",
                                         "tenancy/teams/namespace-research.yaml: Namespace/research"}
