"""The observability pack: GPU alerts that mean what they say, scrape targets that exist,
dashboards built from the same expressions, for kube-prometheus-stack or an existing Prometheus."""

from strata.pack import LegacyField

from . import rules
from .checks import check
from .config import Config
from .context import context

RULES = rules.RULES
LEGACY_FIELDS = (
    LegacyField("observability.extraRules[*].severity", rules.SEVERITY_OUTSIDE_LABELS,
                "severity belongs under labels: write labels: {severity: ...}"),
)

__all__ = ["Config", "check", "context", "RULES", "LEGACY_FIELDS"]
