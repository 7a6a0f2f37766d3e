"""The jark pack's policy rules: JARK wiring mistakes that chart schemas and CRDs do not catch."""

from strata.pack import Rule, Severity

GPU_NOT_SCHEDULABLE = Rule(
    "jark/gpu-not-schedulable",
    "a notebook profile, Ray worker group or workflow step asks for GPUs that its node pool cannot provide, so the Pod stays Pending",
    "set nodePool to an NVIDIA pool whose instance types have that many GPUs per node and whose limits.gpus allow it",
)
TAINT_NOT_TOLERATED = Rule(
    "jark/taint-not-tolerated",
    "explicit tolerations that miss a taint of the target node pool keep the Pod off that pool for good",
    "drop `tolerations` (strata then tolerates exactly the pool's taints) or add the missing ones",
)
REQUEST_EXCEEDS_POOL = Rule(
    "jark/request-exceeds-pool",
    "the Pod requests more CPU or memory than any instance type of its node pool leaves to Pods, so Karpenter can never launch a node for it",
    "lower cpu/memory (leave room for kubelet reservations and DaemonSets) or target a pool with larger instances",
)
GPU_IMAGE_WITHOUT_CUDA = Rule(
    "jark/gpu-image-without-cuda",
    "a GPU workload runs an image built without CUDA (old jupyter/* tags, Ray or PyTorch CPU tags), so it never uses the GPU it holds",
    "use the CUDA build of the image: quay.io/jupyter/pytorch-notebook:cuda12-<date>, rayproject/ray:<version>-gpu",
)
UNPINNED_IMAGE = Rule(
    "jark/unpinned-image",
    "an image without a tag, or with a moving tag like latest, changes under running users and breaks reproducibility",
    "pin the image by a fixed tag or by digest (repo:tag@sha256:...)",
)
PVC_CROSS_NAMESPACE = Rule(
    "jark/pvc-cross-namespace",
    "a Pod can mount only PersistentVolumeClaims of its own namespace; a claim in another namespace never binds to it",
    "create the claim (for a shared file system, a second PV/PVC pair) in the namespace of the Pods that mount it",
)
UNKNOWN_STORAGE_CLASS = Rule(
    "jark/unknown-storage-class",
    "the hub's home StorageClass is neither one the storage section makes nor one declared to exist, so every user's home claim stays Pending",
    "name a class of storage.efs/fsx.storageClasses, or list the cluster's existing class under storage.existingClasses",
)
NO_ALLOW_RULE = Rule(
    "jark/no-allow-rule",
    "since OAuthenticator 16 a hub without allowed users or groups lets nobody sign in, and allow_all would let everyone with an account in the identity provider in",
    "list allowedUsers and/or allowedGroups under jark.jupyterhub.auth.oauth",
)
DUMMY_AUTHENTICATOR = Rule(
    "jark/dummy-authenticator",
    "the dummy authenticator accepts any user name and password; it is for development clusters only",
    "use authenticator: oauth with an identity provider, or set cluster.environment: dev",
)
OAUTH_SETTINGS = Rule(
    "jark/oauth-settings",
    "GenericOAuthenticator needs its provider settings, and takes user data either from userdata_url or from the ID token, never both",
    "give jark.jupyterhub.auth.oauth, with exactly one of userdataUrl and userdataFromIdToken: true",
)
UNSTABLE_USERNAME_CLAIM = Rule(
    "jark/unstable-username-claim",
    "display-name claims are neither unique nor stable: two people can share a name and so a notebook server and home directory",
    "use a stable identifier claim such as sub, email, or cognito:username",
    Severity.WARNING,
)
SECRET_IN_VALUES = Rule(
    "jark/secret-in-values",
    "a secret written into chart values ends up in Git and in a ConfigMap or Helm release anyone with read access sees",
    "reference an existing Secret (jark.jupyterhub.auth.oauth.clientSecret, Argo's IAM identity) instead of writing the value",
)
DEPRECATED_CHART_VALUE = Rule(
    "jark/deprecated-chart-value",
    "the override uses a key that the pinned chart or OAuthenticator 17 renamed, removed or rejects",
    "use the current key named in the message",
)
GPUS_FOR_EVERY_USER = Rule(
    "jark/gpus-for-every-user",
    "singleuser.extraResource.limits applies to every notebook, so every user holds a GPU",
    "request GPUs in a profile (jark.jupyterhub.profiles[].gpus)",
)
TWO_LOAD_BALANCERS = Rule(
    "jark/two-load-balancers",
    "a LoadBalancer proxy Service next to an Ingress creates a second, unprotected load balancer",
    "keep proxy.service.type ClusterIP (strata's default when jark.jupyterhub.ingress is set)",
)
ARGO_AUTH_MODE = Rule(
    "jark/argo-auth-mode",
    "Argo server auth mode 'server' lets anyone who reaches the UI act as the server's ServiceAccount; 'sso' needs its provider settings",
    "use authModes [client] (Kubernetes tokens) or [sso] with jark.argoWorkflows.sso",
)
ARGO_STATIC_CREDENTIALS = Rule(
    "jark/argo-static-credentials",
    "static S3 keys for the artifact repository are long-lived secrets; on EKS the workflow's IAM identity does the job",
    "remove useStaticCredentials and the key secrets; give each team's runner an IAM identity (IRSA role or Pod Identity)",
)
WORKFLOW_IDENTITY = Rule(
    "jark/workflow-identity",
    "the workflow runner needs exactly one IAM identity to reach the artifact bucket: an IRSA role ARN, or an EKS Pod Identity association",
    "with identity irsa give every team a roleArn (or set cluster.accountId for the roles strata generates); with podIdentity drop roleArn and associate the role with <namespace>/argo-workflow",
)
UNKNOWN_REFERENCE = Rule(
    "jark/unknown-reference",
    "the spec names a team, node pool or Ray cluster that does not exist (or a team without a workflow runner), so the object would land nowhere",
    "use a name from teams:, nodePools: or jark.kuberay.clusters (and list dataflow teams in jark.argoWorkflows.teams)",
)
RAY_HEAD_TAKES_WORK = Rule(
    "jark/ray-head-takes-work",
    "a Ray head that advertises CPUs or GPUs gets tasks and actors scheduled on it; a busy head loses the GCS and the whole cluster",
    "leave the head's rayStartParams without num-cpus/num-gpus (strata sets num-cpus: \"0\") and give it no GPUs",
)
RAY_START_PARAMS = Rule(
    "jark/ray-start-params",
    "rayStartParams values must be strings, must not repeat the container resources KubeRay already derives, and take no labels",
    "quote the values, drop num-cpus/num-gpus/memory/resources (set cpu, memory, gpus instead) and use group labels for Ray labels",
)
RAY_VERSION_MISMATCH = Rule(
    "jark/ray-version-mismatch",
    "rayVersion must match the Ray inside the image, or the operator and autoscaler speak the wrong protocol",
    "use rayproject/ray:<rayVersion>-... or set rayVersion to the image's version",
)
RAY_NAME_LENGTH = Rule(
    "jark/ray-name-length",
    "KubeRay refuses RayCluster names over 53 characters and RayJob names over 47 (derived object names must fit 63)",
    "shorten the name",
)
RAY_REPLICAS = Rule(
    "jark/ray-replicas",
    "a worker group with minReplicas above maxReplicas is rejected by the operator",
    "make minReplicas <= maxReplicas",
)
EXCEEDS_TEAM_QUOTA = Rule(
    "jark/exceeds-team-quota",
    "one Pod of the workload requests more than its team's whole ResourceQuota, so the API server never admits it",
    "shrink the Pod or raise teams[].quota",
)

