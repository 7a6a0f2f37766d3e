"""The compute pack's policy rules: Karpenter v1 and GPU Operator mistakes that schemas miss."""

from strata.pack import Rule, Severity

GPU_LABEL_MISMATCH = Rule(
    "compute/gpu-label-mismatch",
    "the pool's GPU name, count or memory contradicts its instance types, so Karpenter can never launch them",
    "make gpu.name / gpu.count / gpu.memoryMiB match the catalog (strata explain shows it) or drop the claim",
)
GPU_MEMORY_UNITS = Rule(
    "compute/gpu-memory-units",
    "instance-gpu-memory is MiB per GPU; a small number is a GiB or total-memory mistake",
    "write gpu.memoryMiB per GPU in MiB, e.g. 81920 for an 80 GB GPU",
)
UNKNOWN_INSTANCE = Rule(
    "compute/unknown-instance-type",
    "an instance type or family the EC2 catalog does not know matches no instance, so the pool can never launch it",
    "use a name from the catalog (strata catalog --family NAME lists a family's types), e.g. c7i.4xlarge or c7i",
)
UNKNOWN_ACCELERATOR = Rule(
    "compute/unknown-accelerator",
    "the pool claims GPUs but none of its instance families or types is a known accelerator instance",
    "use accelerator families from the catalog (g5, g6e, p5 ...) or drop the gpu block",
)
ARCHITECTURE_MISMATCH = Rule(
    "compute/architecture-mismatch",
    "the pool's architecture excludes every instance type it lists, so nothing can launch",
    "set architecture to the instance types' architecture (g5g is arm64) or change the types",
)
CONSOLIDATION_POLICY = Rule(
    "compute/consolidation-policy",
    "Karpenter v1 accepts WhenEmpty, WhenEmptyOrUnderutilized and Balanced; WhenUnderutilized is v1beta1",
    "use WhenEmptyOrUnderutilized (the v1 name of WhenUnderutilized) or Balanced",
)
CONSOLIDATE_AFTER = Rule(
    "compute/disruption-consolidate-after",
    "Karpenter v1 requires consolidateAfter whenever a disruption block is given; the API rejects the NodePool",
    "add disruption.consolidateAfter (0s keeps the v1beta1 behaviour; 5m-30m is typical for GPU pools)",
)
EXPIRE_AFTER_LOCATION = Rule(
    "compute/expire-after-location",
    "expireAfter moved from spec.disruption to spec.template.spec in Karpenter v1",
    "write expireAfter at the node pool level (nodePools[].expireAfter), not under disruption",
)
AMI_FAMILY = Rule(
    "compute/ami-family",
    "the AMI alias family is not one Karpenter v1 supports for this Kubernetes version",
    "use al2023@<version> or bottlerocket@<version> (pin a version for production)",
)
NODE_IDENTITY = Rule(
    "compute/node-identity",
    "an EC2NodeClass needs exactly one of role and instanceProfile",
    "set compute.karpenter.nodeRole or compute.karpenter.instanceProfile, not both",
)
CONTROLLER_IDENTITY = Rule(
    "compute/controller-identity",
    "IRSA needs the controller's role ARN on the service account; Pod Identity must not carry one",
    "with identity irsa set controllerRoleArn, or cluster.accountId for the role strata generates; with podIdentity remove it and create the association",
)
RESTRICTED_LABEL = Rule(
    "compute/restricted-label",
    "Karpenter rejects template labels in the karpenter.sh domain, kubernetes.io/hostname and non-well-known karpenter.k8s.aws keys",
    "use your own label domain, e.g. platform.example.com/pool",
)
STATIC_POOL = Rule(
    "compute/static-pool",
    "a static pool (replicas) needs the staticCapacity feature gate, may only limit nodes and takes no weight",
    "enable compute.karpenter.featureGates.staticCapacity, keep only limits.nodes and drop weight",
)
GPU_LIMIT = Rule(
    "compute/gpu-pool-without-gpu-limit",
    "a GPU pool without a GPU limit can scale to the account's quota and the bill with it",
    "set limits.gpus on every GPU node pool",
)
GPU_POOL_UNTAINTED = Rule(
    "compute/gpu-pool-untainted",
    "without a taint, ordinary pods fill expensive GPU nodes and keep them from consolidating",
    "add a taint such as {key: nvidia.com/gpu, effect: NoSchedule} to GPU pools",
    Severity.WARNING,
)
TAINT_NOT_TOLERATED = Rule(
    "compute/gpu-taint-not-tolerated",
    "GPU Operator operands (device plugin, validator, DCGM exporter) must tolerate every GPU pool taint or GPUs never appear",
    "add a matching toleration to compute.gpuOperator.tolerations",
)
OPERATOR_MODES = Rule(
    "compute/gpu-operator-modes",
    "the GPU Operator deploys exactly one of ClusterPolicy and GPUCluster; the chart fails with both or neither",
    "turn on exactly one of compute.gpuOperator.clusterPolicy and compute.gpuOperator.gpuCluster",
)
DRIVER_ON_NVIDIA_AMI = Rule(
    "compute/driver-on-nvidia-ami",
    "EKS AL2023 and Bottlerocket NVIDIA AMIs already ship the driver and container toolkit; a second install conflicts",
    "keep compute.gpuOperator.driver and toolkit at host",
)
DEVICE_PLUGIN_BOTTLEROCKET = Rule(
    "compute/device-plugin-bottlerocket",
    "Bottlerocket NVIDIA variants run their own device plugin; a second one double-advertises GPUs",
    "set compute.gpuOperator.devicePlugin: false (the default for Bottlerocket pools)",
)
SMOKE_TEST_POOL = Rule(
    "compute/smoke-test-pool",
    "the GPU smoke test must target a node pool with NVIDIA GPUs",
    "set compute.smokeTest.nodePool to one of the GPU pools",
)
REMOVED_CHART_VALUE = Rule(
    "compute/removed-chart-value",
    "the override sets a chart value that the pinned chart no longer reads (a silent no-op or a failure)",
    "use the current key named in the message",
)
EFA_UNSUPPORTED = Rule(
    "compute/efa-unsupported-instance",
    "efa is set on a pool whose instance types include ones without EFA interfaces (the reference lists none for them), so their nodes never offer vpc.amazonaws.com/efa",
    "list only instance types with EFA (strata catalog shows the EFA interfaces of each) or drop efa from the pool",
)
EFA_ZONE = Rule(
    "compute/efa-zone",
    "EFA traffic does not cross availability zones: an EFA pool spread over several zones splits one training job's nodes so they cannot reach each other over EFA",
    "set efa.zone to one availability zone of the cluster's region (one zone per pool; make a second pool for another zone)",
)
EFA_SECURITY_GROUP = Rule(
    "compute/efa-security-group",
    "EFA needs a security group that allows all inbound and outbound traffic from and to itself; the cluster's discovered node groups do not have that rule, so EFA traffic is dropped",
    "create the self-referencing security group (compute/infra/ states the rule) and name it in efa.securityGroup (id or tags)",
)
EFA_BY_LABEL = Rule(
    "compute/efa-by-label",
    "a pool label saying EFA (efa-enabled, vpc.amazonaws.com/efa.present) attaches no EFA interface, just as RAID0 instance storage does not; only EFA network interfaces do",
    "drop the label and set efa: on the pool (strata then pins the zone, adds the security group and installs the EFA device plugin)",
)
CAPACITY_RESERVATION_UNUSED = Rule(
    "compute/capacity-reservation-unused",
    "Karpenter launches into a capacity reservation only with capacity type reserved and the reservedCapacity feature gate; otherwise the reservation sits idle while on-demand capacity is bought",
    "add reserved to capacityTypes (and keep compute.karpenter.featureGates.reservedCapacity on) or drop efa.capacityReservations",
)
BANDWIDTH_EXCEEDS_INSTANCE = Rule(
    "compute/bandwidth-exceeds-instance",
    "the declared network bandwidth exceeds what the instance type provides; the reference's figure is the instance's aggregate over all its interfaces, so interfaces x bandwidth (p4d '4x400 Gbps', trn1n '16x1600 Gbps') double counts",
    "declare at most the aggregate bandwidth strata catalog shows for the type (p4d.24xlarge 400 Gbps, trn1n.32xlarge 1600 Gbps, p5.48xlarge 3200 Gbps)",
)

RULES = (
    GPU_LABEL_MISMATCH, GPU_MEMORY_UNITS, UNKNOWN_INSTANCE, UNKNOWN_ACCELERATOR, ARCHITECTURE_MISMATCH, CONSOLIDATION_POLICY,
    CONSOLIDATE_AFTER, EXPIRE_AFTER_LOCATION, AMI_FAMILY, NODE_IDENTITY, CONTROLLER_IDENTITY,
    RESTRICTED_LABEL, STATIC_POOL, GPU_LIMIT, GPU_POOL_UNTAINTED, TAINT_NOT_TOLERATED, OPERATOR_MODES,
    DRIVER_ON_NVIDIA_AMI, DEVICE_PLUGIN_BOTTLEROCKET, SMOKE_TEST_POOL, REMOVED_CHART_VALUE,
    EFA_UNSUPPORTED, EFA_ZONE, EFA_SECURITY_GROUP, EFA_BY_LABEL, CAPACITY_RESERVATION_UNUSED, BANDWIDTH_EXCEEDS_INSTANCE,
)
