"""Built-in catalog of every EC2 instance type Karpenter knows, CPU-only and accelerated,
and of the AWS regions.

``instance_types.json`` is generated from Karpenter 1.14.1's instance-type reference (node
labels and allocatable resources; pinned at ``../shared/reference``) -- never edit it by hand,
regenerate it with ``python scripts/build-instance-catalog.py [path/to/instance-types.md]``.
``regions.json`` lists the AWS region codes (see its ``source``).
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import json
from collections.abc import Iterable, Mapping
from importlib.resources import files
from types import MappingProxyType


@dataclasses.dataclass(frozen=True)
class Gpu:
    manufacturer: str  # nvidia, amd, habana (Karpenter labels Gaudi as a GPU)
    name: str  # Karpenter's instance-gpu-name: a100, h100, l40s...
    count: int
    memory_mib: int  # per GPU


@dataclasses.dataclass(frozen=True)
class Accelerator:
    manufacturer: str  # aws (Inferentia, Trainium), qualcomm
    name: str
    count: int


@dataclasses.dataclass(frozen=True)
class InstanceType:
    name: str
    family: str
    arch: str  # amd64 | arm64
    cpu: int  # vCPUs
    memory_mib: int
    gpu: Gpu | None
    accelerator: Accelerator | None
    allocatable: Mapping[str, int] = dataclasses.field(hash=False)  # extended resources
    local_nvme_gb: int | None
    # Karpenter's instance-network-bandwidth: the aggregate (baseline) bandwidth of the whole
    # instance in Mbps, over all its interfaces; None where the reference gives none.
    network_bandwidth_mbps: int | None
    multi_node_nvlink: bool  # UltraServer: NVLink domain spans several nodes

    @property
    def is_gpu(self) -> bool:
        return self.gpu is not None

    @property
    def efa_interfaces(self) -> int:
        """EFA network interfaces a node offers (Karpenter's vpc.amazonaws.com/efa), 0 without EFA."""
        return self.allocatable.get(EFA_RESOURCE, 0)

    @property
    def neuron_devices(self) -> int:
        """Neuron devices (Inferentia/Trainium chips) a node offers as aws.amazon.com/neuron, 0 without."""
        return self.allocatable.get(NEURON_RESOURCE, 0)

    @property
    def neuron_cores(self) -> int:
        """NeuronCores a node offers as aws.amazon.com/neuroncore, 0 without."""
        return self.allocatable.get(NEURON_CORE_RESOURCE, 0)

    @property
    def network_bandwidth_gbps(self) -> float | None:
        return None if self.network_bandwidth_mbps is None else self.network_bandwidth_mbps / 1000


EFA_RESOURCE = "vpc.amazonaws.com/efa"
NEURON_RESOURCE = "aws.amazon.com/neuron"
NEURON_CORE_RESOURCE = "aws.amazon.com/neuroncore"


def _instance_type(name: str, d: dict) -> InstanceType:
    g, a = d["gpu"], d["accelerator"]
    return InstanceType(
        name=name, family=d["family"], arch=d["arch"], cpu=d["cpu"], memory_mib=d["memoryMiB"],
        gpu=Gpu(g["manufacturer"], g["name"], g["count"], g["memoryMiB"]) if g else None,
        accelerator=Accelerator(a["manufacturer"], a["name"], a["count"]) if a else None,
        allocatable=MappingProxyType(dict(d["allocatable"])),
        local_nvme_gb=d["localNvmeGB"], network_bandwidth_mbps=d["networkBandwidthMbps"], multi_node_nvlink=d["multiNodeNVLink"],
    )


@functools.cache
def instance_types() -> Mapping[str, InstanceType]:
    """All catalog entries by name, ordered by family, then size."""
    data = json.loads(files("strata.catalog").joinpath("instance_types.json").read_text(encoding="utf-8"))
    return MappingProxyType({n: _instance_type(n, d) for n, d in data["instanceTypes"].items()})


def get(name: str) -> InstanceType | None:
    return instance_types().get(name)


@functools.cache
def families() -> Mapping[str, tuple[InstanceType, ...]]:
    """Family name -> its instance types, smallest first."""
    out: dict[str, list[InstanceType]] = {}
    for it in instance_types().values():
        out.setdefault(it.family, []).append(it)
    return MappingProxyType({f: tuple(types) for f, types in out.items()})


_families = families  # resolve() and unknown() take a parameter of the same name


def _names(names: Iterable[str]) -> list[str]:
    if isinstance(names, str):  # would otherwise be read letter by letter
        raise TypeError("expected an iterable of names, not a str")
    return list(names)


def resolve(families: Iterable[str], types: Iterable[str]) -> tuple[InstanceType, ...]:
    """Every type of the given families plus the given types, sorted by name.
    Unknown names are ignored; report them with :func:`unknown`."""
    by_family, by_name = _families(), instance_types()
    chosen = {it.name: it for f in _names(families) for it in by_family.get(f, ())}
    chosen.update((n, by_name[n]) for n in _names(types) if n in by_name)
    return tuple(chosen[n] for n in sorted(chosen))


def unknown(families: Iterable[str], types: Iterable[str]) -> tuple[str, ...]:
    """Family names that are no catalog family and type names that are no catalog type,
    in the order given, without duplicates: exactly what :func:`resolve` ignores."""
    by_family, by_name = _families(), instance_types()
    missing = [f for f in _names(families) if f not in by_family]
    missing += [t for t in _names(types) if t not in by_name]
    return tuple(dict.fromkeys(missing))


@functools.cache
def gpu_names() -> frozenset[str]:
    """Every ``karpenter.k8s.aws/instance-gpu-name`` value in the catalog."""
    return frozenset(it.gpu.name for it in instance_types().values() if it.gpu)


def suggest(name: str) -> str | None:
    """The catalog type or family closest to a name that is neither, for 'did you mean'."""
    pool = instance_types() if "." in name else families()
    close = difflib.get_close_matches(name, list(pool), n=1, cutoff=0.6)
    return close[0] if close else None


@functools.cache
def regions() -> Mapping[str, str]:
    """AWS region code -> its name, e.g. us-west-2 -> US West (Oregon)."""
    data = json.loads(files("strata.catalog").joinpath("regions.json").read_text(encoding="utf-8"))
    return MappingProxyType(dict(data["regions"]))


def suggest_region(code: str) -> str | None:
    close = difflib.get_close_matches(code, list(regions()), n=1, cutoff=0.6)
    return close[0] if close else None
