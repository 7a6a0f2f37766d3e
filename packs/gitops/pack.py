"""The gitops pack: Argo CD Applications describing the rest of the rendered tree."""

from .config import Config
from .context import context

__all__ = ["Config", "context"]
