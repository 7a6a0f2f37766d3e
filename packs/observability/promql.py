"""observability.extraRules through the real ``promtool check rules`` while the spec is
checked, so a rule Prometheus would refuse never reaches the cluster. strata's own rules are
proven with promtool in its tests (tests/test_observability_promtool.py); users' rules are
checked here, on every render."""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from pathlib import Path

import yaml

from strata.pack import Problem, run_tool

from . import rules as r
from .config import Config
from .context import extra_rule

# promtool (rulefmt) reports `FILE: [L:C: ]group "NAME", rule N, "RULE": message`; each extra
# rule gets a group of its own named by its index, so a message maps back to its spec entry,
# and to the field it names (the expression, an annotation or a label).
_GROUP = "extraRules[{}]"
_ERROR = re.compile(r'^(?:\S+: )?(?:\d+:\d+: )*group "extraRules\[(\d+)\]", rule \d+, "[^"]*": (.*)$')
_FIELD = re.compile(r'^(annotation|label) "([^"]+)": ')


def _field(message: str) -> tuple[str, ...]:
    if "could not parse expression" in message:
        return ("expr",)
    match = _FIELD.match(message)
    return (match.group(1) + "s", match.group(2)) if match else ()


def check_extra_rules(config: Config) -> Iterator[Problem]:
    if not config.extra_rules:
        return
    groups = [{"name": _GROUP.format(i), "rules": [extra_rule(rule)]} for i, rule in enumerate(config.extra_rules)]
    with tempfile.TemporaryDirectory(prefix="strata-promtool-") as tmp:
        path = Path(tmp) / "extra-rules.yaml"
        path.write_text(yaml.safe_dump({"groups": groups}, sort_keys=False), encoding="utf-8")
        result = run_tool("promtool", ["check", "rules", "--lint=none", path.name], cwd=Path(tmp))
    if result.returncode == 0:
        return
    found = False
    for line in (result.stderr + result.stdout).splitlines():
        match = _ERROR.match(line.strip())
        if match:
            found = True
            index, message = int(match.group(1)), match.group(2)
            yield r.PROMTOOL_REJECTS.problem(("extra_rules", index) + _field(message), f"promtool: {message}")
    if not found:  # a message promtool gives without a rule (it should not happen): never swallow it
        detail = " ".join((result.stderr or result.stdout).split())
        yield r.PROMTOOL_REJECTS.problem(("extra_rules",), f"promtool check rules failed: {detail}")
