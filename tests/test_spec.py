"""Loading spec layers: merging, and problems located at the file:line:col the user wrote."""

from __future__ import annotations

from pathlib import Path

import pytest

from strata import pipeline
from strata.spec.base import quantity
from strata.spec.claims import mount_problem

BASE = b"""\
apiVersion: strata.dev/v1alpha1
kind: Platform
cluster:
  name: ml
  region: us-east-1
  kubernetesVersion: "1.35"
nodePools:
  - name: cpu
    instanceFamilies: [m7i]
    labels: {team: a}
"""


def _load(*layers: tuple[str, str | bytes]) -> pipeline.Loaded:
    return pipeline.load([(name, text.encode() if isinstance(text, str) else text) for name, text in layers])


def _lines(loaded: pipeline.Loaded) -> list[str]:
    return [p.format() for p in loaded.problems]


def test_layers_merge_maps_and_replace_lists():
    prod = "cluster:\n  kubernetesVersion: \"1.36\"\n  environment: prod\n"
    loaded = _load(("base.yaml", BASE), ("prod.yaml", prod))
    assert loaded.problems == []
    assert loaded.spec.cluster.name == "ml"  # kept from the base
    assert loaded.spec.cluster.kubernetes_version == "1.36"  # overridden by the later layer
    assert loaded.spec.node_pools[0].name == "cpu"


def test_later_layer_errors_point_at_the_later_file():
    prod = "nodePools:\n  - name: cpu\n    instanceFamilies: [m7i]\n    capacityTypes: [spot, spot-ish]\n"
    loaded = _load(("values/base.yaml", BASE), ("values/prod.yaml", prod))
    assert _lines(loaded) == [
        "values/prod.yaml:4:27: nodePools[0].capacityTypes[1]: 'spot-ish' is not one of 'on-demand', 'spot' or 'reserved' [spec]"
    ]


def test_typo_reports_key_position_and_suggestion():
    text = BASE.decode().replace("    labels: {team: a}", "    instanceFamilys: [c7i]")
    assert _lines(_load(("s.yaml", text))) == [
        "s.yaml:10:5: nodePools[0].instanceFamilys: unknown field 'instanceFamilys'; did you mean 'instanceFamilies'? [spec]"
    ]


def test_unquoted_kubernetes_version_gets_a_precise_message():
    text = BASE.decode().replace('kubernetesVersion: "1.35"', "kubernetesVersion: 1.30")
    (line,) = _lines(_load(("s.yaml", text)))
    assert line.startswith("s.yaml:6:22: cluster.kubernetesVersion: write the version as a quoted string")


def test_type_error_and_missing_field_are_all_reported_together():
    text = BASE.decode().replace("  name: ml\n", "").replace("labels: {team: a}", "weight: heavy")
    lines = _lines(_load(("s.yaml", text)))
    assert "s.yaml:3:1: cluster.name: required field 'name' is missing [spec]" in lines
    assert any(line.startswith("s.yaml:9:13: nodePools[0].weight: ") for line in lines)
    assert len(lines) == 2


def test_yaml_syntax_error_is_located():
    (line,) = _lines(_load(("bad.yaml", "cluster:\n  name: [unclosed\n")))
    assert line.startswith("bad.yaml:3:1: ") and line.endswith("[yaml]")


def test_non_mapping_and_binary_input_are_problems():
    assert _lines(_load(("list.yaml", "- a\n- b\n")))[0].endswith("[spec]")
    assert _load(("bin.yaml", b"\xff\xfe\x00garbage")).problems


def test_duplicate_keys_are_refused():
    text = BASE.decode() + "cluster: {name: other}\n"
    assert any(p.rule == "spec/duplicate-key" and p.mark.line == 11 for p in _load(("s.yaml", text)).problems)


def test_spec_digest_depends_on_content_not_file_names():
    a = _load(("a.yaml", BASE)).digest
    assert a == _load(("elsewhere/b.yaml", BASE)).digest
    assert a != _load(("a.yaml", BASE.replace(b"m7i", b"m7a"))).digest


@pytest.mark.parametrize("text, value", [("500m", 0.5), ("2", 2.0), ("8Gi", 8 * 2**30), ("1.5G", 1.5e9), ("4800Gi", 4800 * 2**30), (3, 3.0)])
def test_quantities_are_numbers_in_base_units(text, value):
    assert quantity(text) == value


@pytest.mark.parametrize("text", ["8GB", "Gi", "-1"])
def test_a_non_quantity_is_refused(text):
    with pytest.raises(ValueError):
        quantity(text)


@pytest.mark.parametrize("ref, created_in, wrong", [
    ("models", (), False),                     # made outside strata: nothing says otherwise
    ("models", ("hub",), False),
    ("hub/models", ("hub",), False),
    ("models", ("research",), True),           # strata creates it for a team only
    ("models", ("research", "hub"), False),
    ("research/models", (), True),             # the reference itself names another namespace
    ("research/models", ("research", "hub"), True),
])
def test_a_pod_mounts_only_claims_of_its_own_namespace(ref, created_in, wrong):
    assert (mount_problem(ref, "hub", created_in) is not None) == wrong


def test_a_list_with_a_broken_item_is_not_also_called_too_short():
    # dra.claimTemplates[].requests needs at least one item; its only item has a v1beta1 field.
    case = Path(__file__).parent / "cases" / "invalid" / "v1beta1-request.yaml"
    assert [p.rule for p in _load((case.name, case.read_bytes())).problems] == ["dra/v1beta1-request"]
