"""The public pack API: the only module of strata that pack code imports (a test holds every
module under packs/ to it). Everything a pack needs from the engine is named here; the rest
of strata may change without notice to pack authors.

A pack's ``pack.py`` defines ``Config`` (the pydantic model of its spec section) and may define
``RULES``, ``LEGACY_FIELDS`` and the hooks ``check``, ``context``, ``exports`` and
``documents``; see README.md
("Writing a pack")."""

from __future__ import annotations

from strata import catalog
from strata.iam import Arns, AwsIdentity, Condition, IamStatement, kms_statements, role_arn, role_name
from strata.isolation import SHARED_LABEL, TEAM_LABEL
from strata.nested import get as nested_get, has as nested_has
from strata.packs.contract import LegacyField
from strata.packs.facts import Facts
from strata.packs.paths import SpecPath, spec_path
from strata.problems import Problem, Severity
from strata.render.inventory import Component, Inventory, Release
from strata.rules import Rule
from strata.secrets import in_values as secret_values
from strata.spec.base import (
    DnsLabel,
    Duration,
    LabelKey,
    LabelValue,
    NonNegativeInt,
    PositiveInt,
    PrometheusDuration,
    Quantity,
    StrictModel,
    exactly_one,
    quantity,
)
from strata.spec.claims import mount_problem
from strata.spec.model import CoreSpec, NodePool, Team
from strata.spec.pools import PoolFacts, all_facts as all_pool_facts, facts as pool_facts, tolerates
from strata.spec.shared import (
    RESTRICTED_CONTAINER,
    ChartOverrides,
    ControllerIdentity,
    GpuSmokeTest,
    RoleArn,
    Toleration,
    identity_problems,
    smoke_test_job,
)
from strata.tools import run as run_tool
from strata.yamlio import load as load_yaml

__all__ = [
    # the pack's own declarations
    "StrictModel", "exactly_one", "Rule", "Severity", "Problem", "LegacyField",
    # what the hooks receive from the packs a pack uses (pack.yaml `uses:`)
    "Facts",
    # problem paths: a plain tuple is relative to the pack's section; spec_path() is from the root
    "spec_path", "SpecPath",
    # constrained types and quantities
    "DnsLabel", "Duration", "PrometheusDuration", "LabelKey", "LabelValue", "NonNegativeInt", "PositiveInt", "Quantity", "quantity",
    # the core spec every hook receives (cluster, node pools, teams)
    "CoreSpec", "NodePool", "Team",
    # facts derived from node pools, and the EC2 instance catalog they come from
    "catalog", "PoolFacts", "pool_facts", "all_pool_facts", "tolerates",
    # models and checks several packs' sections share
    "ControllerIdentity", "RoleArn", "Toleration", "identity_problems", "mount_problem",
    # AWS identity needs a pack exports (field aws_identities of its exports) for the identity
    # pack, ARNs of the cluster's partition/region/account, and the roles strata generates
    "AwsIdentity", "IamStatement", "Condition", "Arns", "kms_statements", "role_arn", "role_name",
    # tenant isolation labels (strata.isolation judges the rendered NetworkPolicies by them)
    "TEAM_LABEL", "SHARED_LABEL",
    # a component that renders a Helm release and takes valuesOverrides (pack.yaml: valuesOverrides)
    "ChartOverrides",
    # the GPU smoke test (strata/smoke_test.j2 prints what smoke_test_job computes)
    "GpuSmokeTest", "smoke_test_job", "RESTRICTED_CONTAINER",
    # plain data: nested values, secrets written into them, YAML files a pack ships
    "nested_get", "nested_has", "secret_values", "load_yaml",
    # what inventory packs (GitOps) receive: the rest of the rendered tree
    "Component", "Inventory", "Release",
    # a pinned external binary (promtool ...), found and run the one way strata runs them
    "run_tool",
]