RAY_AUTHENTICATION = Rule(
    "jark/ray-authentication",
    "Ray token authentication (authOptions.mode: token) exists from Ray 2.52; an older Ray ignores it and serves its dashboard and Jobs API to anyone who reaches them",
    "use Ray 2.52.0 or later, or set authentication: disabled knowingly (the NetworkPolicy then is the only gate)",
)
OPEN_LOAD_BALANCER = Rule(
    "jark/open-load-balancer",
    "in prod, an internet-facing load balancer open to 0.0.0.0/0 puts the hub's login page (and any pre-auth bug) in front of the whole internet",
    "set jark.jupyterhub.ingress.inboundCidrs to the ranges your users come from (office, VPN), or use an internal scheme",
    Severity.WARNING,
)
TEAM_GROUPS_OVERLAP = Rule(
    "jark/team-groups-overlap",
    "a group listed by several teams gives its users' notebooks the label of only one of them (the last by team name), so they cannot reach the other team's Ray clusters",
    "give each team its own identity-provider groups",
    Severity.WARNING,
)
EFA_IMAGE_WITHOUT_LIBFABRIC = Rule(
    "jark/efa-image-without-libfabric",
    "a Ray worker on an EFA pool runs an image without the EFA libfabric and the aws-ofi-nccl plugin (rayproject/ray, pytorch/pytorch), so collectives cannot use EFA (strata sets NCCL_NET, so NCCL stops instead of crawling over TCP)",
    "use an image with the EFA installer and aws-ofi-nccl (an AWS Deep Learning Container, or your build FROM rayproject/ray with them), or run the group on a pool without efa",
)
NEURON_NOT_SCHEDULABLE = Rule(
    "jark/neuron-not-schedulable",
    "a Ray worker group asks for Neuron cores that its node pool cannot provide (no Inferentia/Trainium types, or fewer cores per node), so the Pod stays Pending",
    "set nodePool to a Neuron pool whose instance types have at least that many NeuronCores per node (strata catalog shows them)",
)
NEURON_IMAGE = Rule(
    "jark/neuron-image",
    "a Ray worker group holding Neuron cores runs an image built for CUDA or CPU (rayproject/ray, -gpu/-cu tags, pytorch/pytorch); without the Neuron runtime and torch-neuronx it never uses the cores",
    "use a Neuron image: an AWS Neuron Deep Learning Container (pytorch-training-neuronx) or your build FROM one with Ray installed",
)
RAY_NEURON_VERSIONS = Rule(
    "jark/ray-neuron-versions",
    "Ray Neuron workers need an image whose Neuron runtime and frameworks come from the Neuron SDK release the platform's Neuron components are pinned to; strata cannot look inside the image, so the cluster must declare it",
    "set neuronSdk on the Ray cluster to the Neuron SDK release its image is built from, the one the compute pack pins (strata explain names it)",
)
NEURON_SCHEDULER_EXTENSION = Rule(
    "jark/neuron-scheduler-extension",
    "a Pod taking several but not all Neuron cores of a node needs the Neuron scheduler extension, or the default scheduler hands it cores that are not adjacent and the runtime fails to load",
    "set compute.neuron.schedulerExtension: true (strata then schedules Neuron workers with it), or take one core or the whole node",
)

