"""What the NVIDIA DRA driver (0.4.x) publishes and installs, and what the DRA API serves
per Kubernetes version: the facts the dra checks and context share."""

from __future__ import annotations

import re
from collections.abc import Iterator

# resource.k8s.io/v1 is GA and served by default from Kubernetes 1.34 (EKS 1.33 serves
# only the beta API, which is off by default upstream and deprecated from 1.35).
API_VERSION = "resource.k8s.io/v1"
FIRST_VERSION = (1, 34)

GPU_DOMAIN = "gpu.nvidia.com"
COMPUTE_DOMAIN_DRIVER = "compute-domain.nvidia.com"
STANDARD_DOMAIN = "resource.kubernetes.io"

# DeviceClasses the driver installs (the chart, or the GPU Operator in GPUCluster mode).
GPU_CLASS = "gpu.nvidia.com"
MIG_CLASS = "mig.nvidia.com"
DRIVER_CLASSES = frozenset({GPU_CLASS, MIG_CLASS, "vfio.gpu.nvidia.com",
                            "compute-domain-daemon.nvidia.com", "compute-domain-default-channel.nvidia.com"})

# Attributes per domain (cmd/gpu-kubelet-plugin/deviceinfo.go at v0.4.1). There is no
# index and no minor attribute any more (removed in v0.4.0).
ATTRIBUTES = {
    GPU_DOMAIN: frozenset({
        "type", "uuid", "productName", "brand", "architecture", "cudaComputeCapability", "driverVersion",
        "cudaDriverVersion", "addressingMode",  # full GPUs
        "parentUUID", "profile",  # MIG devices
        "deviceID", "vendorID", "numa", "iommuFDEnabled",  # vfio devices
    }),
    STANDARD_DOMAIN: frozenset({"pciBusID", "pcieRoot"}),
    COMPUTE_DOMAIN_DRIVER: frozenset({"type", "id"}),
}
CAPACITY = {
    GPU_DOMAIN: re.compile(r"^(memory|multiprocessors|copyEngines|decoders|encoders|jpegEngines|ofaEngines|memorySlice[0-9]+|addressableMemory)$"),
}
REMOVED_ATTRIBUTES = {"index": "was removed in driver 0.4.0", "minor": "was never published; it is part of the device name"}

# MIG profiles per GPU (Karpenter's GPU name and MiB per GPU). A profile names ONE instance:
# 3g.20gb is 3 of 7 compute slices with 20 GB, not three GPUs.
MIG_PROFILE = re.compile(r"^[1-7]g\.[0-9]+gb(\+me|\+gfx|\+me\.all|-me)?$")
MIG_PROFILES = {
    ("a100", 40960): ("1g.5gb", "1g.5gb+me", "1g.10gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb"),
    ("a100", 81920): ("1g.10gb", "1g.10gb+me", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"),
    ("h100", 81920): ("1g.10gb", "1g.10gb+me", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"),
    ("h200", 144384): ("1g.18gb", "1g.18gb+me", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb"),
    ("b200", 183359): ("1g.23gb", "1g.23gb+me", "1g.45gb", "2g.45gb", "3g.90gb", "4g.90gb", "7g.180gb"),
}
NO_MIG = frozenset({"a10g", "l4", "l40s", "t4", "t4g", "v100"})  # GPUs without MIG support

# Driver feature gates a GpuConfig sharing strategy needs (pkg/featuregates at v0.4.1).
SHARING_GATES = {"MPS": "MPSSupport", "TimeSlicing": "TimeSlicingSettings"}

_ACCESS = re.compile(
    r"device\s*\.\s*(attributes|capacity)\s*"
    r"(?:\[\s*(['\"])(?P<domain>[^'\"]*)\2\s*\]|\.\s*(?P<bare>[A-Za-z_][A-Za-z0-9_]*))"
    r"(?:\s*\.\s*(?P<name>[A-Za-z_][A-Za-z0-9_]*)|\s*\[\s*(['\"])(?P<iname>[^'\"]*)\6\s*\])?"
)
_PROFILE = re.compile(r"\.\s*profile\s*==\s*(['\"])([^'\"]*)\1")


def version_tuple(version: str) -> tuple[int, int]:
    major, minor = version.split(".")
    return int(major), int(minor)


def api_version(kubernetes_version: str) -> str | None:
    """The DRA API version strata emits for a Kubernetes version (None: DRA is refused)."""
    return API_VERSION if version_tuple(kubernetes_version) >= FIRST_VERSION else None


def cel_problems(expression: str) -> Iterator[str]:
    """What is wrong with the device attributes and capacities a CEL selector reads."""
    for match in _ACCESS.finditer(expression):
        what = match.group(1)
        text = match.group(0)
        domain = match.group("domain")
        if domain is None or "." not in domain:
            key = domain if domain is not None else match.group("bare")
            yield f"{text} has no domain: write device.{what}['{GPU_DOMAIN}'].{key}"
            continue
        name = match.group("name") or match.group("iname")
        if name is None:
            continue
        if what == "capacity":
            pattern = CAPACITY.get(domain)
            if pattern is None or not pattern.match(name):
                yield f"{domain} publishes no capacity {name!r}"
            continue
        published = ATTRIBUTES.get(domain)
        if published is None:
            yield f"no driver of this platform publishes attributes in the domain {domain!r} (use {GPU_DOMAIN})"
        elif name in REMOVED_ATTRIBUTES:
            yield f"the attribute {name!r} {REMOVED_ATTRIBUTES[name]}; select on uuid, productName or pciBusID instead"
        elif name == "memory" and domain == GPU_DOMAIN:
            yield f"memory is a capacity, not an attribute: device.capacity['{GPU_DOMAIN}'].memory.compareTo(quantity('40Gi')) >= 0"
        elif name not in published:
            yield f"{domain} publishes no attribute {name!r} (it publishes {', '.join(sorted(published))})"


def mig_profiles(expression: str) -> list[str]:
    """The MIG profile names a CEL selector compares against."""
    return [m.group(2) for m in _PROFILE.finditer(expression)]
