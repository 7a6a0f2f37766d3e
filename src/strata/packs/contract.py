"""The pack contract: a directory with ``pack.yaml`` (declarative manifest), ``pack.py``
(a pydantic ``Config`` plus optional ``check``/``context`` hooks and ``RULES``),
``templates/<component>/<kind>.yaml.j2`` (one kind per file) and ``helm/`` values templates."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, field_validator

from strata.errors import PackFailure, StrataError
from strata.problems import Problem
from strata.rules import Rule
from strata.spec.base import StrictModel


class HelmReleaseManifest(StrictModel):
    name: str
    namespace: str
    repo: str
    chart: str
    version: str
    # The chart versions the pack's values and rules are made for, which a spec's charts: entry
    # may choose instead of ``version`` (space-separated constraints, e.g. ">=1.14.1 <1.15.0").
    supported_versions: str | None = None
    values: str  # template path inside the pack, e.g. helm/karpenter.yaml.j2
    when: str | None = None  # a boolean key of the pack's context that turns the release on
    # The component of the pack's section whose valuesOverrides the user merges over the rendered
    # values (e.g. gpuOperator: compute.gpuOperator.valuesOverrides), and the chart keys its typed
    # fields set (dotted chart key -> dotted field of the section), which overrides may not set.
    values_overrides: str | None = None
    typed_values: tuple[tuple[str, str], ...] = ()  # written as a mapping; a tuple keeps the manifest hashable
    # What the chart brings and needs, for GitOps ordering and least-privilege projects:
    crd_groups: tuple[str, ...] = ()  # API groups whose CRDs the chart installs
    needs_crd_groups: tuple[str, ...] = ()  # API groups of CRDs the chart's own objects use
    cluster_scoped_kinds: tuple[str, ...] = ()  # "group/Kind" ("" group for core) the chart creates

    @field_validator("typed_values", mode="before")
    @classmethod
    def _pairs(cls, value: object) -> object:
        return tuple(value.items()) if isinstance(value, dict) else value


class ReleaseValuesManifest(StrictModel):
    """Values a pack adds to a Helm release that another pack declares (e.g. monitoring
    labels on the GPU Operator's ServiceMonitor). The owner's ``valuesOverrides`` still win."""

    release: str  # the release name, e.g. gpu-operator
    values: str  # a key of this pack's context holding the values; an empty mapping adds nothing


class PackManifest(StrictModel):
    name: str = Field(pattern=r"^[a-z][a-zA-Z0-9]*$")
    version: str
    summary: str
    layer: str = Field(pattern=r"^[a-z][a-z0-9-]*$")
    requires: tuple[str, ...] = ()  # packs that must be installed and enabled for this one to work
    # Packs whose facts (their `exports` hook) this pack's hooks read; each must be installed.
    uses: tuple[str, ...] = ()
    kubernetes: tuple[str, str] = ("1.34", "1.37")  # supported minor range, inclusive
    enabled_by_default: bool = False
    helm_releases: tuple[HelmReleaseManifest, ...] = ()
    release_values: tuple[ReleaseValuesManifest, ...] = ()
    crds: tuple[str, ...] = ()  # CRD sets whose schemas the output needs, e.g. karpenter-1.14.1
    # An inventory pack renders after all others and its context hook receives the inventory
    # of what they rendered (components and Helm releases), e.g. to write GitOps Applications.
    inventory: bool = False
    in_root_kustomization: bool = True  # False: the layer is left out of the root kustomization
    # A field of the pack's section (dotted camelCase, e.g. argocd.path) naming the output
    # tree's path in its Git repository; strata compares it with where the tree is written.
    repo_path: str | None = None


# Hooks receive (spec, config, facts): the core spec, the pack's own config and the facts of
# the packs it uses; an inventory pack's context also receives the inventory of the render.
CheckHook = Callable[..., Iterable[Problem]]
ContextHook = Callable[..., dict[str, Any]]
ExportsHook = Callable[..., Any]
DocumentsHook = Callable[..., Mapping[str, Any]]  # {path under the layer, ending in .json: JSON data}


@dataclasses.dataclass(frozen=True)
class LegacyField:
    """A field that the spec refuses with a rule's explanation instead of 'unknown field'."""

    pattern: str  # formatted spec path with [*] for list indexes, e.g. nodePools[*].disruption.expireAfter
    rule: Rule
    message: str


@dataclasses.dataclass(frozen=True)
class Pack:
    manifest: PackManifest
    root: Path
    source: str  # "builtin" or "<distribution> <version>"
    config: type[BaseModel]
    check: CheckHook | None = None
    context: ContextHook | None = None
    exports: ExportsHook | None = None
    documents: DocumentsHook | None = None
    rules: tuple[Rule, ...] = ()
    legacy_fields: tuple[LegacyField, ...] = ()

    @property
    def name(self) -> str:
        return self.manifest.name

    def call(self, hook: str, *args: Any) -> Any:
        """Run a hook of the pack's code; a crash there is the pack's bug, named as such."""
        try:
            result = getattr(self, hook)(*args)
            return list(result) if hook == "check" else result
        except StrataError:
            raise
        except Exception as exc:
            where = "built-in" if self.source == "builtin" else self.source
            raise PackFailure(
                f"pack {self.name} ({where}) crashed in its {hook} hook: {type(exc).__name__}: {exc}; "
                "please report it to the pack's authors with the spec that triggers it"
            ) from exc

    @property
    def version(self) -> str:
        return self.manifest.version

    @property
    def field_name(self) -> str:
        return self.manifest.name