RULES = (
    GPU_NOT_SCHEDULABLE, TAINT_NOT_TOLERATED, REQUEST_EXCEEDS_POOL, GPU_IMAGE_WITHOUT_CUDA, UNPINNED_IMAGE,
    PVC_CROSS_NAMESPACE, UNKNOWN_STORAGE_CLASS, NO_ALLOW_RULE, DUMMY_AUTHENTICATOR, OAUTH_SETTINGS, UNSTABLE_USERNAME_CLAIM,
    SECRET_IN_VALUES, DEPRECATED_CHART_VALUE, GPUS_FOR_EVERY_USER, TWO_LOAD_BALANCERS, ARGO_AUTH_MODE,
    ARGO_STATIC_CREDENTIALS, WORKFLOW_IDENTITY, UNKNOWN_REFERENCE, RAY_HEAD_TAKES_WORK, RAY_START_PARAMS,
    RAY_VERSION_MISMATCH, RAY_NAME_LENGTH, RAY_REPLICAS, EXCEEDS_TEAM_QUOTA, RAY_AUTHENTICATION, TEAM_GROUPS_OVERLAP, OPEN_LOAD_BALANCER,
    EFA_IMAGE_WITHOUT_LIBFABRIC, NEURON_NOT_SCHEDULABLE, NEURON_IMAGE, RAY_NEURON_VERSIONS, NEURON_SCHEDULER_EXTENSION,
)
