"""Facts the dra pack derives from the rest of the platform: the compute pack's GPU Operator
(its exported facts), who installs the DRA driver, which pools run the device plugin, and
where each claim template exists."""

from __future__ import annotations

from typing import Any

from strata.pack import Facts, PoolFacts, all_pool_facts

from .config import ClaimTemplate, Config

# The GPU Operator deploys no device plugin on nodes carrying this label with "false".
DEVICE_PLUGIN_LABEL = "nvidia.com/gpu.deploy.device-plugin"


def gpu_operator(facts: Facts) -> Any | None:
    """The GPU Operator facts the compute pack exports, or None when the compute pack is off."""
    compute = facts["compute"]
    return compute.gpu_operator if compute is not None else None


def operator_gpu_cluster(op: Any | None) -> bool:
    return bool(op and op.enabled and op.gpu_cluster)


def driver_mode(op: Any | None, config: Config) -> str:
    """standalone (the dra-driver-nvidia-gpu chart) or gpuOperator (GPUCluster mode)."""
    if config.driver:
        return config.driver
    return "gpuOperator" if operator_gpu_cluster(op) else "standalone"


def driver_feature_gates(op: Any | None, config: Config) -> tuple[dict[str, Any], str]:
    """The DRA driver's feature gates and where the spec sets them (per install mode)."""
    if driver_mode(op, config) == "standalone":
        return config.feature_gates, "dra.featureGates"
    driver = op.values_overrides.get("draDriver") if op else None
    gates = driver.get("featureGates", {}) if isinstance(driver, dict) else {}
    return gates, "compute.gpuOperator.valuesOverrides.draDriver.featureGates"


def device_plugin_pools(spec: Any, op: Any | None) -> set[str]:
    """NVIDIA pools where the GPU Operator deploys the device plugin, or where the OS runs
    one (Bottlerocket). Pools labelled nvidia.com/gpu.deploy.device-plugin=false are skipped
    by the operator."""
    pools = [f for f in all_pool_facts(spec).values() if f.nvidia]
    out = {f.pool.name for f in pools if f.ami_family == "bottlerocket"}
    if op is None or not op.enabled or not op.cluster_policy:
        return out
    if op.runs_device_plugin:
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
