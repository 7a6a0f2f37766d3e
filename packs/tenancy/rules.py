"""The tenancy pack's policy rules."""

from strata.pack import Rule, Severity

PRIVILEGED_NAMESPACE = Rule(
    "tenancy/privileged-namespace",
    "Pod Security level privileged lets any team Pod run privileged, mount the host and take over its node",
    "enforce restricted (the default) or baseline; run the few Pods that need more in a platform namespace",
    Severity.WARNING,
)
TEAM_WITHOUT_GROUPS = Rule(
    "tenancy/team-without-groups",
    "a team without identity-provider groups gets no RoleBinding, so only cluster administrators can use its namespace",
    "list the team's groups in teams[].groups",
    Severity.WARNING,
)
INGRESS_CIDR_TOO_WIDE = Rule(
    "tenancy/ingress-cidr-too-wide",
    "on EKS, Pods take their addresses from the VPC, so a VPC-wide (or wider) ingress range lets every Pod of the cluster into team namespaces",
    "list the load balancer's subnets (a /24 or narrower each), or use ingressNamespaces",
)

QUOTA_BELOW_PLATFORM_CLAIMS = Rule(
    "tenancy/quota-below-platform-claims",
    "the team's ResourceQuota allows fewer PersistentVolumeClaims, or less requested storage, than the claims strata itself creates in its namespace, so the API server refuses some of them",
    "raise teams[].quota.persistentVolumeClaims / storage above what the storage pack creates for the team (EFS and S3 claims request a nominal 1Gi each), or drop claims",
)

RULES = (PRIVILEGED_NAMESPACE, TEAM_WITHOUT_GROUPS, INGRESS_CIDR_TOO_WIDE, QUOTA_BELOW_PLATFORM_CLAIMS)
