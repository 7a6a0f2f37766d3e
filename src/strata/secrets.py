"""strata's one secret scanner. The output tree goes to Git, so it must hold no credential:
packs reference existing Secrets, and free-form values (chart value overrides, extra env)
are where one could slip in. Two views of the same knowledge:

- :func:`in_values` finds secret-bearing keys (``password``, ``clientSecret``, a
  ``*_TOKEN`` environment variable with a literal value, ...) and recognisable credentials in
  plain data, with the key path, so a check can point at the spec line that holds it;
- :func:`scan` is the last line of defence before anything is written: the same
  recognisable credentials, and Secret objects, in the bytes of every output file."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from typing import Any

from strata import nested, rules
from strata.problems import Problem

PATTERNS = {
    "an AWS access key id": re.compile(rb"\b(AKIA|ASIA)[0-9A-Z]{16}\b"),
    "a private key": re.compile(rb"-----BEGIN [A-Z ]*PRIVATE KEY-----"),
    "a GitHub token": re.compile(rb"\bgh[pousr]_[A-Za-z0-9]{36,}\b"),
    "a Slack token": re.compile(rb"\bxox[abpr]-[A-Za-z0-9-]{10,}\b"),
    "an AWS secret access key": re.compile(rb"(?i)aws_?secret_?access_?key\W{1,4}[A-Za-z0-9/+=]{40}\b"),
}
SECRET_OBJECT = re.compile(rb"^apiVersion: v1\nkind: Secret$", re.MULTILINE)
# Secret-bearing value names (lower case, without _ and -) and environment variable names.
SECRET_KEYS = frozenset({"clientsecret", "password", "secrettoken", "cookiesecret", "apitoken", "token", "secretkey",
                         "accesskey", "privatekey", "secretaccesskey", "sessiontoken", "keys"})
SECRET_ENV = re.compile(r"(SECRET|PASSWORD|TOKEN|PRIVATE_KEY|ACCESS_KEY)", re.IGNORECASE)
ENV_LISTS = ("extraEnv", "env")


def scan(files: dict[str, bytes]) -> Iterator[Problem]:
    """Secret objects and recognisable credentials in output files (render/secret-in-output)."""
    # One pass over all files first: every match in a file is a match in the joined bytes
    # (a line break stands for both ends of a file), so a clean blob means clean files; a hit
    # may straddle two files, so only then is each file scanned on its own.
    blob = b"\n".join(files.values())
    if not _may_hold(blob):
        return
    for path, content in files.items():
        if SECRET_OBJECT.search(content):
            yield _problem(path, "a Secret object would be committed; create it outside the tree and reference it")
        for what in credentials(content):
            yield _problem(path, f"{what} would be committed to Git")


# What every match of SECRET_OBJECT and PATTERNS contains, in a form the regex engine finds by a
# literal scan: PATTERNS' leading \b and (?i) make a search of megabytes slow.
_HINTS = tuple(re.compile(h) for h in (rb"A[KS]IA[0-9A-Z]{16}", rb"-----BEGIN [A-Z ]*PRIVATE KEY-----", rb"gh[pousr]_", rb"xox[abpr]-"))
_AWS_SECRET_HINT = re.compile(rb"aws_?secret_?access_?key")  # searched in the lowered bytes, like (?i)


def _may_hold(content: bytes) -> bool:
    """False only when neither a Secret object nor any credential pattern can match."""
    return (b"kind: Secret" in content or any(h.search(content) for h in _HINTS)
            or _AWS_SECRET_HINT.search(content.lower()) is not None)


def credentials(content: bytes) -> list[str]:
    """What recognisable credentials ``content`` holds ("an AWS access key id", ...)."""
    return [what for what, pattern in PATTERNS.items() if pattern.search(content)]


def in_values(values: Any) -> Iterator[tuple[tuple[Any, ...], str]]:
    """(key path, message) for every secret value written into plain data such as chart values."""
    for where, value in nested.walk(values):
        if not where or value in (None, "", [], {}):
            continue
        key = where[-1]
        if isinstance(key, str) and not isinstance(value, dict):
            normal = key.lower().replace("_", "").replace("-", "")
            env_var = len(where) >= 2 and where[-2] in ENV_LISTS and SECRET_ENV.search(key)
            if normal in SECRET_KEYS or (env_var and isinstance(value, str)):
                yield where, f"{'.'.join(map(str, where))} holds a secret value"
            elif isinstance(value, str) and (found := credentials(value.encode())):
                yield where, f"{'.'.join(map(str, where))} holds {found[0]}"
        elif (isinstance(value, dict) and isinstance(value.get("name"), str) and isinstance(value.get("value"), str)
              and SECRET_ENV.search(value["name"]) and value["value"]):
            yield where + ("value",), f"environment variable {value['name']} holds a secret value"


def _problem(path: str, message: str) -> Problem:
    return dataclasses.replace(rules.SECRET_IN_OUTPUT.problem((), message), where=path)
