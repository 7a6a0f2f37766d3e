"""JupyterHub byte sizes as numbers, and whether one Pod fits on some node of a pool."""

from __future__ import annotations

from typing import Any

from strata.pack import PoolFacts

# JupyterHub's ByteSpecification reads K/M/G/T as powers of 1024.
_HUB_SUFFIX = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
MIB = 2**20

# What Karpenter subtracts before a Pod sees a node (approximate, EKS defaults): the VM
# overhead (vmMemoryOverheadPercent 7.5%), kube-reserved memory for 110 Pods (11 MiB per
# Pod + 255 MiB), the 100 MiB eviction threshold, and kube-reserved CPU (6% of the first
# core, 1% of the second, 0.5% of the next two, 0.25% of the rest).
VM_OVERHEAD = 0.075
RESERVED_MEMORY_MIB = 11 * 110 + 255 + 100


def hub_bytes(value: str) -> float:
    return float(value[:-1]) * _HUB_SUFFIX[value[-1]]


def _reserved_cpu(cpus: int) -> float:
    steps = ((1, 0.06), (1, 0.01), (2, 0.005), (float("inf"), 0.0025))
    left, reserved = float(cpus), 0.0
    for size, share in steps:
        take = min(left, size)
        reserved += take * share
        left -= take
    return reserved


def allocatable(cpu: int, memory_mib: int) -> tuple[float, float]:
    """(cores, bytes) a Pod may request on an instance with this capacity."""
    mem = memory_mib * (1 - VM_OVERHEAD) - RESERVED_MEMORY_MIB
    return cpu - _reserved_cpu(cpu), mem * MIB


def gpu_problem(pool: PoolFacts, gpus: int) -> str | None:
    """Why no node of the pool can give a Pod this many NVIDIA GPUs, or None."""
    if not gpus:
        return None
    if not pool.nvidia:
        return f"node pool {pool.pool.name!r} has no NVIDIA GPUs"
    if gpus > pool.max_gpus_per_node:
        return f"node pool {pool.pool.name!r} offers at most {pool.max_gpus_per_node} GPUs per node"
    limit = pool.pool.limits.gpus if pool.pool.limits else None
    if limit is not None and gpus > limit:
        return f"node pool {pool.pool.name!r} is limited to {limit} GPUs in total"
    return None


def fit_problem(pool: PoolFacts, cpu: float, memory: float, gpus: int) -> str | None:
    """Why no node of the pool can hold a Pod requesting this CPU and memory (with that many
    GPUs), or None. Pools whose instance types strata does not know (the CPU families) pass."""
    if not pool.instance_types:
        return None
    candidates = [t for t in pool.instance_types if (t.gpu.count if t.gpu else 0) >= gpus]
    for t in candidates:
        cores, mem = allocatable(t.cpu, t.memory_mib)
        if cpu <= cores and memory <= mem:
            return None
    biggest = max(candidates, key=lambda t: (t.cpu, t.memory_mib))
    cores, mem = allocatable(biggest.cpu, biggest.memory_mib)
    return (f"no instance type of node pool {pool.pool.name!r} with {gpus} GPU(s) can hold {cpu:g} CPU and "
            f"{memory / 2**30:.1f} GiB; the largest, {biggest.name}, leaves about {cores:.2f} CPU and {mem / 2**30:.1f} GiB to Pods")


def toleration_dicts(items: Any) -> list[dict[str, Any]]:
    return [t.model_dump(exclude_none=True) for t in items]


EFA = "vpc.amazonaws.com/efa"
# Families whose EFA carries GPUDirect/Neuron RDMA (AWS EFA docs: P4d/P4de, P5*, P6*, Trn1/Trn1n/Trn2).
_RDMA_FAMILIES = ("p4d", "p4de", "p5", "p5e", "p5en", "p6-", "p6e-", "trn1", "trn1n", "trn2")


def efa_env(pool: PoolFacts) -> list[dict[str, str]]:
    """The libfabric/NCCL environment for collective traffic over EFA (aws-ofi-nccl and the
    Neuron runtime read the libfabric variables): the EFA provider, RDMA where the instance
    supports it, fork safety for the data-loader and Ray worker processes that fork."""
    env = [{"name": "FI_PROVIDER", "value": "efa"}, {"name": "FI_EFA_FORK_SAFE", "value": "1"}]
    if pool.instance_types and all(t.family.startswith(_RDMA_FAMILIES) for t in pool.instance_types):
        env.append({"name": "FI_EFA_USE_DEVICE_RDMA", "value": "1"})
    if pool.nvidia:
        # NCCL's network plugin from aws-ofi-nccl; without it NCCL silently falls back to TCP sockets.
        env.append({"name": "NCCL_NET", "value": "AWS Libfabric"})
    return sorted(env, key=lambda e: e["name"])
