"""Prove the output tree's kustomize structure with the real binary, in time linear in the
number of objects.

One `kustomize build` of the root holds every object in one build, and kustomize's cost grows
quadratically with that (each added resource is compared with all before it): minutes for
a 1,000-team platform. The same proof, in parts that all run in parallel:

- the objects: every kustomization's own files are built by the real binary, in builds of at
  most ``OBJECTS_PER_BUILD`` files (a stand-in kustomization listing exactly those files), so
  kustomize itself loads and checks every object file the tree references;
- the composition: a stand-in copy of every kustomization, with its files replaced by one
  tiny ConfigMap, built from the root: it proves that each kustomization parses and that the
  root and layer kustomizations reference directories that exist and compose (no cycle, no
  directory included twice);
- what only the whole build would see: two objects with one identity in different builds
  (kustomize's "already registered id"), found from the builds' output.

A kustomization that is not in the plain shape strata writes (any field besides
``resources``, a resource outside its directory, a symlink, a remote base) is built whole,
as before: nothing strata cannot reason about is assumed.
"""

from __future__ import annotations

import dataclasses
import json
import os
import posixpath
import tempfile
from collections import defaultdict
from collections.abc import Iterable
from concurrent.futures import Executor, ThreadPoolExecutor
from pathlib import Path

from strata import rules, tools, yamlio
from strata.problems import Problem

KUSTOMIZATION_NAMES = ("kustomization.yaml", "kustomization.yml", "Kustomization")  # kustomize's order
# Small enough that kustomize's quadratic term stays below its fixed cost per process.
OBJECTS_PER_BUILD = 150
_PLAIN_KEYS = frozenset({"apiVersion", "kind", "resources"})
_STAND_IN = "strata-stand-in.yaml"


@dataclasses.dataclass
class _Node:
    """One kustomization reachable from the root."""

    directory: str  # relative to the root, "" for the root itself
    file: str | None  # its kustomization file name, None when the directory has none
    plain: bool  # only `resources:` of files in the directory and of directories
    files: list[str] = dataclasses.field(default_factory=list)  # relative to the root
    children: list[str] = dataclasses.field(default_factory=list)  # entries as written
    child_dirs: list[str] = dataclasses.field(default_factory=list)  # relative to the root


@dataclasses.dataclass
class _Build:
    """One `kustomize build` to run: a stand-in or a real directory."""

    directory: Path
    files: tuple[str, ...] = ()  # the object files it holds (relative to the root), for messages
    where: str = ""  # the file a failure is reported at when no object file is named
    restricted: bool = True  # False: the stand-in lists files outside its own directory
    composition: bool = False  # the stand-in tree: its objects are stand-ins, not the tree's


def build(root: Path, display: str, pool: Executor | None = None) -> list[Problem]:
    """Problems of the tree's kustomize structure, each naming the file it is about."""
    root = Path(root).resolve()
    nodes = _walk(root)
    with tempfile.TemporaryDirectory(prefix="strata-kustomize-") as tmp:
        stand_in = Path(tmp)
        builds = _stand_ins(root, nodes, stand_in)
        if pool is None:
            with ThreadPoolExecutor(os.cpu_count() or 1) as own:
                results = list(own.map(_run, builds))
        else:
            results = list(pool.map(_run, builds))
    problems = []
    seen: dict[tuple[str, str, str, str], list[_Build]] = defaultdict(list)
    for b, (code, stdout, stderr) in zip(builds, results, strict=True):
        if code != 0:
            problems.append(_failure(b, stderr or f"exit code {code}", root, stand_in, display))
            continue
        if not b.composition:
            for identity in _identities(stdout):
                seen[identity].append(b)
    problems.extend(_duplicates(seen, root, display))
    return problems


def _walk(root: Path) -> list[_Node]:
    """Every kustomization reachable from the root's, each once, root first."""
    out: list[_Node] = []
    queued = {""}
    todo = [""]
    while todo:
        directory = todo.pop(0)
        node = _read(root, directory)
        out.append(node)
        for child in node.child_dirs:
            if child not in queued:
                queued.add(child)
                todo.append(child)
    return out


def _read(root: Path, directory: str) -> _Node:
    base = root / directory
    name = next((n for n in KUSTOMIZATION_NAMES if (base / n).is_file()), None)
    if name is None:
        return _Node(directory, None, plain=False)
    try:
        data = yamlio.load((base / name).read_bytes())
    except (OSError, yamlio.YAMLError):
        return _Node(directory, name, plain=False)
    resources = data.get("resources") if isinstance(data, dict) else None
    if (not isinstance(data, dict) or not set(data) <= _PLAIN_KEYS or data.get("kind", "Kustomization") != "Kustomization"
            or not isinstance(resources, list) or not all(isinstance(r, str) for r in resources)):
        return _Node(directory, name, plain=False)
    node = _Node(directory, name, plain=True)
    entries = {e.name: e for e in os.scandir(base)}
    for entry in resources:
        clean = posixpath.normpath(entry)
        if entry.startswith("/") or "://" in entry or clean.split("/")[0] == "..":
            return _Node(directory, name, plain=False)
        found = entries.get(clean)
        target = posixpath.join(directory, clean) if directory else clean
        if found is None and "/" in clean:
            if (base / clean).is_dir() and not (base / clean).is_symlink():
                node.children.append(entry)
                node.child_dirs.append(target)
                continue
            return _Node(directory, name, plain=False)  # a file in a subdirectory: built whole
        if found is not None and found.is_symlink():
            return _Node(directory, name, plain=False)
        if found is not None and found.is_dir():
            node.children.append(entry)
            node.child_dirs.append(target)
        else:
            node.files.append(target)  # a missing file: its build says so
    return node


