"""Where things go in the output tree. One object per file under <layer>/<component>/,
Helm releases under <layer>/helm/<release>/, a kustomization.yaml in every directory."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported by light commands: the objects' module pulls in the pack contract
    from strata.render.objects import RenderedObject

LOCK_NAME = "strata.lock"
KUSTOMIZATION = "kustomization.yaml"
HELM_DIR = "helm"
HYDRATED_DIR = "hydrated"


def component_dir(layer: str, component: str) -> str:
    return f"{layer}/{component}"


def release_dir(layer: str, release: str) -> str:
    return f"{layer}/{HELM_DIR}/{release}"


def hydrated_dir(layer: str, release: str) -> str:
    """Where `strata hydrate` writes a release's helm template output."""
    return f"{layer}/{HYDRATED_DIR}/{release}"


def object_file(kind: str, name: str, namespace: str | None) -> str:
    """One object per file: <kind>-[<namespace>-]<name>.yaml."""
    return f"{kind.lower()}-{namespace}-{name}.yaml" if namespace else f"{kind.lower()}-{name}.yaml"


def object_path(obj: RenderedObject) -> str:
    return f"{component_dir(obj.layer, obj.component)}/{object_file(obj.kind, obj.name, obj.namespace)}"
