"""Where a PersistentVolumeClaim can be mounted: a Pod mounts only claims of its own namespace.
The one decision behind storage/claim-namespace (pods of the dra pack) and
jark/pvc-cross-namespace (notebooks and Ray clusters), so the two rules cannot disagree."""

from __future__ import annotations

from collections.abc import Iterable


def mount_problem(ref: str, pod_namespace: str, created_in: Iterable[str] = ()) -> str | None:
    """Why a Pod in ``pod_namespace`` cannot mount the claim ``ref`` ("name" or
    "namespace/name"), given the namespaces where the platform creates a claim of that name
    (empty: a claim made outside strata, which can only be taken at its word); None if it can."""
    owner, _, name = ref.rpartition("/")
    if owner and owner != pod_namespace:
        return f"the pod runs in namespace {pod_namespace!r} but claim {name!r} is in {owner!r}"
    namespaces = sorted(set(created_in))
    if namespaces and pod_namespace not in namespaces:
        return (f"claim {name!r} is created in namespace {', '.join(namespaces)}, but the pod runs in "
                f"{pod_namespace!r}; add a claim in {pod_namespace!r}")
    return None
