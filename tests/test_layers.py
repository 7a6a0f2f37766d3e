"""Spec layers merge lists of named items by name; `$patch: replace` and `$patch: delete` in a
later layer replace or remove an item or a key; problems still point at the file, line and
column where the user wrote the value, whichever layer it came from."""

from __future__ import annotations

from strata import pipeline

BASE = """\
apiVersion: strata.dev/v1alpha1
kind: Platform
cluster: {name: ml, region: us-west-2, kubernetesVersion: "1.36"}
nodePools:
  - name: system
    instanceFamilies: [m7i, m7a]
    limits: {cpu: "64", memory: 256Gi}
  - name: gpu
    instanceFamilies: [g6e]
    capacityTypes: [spot, on-demand]
    limits: {gpus: 32}
    taints: [{key: nvidia.com/gpu, value: "true", effect: NoSchedule}]
teams:
  - name: research
    groups: [ml-research]
    quota: {cpu: "100", memory: 400Gi, gpus: 8}
  - name: prod
    groups: [ml-prod]
    quota: {cpu: "100", memory: 400Gi, gpus: 8}
"""


def _load(*layers: str) -> pipeline.Loaded:
    return pipeline.load([(f"l{i}.yaml", text.encode()) for i, text in enumerate(layers)])


def _lines(loaded: pipeline.Loaded) -> list[str]:
    return [p.format() for p in loaded.problems]


def _pools(loaded: pipeline.Loaded) -> dict:
    return {pool.name: pool for pool in loaded.spec.node_pools}


def test_a_later_layer_changes_one_pool_by_name_and_keeps_the_others():
    loaded = _load(BASE, "nodePools:\n  - name: gpu\n    limits: {gpus: 64}\n")
    assert loaded.problems == []
    pools = _pools(loaded)
    assert list(pools) == ["system", "gpu"], "the earlier order is kept"
    assert str(pools["gpu"].limits.gpus) == "64"
    assert pools["gpu"].instance_families == ("g6e",), "keys the later layer does not set stay"
    assert pools["gpu"].capacity_types == ("spot", "on-demand")
    assert pools["system"].instance_families == ("m7i", "m7a")


def test_lists_without_names_are_still_replaced():
    loaded = _load(BASE, "nodePools:\n  - name: gpu\n    capacityTypes: [spot]\n")
    assert _pools(loaded)["gpu"].capacity_types == ("spot",)


def test_new_names_are_appended_in_the_layer_order():
    loaded = _load(BASE, "teams:\n  - {name: b, groups: [b]}\n  - name: prod\n    quota: {gpus: 4}\n  - {name: a, groups: [a]}\n")
    assert loaded.problems == [], _lines(loaded)
    assert [t.name for t in loaded.spec.teams] == ["research", "prod", "b", "a"]
    assert str(loaded.spec.teams[1].quota.gpus) == "4" and str(loaded.spec.teams[1].quota.cpu) == "100"


def test_patch_delete_removes_a_named_item():
    loaded = _load(BASE, "teams:\n  - name: research\n    $patch: delete\n")
    assert loaded.problems == []
    assert [t.name for t in loaded.spec.teams] == ["prod"]


def test_patch_replace_takes_the_item_as_written():
    replaced = "nodePools:\n  - name: gpu\n    $patch: replace\n    instanceFamilies: [p5]\n"
    pools = _pools(_load(BASE, replaced))
    assert pools["gpu"].instance_families == ("p5",)
    assert pools["gpu"].limits is None and pools["gpu"].capacity_types == ("on-demand",), "nothing of the earlier gpu pool is left"
    assert list(pools) == ["system", "gpu"]


def test_a_lone_patch_replace_item_replaces_the_whole_list():
    loaded = _load(BASE, "nodePools:\n  - $patch: replace\n  - name: only\n    instanceFamilies: [c7i]\n")
    assert loaded.problems == [], _lines(loaded)
    assert list(_pools(loaded)) == ["only"]


def test_patch_on_a_map_replaces_or_deletes_the_key():
    layer = "cluster:\n  $patch: replace\n  name: other\n  region: eu-west-1\n  kubernetesVersion: \"1.35\"\nteams:\n  $patch: delete\n"
    loaded = _load(BASE, layer)
    assert loaded.problems == [], _lines(loaded)
    assert (loaded.spec.cluster.name, loaded.spec.cluster.region) == ("other", "eu-west-1")
    assert loaded.spec.teams == ()


def test_deleting_what_no_earlier_layer_set_is_located_in_the_later_file():
    loaded = _load(BASE, "nodePools:\n  - name: cpu\n    $patch: delete\n")
    assert _lines(loaded) == [
        "l1.yaml:3:5: nodePools[0]: $patch: delete, but no earlier layer sets an item named 'cpu' [spec/layer-patch]"]


def test_an_unknown_patch_value_is_a_problem():
    (line,) = _lines(_load(BASE, "nodePools:\n  - name: gpu\n    $patch: merge\n"))
    assert line == "l1.yaml:3:5: nodePools[0].$patch: unknown $patch value 'merge': write replace or delete [spec/layer-patch]"


def test_errors_after_a_merge_point_at_the_layer_that_wrote_the_value():
    later = "nodePools:\n  - name: gpu\n    capacityTypes: [spot, spot-ish]\n"
    assert _lines(_load(BASE, later)) == [
        "l1.yaml:3:27: nodePools[1].capacityTypes[1]: 'spot-ish' is not one of 'on-demand', 'spot' or 'reserved' [spec]"]
    # a value the later layer did not touch still points at the base, at the merged index
    base = BASE.replace("instanceFamilies: [g6e]", "instanceFamilies: [g6e]\n    weight: heavy")
    (line,) = _lines(_load(base, "nodePools:\n  - name: system\n    limits: {cpu: \"32\"}\n"))
    assert line.startswith("l0.yaml:10:13: nodePools[1].weight: ")


def test_indexes_after_a_deleted_item_point_at_the_right_line():
    base = BASE.replace("capacityTypes: [spot, on-demand]", "capacityTypes: [spot, sometimes]")
    (line,) = _lines(_load(base, "nodePools:\n  - name: system\n    $patch: delete\n"))
    assert line.startswith("l0.yaml:10:27: nodePools[0].capacityTypes[1]: 'sometimes' is not one of")
