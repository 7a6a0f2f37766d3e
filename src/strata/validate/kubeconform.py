"""Validate rendered manifests offline with the pinned kubeconform binary.

Only local schema locations are passed (core schemas from kubernetes-validate, CRD schemas
shipped with the packs, then those imported into the store), never a URL and never ``-ignore-missing-schemas``: an object strata cannot
check is reported, not skipped.
"""

from __future__ import annotations

import dataclasses
import json
import os
import posixpath
import re
from collections.abc import Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from pathlib import Path

from strata import rules, tools, yamlio
from strata.problems import Problem, sorted_problems
from strata.validate import schema_store

# kubeconform's message for an invalid object is one line:
#   problem validating schema. Check JSON formatting: jsonschema validation failed with
#   '<schema url>#' - at '/spec': validation failed   - at '/spec/x': <error> ...
# Each "- at" was a line of a tree; the spaces before it are 1 + 2 * depth.
_HEAD = re.compile(r"^problem validating schema\. Check JSON formatting: jsonschema validation failed with '[^']*'")
_ITEM = re.compile(r"( *)- at '([^']*)': (.*?)(?= +- at '|$)")
_GOT_WANT = re.compile(r"^got (\S+), want (\S+)$")
_MISSING = "could not find schema for "


def arguments(kubernetes_version: str, store: Path) -> list[str]:
    """kubeconform's flags for strata's validation (the benchmark runs kubeconform alone with them)."""
    version = _full_version(kubernetes_version)
    return [
        "-strict", "-summary", "-output", "json",
        "-kubernetes-version", version,
        "-schema-location", schema_store.core_schema_location(version),
        *(flag for location in schema_store.crd_schema_locations(store) for flag in ("-schema-location", location)),
    ]


def validate_files(root: Path, files: Sequence[str], kubernetes_version: str, store: Path,
                   pool: Executor | None = None) -> list[Problem]:
    """Run kubeconform over ``files`` (relative to ``root``), in parallel batches, and return
    one problem per object it rejects or cannot check, sorted."""
    if not files:
        return []
    minor = _full_version(kubernetes_version).rsplit(".", 1)[0]
    available = schema_store.core_versions()
    if minor not in available:
        # kubeconform would report every built-in object as "could not find schema".
        message = f"kubernetes-validate has no schemas for Kubernetes {minor} (only {available[0]} to {available[-1]})"
        return [_problem(rules.VALIDATION, "", message)]
    args = arguments(kubernetes_version, store)
    batches = _batches(files, os.cpu_count() or 1)
    run = lambda batch: tools.run("kubeconform", [*args, *batch], cwd=root)
    if pool is None:
        with ThreadPoolExecutor(len(batches)) as own:
            results = list(own.map(run, batches))
    else:
        results = list(pool.map(run, batches))
    rejected = []
    for result in results:
        try:
            resources = json.loads(result.stdout)["resources"] or []
        except (ValueError, KeyError, TypeError):
            stderr = _one_line(result.stderr) or "(no output on stderr)"
            message = f"kubeconform output could not be read (exit {result.returncode}): {stderr}"
            return [_problem(rules.VALIDATION, "", message)]
        rejected += [r for r in resources if r.get("status") in ("statusInvalid", "statusError")]

    namespaces = _namespaces(root, sorted({r.get("filename", "") for r in rejected}))
    problems = []
    for res in rejected:
        filename, kind, name = res.get("filename", ""), res.get("kind", ""), res.get("name", "")
        where = filename
        if kind:
            ns = namespaces.get((filename, kind, name), "")
            where = f"{filename}: {kind}/{ns + '/' if ns else ''}{name}"
        msg = res.get("msg", "")
        if msg.startswith(_MISSING):
            problems.append(_problem(rules.MISSING_SCHEMA, where, (
                f"no schema for {res.get('version')} {kind}: not a built-in kind of Kubernetes {minor}, "
                "and neither a CRD set an installed pack ships nor an imported CRD defines it; "
                "import the CRDs that define it: strata schemas import <CRD files>"
            )))
        else:
            problems.append(_problem(rules.VALIDATION, where, _clean(msg)))
    return sorted_problems(problems)


