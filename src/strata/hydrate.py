"""The rendered-manifests pattern: run the real `helm template` for every Helm release of
an output tree's lock, at its pinned chart version, with the platform's Kubernetes version
and API versions, and add the plain manifests to the tree (one object per file, under
``<layer>/hydrated/<release>/``) as files strata owns, recorded in the lock."""

from __future__ import annotations

import dataclasses
import os
import tempfile
from pathlib import Path
from typing import Any

from strata import pipeline, tools
from strata.output import lock as lockfile
from strata.errors import ProblemsFound, UsageError
from strata.output import emit
from strata.output.layout import KUSTOMIZATION, hydrated_dir, object_file
from strata.output.lock import LOCK_NAME, HelmReleaseEntry, HydratedEntry, Lock
from strata.output.tree import HEADER, values_digest
from strata.problems import Problem
from strata.render import parse
from strata.rules import Rule
from strata.validate.schema_store import crd_scopes

HYDRATE = Rule("hydrate/helm-template", "helm template failed for a pinned release", "fix the values or the chart cache as the message says")
MISSING_CHART = Rule(
    "hydrate/missing-chart",
    "the chart archive of a pinned release is not in the chart cache, and hydration never downloads",
    "run the helm pull command in the message (or strata charts pull) while online",
)
RULES = (HYDRATE, MISSING_CHART)


def default_chart_cache() -> Path:
    env = os.environ.get("STRATA_CHART_CACHE")
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return Path(env) if env else base / "strata" / "charts"


def chart_archive(cache: Path, release: HelmReleaseEntry) -> Path:
    return cache / f"{release.chart}-{release.version}.tgz"  # the name `helm pull` gives it


def pull_command(cache: Path, release: HelmReleaseEntry) -> list[str]:
    repo, chart, version = release.repo, release.chart, release.version
    if repo.startswith("oci://"):
        return ["pull", f"{repo.rstrip('/')}/{chart}", "--version", version, "--destination", str(cache)]
    return ["pull", chart, "--repo", repo, "--version", version, "--destination", str(cache)]


def pull(cache: Path, previous: Lock) -> list[str]:
    """Fill the chart cache with `helm pull` (online); returns the archives it fetched."""
    cache.mkdir(parents=True, exist_ok=True)
    fetched = []
    for release in previous.helm_releases:
        if chart_archive(cache, release).is_file():
            continue
        proc = tools.run("helm", pull_command(cache, release))
        if proc.returncode != 0:
            raise UsageError(f"helm pull of {release.chart} {release.version} failed: {' '.join(proc.stderr.split())}")
        fetched.append(chart_archive(cache, release).name)
    return fetched


def api_versions(kubernetes_version: str, store: Path) -> list[str]:
    """What the platform serves beyond the core: every CRD group/version in the schema store,
    and DRA's DeviceClass from Kubernetes 1.34 (charts probe it through .Capabilities)."""
    served = {f"{d.name}/{f.stem.rpartition('_')[2]}" for d in store.glob("*.*") if d.is_dir() for f in d.glob("*.json")}
    if tuple(int(x) for x in kubernetes_version.split(".")) >= (1, 34):
        served.add("resource.k8s.io/v1/DeviceClass")
    return sorted(served)


# Built-in kinds without a namespace; custom kinds' scope comes from the CRDs the charts ship.
CLUSTER_SCOPED = frozenset({
    "Namespace", "Node", "PersistentVolume", "ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition",
    "StorageClass", "CSIDriver", "CSINode", "VolumeAttachment", "PriorityClass", "RuntimeClass", "IngressClass",
    "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration", "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding", "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding", "APIService",
    "DeviceClass", "ResourceSlice", "CertificateSigningRequest", "FlowSchema", "PriorityLevelConfiguration",
})


def _cluster_scoped_crds(docs: Any) -> set[str]:
    return {d["spec"]["names"]["kind"] for d in docs
            if d.get("kind") == "CustomResourceDefinition" and d.get("spec", {}).get("scope") == "Cluster"}


def _place(doc: dict[str, Any], namespace: str, cluster_scoped: frozenset[str] | set[str]) -> None:
    """Give namespaced objects the release namespace, as `helm install -n` would: charts
    often leave metadata.namespace out, and a GitOps tree must not depend on the apply context."""
    meta = doc.setdefault("metadata", {})
    if doc["kind"] not in cluster_scoped and not meta.get("namespace"):
        meta["namespace"] = namespace


