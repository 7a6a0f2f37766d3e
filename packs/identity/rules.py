"""The identity pack's rules."""

from strata.pack import Rule

MISSING_IDENTITY = Rule(
    "identity/missing-identity",
    "a component that calls AWS has no role it can assume: without cluster.accountId no role ARN can be built, and an IRSA trust policy needs the cluster's OIDC provider",
    "set cluster.accountId (quoted, 12 digits); for IRSA set identity.oidcProvider to the cluster's OIDC issuer without https://, or use podIdentity",
)
SHARED_ROLE = Rule(
    "identity/shared-role",
    "one IAM role for components with different needs gives each of them the other's permissions (and one service account takes only one Pod Identity association)",
    "give each component its own role: drop the shared roleArn so strata generates <cluster>-<component>, or make the needs identical",
)
WILDCARD_RESOURCE = Rule(
    "identity/wildcard-resource",
    'Resource "*" grants the actions on every resource of the account, although the action has a resource type that an ARN can scope',
    'list the ARNs the workload uses (arn:<partition>:<service>:<region>:<account>:...); keep "*" only for actions without a resource type',
)
UNKNOWN_SERVICE_ACCOUNT = Rule(
    "identity/unknown-service-account",
    "a role is associated with a service account that no pack renders, so no Pod ever gets its credentials (or the wrong Pods do once someone creates it)",
    "name a service account strata renders (the message lists them; every team namespace has default), or make the association outside strata",
)
UNKNOWN_ACTION = Rule(
    "identity/unknown-action",
    "an IAM action that the Service Authorization Reference does not list is never granted: the workload fails with AccessDenied",
    "use the action's exact name (the message suggests the nearest); for a service outside the pinned catalog add it to scripts/build-iam-actions.py and regenerate",
)
POLICY_GRAMMAR = Rule(
    "identity/policy-grammar",
    "IAM refuses a policy document that breaks the IAM JSON policy grammar (an action without its service prefix, a resource that is no ARN)",
    "write actions as <service>:<Action> and resources as ARNs or \"*\"",
)

RULES = (MISSING_IDENTITY, SHARED_ROLE, WILDCARD_RESOURCE, UNKNOWN_SERVICE_ACCOUNT, UNKNOWN_ACTION, POLICY_GRAMMAR)
