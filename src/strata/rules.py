"""Policy rules: every rule has an id, a one-line reason and a fix, and can be listed
(``strata rules``) and explained (``strata explain RULE``)."""

from __future__ import annotations

import dataclasses

from strata.problems import Path, Problem, Severity


@dataclasses.dataclass(frozen=True)
class Rule:
    id: str
    summary: str  # one line: why this is a problem
    fix: str  # one line: what to do instead
    severity: Severity = Severity.ERROR

    def problem(self, path: Path, message: str, severity: Severity | None = None) -> Problem:
        return Problem(rule=self.id, message=message, path=path, severity=severity or self.severity)


# Rules of the engine itself (not of any pack).
SPEC = Rule("spec", "the spec does not match the Platform schema", "fix the field as the message says")
YAML = Rule("yaml", "a spec file is not valid YAML", "fix the YAML syntax at the marked position")
DUPLICATE_KEY = Rule(
    "spec/duplicate-key",
    "a mapping repeats a key, so one of the values would be silently dropped",
    "keep one occurrence of the key",
)
LAYER_PATCH = Rule(
    "spec/layer-patch",
    "a $patch marker cannot be applied: only replace and delete exist, and delete needs something an earlier layer set",
    "write $patch: replace or $patch: delete in a later layer's map or named list item, naming an item an earlier layer has",
)
DUPLICATE_OBJECT = Rule(
    "render/duplicate-object",
    "two templates produced the same (kind, namespace, name), so one would overwrite the other",
    "rename one of the objects in the spec",
)
TEMPLATE = Rule("render/template", "a pack template failed to render", "report it to the pack's authors")
KUBERNETES_VERSION = Rule(
    "cluster/kubernetes-version",
    "strata validates and renders for EKS Kubernetes 1.34 to 1.37 only",
    "set cluster.kubernetesVersion to a quoted version between \"1.34\" and \"1.37\"",
)
UNKNOWN_REGION = Rule(
    "cluster/unknown-region",
    "cluster.region is no AWS region, so nothing strata renders for it (ARNs, endpoints, S3 buckets) can work",
    "use an AWS region code such as us-west-2 (strata catalog --regions lists them)",
)
PACK_KUBERNETES = Rule(
    "pack/kubernetes-range",
    "an enabled pack does not support the cluster's Kubernetes version (its pinned charts and APIs were not made for it)",
    "use a Kubernetes version in the pack's range (strata packs list shows the packs) or upgrade the pack",
)
VALIDATION = Rule(
    "validate/kubeconform",
    "an output object is not accepted by the Kubernetes or CRD schema at the target version",
    "fix the spec (or the pack template) that produced the object",
)
MISSING_SCHEMA = Rule(
    "validate/missing-schema",
    "no schema is known for an output object's kind, so it cannot be validated offline",
    "import the CRDs that define it: strata schemas import PATH",
)
KUSTOMIZE = Rule(
    "validate/kustomize",
    "the output tree does not build with kustomize",
    "report it: strata writes every kustomization itself",
)
SECRET_IN_OUTPUT = Rule(
    "render/secret-in-output",
    "the output tree is committed to Git; a credential in it is leaked to everyone who can read the repository",
    "keep the value in an existing Secret (or a secret manager) and reference it by name",
)
CROSS_TEAM_NETWORK_POLICY = Rule(
    "tenancy/cross-team-network-policy",
    "a NetworkPolicy strata writes lets one team's Pods reach another team's (their namespace, or their notebooks in the hub's namespace), so tenants are not isolated",
    "pin every peer to the policy's own team: its namespace, or podSelector strata.dev/team: <team> for Pods in a namespace teams share",
)
REPO_PATH = Rule(
    "render/repo-path",
    "the spec names where the tree lives in its Git repository (gitops.argocd.path), but it is written elsewhere there, so Argo CD syncs a path that does not exist",
    "render with -o <repository root>/<that path>, or set the path to the output directory's path in the repository",
)
WAIVER_UNKNOWN_RULE = Rule(
    "waiver/unknown-rule",
    "a waiver names a rule strata does not have, or one no waiver can accept (spec, render and validation rules), so it waives nothing",
    "name a policy rule id as strata rules lists it",
)
WAIVER_EXPIRED = Rule(
    "waiver/expired",
    "a waiver past its expiry date no longer accepts the error, so the exception ends visibly instead of silently living on",
    "fix what the rule reports, or renew the waiver with a new expires date and a reason",
)
WAIVER_UNUSED = Rule(
    "waiver/unused",
    "a waiver that matches no error (fixed meanwhile, or a mistyped path) would silently accept a future one",
    "remove the waiver, or correct its path or object",
)
UNKNOWN_CHART_KEY = Rule(
    "overrides/unknown-key",
    "a valuesOverrides key is not a key of the pinned chart, so Helm ignores it (or its schema refuses the release)",
    "use the chart's key (the message suggests the nearest one) or drop it; the pack's helm/keys/ index lists them",
)
TYPED_CHART_KEY = Rule(
    "overrides/typed-field",
    "a valuesOverrides key sets a chart value that a typed field of the spec owns, bypassing that field's checks",
    "set the typed field the message names instead of overriding the chart value",
)
DRIFT = Rule(
    "render/drift",
    "the output tree on disk differs from what the spec renders",
    "run strata render without --check and commit the result",
)

UNKNOWN_CHART_RELEASE = Rule(
    "charts/unknown-release",
    "a charts: entry names no Helm release an installed pack declares, so it would change nothing",
    "use a release name strata renders (helm/<release>/ in the output tree, or pack.yaml helmReleases)",
)
CHART_VERSION_RANGE = Rule(
    "charts/version-out-of-range",
    "a charts: version is outside the range the release's pack declares it supports (its values and rules were made for those)",
    "pick a version in the range the message names, or upgrade the pack",
)
CORE_RULES: tuple[Rule, ...] = (
    SPEC, YAML, DUPLICATE_KEY, LAYER_PATCH, DUPLICATE_OBJECT, TEMPLATE, KUBERNETES_VERSION, UNKNOWN_REGION, PACK_KUBERNETES,
    VALIDATION, MISSING_SCHEMA, KUSTOMIZE, DRIFT, SECRET_IN_OUTPUT, CROSS_TEAM_NETWORK_POLICY, REPO_PATH,
    WAIVER_UNKNOWN_RULE, WAIVER_EXPIRED, WAIVER_UNUSED, UNKNOWN_CHART_KEY, TYPED_CHART_KEY, UNKNOWN_CHART_RELEASE,
    CHART_VERSION_RANGE,
)


def registry() -> list[Rule]:
    """Every rule strata knows: the engine's, hydration's and every discovered pack's, by id
    (what ``strata rules`` lists and README's rule table shows)."""
    from strata import hydrate  # imported here: both import this module
    from strata.packs.loader import discover
    from strata.validate import server

    found = [*CORE_RULES, *hydrate.RULES, *server.RULES, *(r for pack in discover() for r in pack.rules)]
    return sorted(found, key=lambda r: r.id)


def markdown_table(found: list[Rule]) -> str:
    """README's rule table: id, severity, what the rule guards against, and the fix."""
    def cell(text: str) -> str:
        return text.replace("|", "\\|")

    lines = ["| rule | severity | what it guards against | fix |", "|---|---|---|---|"]
    lines += [f"| `{r.id}` | {r.severity.value} | {cell(r.summary)} | {cell(r.fix)} |" for r in found]
    return "\n".join(lines) + "\n"
