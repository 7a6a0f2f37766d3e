"""The chart values the jark pack writes are accepted by the pinned charts: JupyterHub values
pass the chart's own strict values.schema.yaml (merged onto its defaults, as Helm validates
them), and every key written into the Argo Workflows, KubeRay operator and Karpenter values
exists in that chart's reference values.yaml (the agents pack's Kagent, Agentgateway, Langfuse
and Milvus values too). Plus the jark helpers that decide what is
pinned, what ships CUDA and what fits on a node."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from conftest import EXAMPLES, VALUES
from reference import reference_dir

from strata import pipeline
from strata.packs.loader import discover
from strata.render import engine

CASES = Path(__file__).parent / "cases"
# Each release's reference chart directory under ../shared/reference/chart-values.
CHART_DIRS = {"jupyterhub": "jupyterhub-4.4.0", "argo-workflows": "argo-workflows-chart-1.0.18",
              "kuberay-operator": "kuberay-operator-1.7.0", "karpenter": "karpenter-1.14.1",
              "gpu-operator": "gpu-operator-26.7.0", "kube-prometheus-stack": "kube-prometheus-stack-88.5.3",
              "dcgm-exporter": "dcgm-exporter-4.5.3-4.8.2", "kagent": "kagent-0.9.12", "agentgateway": "agentgateway-1.4.1",
              "langfuse": "langfuse-2.0.0", "milvus": "milvus-5.0.19"}
# Kubernetes-native pass-through values: their content is a Kubernetes type, not chart keys.
NATIVE = {"resources", "nodeSelector", "tolerations", "affinity", "annotations", "labels", "podSecurityContext",
          "securityContext", "env", "extraEnv", "podAnnotations", "podLabels"}

# Keys a chart documents only as comments in its values.yaml (checked by reading them there).
COMMENTED_KEYS = {"gpu-operator": ["dcgmExporter.config"]}

discover()  # imports the built-in packs as strata.packs.imported.<name>
jark_images = importlib.import_module("strata.packs.imported.jark.images")
jark_resources = importlib.import_module("strata.packs.imported.jark.resources")
jark_context = importlib.import_module("strata.packs.imported.jark.context")


def _spec_files() -> list[Path]:
    cases = sorted((CASES / "valid").glob("*.yaml"))
    return [VALUES / f"{e}.yaml" for e in EXAMPLES] + cases


def _releases(path: Path) -> dict[str, dict[str, Any]]:
    loaded = pipeline.load([(path.name, path.read_bytes())])
    assert loaded.problems == [], [p.format() for p in loaded.problems]
    result = engine.render(loaded.spec, loaded.packs)
    return {r.release.name: r.values for r in result.releases}


def _chart(name: str, file: str) -> Any:
    return yaml.safe_load((reference_dir() / "chart-values" / CHART_DIRS[name] / file).read_text())


def helm_merge(defaults: Any, values: Any) -> Any:
    """Helm's coalescing: maps merge key by key, everything else replaces."""
    if isinstance(defaults, dict) and isinstance(values, dict):
        merged = dict(defaults)
        for key, value in values.items():
            merged[key] = helm_merge(defaults.get(key), value)
        return merged
    return values


def unknown_keys(values: Any, reference: Any, path: tuple = ()) -> list[str]:
    """Key paths of ``values`` that the reference values.yaml does not have. Below an empty
    map, a null, a list or a Kubernetes-native value the chart takes anything."""
    if not isinstance(values, dict) or not isinstance(reference, dict) or not reference:
        return []
    found = []
    for key, value in values.items():
        if key not in reference:
            found.append(".".join(map(str, path + (key,))))
        elif key not in NATIVE:
            found.extend(unknown_keys(value, reference[key], path + (key,)))
    return found


SPEC_FILES = _spec_files()
RELEASES = {p.name: _releases(p) for p in SPEC_FILES}


def test_the_jark_example_renders_all_three_charts():
    assert {"jupyterhub", "argo-workflows", "kuberay-operator", "karpenter"} <= set(RELEASES["jark.yaml"])


@pytest.mark.parametrize("spec", [p.name for p in SPEC_FILES if "jupyterhub" in RELEASES[p.name]])
def test_jupyterhub_values_pass_the_chart_schema(spec):
    schema = _chart("jupyterhub", "values.schema.yaml")
    merged = helm_merge(_chart("jupyterhub", "values.yaml"), RELEASES[spec]["jupyterhub"])
    errors = sorted(e.message for e in jsonschema.Draft7Validator(schema).iter_errors(merged))
    assert errors == []


@pytest.mark.parametrize("bad", [
    {"extraConfig": {"x": "c.JupyterHub.x = 1"}},                       # top-level, not hub.extraConfig
    {"hub": {"config": {"genericOAuthenticator": {"scope": ["openid"]}}}},  # not a class name
    {"singleuser": {"storage": {"storageClass": "efs"}}},               # belongs under dynamic
    {"proxy": {"https": {"type": "acm"}}},
])
def test_the_schema_check_catches_known_mistakes(bad):
    schema = _chart("jupyterhub", "values.schema.yaml")
    values = helm_merge(RELEASES["jark.yaml"]["jupyterhub"], bad)
    merged = helm_merge(_chart("jupyterhub", "values.yaml"), values)
    assert list(jsonschema.Draft7Validator(schema).iter_errors(merged))


