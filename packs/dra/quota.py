"""What the ResourceQuota admission charges for DRA claims, the way the API server's claim
evaluator does (pkg/quota/v1/evaluator/core/resource_claims.go): per claim, one
count/resourceclaims.resource.k8s.io, and per device class <class>.deviceclass.resource.k8s.io/devices
of ExactCount's count, allocationMode All's worst case (32 devices, the most one claim can
hold), and for firstAvailable the largest alternative per class. The dra pack writes a quota
of these per team so the team's GPU cap holds for DRA as it does for nvidia.com/gpu."""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

from . import devices as dev

CLAIMS = "count/resourceclaims.resource.k8s.io"
ALL_MODE_CHARGE = 32  # resource.k8s.io AllocationResultsMaxSize
# The driver's DeviceClasses that hand out GPUs (whole, MIG instances, passthrough); its
# ComputeDomain classes hand out IMEX channels and daemons, not GPUs.
DRIVER_GPU_CLASSES = (dev.GPU_CLASS, dev.MIG_CLASS, "vfio.gpu.nvidia.com")
# Default claim cap: a GPU claim and an IMEX channel claim for each Pod holding one GPU.
CLAIMS_PER_GPU = 2
# A Deployment's rolling update runs 25% more Pods (rounded up) than its replicas for a while.
SURGE = 0.25


def devices_key(device_class: str) -> str:
    return f"{device_class}.deviceclass.resource.k8s.io/devices"


def _count(request: dict[str, Any]) -> int:
    return ALL_MODE_CHARGE if request.get("allocationMode") == "All" else int(request.get("count", 1))


def claim_charge(claim_spec: dict[str, Any]) -> Counter[str]:
    """Devices charged per device class for one claim of this ResourceClaimSpec."""
    charge: Counter[str] = Counter()
    for request in claim_spec["devices"]["requests"]:
        if "exactly" in request:
            charge[request["exactly"]["deviceClassName"]] += _count(request["exactly"])
        else:
            worst: dict[str, int] = {}
            for sub in request["firstAvailable"]:
                worst[sub["deviceClassName"]] = max(worst.get(sub["deviceClassName"], 0), _count(sub))
            charge.update(worst)
    return charge


def pods_at_once(kind: str, replicas: int) -> int:
    """Pods (each with its own claims from templates) a workload runs at the same time."""
    return replicas + math.ceil(replicas * SURGE) if kind == "Deployment" else replicas


def quota_classes(custom: list[str]) -> list[str]:
    return sorted({*DRIVER_GPU_CLASSES, *custom})


def hard(gpus: int, resource_claims: int, classes: list[str]) -> dict[str, str]:
    """The quota lines of a team with a GPU cap of ``gpus``: every GPU class capped at it."""
    return {CLAIMS: str(resource_claims), **{devices_key(c): str(gpus) for c in classes}}


def claim_cap(quota: Any) -> int:
    return quota.resource_claims if quota.resource_claims is not None else CLAIMS_PER_GPU * quota.gpus
