"""Packs give problem paths relative to their own section (or from the root with spec_path)
in their models' field names; the engine reports the spec path the user wrote."""

from __future__ import annotations

from pathlib import Path

import pytest

from strata import pipeline
from strata.pack import SpecPath, spec_path
from strata.packs.loader import discover
from strata.packs.paths import resolve, unknown_field
from strata.spec.validate import spec_model

CASES = sorted((Path(__file__).parent / "cases" / "invalid").glob("*.yaml"))
MODEL = spec_model(discover())


@pytest.mark.parametrize("path, expected", [
    (("pod_security", "enforce"), ("tenancy", "podSecurity", "enforce")),
    (("podSecurity", "enforce"), ("tenancy", "podSecurity", "enforce")),  # a YAML name is taken as it is
    (("ingress_cidrs", 2), ("tenancy", "ingressCidrs", 2)),
    (spec_path("teams", 1, "quota", "persistent_volume_claims"), ("teams", 1, "quota", "persistentVolumeClaims")),
    (spec_path("node_pools", 0, "gpu", "memory_mib"), ("nodePools", 0, "gpu", "memoryMiB")),  # an explicit alias
    (spec_path("compute", "gpu_operator", "values_overrides", "dcgmExporter", "service_monitor"),
     ("compute", "gpuOperator", "valuesOverrides", "dcgmExporter", "service_monitor")),  # chart keys stay as given
    ((), ("tenancy",)),
])
def test_pack_paths_become_spec_paths(path, expected):
    assert resolve(path, "tenancy", MODEL) == expected


def test_a_spec_path_stays_one_when_extended():
    path = spec_path("teams", 0) + ("quota",)
    assert isinstance(path, SpecPath) and path == ("teams", 0, "quota")
    assert resolve(path, "tenancy", MODEL) == ("teams", 0, "quota")


def test_unknown_field_names_a_typo_but_not_mapping_keys():
    assert unknown_field(("tenancy", "podSecurity", "enforce"), MODEL) is None
    assert unknown_field(("compute", "gpuOperator", "valuesOverrides", "anything", "at", "all"), MODEL) is None
    assert unknown_field(("tenancy", "podSecurty"), MODEL) == "podSecurty"


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.stem)
def test_every_policy_problem_points_at_a_real_field(case):
    """A pack that misspells a field in a problem path would point the user nowhere."""
    loaded = pipeline.load([(case.name, case.read_bytes())])
    policy = [p for p in loaded.problems if p.rule not in ("spec", "yaml", "spec/duplicate-key") and loaded.spec is not None]
    legacy = {f.rule.id for pack in discover() for f in pack.legacy_fields}
    wrong = [(p.format(), unknown_field(p.path, MODEL)) for p in policy if p.rule not in legacy and unknown_field(p.path, MODEL)]
    assert not wrong
