"""The tenancy pack: one isolated namespace per team of the core ``teams:`` list."""

from .config import Config
from .context import context

__all__ = ["Config", "context"]
