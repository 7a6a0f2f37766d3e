"""The dra pack's policy rules: DRA API, NVIDIA DRA driver and Karpenter mistakes that schemas miss."""

from strata.pack import Rule

KUBERNETES_VERSION = Rule(
    "dra/kubernetes-version",
    "resource.k8s.io/v1 (DRA GA) is served from Kubernetes 1.34; older clusters have only the beta APIs, off by default",
    'set cluster.kubernetesVersion to "1.34" or later, or remove the dra section',
)
CEL_ATTRIBUTE = Rule(
    "dra/cel-attribute",
    "the CEL selector reads an attribute or capacity the NVIDIA DRA driver does not publish, or omits its gpu.nvidia.com domain",
    "use device.attributes['gpu.nvidia.com'].<productName|uuid|architecture|...> and device.capacity['gpu.nvidia.com'].memory",
)
MATCH_ATTRIBUTE = Rule(
    "dra/match-attribute",
    "constraints[].matchAttribute must be a published, fully qualified attribute (<domain>/<name>)",
    "write e.g. gpu.nvidia.com/parentUUID or resource.kubernetes.io/pcieRoot",
)
V1BETA1_REQUEST = Rule(
    "dra/v1beta1-request",
    "resource.k8s.io/v1 requests wrap the device fields in exactly (or firstAvailable); the flat v1beta1 shape is rejected",
    "move deviceClassName, selectors, allocationMode and count under requests[].exactly",
)
CLASSIC_DRA = Rule(
    "dra/classic-dra",
    "classic DRA (resource.k8s.io/v1alpha2: ResourceClass, parametersRef, claim source) was removed from Kubernetes",
    "use device requests with deviceClassName, and reference templates directly (claims[].template)",
)
REQUEST_SHAPE = Rule(
    "dra/request-shape",
    "a request or its config is inconsistent: count with allocationMode All, or a reference to a request the claim does not have",
    "drop count for All, and name only requests of the same claim",
)
DEVICE_CLASS = Rule(
    "dra/device-class",
    "the request names a DeviceClass that neither the NVIDIA DRA driver nor dra.deviceClasses defines",
    "use gpu.nvidia.com, mig.nvidia.com or a class under dra.deviceClasses",
)
MIG_PROFILE = Rule(
    "dra/mig-profile",
    "a MIG profile names one instance (3g.20gb: 3 of 7 compute slices with 20 GB) and must exist on the pool's GPU; only mig.nvidia.com devices have it",
    "use a profile the message lists for the GPU, with deviceClassName mig.nvidia.com, and count the instances you need",
)
SHARING_GATE = Rule(
    "dra/sharing-feature-gate",
    "GpuConfig sharing (MPS or TimeSlicing) needs the driver's MPSSupport or TimeSlicingSettings feature gate, else claims fail to prepare",
    "enable the gate in dra.featureGates (or the GPU Operator's draDriver.featureGates)",
)
SHARING_ISOLATION = Rule(
    "dra/sharing-not-isolation",
    "MPS and time-slicing share one GPU's memory and fault domain between pods; they are not isolation and no security boundary",
    "give workloads that must be isolated their own claims (whole GPUs or MIG instances); share only within one trusted workload",
)
KARPENTER_CLAIMS = Rule(
    "dra/karpenter-ignores-claims",
    "Karpenter 1.14 ignores ResourceClaims when it picks nodes (ignoreDRARequests), so a DRA pod can get a node without the GPUs it claims",
    "pin DRA pods to a GPU pool whose every instance type has enough GPUs, or make that pool static (replicas)",
)
DRIVER_ONCE = Rule(
    "dra/driver-installed-once",
    "the NVIDIA DRA driver must be installed exactly once: the standalone chart or the GPU Operator's GPUCluster mode",
    "set dra.driver to match compute.gpuOperator.gpuCluster (or leave dra.driver unset to follow it)",
)
DEVICE_PLUGIN = Rule(
    "dra/device-plugin-conflict",
    "the NVIDIA device plugin and DRA must not both hand out the GPUs of one node pool; pods would get the same GPU twice",
    'label the DRA pool nvidia.com/gpu.deploy.device-plugin: "false" (the GPU Operator skips it), or turn the device plugin off',
)
COMPUTE_DOMAIN = Rule(
    "dra/compute-domain-nvlink",
    "ComputeDomains (IMEX channels) need multi-node NVLink instances (GB200/GB300 UltraServers); other pools never get a channel",
    "drop the ComputeDomain, or put it on a pool whose instance types support multi-node NVLink",
)
NODE_POOL = Rule(
    "dra/node-pool",
    "a DRA node pool, smoke test or workload must name a node pool with NVIDIA GPUs that dra.nodePools lists",
    "list the pool under dra.nodePools and give it NVIDIA GPU instance types",
)
CLAIM_REFERENCE = Rule(
    "dra/claim-reference",
    "a workload claims from a template or ComputeDomain that does not exist in its namespace (templates and claims are namespaced)",
    "add the workload's team to the template's teams, or fix the name",
)

EXCEEDS_TEAM_QUOTA = Rule(
    "dra/exceeds-team-quota",
    "the team's ResourceQuota caps the devices of every GPU DeviceClass at its GPUs and its ResourceClaims; claims over it are refused by the API server, so the workload never starts",
    "lower replicas or devices per claim (an allocationMode All request counts as 32 devices: use ExactCount with the node's GPU count), or raise teams[].quota.gpus / resourceClaims",
)

RULES = (
    EXCEEDS_TEAM_QUOTA,
    KUBERNETES_VERSION, CEL_ATTRIBUTE, MATCH_ATTRIBUTE, V1BETA1_REQUEST, CLASSIC_DRA, REQUEST_SHAPE, DEVICE_CLASS,
    MIG_PROFILE, SHARING_GATE, SHARING_ISOLATION, KARPENTER_CLAIMS, DRIVER_ONCE, DEVICE_PLUGIN, COMPUTE_DOMAIN,
    NODE_POOL, CLAIM_REFERENCE,
)
