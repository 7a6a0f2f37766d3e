"""The AWS access of the Karpenter controller, from Karpenter 1.14's own CloudFormation
template (website/content/en/v1.14/getting-started/getting-started-with-karpenter/
cloudformation.yaml: the NodeLifecycle, IAMIntegration, EKSIntegration, Interruption,
ZonalShift and ResourceDiscovery policies), scoped to this spec's partition, region, account,
cluster, interruption queue, node role and the KMS keys of its node pools' root volumes."""

from __future__ import annotations

from typing import Any

from strata.pack import Arns, AwsIdentity, Condition, IamStatement, kms_statements, spec_path

from .config import KARPENTER, Config

NAMESPACE = "kube-system"  # the karpenter release's namespace (pack.yaml)
SERVICE_ACCOUNT = "karpenter"  # helm/karpenter.yaml.j2 serviceAccount.name

EC2_LAUNCHED = ("fleet", "instance", "volume", "network-interface", "launch-template", "spot-instances-request")


def karpenter_identity(spec: Any, config: Config) -> AwsIdentity:
    k = config.karpenter
    arns = Arns.of(spec.cluster)
    cluster = spec.cluster.name
    region = spec.cluster.region
    owned = Condition("StringEquals", f"aws:ResourceTag/kubernetes.io/cluster/{cluster}", ("owned",))
    any_nodepool = Condition("StringLike", "aws:ResourceTag/karpenter.sh/nodepool", ("*",))
    request_owned = (Condition("StringEquals", f"aws:RequestTag/kubernetes.io/cluster/{cluster}", ("owned",)),
                     Condition("StringEquals", "aws:RequestTag/eks:eks-cluster-name", (cluster,)))
    ec2 = lambda resource: arns.regional("ec2", resource, account="*")
    launched = tuple(ec2(f"{kind}/*") for kind in EC2_LAUNCHED)
    profile = arns.iam("instance-profile/*")
    profile_tags = (Condition("StringEquals", f"aws:ResourceTag/kubernetes.io/cluster/{cluster}", ("owned",)),
                    Condition("StringEquals", "aws:ResourceTag/topology.kubernetes.io/region", (region,)),
                    Condition("StringLike", "aws:ResourceTag/karpenter.k8s.aws/ec2nodeclass", ("*",)))
    statements = [
        # --- node lifecycle ---
        IamStatement("AllowScopedEC2InstanceAccessActions", ("ec2:RunInstances", "ec2:CreateFleet"), (
            arns.regional("ec2", "image/*", account=""), arns.regional("ec2", "snapshot/*", account=""),
            ec2("security-group/*"), ec2("subnet/*"), ec2("capacity-reservation/*"), ec2("placement-group/*"))),
        IamStatement("AllowScopedEC2LaunchTemplateAccessActions", ("ec2:RunInstances", "ec2:CreateFleet"),
                     (ec2("launch-template/*"),), (owned, any_nodepool)),
        IamStatement("AllowScopedEC2InstanceActionsWithTags", ("ec2:RunInstances", "ec2:CreateFleet", "ec2:CreateLaunchTemplate"),
                     launched, (*request_owned, Condition("StringLike", "aws:RequestTag/karpenter.sh/nodepool", ("*",)))),
        IamStatement("AllowScopedResourceCreationTagging", ("ec2:CreateTags",), launched, (
            *request_owned, Condition("StringEquals", "ec2:CreateAction", ("RunInstances", "CreateFleet", "CreateLaunchTemplate")),
            Condition("StringLike", "aws:RequestTag/karpenter.sh/nodepool", ("*",)))),
        IamStatement("AllowScopedResourceTagging", ("ec2:CreateTags",), (ec2("instance/*"),), (
            owned, any_nodepool, Condition("StringEqualsIfExists", "aws:RequestTag/eks:eks-cluster-name", (cluster,)),
            Condition("ForAllValues:StringEquals", "aws:TagKeys", ("eks:eks-cluster-name", "karpenter.sh/nodeclaim", "Name")))),
        IamStatement("AllowScopedDeletion", ("ec2:TerminateInstances", "ec2:DeleteLaunchTemplate"),
                     (ec2("instance/*"), ec2("launch-template/*")), (owned, any_nodepool)),
    ]
    # --- IAM integration: with an existing instance profile Karpenter manages none, and the
    # role inside it is passed by EC2 under the profile's own permissions.
    if not k.instance_profile:
        node_role = k.node_role or f"KarpenterNodeRole-{cluster}"
        statements += [
            IamStatement("AllowPassingInstanceRole", ("iam:PassRole",), (arns.iam(f"role/{node_role}"),),
                         (Condition("StringEquals", "iam:PassedToService", (f"ec2.{_url_suffix(spec.cluster.partition)}",)),)),
            IamStatement("AllowScopedInstanceProfileCreationActions", ("iam:CreateInstanceProfile",), (profile,), (
                *request_owned, Condition("StringEquals", "aws:RequestTag/topology.kubernetes.io/region", (region,)),
                Condition("StringLike", "aws:RequestTag/karpenter.k8s.aws/ec2nodeclass", ("*",)))),
            IamStatement("AllowScopedInstanceProfileTagActions", ("iam:TagInstanceProfile",), (profile,), (
                *profile_tags, *request_owned, Condition("StringEquals", "aws:RequestTag/topology.kubernetes.io/region", (region,)),
                Condition("StringLike", "aws:RequestTag/karpenter.k8s.aws/ec2nodeclass", ("*",)))),
            IamStatement("AllowScopedInstanceProfileActions",
                         ("iam:AddRoleToInstanceProfile", "iam:RemoveRoleFromInstanceProfile", "iam:DeleteInstanceProfile"),
                         (profile,), profile_tags),
        ]
    statements += [
        IamStatement("AllowInstanceProfileReadActions", ("iam:GetInstanceProfile",), (profile,)),
        IamStatement("AllowUnscopedInstanceProfileListAction", ("iam:ListInstanceProfiles",), ("*",),
                     unscoped_reason="iam:ListInstanceProfiles lists the account's profiles and has no resource type"),
        # --- EKS integration, interruption, zonal shift ---
        IamStatement("AllowAPIServerEndpointDiscovery", ("eks:DescribeCluster",), (arns.cluster,)),
        IamStatement("AllowInterruptionQueueActions", ("sqs:DeleteMessage", "sqs:GetQueueUrl", "sqs:ReceiveMessage"),
                     (arns.regional("sqs", k.interruption_queue or cluster),)),
        IamStatement("AllowZonalShiftStatusReadOnly", ("arc-zonal-shift:GetManagedResource",), ("*",),
                     (Condition("StringEquals", "arc-zonal-shift:ResourceIdentifier", (arns.cluster,)),),
                     unscoped_reason="the zonal shift of the cluster is read by its identifier (the condition); "
                                     "the cluster is no resource type of the action"),
        # --- resource discovery ---
        IamStatement("AllowRegionalReadActions", (
            "ec2:DescribeCapacityReservations", "ec2:DescribeImages", "ec2:DescribeInstances", "ec2:DescribeInstanceStatus",
            "ec2:DescribeInstanceTypeOfferings", "ec2:DescribeInstanceTypes", "ec2:DescribeLaunchTemplates",
            "ec2:DescribePlacementGroups", "ec2:DescribeSecurityGroups", "ec2:DescribeSpotPriceHistory", "ec2:DescribeSubnets"),
            ("*",), (Condition("StringEquals", "aws:RequestedRegion", (region,)),),
            unscoped_reason="EC2 Describe actions have no resource type; the condition keeps them to the cluster's region"),
        IamStatement("AllowSSMReadActions", ("ssm:GetParameter",), (arns.regional("ssm", "parameter/aws/service/*", account=""),)),
        IamStatement("AllowPricingReadActions", ("pricing:GetProducts",), ("*",),
                     unscoped_reason="the Price List API has no resource type"),
    ]
    # Root volumes encrypted with a customer managed key: EC2 uses the key on Karpenter's behalf.
    keys = [p.root_volume.kms_key_id for p in spec.node_pools if p.root_volume.kms_key_id]
    statements += kms_statements("AllowRootVolumeKmsKeys", keys, arns, (
        "kms:CreateGrant", "kms:Decrypt", "kms:DescribeKey", "kms:GenerateDataKeyWithoutPlaintext",
        "kms:ReEncryptFrom", "kms:ReEncryptTo"), via_service="ec2")
    return AwsIdentity(
        component=KARPENTER, namespace=NAMESPACE, service_account=SERVICE_ACCOUNT, mode=k.identity,
        statements=tuple(statements), path=spec_path("compute", "karpenter"),
        role_arn=k.controller_role_arn if k.identity == "irsa" else None,
        description="launches and terminates the nodes of the node pools, reads the interruption queue",
    )


def _url_suffix(partition: str) -> str:
    return "amazonaws.com.cn" if partition == "aws-cn" else "amazonaws.com"
