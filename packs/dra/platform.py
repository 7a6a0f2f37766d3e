"""Facts the dra pack reads from the rest of the spec: the compute pack's GPU Operator
settings, who installs the DRA driver, which pools run the device plugin, and where each
claim template exists."""

from __future__ import annotations

import typing
from typing import Any

from strata.pack import PoolFacts, all_pool_facts

from .config import ClaimTemplate, Config

# The GPU Operator deploys no device plugin on nodes carrying this label with "false".
DEVICE_PLUGIN_LABEL = "nvidia.com/gpu.deploy.device-plugin"


def compute_section(spec: Any) -> Any | None:
    """The compute pack's config: the spec's section, or its defaults (the pack is on by
    default), or None when no compute pack is installed."""
    section = getattr(spec, "compute", None)
    if section is not None:
        return section
    field = type(spec).model_fields.get("compute")
    if field is None:
        return None
    model = next(a for a in typing.get_args(field.annotation) if a is not type(None))
    return model()


def operator_gpu_cluster(spec: Any) -> bool:
    compute = compute_section(spec)
    return bool(compute and compute.gpu_operator.enabled and compute.gpu_operator.gpu_cluster)


def driver_mode(spec: Any, config: Config) -> str:
    """standalone (the dra-driver-nvidia-gpu chart) or gpuOperator (GPUCluster mode)."""
    if config.driver:
        return config.driver
    return "gpuOperator" if operator_gpu_cluster(spec) else "standalone"


def driver_feature_gates(spec: Any, config: Config) -> tuple[dict[str, Any], str]:
    """The DRA driver's feature gates and where the spec sets them (per install mode)."""
    if driver_mode(spec, config) == "standalone":
        return config.feature_gates, "dra.featureGates"
    compute = compute_section(spec)
    driver = compute.gpu_operator.values_overrides.get("draDriver") if compute else None
    gates = driver.get("featureGates", {}) if isinstance(driver, dict) else {}
    return gates, "compute.gpuOperator.valuesOverrides.draDriver.featureGates"


def device_plugin_pools(spec: Any) -> set[str]:
    """NVIDIA pools where the GPU Operator deploys the device plugin, or where the OS runs
    one (Bottlerocket). Pools labelled nvidia.com/gpu.deploy.device-plugin=false are skipped
    by the operator."""
    pools = [f for f in all_pool_facts(spec).values() if f.nvidia]
    out = {f.pool.name for f in pools if f.ami_family == "bottlerocket"}
    compute = compute_section(spec)
    if compute is None or not compute.gpu_operator.enabled or not compute.gpu_operator.cluster_policy:
        return out
    bottlerocket = any(f.ami_family == "bottlerocket" for f in pools)
    if compute.gpu_operator.runs_device_plugin(bottlerocket):
        out |= {f.pool.name for f in pools if f.pool.labels.get(DEVICE_PLUGIN_LABEL) != "false"}
    return out


def dra_pools(spec: Any, config: Config) -> list[PoolFacts]:
    facts = all_pool_facts(spec)
    return [facts[name] for name in config.node_pools if name in facts]


def template_namespaces(spec: Any, template: ClaimTemplate) -> list[str]:
    """The namespaces a claim template (or shared claim) is created in: its teams' or every team's."""
    namespaces = spec.team_namespaces
    teams = template.teams or tuple(namespaces)
    return [namespaces.get(team, team) for team in teams]


def team_namespace(spec: Any, team: str) -> str:
    return spec.team_namespaces.get(team, team)
