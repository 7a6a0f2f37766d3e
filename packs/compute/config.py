"""The ``compute`` section of the Platform spec."""

from __future__ import annotations

from typing import Literal

from strata.pack import ChartOverrides, ControllerIdentity, DnsLabel, GpuSmokeTest, LabelKey, StrictModel, Toleration


class KarpenterFeatureGates(StrictModel):
    node_repair: bool = False  # Karpenter feature gate NodeRepair (settings.featureGates.nodeRepair)
    node_overlay: bool = False  # Karpenter feature gate NodeOverlay (settings.featureGates.nodeOverlay)
    reserved_capacity: bool = True  # Karpenter feature gate ReservedCapacity (settings.featureGates.reservedCapacity)
    spot_to_spot_consolidation: bool = False  # Karpenter feature gate SpotToSpotConsolidation (settings.featureGates)
    static_capacity: bool = False  # Karpenter feature gate StaticCapacity (settings.featureGates.staticCapacity)


KARPENTER = "karpenter"  # the component, as the identity pack names its role and its service account


class Karpenter(ControllerIdentity, ChartOverrides):
    # The IAM role of the nodes (Karpenter manages the instance profile), or an existing
    # instance profile. Exactly one; the role defaults to KarpenterNodeRole-<cluster>.
    node_role: str | None = None
    instance_profile: str | None = None  # an existing instance profile for the nodes, instead of nodeRole
    interruption_queue: str | None = None  # SQS queue name; defaults to the cluster name
    discovery_tag_key: LabelKey = "karpenter.sh/discovery"  # subnets/SGs tagged <key>=<cluster>
    ignore_dra_requests: bool = True  # false renders IGNORE_DRA_REQUESTS=false on the controller (Karpenter then simulates DRA claims)
    feature_gates: KarpenterFeatureGates = KarpenterFeatureGates()  # rendered as the chart's settings.featureGates


class DcgmExporter(StrictModel):
    enabled: bool = True  # the operator's DCGM exporter DaemonSet (dcgmExporter.enabled)
    service_monitor: bool = True  # a ServiceMonitor for the exporter (needs the prometheus-operator CRDs); the chart default in 26.7.0


class GpuOperator(ChartOverrides):
    enabled: bool = True  # rendered only when a node pool has NVIDIA GPUs
    # The two operand modes of GPU Operator 26.7; exactly one may be on.
    cluster_policy: bool = True  # deploy the ClusterPolicy CR (clusterPolicy.deployCR)
    gpu_cluster: bool = False  # deploy the GPUCluster CR (gpuCluster.deployCR) and, on multi-node NVLink types, DRA ComputeDomains
    # EKS AL2023 and Bottlerocket NVIDIA AMIs ship the driver and the container toolkit.
    driver: Literal["host", "operator"] = "host"  # operator: the operator installs the NVIDIA driver (driver.enabled)
    toolkit: Literal["host", "operator"] = "host"  # operator: the operator installs the container toolkit (toolkit.enabled)
    device_plugin: bool | None = None  # default: on for AL2023, off for Bottlerocket (built into the OS)
    dcgm_exporter: DcgmExporter = DcgmExporter()  # the DCGM exporter of GPU metrics
    mig_strategy: Literal["single", "mixed"] = "single"  # how MIG slices are advertised (the chart's mig.strategy)
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

    enabled: bool = True  # render the Neuron chart when a pool has Neuron devices
    # The Neuron scheduler extension (a second kube-scheduler, "my-scheduler"): needed when a
    # Pod takes several but not all Neuron devices/cores of a node, so they are adjacent.
    scheduler_extension: bool = False
    # The node problem detector needs IAM permissions (the chart's IRSA setup); off by default.
    node_problem_detector: bool = False


class SmokeTest(GpuSmokeTest):
    namespace: DnsLabel = "gpu-smoke-test"  # the Job's namespace; an unset nodePool means the first GPU pool


class Config(StrictModel):
    karpenter: Karpenter = Karpenter()  # the Karpenter controller's chart values and the nodes' IAM identity
    gpu_operator: GpuOperator = GpuOperator()  # the NVIDIA GPU Operator chart values
    smoke_test: SmokeTest = SmokeTest()  # a one-shot nvidia-smi Job on a GPU pool
    neuron: Neuron = Neuron()  # the Neuron chart for Inferentia/Trainium pools
