"""One values-override mechanism: pack.yaml names the component whose ``valuesOverrides`` a
release takes; the engine refuses keys the pinned chart does not have and keys a typed field
owns, and the packs' rules judge the merged values, pointing at the override when it is the
cause."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from conftest import render_clean

from strata import pipeline
from strata.errors import PackError
from strata.overrides import validate_manifest
from strata.packs.contract import HelmReleaseManifest
from strata.packs.loader import discover
from strata.spec.shared import ChartOverrides

CASES = Path(__file__).parent / "cases" / "invalid"
PACKS = {p.name: p for p in discover()}


def _problems(name: str) -> list:
    path = CASES / f"{name}.yaml"
    return pipeline.load([(path.as_posix(), path.read_bytes())]).problems


def _line(name: str, text: str) -> int:
    lines = (CASES / f"{name}.yaml").read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if text in line)


@pytest.mark.parametrize(("case", "rule", "marker"), [
    ("jark-allow-all-override", "jark/no-allow-rule", "allow_all: true"),
    ("driver-override-on-nvidia-ami", "compute/driver-on-nvidia-ami", "driver: {enabled: true}"),
    ("driver-override-on-nvidia-ami", "overrides/typed-field", "driver: {enabled: true}"),
    ("overrides-unknown-key", "overrides/unknown-key", "replica: 3"),
    ("overrides-typed-field", "overrides/typed-field", "interruptionQueue: other-queue"),
])
def test_an_override_is_refused_at_its_own_line(case, rule, marker):
    fired = [p for p in _problems(case) if p.rule == rule]
    assert [p.mark.line for p in fired] == [_line(case, marker)], [p.format() for p in _problems(case)]


def test_an_unknown_key_suggests_the_charts_key():
    (problem,) = [p for p in _problems("overrides-unknown-key") if p.rule == "overrides/unknown-key"]
    assert problem.message == "replica is not a key of the karpenter 1.14.1 chart; did you mean replicas?"
    assert problem.path == ("compute", "karpenter", "valuesOverrides", "replica")


def test_a_typed_key_names_the_field_to_set_instead():
    (problem,) = [p for p in _problems("overrides-typed-field") if p.rule == "overrides/typed-field"]
    assert "compute.karpenter.interruptionQueue" in problem.message


def test_a_pack_rule_that_explains_a_key_replaces_the_unknown_key_report():
    rules = {p.rule for p in _problems("removed-chart-value")}
    assert "compute/removed-chart-value" in rules and "overrides/unknown-key" not in rules


HEAD = """apiVersion: strata.dev/v1alpha1
kind: Platform
cluster: {name: c1, region: us-east-1, kubernetesVersion: "1.36"}
nodePools:
  - {name: gpu, instanceFamilies: [g6], taints: [{key: nvidia.com/gpu, effect: NoSchedule}], limits: {gpus: 4}}
"""


def test_a_known_key_merges_over_the_rendered_values():
    spec = HEAD + """compute:
  gpuOperator:
    valuesOverrides: {driver: {version: "580.95.05"}, operator: {resources: {limits: {memory: 1Gi}}}}
"""
    values = yaml.safe_load(render_clean(("spec.yaml", spec.encode()))["compute/helm/gpu-operator/values.yaml"])
    assert values["driver"] == {"enabled": False, "version": "580.95.05"}
    assert values["operator"]["resources"] == {"limits": {"memory": "1Gi"}}


def test_tolerations_overridden_around_the_typed_field_are_judged_at_the_override():
    spec = HEAD + """compute:
  gpuOperator:
    valuesOverrides:
      daemonsets: {tolerations: [{key: other, operator: Exists}]}
"""
    problems = pipeline.load([("spec.yaml", spec.encode())]).problems
    assert {(p.rule, p.path) for p in problems} == {
        ("compute/gpu-taint-not-tolerated", ("compute", "gpuOperator", "valuesOverrides", "daemonsets", "tolerations")),
        ("overrides/typed-field", ("compute", "gpuOperator", "valuesOverrides", "daemonsets", "tolerations")),
    }


def test_every_values_overrides_field_is_the_one_shared_shape():
    for pack in PACKS.values():
        for release in pack.manifest.helm_releases:
            if release.values_overrides:
                assert issubclass(_component_model(pack, release.values_overrides), ChartOverrides)
        for model in _models(pack.config):
            if "values_overrides" in model.model_fields:
                assert issubclass(model, ChartOverrides), f"{pack.name}: {model.__name__} has its own valuesOverrides"


def _component_model(pack, dotted):
    from strata.overrides import component_model
    return component_model(pack.config, dotted)


def _models(model, seen=None):
    import typing

    from pydantic import BaseModel
    seen = set() if seen is None else seen
    if model in seen:
        return seen
    seen.add(model)
    for field in model.model_fields.values():
        stack = [field.annotation]
        while stack:
            a = stack.pop()
            if isinstance(a, type) and issubclass(a, BaseModel):
                _models(a, seen)
            stack.extend(typing.get_args(a))
    return seen


def _release(**extra) -> HelmReleaseManifest:
    base = {"name": "karpenter", "namespace": "kube-system", "repo": "oci://x", "chart": "karpenter", "version": "1.14.1",
            "values": "helm/karpenter.yaml.j2"}
    return HelmReleaseManifest.model_validate({**base, **extra})


@pytest.mark.parametrize(("extra", "message"), [
    ({"valuesOverrides": "smokeTest"}, "must name a component of the Config whose model inherits strata's ChartOverrides"),
    ({"valuesOverrides": "nope"}, "must name a component"),
    ({"valuesOverrides": "karpenter", "version": "9.9.9"}, "has no chart key index helm/keys/karpenter-9.9.9.yaml"),
    ({"valuesOverrides": "karpenter", "typedValues": {"settings.clusterNam": "cluster.name"}}, "typedValues key settings.clusterNam is not a key of the chart"),
    ({"valuesOverrides": "karpenter", "typedValues": {"settings.clusterName": "compute.karpenter.nope"}}, "typedValues names compute.karpenter.nope"),
    ({"typedValues": {"settings.clusterName": "cluster.name"}}, "lists typedValues but no valuesOverrides component"),
])
def test_a_wrong_override_declaration_is_a_pack_error(extra, message):
    compute = PACKS["compute"]
    with pytest.raises(PackError, match="pack 'compute'") as info:
        validate_manifest("compute", compute.root, compute.config, (_release(**extra),))
    assert message in str(info.value)
