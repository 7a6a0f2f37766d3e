"""What rendering produces: Kubernetes objects tagged with their pack, layer and component,
and Helm values per release."""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

from strata.packs.contract import HelmReleaseManifest


@dataclasses.dataclass(frozen=True)
class RenderedObject:
    pack: str
    layer: str
    component: str
    body: dict[str, Any]
    # The digest of the template document it was parsed from (render/memo.py), when known.
    document: bytes | None = dataclasses.field(default=None, compare=False)

    @property
    def kind(self) -> str:
        return str(self.body.get("kind", ""))

    @property
    def name(self) -> str:
        return str(self.body.get("metadata", {}).get("name", ""))

    @property
    def namespace(self) -> str | None:
        return self.body.get("metadata", {}).get("namespace")

    @property
    def group(self) -> str:
        """The API group ("" for the core group)."""
        return str(self.body.get("apiVersion", "")).rpartition("/")[0]

    @functools.cached_property  # the body is not changed once the object is made
    def identity(self) -> tuple[str, str, str, str]:
        return (self.group, self.kind, self.namespace or "", self.name)

    def describe(self) -> str:
        ns = f"{self.namespace}/" if self.namespace else ""
        return f"{self.kind}/{ns}{self.name}"


@dataclasses.dataclass(frozen=True)
class RenderedDocument:
    """A JSON document that is no Kubernetes object (an IAM policy ...), written as
    ``<layer>/<path>`` and left out of every kustomization and of kubeconform."""

    pack: str
    layer: str
    path: str  # relative to the layer's directory, ending in .json
    data: Any


@dataclasses.dataclass(frozen=True)
class RenderedRelease:
    pack: str
    layer: str
    release: HelmReleaseManifest
    values: dict[str, Any]
    overrides: dict[str, Any] = dataclasses.field(default_factory=dict)  # the owner's, re-applied over other packs' values
