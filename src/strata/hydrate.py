"""The rendered-manifests pattern: run the real `helm template` for every Helm release of
an output tree's lock, at its pinned chart version, with the platform's Kubernetes version
and API versions, and add the plain manifests to the tree (one object per file, under
``<layer>/hydrated/<release>/``) as files strata owns, recorded in the lock."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from strata import secrets, tools, yamlio
from strata.errors import OutputError, UsageError
from strata.output.layout import KUSTOMIZATION, hydrated_dir, object_file
from strata.output.lock import LOCK_NAME, HelmReleaseEntry, HydratedEntry, Lock
from strata.output.tree import HEADER, values_digest
from strata.problems import Problem
from strata.rules import Rule
from strata.validate.schema_store import crd_directories, crd_scopes

HYDRATE = Rule("hydrate/helm-template", "helm template failed for a pinned release", "fix the values or the chart cache as the message says")
MISSING_CHART = Rule(
    "hydrate/missing-chart",
    "the chart archive of a pinned release is not in the chart cache, and hydration never downloads",
    "run the helm pull command in the message (or strata charts pull) while online",
)
SECRET_IN_CHART = Rule(
    "hydrate/secret-in-chart-output",
    "hydrated manifests go to Git, and a Secret a chart renders (often with values it generated) would go with them",
    "set the chart's existing-Secret value (e.g. hub.existingSecret, admin.existingSecret) so the chart references a Secret created outside the tree",
)
RULES = (HYDRATE, MISSING_CHART, SECRET_IN_CHART)


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
    """What the platform serves beyond the core: every CRD group/version the packs ship or the store holds,
    and DRA's DeviceClass from Kubernetes 1.34 (charts probe it through .Capabilities)."""
    served = {f"{d.name}/{f.stem.rpartition('_')[2]}" for root in crd_directories(store)
              for d in root.glob("*.*") if d.is_dir() for f in d.glob("*.json")}
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


@dataclasses.dataclass(frozen=True)
class Hydrated:
    """One release's helm template output: its lock entry and its files (path -> bytes)."""

    entry: HydratedEntry
    files: dict[str, bytes]


def still_current(entries: Iterable[HydratedEntry], releases: Iterable[tuple[HelmReleaseEntry, bytes]]) -> tuple[HydratedEntry, ...]:
    """The hydration entries that stay: their release kept its chart version and the bytes of
    its values file. ``releases``: (release, values file content)."""
    current = {(r.name, r.version, values_digest(values)) for r, values in releases}
    return tuple(h for h in entries if (h.release, h.version, h.values_digest) in current)


def missing_charts(releases: Iterable[HelmReleaseEntry], cache: Path) -> list[Problem]:
    problems = []
    for release in releases:
        if not chart_archive(cache, release).is_file():
            command = " ".join(["helm", *pull_command(cache, release)])
            problem = MISSING_CHART.problem((), f"{chart_archive(cache, release)} is missing; run: {command}")
            problems.append(dataclasses.replace(problem, where=release.values_file))
    return problems


def _template(release: HelmReleaseEntry, values: bytes, cache: Path, kubernetes_version: str, apis: list[str]) -> list[Any]:
    archive = chart_archive(cache, release)
    # The values go in on stdin (`-f -`): they come from the render in memory, not from a file.
    args = ["template", release.name, str(archive), "--namespace", release.namespace, "--kube-version", f"{kubernetes_version}.0",
            "--include-crds", "--skip-tests", "-f", "-"]
    for api in apis:
        args += ["--api-versions", api]
    proc = tools.run("helm", args, input=values.decode("utf-8"))
    if proc.returncode != 0:
        raise _Failed(dataclasses.replace(HYDRATE.problem((), " ".join(proc.stderr.split())), where=release.values_file))
    return yamlio.load_all(proc.stdout)


