"""The ``compute`` section of the Platform spec."""

from __future__ import annotations

from typing import Literal

from strata.pack import ChartOverrides, ControllerIdentity, DnsLabel, GpuSmokeTest, LabelKey, StrictModel, Toleration


class KarpenterFeatureGates(StrictModel):
    node_repair: bool = False
    node_overlay: bool = False
    reserved_capacity: bool = True
    spot_to_spot_consolidation: bool = False
    static_capacity: bool = False


KARPENTER = "karpenter"  # the component, as the identity pack names its role and its service account


class Karpenter(ControllerIdentity, ChartOverrides):
    # The IAM role of the nodes (Karpenter manages the instance profile), or an existing
    # instance profile. Exactly one; the role defaults to KarpenterNodeRole-<cluster>.
    node_role: str | None = None
    instance_profile: str | None = None
    interruption_queue: str | None = None  # SQS queue name; defaults to the cluster name
    discovery_tag_key: LabelKey = "karpenter.sh/discovery"  # subnets/SGs tagged <key>=<cluster>
    ignore_dra_requests: bool = True
    feature_gates: KarpenterFeatureGates = KarpenterFeatureGates()


class DcgmExporter(StrictModel):
    enabled: bool = True
    service_monitor: bool = True  # the chart default in 26.7.0


class GpuOperator(ChartOverrides):
    enabled: bool = True  # rendered only when a node pool has NVIDIA GPUs
    # The two operand modes of GPU Operator 26.7; exactly one may be on.
    cluster_policy: bool = True
    gpu_cluster: bool = False
    # EKS AL2023 and Bottlerocket NVIDIA AMIs ship the driver and the container toolkit.
    driver: Literal["host", "operator"] = "host"
    toolkit: Literal["host", "operator"] = "host"
    device_plugin: bool | None = None  # default: on for AL2023, off for Bottlerocket (built into the OS)
    dcgm_exporter: DcgmExporter = DcgmExporter()
    mig_strategy: Literal["single", "mixed"] = "single"
    # Tolerations of every operand DaemonSet (device plugin, validator, DCGM exporter...).
    tolerations: tuple[Toleration, ...] = (Toleration(key="nvidia.com/gpu", operator="Exists", effect="NoSchedule"),)

    def runs_device_plugin(self, bottlerocket_gpu_pools: bool) -> bool:
        """Whether the operator deploys the NVIDIA device plugin (exported to the dra pack):
        never in GPUCluster mode; by default not when Bottlerocket (which ships one) runs GPUs."""
        wanted = self.device_plugin if self.device_plugin is not None else not bottlerocket_gpu_pools
        return wanted and not self.gpu_cluster


class Neuron(StrictModel):
    """The Neuron Helm chart (device plugin, optional scheduler extension and node problem
    detector), rendered only when a pool has Inferentia/Trainium devices."""

    enabled: bool = True
    # The Neuron scheduler extension (a second kube-scheduler, "my-scheduler"): needed when a
    # Pod takes several but not all Neuron devices/cores of a node, so they are adjacent.
    scheduler_extension: bool = False
    # The node problem detector needs IAM permissions (the chart's IRSA setup); off by default.
    node_problem_detector: bool = False


class SmokeTest(GpuSmokeTest):
    # nodePool defaults to the first GPU pool
    namespace: DnsLabel = "gpu-smoke-test"


class Config(StrictModel):
    karpenter: Karpenter = Karpenter()
    gpu_operator: GpuOperator = GpuOperator()
    smoke_test: SmokeTest = SmokeTest()
    neuron: Neuron = Neuron()
