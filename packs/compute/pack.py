"""The compute pack: Karpenter v1 node pools, Karpenter and GPU Operator values, a GPU smoke test."""

from strata.pack import LegacyField

from . import rules
from .checks import check
from .config import Config
from .context import context
from .exports import exports

RULES = rules.RULES
LEGACY_FIELDS = (
    LegacyField("nodePools[*].disruption.expireAfter", rules.EXPIRE_AFTER_LOCATION,
                "expireAfter is not a disruption setting in Karpenter v1; write nodePools[].expireAfter"),
)

__all__ = ["Config", "check", "context", "exports", "RULES", "LEGACY_FIELDS"]
