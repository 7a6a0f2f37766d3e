"""The jark pack: JupyterHub, Argo Workflows and KubeRay wired to GPU node pools, identity and teams."""

from . import rules
from .checks import check
from .config import Config
from .context import context
from .exports import exports

RULES = rules.RULES

__all__ = ["Config", "check", "context", "exports", "RULES"]