def _batches(files: Sequence[str], workers: int) -> list[list[str]]:
    """At most ``workers`` batches of about equal size. Each kubeconform process loads the
    schema of every kind it meets (the core ones reference a 1.3 MB definitions file), so
    files are grouped by kind, from strata's file names (<kind>-<name>.yaml), and a kind is
    split over batches only when it is bigger than a batch."""
    by_kind: dict[str, list[str]] = {}
    for f in files:
        by_kind.setdefault(posixpath.basename(f).split("-", 1)[0], []).append(f)
    size = -(-len(files) // max(1, workers))
    pieces = [group[i:i + size] for group in by_kind.values() for i in range(0, len(group), size)]
    batches: list[list[str]] = [[] for _ in range(min(workers, len(pieces)))]
    for piece in sorted(pieces, key=len, reverse=True):  # largest first, onto the smallest batch
        min(batches, key=len).extend(piece)
    return [b for b in batches if b]


def _problem(rule: rules.Rule, where: str, message: str) -> Problem:
    return dataclasses.replace(rule.problem((), message), where=where)


def _full_version(version: str) -> str:
    version = version.removeprefix("v")
    return version if version.count(".") == 2 else f"{version}.0"


def _clean(msg: str) -> str:
    """kubeconform's error tree as ``spec.a[0].b: error; ...``, without the schema's path
    (an absolute, machine-specific file URL) and without the parents' "validation failed"."""
    body = _HEAD.sub("", msg)
    # Go prints null as <nil> (in enum lists)
    items = [(len(m[1]), m[2], m[3].strip().replace("<nil>", "null")) for m in _ITEM.finditer(body)]
    if not items:
        return _one_line(msg)
    out = []
    for i, (indent, path, text) in enumerate(items):
        children = []
        for child in items[i + 1:]:
            if child[0] <= indent:
                break
            children.append(child)
        if not children:
            parent = _parent(items, i)
            if parent is None or not parent[2].endswith(("anyOf failed", "oneOf failed")):
                out.append(f"{_dotted(path)}: {text}")
        elif text.endswith(("anyOf failed", "oneOf failed")):
            out.append(f"{_dotted(path)}: {_alternatives([c[2] for c in children if c[0] == children[0][0]])}")
    return "; ".join(sorted(set(out))) or _one_line(body)


def _parent(items: list[tuple[int, str, str]], i: int) -> tuple[int, str, str] | None:
    for candidate in reversed(items[:i]):
        if candidate[0] < items[i][0]:
            return candidate
    return None


def _alternatives(texts: list[str]) -> str:
    # "got array, want integer" + "got array, want string" -> "got array, want integer or string"
    matches = [m for t in texts if (m := _GOT_WANT.match(t))]
    if matches and len(matches) == len(texts) and len({m[1] for m in matches}) == 1:
        return f"got {matches[0][1]}, want {' or '.join(m[2] for m in matches)}"
    return "matches none of: " + " | ".join(texts)


def _dotted(pointer: str) -> str:
    out = ""
    for part in pointer.strip("/").split("/"):
        if not part:
            continue
        part = part.replace("~1", "/").replace("~0", "~")
        out += f"[{part}]" if part.isdigit() else (f".{part}" if out else part)
    return out or "(object)"


def _namespaces(root: Path, files: Sequence[str]) -> dict[tuple[str, str, str], str]:
    """(file, kind, name) -> namespace: kubeconform's JSON output leaves the namespace out."""
    found: dict[tuple[str, str, str], set[str]] = {}
    for file in files:
        try:
            docs = yamlio.load_all((root / file).read_text(encoding="utf-8"))
        except (OSError, yamlio.YAMLError):
            continue  # kubeconform reports it
        for doc in docs:
            if not isinstance(doc, dict) or not isinstance(doc.get("metadata"), dict):
                continue
            meta = doc["metadata"]
            name = str(meta.get("name", ""))
            if meta.get("generateName"):  # the name as kubeconform prints it
                name = f"{meta['generateName']}{{{{ generateName }}}}"
            found.setdefault((file, str(doc.get("kind", "")), name), set()).add(str(meta.get("namespace") or ""))
    # The same kind and name twice in one file, in different namespaces: name them all.
    return {key: ",".join(sorted(ns)) if len(ns) > 1 else next(iter(ns)) for key, ns in found.items()}


def _one_line(text: str) -> str:
    return " ".join(text.split())
