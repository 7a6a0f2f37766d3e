"""Which KubeRay the monitors target. When the jark pack installs KubeRay (the facts it
exports), its operator namespace and the team namespaces of its Ray clusters come from there, so
nobody lists them twice; `observability.kuberay.rayNamespaces` adds Ray clusters strata does not
render (other tools, other teams)."""

from __future__ import annotations

from typing import Any

from strata.pack import Facts

from .config import Config

# The operator namespace of a KubeRay that strata does not install (the chart's usual one).
DEFAULT_OPERATOR_NAMESPACE = "kuberay-operator"


def installed_by_jark(facts: Facts) -> Any | None:
    """The KubeRay the jark pack installs, or None."""
    jark = facts["jark"]
    return jark.kuberay if jark is not None else None


def resolve(facts: Facts, config: Config) -> Config:
    """The config with observability.kuberay filled in: on when jark installs KubeRay (unless
    switched off), that operator's namespace, and its Ray namespaces plus the listed ones."""
    ours = config.kuberay
    jark = installed_by_jark(facts)
    enabled = ours.enabled if ours.enabled is not None else jark is not None
    namespace = ours.namespace or (jark.operator_namespace if jark else DEFAULT_OPERATOR_NAMESPACE)
    derived = list(jark.cluster_namespaces) if jark else []
    namespaces = tuple(derived) + tuple(ns for ns in ours.ray_namespaces if ns not in derived)
    kuberay = ours.model_copy(update={"enabled": enabled, "namespace": namespace, "ray_namespaces": namespaces})
    return config.model_copy(update={"kuberay": kuberay})
