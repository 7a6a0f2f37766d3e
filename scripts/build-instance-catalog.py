#!/usr/bin/env python3
"""Build strata's catalog of EC2 instance types from Karpenter's reference.

Reads Karpenter's generated instance-type reference (``website/content/en/docs/reference/
instance-types.md`` upstream; a pinned copy lives in ``../shared/reference``) and writes
``src/strata/catalog/instance_types.json`` with every instance type it lists, CPU-only and
accelerated alike, so that any node pool's types and families can be checked. The output
depends only on the input file, so it can be checked byte for byte.

    python scripts/build-instance-catalog.py [REFERENCE.md] [--output FILE]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_REFERENCE = REPO_ROOT.parent / "shared/reference/karpenter-1.14.1-instance-types.md"
DEFAULT_OUTPUT = REPO_ROOT / "src/strata/catalog/instance_types.json"
SCRIPT = "scripts/build-instance-catalog.py"

LABEL = "karpenter.k8s.aws/instance-"
GPU_RESOURCES = ("nvidia.com/gpu", "amd.com/gpu", "habana.ai/gaudi")
NEURON_RESOURCES = ("aws.amazon.com/neuron", "aws.amazon.com/neuroncore")
# Core resources in the Resources table; everything else there is an extended resource.
CORE_RESOURCES = {"cpu", "memory", "ephemeral-storage", "pods"}
# UltraServer families whose GPUs share one NVLink domain across nodes (P6e-GB200, ...).
MULTI_NODE_NVLINK = re.compile(r"^p\d+e-gb\d+$")

HEADING = re.compile(r"^### `([^`]+)`$")
ROW = re.compile(r"^\s*\|([^|]*)\|([^|]*)\|\s*$")


def parse(text: str) -> dict[str, tuple[dict[str, str], dict[str, str]]]:
    """Instance type name -> (labels, resources), in document order."""
    types: dict[str, tuple[dict[str, str], dict[str, str]]] = {}
    table: dict[str, str] | None = None
    for lineno, line in enumerate(text.splitlines(), 1):
        if m := HEADING.match(line):
            name = m.group(1)
            if name in types:
                sys.exit(f"line {lineno}: duplicate instance type {name}")
            types[name] = ({}, {})
            table = None
        elif line.startswith("#### Labels") and types:
            table = types[next(reversed(types))][0]
        elif line.startswith("#### Resources") and types:
            table = types[next(reversed(types))][1]
        elif line.startswith("#"):
            table = None
        elif table is not None and (m := ROW.match(line)):
            key, value = m.group(1).strip(), m.group(2).strip()
            if key in ("Label", "Resource") or set(key) <= {"-"}:
                continue
            if key in table:
                sys.exit(f"line {lineno}: duplicate row {key}")
            table[key] = value
    if not types:
        sys.exit("no instance types found: is this Karpenter's instance-types.md?")
    return types


def to_int(name: str, key: str, value: str) -> int:
    if not re.fullmatch(r"\d+", value):
        sys.exit(f"{name}: {key} is {value!r}, expected a whole number")
    return int(value)


def record(name: str, labels: dict[str, str], resources: dict[str, str]) -> dict:
    """The catalog record for one instance type."""

    def need(key: str) -> str:
        if key not in labels:
            sys.exit(f"{name}: missing label {key}")
        return labels[key]

    def label(key: str) -> str:
        return need(LABEL + key)

    def count(key: str) -> int:
        return to_int(name, key, labels.get(LABEL + key, "0"))

    gpu_count, acc_count = count("gpu-count"), count("accelerator-count")
    has_gpu = gpu_count > 0 or any(r in resources for r in GPU_RESOURCES)
    has_acc = acc_count > 0 or any(r in resources for r in NEURON_RESOURCES)
    family = label("family")
    if not name.startswith(family + "."):
        sys.exit(f"{name}: family label {family!r} does not match the name")
    allocatable = {
        key: to_int(name, key, value)
        for key, value in sorted(resources.items())
        if key not in CORE_RESOURCES
    }
    gpu = accelerator = None
    if has_gpu:
        gpu = {
            "manufacturer": label("gpu-manufacturer"),
            "name": label("gpu-name"),
            "count": gpu_count,
            "memoryMiB": to_int(name, "gpu-memory", label("gpu-memory")),
        }
        for res in GPU_RESOURCES:
            if res in allocatable and allocatable[res] != gpu_count:
                sys.exit(f"{name}: {res}={allocatable[res]} but gpu-count={gpu_count}")
    if has_acc:
        accelerator = {
            "manufacturer": label("accelerator-manufacturer"),
            "name": label("accelerator-name"),
            "count": acc_count,
        }
        neuron = allocatable.get("aws.amazon.com/neuron")
        if neuron is not None and neuron != acc_count:
            sys.exit(f"{name}: aws.amazon.com/neuron={neuron} but accelerator-count={acc_count}")
    if (gpu and gpu["count"] <= 0) or (accelerator and accelerator["count"] <= 0):
        sys.exit(f"{name}: accelerator resources without a positive count label")
    nvme = labels.get(LABEL + "local-nvme")
    # Karpenter's instance-network-bandwidth: the instance's whole (aggregate, baseline) network
    # bandwidth in Mbps, across all its interfaces -- never a per-interface figure. Absent for
    # the oldest generations (the reference gives none), so null there.
    bandwidth = labels.get(LABEL + "network-bandwidth")
    return {
        "family": family,
        "arch": need("kubernetes.io/arch"),
        "cpu": to_int(name, "cpu", label("cpu")),
        "memoryMiB": to_int(name, "memory", label("memory")),
        "gpu": gpu,
        "accelerator": accelerator,
        "allocatable": allocatable,
        "localNvmeGB": None if nvme is None else to_int(name, "local-nvme", nvme),
        "networkBandwidthMbps": None if bandwidth is None else to_int(name, "network-bandwidth", bandwidth),
        "multiNodeNVLink": bool(MULTI_NODE_NVLINK.match(family)),
    }


def render(catalog: dict[str, dict], source: Path) -> str:
    """JSON (parsed in milliseconds, unlike YAML), one instance type per line so that a
    regeneration's diff reads like a list of changed types."""
    version = re.search(r"karpenter-(\d+(?:\.\d+)*)", source.name)
    families = sorted({r["family"] for r in catalog.values()})
    header = {
        "generatedBy": f"{SCRIPT} -- do not edit by hand",
        "source": f"{source.name} (Karpenter v{version.group(1) if version else '?'}, "
                  "aws/karpenter-provider-aws website/content/en/docs/reference/instance-types.md)",
        "notes": "every instance type of the reference; memoryMiB and gpu.memoryMiB (per GPU) in MiB; gpu is null "
                 "where Karpenter's instance-gpu-count is 0 (the fractional-GPU g6f/gr6f advertise no whole GPU); networkBandwidthMbps is Karpenter's "
                 "instance-network-bandwidth label, the aggregate baseline bandwidth of the instance in Mbps (null where the "
                 "reference gives none)",
        "count": f"{len(catalog)} instance types in {len(families)} families",
    }
    lines = ["{"]
    lines += [f"  {json.dumps(k)}: {json.dumps(v)}," for k, v in header.items()]
    lines.append('  "instanceTypes": {')
    items = list(catalog.items())
    lines += [f"    {json.dumps(n)}: {json.dumps(r)}{',' if i < len(items) - 1 else ''}" for i, (n, r) in enumerate(items)]
    lines += ["  }", "}"]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reference", nargs="?", type=Path, default=DEFAULT_REFERENCE)
    parser.add_argument("-o", "--output", type=Path, default=DEFAULT_OUTPUT)
    args = parser.parse_args(argv)
    if not args.reference.is_file():
        parser.error(f"reference not found: {args.reference}")
    parsed = parse(args.reference.read_text(encoding="utf-8"))
    records = {}
    for order, (name, (labels, resources)) in enumerate(parsed.items()):
        if not labels:
            sys.exit(f"{name}: no Labels table")
        rec = record(name, labels, resources)
        records[name] = (rec["family"], order, rec)
    # Sorted by family name, then by the source's (size) order within the family.
    catalog = {n: r for n, (_, _, r) in sorted(records.items(), key=lambda kv: kv[1][:2])}
    text = render(catalog, args.reference)
    if json.loads(text)["instanceTypes"] != catalog:
        sys.exit("internal error: the rendered JSON does not load back to the catalog")
    args.output.write_text(text, encoding="utf-8")
    print(f"wrote {len(catalog)} instance types to {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
