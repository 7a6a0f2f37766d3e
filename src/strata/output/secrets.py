"""A last line of defence before anything is written: the output tree goes to Git, so it
must hold no credential. Packs reference existing Secrets; free-form values (chart value
overrides, extra env) are where one could slip in, and this scan catches the recognisable ones."""

from __future__ import annotations

import dataclasses
import re
from typing import Iterator

from strata import rules
from strata.problems import Problem

PATTERNS = {
    "an AWS access key id": re.compile(rb"\b(AKIA|ASIA)[0-9A-Z]{16}\b"),
    "a private key": re.compile(rb"-----BEGIN [A-Z ]*PRIVATE KEY-----"),
    "a GitHub token": re.compile(rb"\bgh[pousr]_[A-Za-z0-9]{36,}\b"),
    "a Slack token": re.compile(rb"\bxox[abpr]-[A-Za-z0-9-]{10,}\b"),
    "an AWS secret access key": re.compile(rb"(?i)aws_?secret_?access_?key\W{1,4}[A-Za-z0-9/+=]{40}\b"),
}
SECRET_OBJECT = re.compile(rb"^apiVersion: v1\nkind: Secret$", re.M)


def scan(files: dict[str, bytes]) -> Iterator[Problem]:
    for path, content in files.items():
        if SECRET_OBJECT.search(content):
            yield _problem(path, "a Secret object would be committed; create it outside the tree and reference it")
        for what, pattern in PATTERNS.items():
            if pattern.search(content):
                yield _problem(path, f"{what} would be committed to Git")


def _problem(path: str, message: str) -> Problem:
    return dataclasses.replace(rules.SECRET_IN_OUTPUT.problem((), message), where=path)