def _object_path(directory: str, obj: dict[str, Any]) -> str:
    meta = obj.get("metadata") or {}
    return f"{directory}/{object_file(str(obj.get('kind', '')), meta.get('name', ''), meta.get('namespace'))}"


def _template(out_dir: Path, cache: Path, release: HelmReleaseEntry, kubernetes_version: str, apis: list[str]) -> list[Any]:
    archive = chart_archive(cache, release)
    args = ["template", release.name, str(archive), "--namespace", release.namespace, "--kube-version", f"{kubernetes_version}.0",
            "--include-crds", "--skip-tests", "-f", str(out_dir / release.values_file)]
    for api in apis:
        args += ["--api-versions", api]
    proc = tools.run("helm", args)
    if proc.returncode != 0:
        raise _Failed(dataclasses.replace(HYDRATE.problem((), " ".join(proc.stderr.split())), where=release.values_file))
    return parse.load_all(proc.stdout)


class _Failed(Exception):
    def __init__(self, problem: Problem) -> None:
        self.problem = problem


def hydrate(out_dir: Path, previous: Lock, cache: Path, store: Path) -> dict[str, bytes]:
    """The whole tree after hydration: strata's current files read back from disk, every
    release's helm template output added, and the lock updated. Writes nothing."""
    problems = []
    for release in previous.helm_releases:
        if not chart_archive(cache, release).is_file():
            command = " ".join(["helm", *pull_command(cache, release)])
            problem = MISSING_CHART.problem((), f"{chart_archive(cache, release)} is missing; run: {command}")
            problems.append(dataclasses.replace(problem, where=release.values_file))
    if problems:
        raise ProblemsFound(problems)
    tree = {f: (out_dir / f).read_bytes() for f in sorted(previous.owned - previous.hydrated_files - {LOCK_NAME}) if (out_dir / f).is_file()}
    apis = api_versions(previous.kubernetes_version or "1.36", store)
    rendered = []
    for release in sorted(previous.helm_releases, key=lambda r: r.values_file):
        try:
            docs = _template(out_dir, cache, release, previous.kubernetes_version or "1.36", apis)
        except _Failed as failed:
            problems.append(failed.problem)
            continue
        rendered.append((release, [d for d in docs if isinstance(d, dict) and d.get("kind")]))
    cluster_scoped = (CLUSTER_SCOPED | _cluster_scoped_crds(doc for _, docs in rendered for doc in docs)
                      | {gk.rpartition("/")[2] for gk, scope in crd_scopes(store).items() if scope == "Cluster"})
    entries = []
    for release, docs in rendered:
        directory = hydrated_dir(release.layer, release.name)
        files = {}
        for doc in docs:
            _place(doc, release.namespace, cluster_scoped)
            files[_object_path(directory, doc)] = HEADER + emit.dump(doc).encode()
        kustomization = {"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization",
                         "resources": sorted(Path(f).name for f in files)}
        files[f"{directory}/{KUSTOMIZATION}"] = HEADER + emit.dump(kustomization).encode()
        tree.update(files)
        entries.append(HydratedEntry(release=release.name, version=release.version,
                                     values_digest=values_digest(tree[release.values_file]), files=tuple(sorted(files))))
    if problems:
        raise ProblemsFound(problems)
    lock = previous.model_copy(update={"hydrated": tuple(entries), "files": tuple(sorted({*tree, LOCK_NAME}))})
    tree[LOCK_NAME] = lock.dump()
    return dict(sorted(tree.items()))


def render_hydrated(loaded: Any, tree: dict[str, bytes], cache: Path, store: Path) -> dict[str, bytes]:
    """The tree of one render with every release hydrated in the same run: the helm template
    output, and the Applications of inventory packs (GitOps) pointing at it."""
    with tempfile.TemporaryDirectory(prefix="strata-hydrate-") as tmp:
        stage = Path(tmp)
        for rel, content in tree.items():
            (stage / rel).parent.mkdir(parents=True, exist_ok=True)
            (stage / rel).write_bytes(content)
        hydrated = hydrate(stage, lockfile.parse(tree[LOCK_NAME]), cache, store)
    previous = lockfile.parse(hydrated[LOCK_NAME])
    rerendered, _ = pipeline.render(loaded, previous)
    return dict(sorted({**rerendered, **{f: hydrated[f] for f in previous.hydrated_files}}.items()))


