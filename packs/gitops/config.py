"""The ``gitops`` section of the Platform spec."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, model_validator

from strata.pack import DnsLabel, StrictModel, exactly_one


class Destination(StrictModel):
    server: str | None = None  # the API server URL as registered in Argo CD
    name: str | None = None  # or the cluster's name in Argo CD

    @model_validator(mode="after")
    def _one_of(self) -> Destination:
        exactly_one(self, "server", "name")
        return self

    def as_dict(self) -> dict[str, str]:
        return {"server": self.server} if self.server else {"name": self.name or ""}


class SyncPolicy(StrictModel):
    automated: bool = True  # give every Application syncPolicy.automated; false: sync by hand
    prune: bool = True  # automated sync deletes what left the output tree (syncPolicy.automated.prune)
    self_heal: bool = True  # automated sync reverts drift in the cluster (syncPolicy.automated.selfHeal)


class FleetCluster(StrictModel):
    """A cluster whose output tree the hub's ApplicationSet deploys."""

    name: DnsLabel  # the cluster's name, an element of the hub's ApplicationSet
    path: Annotated[str, Field(pattern=r"^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*$")]  # its output tree in the repo


class ArgoCD(StrictModel):
    repo_url: Annotated[str, Field(min_length=1, alias="repoURL")]  # the Git repository holding the output tree
    target_revision: str = "main"  # the Git revision (branch, tag or commit) the Applications track
    path: Annotated[str, Field(pattern=r"^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*$")]  # the output tree's path in it
    project: DnsLabel | None = None  # defaults to the cluster name
    namespace: DnsLabel = "argocd"  # the namespace Argo CD runs in; the Applications and AppProject go there
    destination: Destination = Destination(server="https://kubernetes.default.svc")  # the cluster the Applications deploy to
    sync_policy: SyncPolicy = SyncPolicy()  # the sync policy of every Application
    # Set on the hub cluster's spec only: an ApplicationSet that bootstraps every listed
    # cluster's tree (its AppProject and root Application) from the same repository.
    fleet: tuple[FleetCluster, ...] = ()


class Config(StrictModel):
    argocd: ArgoCD  # Argo CD Applications (app of apps) that deploy the output tree from Git
