"""The identity/ documents: a policy and a trust policy per role, roles.json and associations.json."""

from __future__ import annotations

from typing import Any

from strata.pack import Facts

from .config import Config
from .grammar import unscoped_reason
from .roles import documents as role_documents, identities, plan


def documents(spec: Any, config: Config, facts: Facts) -> dict[str, Any]:
    roles = plan(spec, identities(spec, config, facts))
    return role_documents(spec, config, roles, lambda s: unscoped_reason(s.actions, s.unscoped_reason))