def _secrets_in(release: HelmReleaseEntry, doc: dict[str, Any], content: bytes) -> list[Problem]:
    """The hydration side of the secret scan: the tree's own scan never sees chart output,
    and a chart may render Secrets (often with values it generated) or embed credentials."""
    name = f"{doc['kind']} {(doc.get('metadata') or {}).get('name', '?')}"
    if doc["kind"] == "Secret" and doc.get("apiVersion") == "v1":
        found = [f"the chart renders {name}; hydrating would commit its values to Git"]
    else:
        found = [f"{name} holds {what}; hydrating would commit it to Git" for what in secrets.credentials(content)]
    return [dataclasses.replace(SECRET_IN_CHART.problem((), f"release {release.name}: {message}"), where=release.values_file)
            for message in found]


class _Failed(Exception):
    def __init__(self, problem: Problem) -> None:
        self.problem = problem


def template(releases: Sequence[tuple[HelmReleaseEntry, bytes]], kubernetes_version: str, cache: Path,
             store: Path) -> tuple[list[Hydrated], list[Problem]]:
    """Run helm template once per release, from the chart cache, with the values given
    (release, values file content); nothing is read from or written to an output tree."""
    problems = missing_charts((r for r, _ in releases), cache)
    if problems:
        return [], problems
    apis = api_versions(kubernetes_version, store)
    rendered = []
    for release, values in sorted(releases, key=lambda item: item[0].values_file):
        try:
            docs = _template(release, values, cache, kubernetes_version, apis)
        except _Failed as failed:
            problems.append(failed.problem)
            continue
        rendered.append((release, values, [d for d in docs if isinstance(d, dict) and d.get("kind")]))
    if problems:
        return [], problems
    cluster_scoped = (CLUSTER_SCOPED | _cluster_scoped_crds(doc for _, _, docs in rendered for doc in docs)
                      | {gk.rpartition("/")[2] for gk, scope in crd_scopes(store).items() if scope == "Cluster"})
    out = []
    for release, values, docs in rendered:
        directory = hydrated_dir(release.layer, release.name)
        files = {}
        for doc in docs:
            _place(doc, release.namespace, cluster_scoped)
            content = files[_object_path(directory, doc)] = HEADER + yamlio.dump(doc).encode()
            problems += _secrets_in(release, doc, content)
        kustomization = {"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization",
                         "resources": sorted(Path(f).name for f in files)}
        files[f"{directory}/{KUSTOMIZATION}"] = HEADER + yamlio.dump(kustomization).encode()
        entry = HydratedEntry(release=release.name, version=release.version, values_digest=values_digest(values),
                              files=tuple(sorted(files)))
        out.append(Hydrated(entry, dict(sorted(files.items()))))
    return ([], problems) if problems else (out, [])


def hydrate_tree(out_dir: Path, previous: Lock, cache: Path, store: Path) -> tuple[dict[str, bytes], Lock, list[Problem]]:
    """`strata hydrate DIR`: a tree strata rendered earlier, read back from disk (its lock
    and values files), with every release's helm template output in place of the old one.
    Returns the whole tree, its lock, and the problems; writes nothing."""
    tree = {f: (out_dir / f).read_bytes() for f in sorted(previous.owned - previous.hydrated_files - {LOCK_NAME}) if (out_dir / f).is_file()}
    releases = []
    for release in previous.helm_releases:
        if release.values_file not in tree:
            raise OutputError(f"{out_dir / release.values_file} is listed in {LOCK_NAME} but missing; run strata render again")
        releases.append((release, tree[release.values_file]))
    hydrated, problems = template(releases, previous.kubernetes_version or "1.36", cache, store)
    if problems:
        return {}, previous, problems
    for h in hydrated:
        tree.update(h.files)
    lock = previous.model_copy(update={"hydrated": tuple(h.entry for h in hydrated), "files": tuple(sorted({*tree, LOCK_NAME}))})
    tree[LOCK_NAME] = lock.dump()
    return dict(sorted(tree.items())), lock, []
