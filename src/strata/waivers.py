"""Waivers: the spec's ``waivers:`` list turns a named error into a reported, recorded
exception. Each names one rule, where it applies (a spec path, or a named entry of a spec list)
and why; it may expire. A waived problem is printed on every render (``waived:``) and recorded
in strata.lock; an expired waiver, a waiver for an unknown or unwaivable rule and a waiver that
waives nothing are errors themselves. There is no switch that ignores a rule everywhere."""

from __future__ import annotations

import dataclasses
import datetime
import difflib
from collections.abc import Iterable
from typing import Any

from strata import rules
from strata.problems import Path, Problem, Severity, format_path

# Rules about the spec file itself, the output tree, what strata can validate at all or a
# waiver: a waiver cannot make them true.
UNWAIVABLE = {"spec", "yaml", "cluster/kubernetes-version"}
UNWAIVABLE_PREFIXES = ("spec/", "waiver/", "render/", "validate/", "hydrate/")


@dataclasses.dataclass(frozen=True)
class Applied:
    """One waiver and what it waived, as strata.lock records it."""

    rule: str
    where: str  # the waiver's path or object, as written
    reason: str
    expires: datetime.date | None
    waived: tuple[str, ...]  # the formatted spec paths of the waived problems

    def as_dict(self) -> dict[str, Any]:
        return {"rule": self.rule, "where": self.where, "reason": self.reason,
                "expires": self.expires.isoformat() if self.expires else None, "waived": list(self.waived)}


def _waivable(rule_id: str) -> bool:
    return rule_id not in UNWAIVABLE and not rule_id.startswith(UNWAIVABLE_PREFIXES)


def _covers(prefix: str, path: Path) -> bool:
    text = format_path(path)
    return text == prefix or text.startswith((prefix + ".", prefix + "["))


def _resolve_object(data: Any, selector: str) -> str | None:
    """``storage.claims/scratch`` -> ``storage.claims[2]``: the entry of a spec list by its name."""
    list_path, _, name = selector.rpartition("/")
    node: Any = data
    for part in list_path.split("."):
        node = node.get(part) if isinstance(node, dict) else None
    if not isinstance(node, list):
        return None
    for i, item in enumerate(node):
        if isinstance(item, dict) and item.get("name") == name:
            return f"{list_path}[{i}]"
    return None


def apply(waivers: Iterable[Any], problems: list[Problem], data: dict, known: Iterable[str],
          today: datetime.date) -> tuple[list[Problem], tuple[Applied, ...]]:
    """The problems with every waived error turned into a ``waived`` notice, plus the waivers'
    own problems; and the record of each waiver that applied."""
    known = sorted(set(known))
    out = list(problems)
    applied: list[Applied] = []
    for i, waiver in enumerate(waivers):
        base = ("waivers", i)
        where = waiver.path if waiver.path is not None else waiver.object
        if waiver.rule not in known:
            close = difflib.get_close_matches(waiver.rule, known, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else "; strata rules lists them"
            out.append(rules.WAIVER_UNKNOWN_RULE.problem(base + ("rule",), f"no rule {waiver.rule!r}{hint}"))
            continue
        if not _waivable(waiver.rule):
            out.append(rules.WAIVER_UNKNOWN_RULE.problem(base + ("rule",), f"{waiver.rule} cannot be waived: it reports on the spec file, the output tree or a waiver, not on a policy choice"))
            continue
        if waiver.expires is not None and waiver.expires < today:
            out.append(rules.WAIVER_EXPIRED.problem(base + ("expires",), f"the waiver of {waiver.rule} at {where} expired on {waiver.expires.isoformat()}: fix the problem or renew the waiver with a reason"))
            continue
        prefix = waiver.path if waiver.path is not None else _resolve_object(data, waiver.object)
        if prefix is None:
            out.append(rules.WAIVER_UNUSED.problem(base + ("object",), f"no entry named {waiver.object.rpartition('/')[2]!r} in {waiver.object.rpartition('/')[0]}"))
            continue
        hits = [j for j, p in enumerate(out) if p.rule == waiver.rule and p.is_error and _covers(prefix, p.path)]
        if not hits:
            out.append(rules.WAIVER_UNUSED.problem(base, f"{waiver.rule} reports no error at {where}: remove the waiver"))
            continue
        until = f" until {waiver.expires.isoformat()}" if waiver.expires else ""
        for j in hits:
            p = out[j]
            out[j] = dataclasses.replace(p, severity=Severity.WAIVED, message=f"{p.message} (waived{until}: {waiver.reason})")
        applied.append(Applied(waiver.rule, where, waiver.reason, waiver.expires, tuple(sorted(format_path(out[j].path) for j in hits))))
    return out, tuple(applied)
