"""The identity pack: the IAM roles of every component that calls AWS, least privilege, with
EKS Pod Identity or IRSA trust, their associations and optionally ACK objects."""

from . import rules
from .checks import check
from .config import Config
from .context import context
from .documents import documents

RULES = rules.RULES

__all__ = ["Config", "check", "context", "documents", "RULES"]
