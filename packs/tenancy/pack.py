"""The tenancy pack: one isolated namespace per team of the core ``teams:`` list."""

from . import rules
from .checks import check
from .config import Config
from .context import context
from .exports import exports

RULES = rules.RULES

__all__ = ["Config", "check", "context", "exports", "RULES"]
