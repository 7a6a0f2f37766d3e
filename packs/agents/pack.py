"""The agents pack: Kagent agents per team, Agentgateway in front of every MCP server, Langfuse
4.x tracing and a Milvus vector store, wired to the teams, storage and tenancy of the platform."""

from . import rules
from .checks import check
from .config import Config
from .context import context
from .exports import exports

RULES = rules.RULES

__all__ = ["Config", "check", "context", "exports", "RULES"]