def _stand_ins(root: Path, nodes: list[_Node], stand_in: Path) -> list[_Build]:
    """Write the stand-in tree and the object builds; returns every build to run."""
    builds: list[_Build] = []
    composition = stand_in / "tree"
    for index, node in enumerate(nodes):
        target = composition / node.directory
        target.mkdir(parents=True, exist_ok=True)
        if not node.plain and node.file is None:
            continue  # no kustomization: the composition build reports it, as kustomize would
        resources = list(node.children) if node.plain else []
        if not node.plain or node.files:
            resources.append(_STAND_IN)
            (target / _STAND_IN).write_text(
                f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: strata-stand-in-{index}\n", encoding="utf-8")
        body = {"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization", "resources": resources}
        (target / "kustomization.yaml").write_text(json.dumps(body), encoding="utf-8")
        where = posixpath.join(node.directory, node.file) if node.file else node.directory
        if not node.plain:
            builds.append(_Build(root / node.directory, where=where))
            continue
        for start in range(0, len(node.files), OBJECTS_PER_BUILD):
            chunk = tuple(node.files[start:start + OBJECTS_PER_BUILD])
            directory = stand_in / "objects" / f"{index}-{start}"
            directory.mkdir(parents=True)
            listed = {"resources": [str(root / f) for f in chunk]}
            (directory / "kustomization.yaml").write_text(json.dumps(listed), encoding="utf-8")
            builds.append(_Build(directory, chunk, where, restricted=False))
    # Biggest first: the composition build is tiny and runs last.
    builds.sort(key=lambda b: -len(b.files))
    builds.append(_Build(composition, composition=True))
    return builds


def _run(b: _Build) -> tuple[int, str, str]:
    args = ["build", str(b.directory)]
    if not b.restricted:  # the stand-in lists the tree's files by absolute path
        args += ["--load-restrictor", "LoadRestrictionsNone"]
    proc = tools.run("kustomize", args)
    return proc.returncode, proc.stdout, proc.stderr


def _failure(b: _Build, stderr: str, root: Path, stand_in: Path, display: str) -> Problem:
    named = [f for f in b.files if f"{root}/{f}" in stderr]
    message = stderr.replace(str(stand_in / "tree"), display).replace(str(root), display)
    message = " ".join(message.replace(str(stand_in), display).split())
    where = named[0] if named else b.where
    return dataclasses.replace(rules.KUSTOMIZE.problem((), message), where=f"{display}/{where}" if where else display)


def _identities(output: str) -> Iterable[tuple[str, str, str, str]]:
    """(apiVersion, kind, namespace, name) of each object kustomize printed. Its output is
    normalized: top-level keys at column 0, metadata's fields indented by exactly two spaces."""
    for doc in output.split("\n---\n"):
        api = kind = name = namespace = ""
        in_metadata = False
        for line in doc.split("\n"):
            if not line.startswith(" "):
                in_metadata = line == "metadata:"
                if line.startswith("apiVersion: "):
                    api = _scalar(line[12:])
                elif line.startswith("kind: "):
                    kind = _scalar(line[6:])
            elif in_metadata and line[2:3] != " ":
                if line.startswith("  name: "):
                    name = _scalar(line[8:])
                elif line.startswith("  namespace: "):
                    namespace = _scalar(line[13:])
        if kind:
            # kustomize treats no namespace as "default" when comparing identities
            yield api, kind, namespace or "default", name


def _scalar(text: str) -> str:
    if text[:1] in ("'", '"'):
        try:
            value = yamlio.load(text)
        except yamlio.YAMLError:
            return text
        return str(value)
    return text


def _duplicates(seen: dict[tuple[str, str, str, str], list[_Build]], root: Path, display: str) -> list[Problem]:
    problems = []
    for (api, kind, namespace, name), builds in seen.items():
        if len(builds) < 2:
            continue
        files = sorted(_files_defining(builds, root, api, kind, namespace, name))
        ns = "" if namespace == "default" else f"{namespace}/"
        message = f"{kind}/{ns}{name} ({api}) is defined more than once: kustomize build of the root refuses an already registered id"
        for f in files[1:] or files:
            others = ", ".join(f"{display}/{o}" for o in files if o != f)
            problems.append(dataclasses.replace(rules.KUSTOMIZE.problem((), f"{message} (also in {others})"), where=f"{display}/{f}"))
    return problems


def _files_defining(builds: list[_Build], root: Path, api: str, kind: str, namespace: str, name: str) -> set[str]:
    """Only on failure: read the candidate files back to say which define the object."""
    out = set()
    for b in builds:
        for f in b.files or ():
            try:
                docs = yamlio.load_all((root / f).read_bytes())
            except (OSError, yamlio.YAMLError):
                continue
            for doc in docs:
                meta = doc.get("metadata") if isinstance(doc, dict) else None
                if (isinstance(meta, dict) and doc.get("apiVersion") == api and doc.get("kind") == kind
                        and str(meta.get("name")) == name and (meta.get("namespace") or "default") == namespace):
                    out.add(f)
        if not b.files:
            out.add(b.where)
    return out