@pytest.mark.parametrize("release", ["argo-workflows", "kuberay-operator", "karpenter", "gpu-operator",
                                     "kube-prometheus-stack", "dcgm-exporter", "kagent", "agentgateway", "langfuse", "milvus"])
def test_every_written_key_exists_in_the_chart(release):
    reference = _chart(release, "values.yaml")
    written = [(spec, values[release]) for spec, values in RELEASES.items() if release in values]
    assert written
    documented = COMMENTED_KEYS.get(release, [])
    raw = (reference_dir() / "chart-values" / CHART_DIRS[release] / "values.yaml").read_text()
    for key in documented:
        assert f"# {key.rpartition('.')[2]}:" in raw, f"{key} is no longer documented in the chart"
    for spec, values in written:
        assert [k for k in unknown_keys(values, reference) if k not in documented] == [], spec


def test_a_typo_in_a_values_template_is_caught():
    values = helm_merge(RELEASES["jark.yaml"]["argo-workflows"], {"server": {"authModez": ["client"]}})
    assert unknown_keys(values, _chart("argo-workflows", "values.yaml")) == ["server.authModez"]


def test_chart_user_tolerations_match_the_pinned_chart():
    # Profiles repeat the chart's user tolerations because a profile's list replaces them.
    chart = _chart("jupyterhub", "values.yaml")["scheduling"]["userPods"]["tolerations"]
    assert list(jark_context.CHART_USER_TOLERATIONS) == chart


def test_no_secret_value_reaches_the_hub_values():
    hub = RELEASES["jark.yaml"]["jupyterhub"]
    oauth = hub["hub"]["config"]["GenericOAuthenticator"]
    assert "client_secret" not in oauth and "client_id" not in oauth
    assert oauth["allow_all"] is False and oauth["allow_existing_users"] is False
    env = hub["hub"]["extraEnv"]
    assert set(env) == {"OAUTH_CLIENT_ID", "OAUTH_CLIENT_SECRET"}
    assert all(set(v) == {"valueFrom"} and "secretKeyRef" in v["valueFrom"] for v in env.values())


def test_gpu_profiles_keep_the_chart_tolerations_and_add_the_pools():
    profiles = {p["slug"]: p["kubespawner_override"] for p in RELEASES["jark.yaml"]["jupyterhub"]["singleuser"]["profileList"]}
    gpu = profiles["gpu-l4"]
    assert gpu["extra_resource_limits"] == {"nvidia.com/gpu": "1"}
    assert gpu["node_selector"] == {"karpenter.sh/nodepool": "gpu-interactive"}
    assert gpu["tolerations"][:2] == list(jark_context.CHART_USER_TOLERATIONS)
    assert {"key": "nvidia.com/gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"} in gpu["tolerations"]
    assert "tolerations" not in profiles["cpu-small"]  # untainted pool: the chart's own list stays


@pytest.mark.parametrize("image, pinned", [
    ("quay.io/jupyter/scipy-notebook", False), ("quay.io/jupyter/scipy-notebook:latest", False),
    ("registry.example.com:5000/team/image", False), ("rayproject/ray:nightly-latest", False),
    ("quay.io/jupyter/scipy-notebook:2025-11-24", True), ("registry.example.com:5000/team/image:1.2", True),
    ("python@sha256:" + "a" * 64, True),
])
def test_pinned_images(image, pinned):
    assert (jark_images.unpinned(image) is None) == pinned


@pytest.mark.parametrize("image, cuda", [
    ("jupyter/pytorch-notebook:latest", False), ("docker.io/jupyter/tensorflow-notebook:2023-10-20", False),
    ("quay.io/jupyter/pytorch-notebook:2025-11-24", False), ("quay.io/jupyter/pytorch-notebook:cuda12-2025-11-24", True),
    ("rayproject/ray:2.52.0", False), ("rayproject/ray:2.52.0-py311-cu128", True), ("rayproject/ray:2.52.0-gpu", True),
    ("pytorch/pytorch:2.8.0-cuda12.8-cudnn9-runtime", True), ("nvcr.io/nvidia/pytorch:25.10-py3", True),
])
def test_cuda_images(image, cuda):
    assert (jark_images.without_cuda(image) is None) == cuda


def test_hub_bytes_are_binary():
    assert jark_resources.hub_bytes("4G") == 4 * 2**30


def test_allocatable_leaves_room_for_the_node():
    cores, memory = jark_resources.allocatable(8, 32768)  # g6.2xlarge
    assert 7.8 < cores < 8 and 27 * 2**30 < memory < 29 * 2**30
