"""What an image reference says about itself: whether it is pinned, and whether a GPU
workload can use it (known CPU-only image families)."""

from __future__ import annotations

import re

RAY_REPOS = ("rayproject/ray", "rayproject/ray-ml")
_DIGEST = re.compile(r"@sha256:[0-9a-f]{64}$")


def split(image: str) -> tuple[str, str | None]:
    """(repository, tag) of ``repo[:tag][@digest]``; the tag is None when absent."""
    ref = _DIGEST.sub("", image)
    last = ref.rsplit("/", 1)[-1]
    if ":" in last:
        repo, tag = ref.rsplit(":", 1)
        return repo, tag
    return ref, None


def unpinned(image: str) -> str | None:
    """Why the image is not pinned, or None when a tag or digest pins it."""
    if _DIGEST.search(image):
        return None
    _, tag = split(image)
    if tag is None:
        return "has no tag, so it means :latest"
    if tag == "latest" or tag.endswith("-latest"):
        return f"uses the moving tag {tag!r}"
    return None


def _docker_hub_name(repo: str) -> str:
    for prefix in ("docker.io/", "index.docker.io/"):
        if repo.startswith(prefix):
            return repo[len(prefix):]
    return repo


def is_ray(image: str) -> bool:
    return _docker_hub_name(split(image)[0]) in RAY_REPOS


def without_cuda(image: str) -> str | None:
    """Why the image ships no CUDA runtime, for the image families whose tags say so."""
    repo, tag = split(image)
    hub = _docker_hub_name(repo)
    tag = tag or ""
    if hub.startswith("jupyter/") and "/" not in hub[len("jupyter/"):]:
        return ("the Docker Hub jupyter/* images are CPU builds, frozen since 2023 (old ':gpu'-style tags "
                "never shipped CUDA); use quay.io/jupyter/pytorch-notebook:cuda12-<date> or another CUDA image")
    if repo.startswith("quay.io/jupyter/") and not tag.startswith("cuda"):
        return f"Jupyter Docker Stacks tag {tag!r} is a CPU build; GPU builds are tagged cuda12-<date> (pytorch-notebook, tensorflow-notebook)"
    if hub in RAY_REPOS and not re.search(r"-(gpu|cu[0-9]+)$", tag):
        return f"Ray image tag {tag!r} is a CPU build; GPU builds end in -gpu or -cu<version> (e.g. 2.52.0-gpu)"
    if hub == "pytorch/pytorch" and "cuda" not in tag:
        return f"PyTorch image tag {tag!r} is a CPU build; CUDA builds carry cudaXX.X in the tag"
    return None


# Public images known to ship neither the EFA libfabric nor the aws-ofi-nccl NCCL plugin.
_WITHOUT_EFA = ("rayproject/ray", "rayproject/ray-ml", "pytorch/pytorch")


def without_efa(image: str) -> str | None:
    """Why the image cannot drive EFA, for the public image families known to lack it."""
    hub = _docker_hub_name(split(image)[0])
    if hub in _WITHOUT_EFA or hub.startswith(("jupyter/", "quay.io/jupyter/")):
        return f"{hub} images ship neither the EFA libfabric nor aws-ofi-nccl"
    return None


def not_neuron(image: str) -> str | None:
    """Why the image is no Neuron build, for the image families whose name or tag says so."""
    repo, tag = split(image)
    hub = _docker_hub_name(repo)
    if hub in RAY_REPOS or hub == "pytorch/pytorch" or hub.startswith(("jupyter/", "quay.io/jupyter/")):
        return f"{hub} images have no Neuron runtime or torch-neuronx"
    if tag and re.search(r"(^|-)(gpu|cu[0-9]+|cuda[0-9.]*)($|-)", tag):
        return f"tag {tag!r} is a CUDA build"
    return None
