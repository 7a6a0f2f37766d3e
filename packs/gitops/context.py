"""Argo CD objects for the rendered tree: an AppProject limited to what the platform needs,
one Application per component (Kustomize directory) and per Helm release (multi-source:
the pinned chart plus the values file from Git), and the root Application over them."""

from __future__ import annotations

from typing import Any

from strata.pack import Component, Facts, Inventory, Release

from .config import Config
from .waves import waves

LAYER = "argocd"  # pack.yaml's layer
APPS_COMPONENT = "apps"  # templates/apps
ROOT_COMPONENT = "root"  # templates/root


def _chart_repo(repo: str) -> str:
    # Argo CD names OCI Helm repositories without the scheme (and needs them registered with enableOCI).
    return repo.removeprefix("oci://")


def _sync_options(server_side: bool, create_namespace: bool) -> list[str]:
    options = ["CreateNamespace=true"] if create_namespace else []
    # Large CRDs (GPU Operator, Argo Workflows, prometheus-operator) exceed the annotation
    # size limit of client-side apply.
    return options + (["ServerSideApply=true"] if server_side else [])


def context(spec: Any, config: Config, facts: Facts, inventory: Inventory) -> dict[str, Any]:
    argo = config.argocd
    cluster = spec.cluster.name
    project = argo.project or cluster
    destination = argo.destination.as_dict()
    policy = argo.sync_policy
    sync = {"automated": {"prune": policy.prune, "selfHeal": policy.self_heal}} if policy.automated else {}
    order = waves(inventory)
    git = {"repoURL": argo.repo_url, "targetRevision": argo.target_revision}

    def app(name: str, node: Component | Release, sources: list[dict[str, Any]], dest_ns: str | None, options: list[str]) -> dict[str, Any]:
        dest = dict(destination, namespace=dest_ns) if dest_ns else destination
        return {"name": name, "wave": str(order[node]), "sources": sources, "destination": dest,
                "sync_policy": dict(sync, syncOptions=options) if options else sync}

    apps = [
        app(f"{cluster}-{c.layer}-{c.name}", c, [dict(git, path=f"{argo.path}/{c.path}")], None,
            _sync_options(server_side=False, create_namespace=False))
        for c in inventory.components
    ]
    for r in inventory.releases:
        sources: list[dict[str, Any]]
        if r.hydrated:  # the rendered-manifests pattern: Argo CD syncs helm template output from Git
            sources = [dict(git, path=f"{argo.path}/{r.hydrated}")]
        else:  # the pinned chart, with the values file from Git
            chart = {"repoURL": _chart_repo(r.manifest.repo), "chart": r.manifest.chart, "targetRevision": r.manifest.version,
                     "helm": {"releaseName": r.manifest.name, "valueFiles": [f"$values/{argo.path}/{r.values_file}"]}}
            sources = [chart, dict(git, ref="values")]
        apps.append(app(f"{cluster}-{r.manifest.name}", r, sources, r.manifest.namespace,
                        _sync_options(server_side=bool(r.manifest.crd_groups), create_namespace=True)))
    apps.sort(key=lambda a: (int(a["wave"]), a["name"]))
    return {
        "argocd_namespace": argo.namespace,
        "project": _project(project, argo, inventory, destination),
        "bootstrap_project": _bootstrap_project(project, argo, destination),
        "applications": apps,
        "fleet": _fleet(project, argo, git, sync) if argo.fleet else None,
        "root": {"name": f"{cluster}-root", "source": dict(git, path=f"{argo.path}/{LAYER}/{APPS_COMPONENT}"),
                 "destination": dict(destination, namespace=argo.namespace), "sync_policy": sync},
    }


def _fleet(project: str, argo: Any, git: dict[str, str], sync: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": f"{project}-fleet",
        "elements": [{"name": c.name, "path": c.path} for c in argo.fleet],
        # Go template placeholders, filled by the ApplicationSet controller per element.
        "app_name": "{{ .name }}-bootstrap",
        "source": dict(git, path=f"{{{{ .path }}}}/{LAYER}/{ROOT_COMPONENT}"),
        "destination": {"server": "https://kubernetes.default.svc", "namespace": argo.namespace},
        "sync_policy": sync,
    }


def _bootstrap_project(name: str, argo: Any, destination: dict[str, str]) -> dict[str, Any]:
    """The project of the root Application (and, on a fleet's hub, of the bootstrap
    Applications): Git only, the Argo CD namespace only, and there only Applications (and
    AppProjects, which a hub's bootstrap syncs). The platform's project never writes into the
    Argo CD namespace, so no component can change Argo CD's own configuration or Secrets."""
    kinds = ["Application"] + (["AppProject"] if argo.fleet else [])
    return {
        "name": f"{name}-bootstrap",
        "source_repos": [argo.repo_url],
        "destinations": [dict(destination, namespace=argo.namespace)],
        "namespace_resources": [{"group": "argoproj.io", "kind": k} for k in kinds],
    }


def _project(name: str, argo: Any, inventory: Inventory, destination: dict[str, str]) -> dict[str, Any]:
    repos = {argo.repo_url} | {_chart_repo(r.manifest.repo) for r in inventory.releases if not r.hydrated}
    namespaces: set[str] = set()
    for c in inventory.components:
        namespaces |= c.namespaces | c.creates_namespaces
    namespaces |= {r.manifest.namespace for r in inventory.releases}
    kinds = {k for c in inventory.components for k in c.cluster_scoped_kinds}
    kinds |= {k for r in inventory.releases for k in r.manifest.cluster_scoped_kinds}
    return {
        "name": name,
        "source_repos": sorted(repos),
        "destinations": [dict(destination, namespace=ns) for ns in sorted(namespaces)],
        "cluster_resources": [{"group": k.rpartition("/")[0], "kind": k.rpartition("/")[2]} for k in sorted(kinds)],
    }
