"""What the compute pack tells other packs (pack.yaml `uses: [compute]`): how the GPU Operator
is configured, so the dra and observability packs follow it without reading compute's section,
and the AWS access of the Karpenter controller, for the identity pack."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from strata.pack import AwsIdentity, CoreSpec, Facts, Toleration, all_pool_facts

from .config import Config
from .context import NEURON_SCHEDULER_NAME
from .identity import karpenter_identity


@dataclasses.dataclass(frozen=True)
class GpuOperatorFacts:
    enabled: bool  # the spec turns the operator on (it renders only when a pool has NVIDIA GPUs)
    cluster_policy: bool
    gpu_cluster: bool
    driver: str  # host (the AMI's) or operator (the operator's driver container)
    runs_device_plugin: bool  # the operator deploys the NVIDIA device plugin on this spec's pools
    dcgm_exporter: bool
    dcgm_service_monitor: bool
    tolerations: tuple[Toleration, ...]  # of every operand DaemonSet
    values_overrides: Mapping[str, Any]  # the user's values for the gpu-operator chart


@dataclasses.dataclass(frozen=True)
class EfaSecurityGroupNeed:
    """An EFA pool's security group must allow all traffic in from and out to itself (strata
    cannot create it; the identity/infra side can render it). Also written, machine-readable,
    to compute/infra/configmap-kube-system-efa-security-group-requirements.yaml."""

    node_pool: str
    zone: str | None
    security_group: Mapping[str, Any] | None  # {id: sg-...} or {tags: {...}}, as the spec names it
    self_referencing_all_traffic: bool = True


@dataclasses.dataclass(frozen=True)
class NeuronFacts:
    """The Neuron components the compute pack pins, for workloads on Neuron pools (jark)."""

    sdk_version: str  # the Neuron SDK release of the pinned chart's device plugin and scheduler
    scheduler_name: str | None  # the scheduler extension's kube-scheduler, when it runs


# neuron-helm-chart 1.9.0 ships the Neuron SDK 2.31.0 components (pack.yaml pins the chart).
NEURON_SDK_VERSION = "2.31.0"


@dataclasses.dataclass(frozen=True)
class ComputeFacts:
    gpu_operator: GpuOperatorFacts
    efa_security_groups: tuple[EfaSecurityGroupNeed, ...] = ()
    neuron: NeuronFacts | None = None  # None when no Neuron chart is rendered
    aws_identities: tuple[AwsIdentity, ...] = ()  # the Karpenter controller's


def exports(spec: CoreSpec, config: Config, facts: Facts) -> ComputeFacts:
    op = config.gpu_operator
    bottlerocket = any(f.nvidia and f.ami_family == "bottlerocket" for f in all_pool_facts(spec).values())
    return ComputeFacts(GpuOperatorFacts(
        enabled=op.enabled, cluster_policy=op.cluster_policy, gpu_cluster=op.gpu_cluster, driver=op.driver,
        runs_device_plugin=op.runs_device_plugin(bottlerocket),
        dcgm_exporter=op.dcgm_exporter.enabled, dcgm_service_monitor=op.dcgm_exporter.service_monitor,
        tolerations=op.tolerations, values_overrides=op.values_overrides,
    ), efa_security_groups=tuple(
        EfaSecurityGroupNeed(p.name, p.efa.zone, p.efa.security_group.model_dump(exclude_none=True) if p.efa.security_group else None)
        for p in spec.node_pools if p.efa is not None
    ), neuron=NeuronFacts(NEURON_SDK_VERSION, NEURON_SCHEDULER_NAME if config.neuron.scheduler_extension else None)
        if config.neuron.enabled and any(f.neuron for f in all_pool_facts(spec).values()) else None,
        aws_identities=(karpenter_identity(spec, config),))
