"""``strata catalog``: what strata knows about EC2 instance types and AWS regions -- the
same catalog the compute rules check node pools against."""

from __future__ import annotations

import dataclasses
import json

import click

from strata import catalog as catalog_lib
from strata.errors import UsageError


def _record(it: catalog_lib.InstanceType) -> dict:
    return {
        "name": it.name, "family": it.family, "architecture": it.arch, "vcpus": it.cpu, "memoryMiB": it.memory_mib,
        "gpu": {"manufacturer": it.gpu.manufacturer, "name": it.gpu.name, "count": it.gpu.count, "memoryMiB": it.gpu.memory_mib}
        if it.gpu else None,
        "accelerator": dataclasses.asdict(it.accelerator) if it.accelerator else None,
        "efaInterfaces": it.efa_interfaces, "neuronDevices": it.neuron_devices, "neuronCores": it.neuron_cores,
        "networkBandwidthMbps": it.network_bandwidth_mbps, "multiNodeNVLink": it.multi_node_nvlink, "localNvmeGB": it.local_nvme_gb,
        "allocatable": dict(it.allocatable),
    }


def _accelerators(it: catalog_lib.InstanceType) -> str:
    if it.gpu:
        return f"{it.gpu.count} x {it.gpu.manufacturer} {it.gpu.name} ({it.gpu.memory_mib} MiB each)"
    if it.accelerator:
        return f"{it.accelerator.count} x {it.accelerator.manufacturer} {it.accelerator.name}"
    return "-"


def _details(it: catalog_lib.InstanceType) -> str:
    rows = [
        ("family", it.family), ("architecture", it.arch), ("vCPUs", str(it.cpu)), ("memory", f"{it.memory_mib} MiB"),
        ("accelerators", _accelerators(it)),
        ("Neuron", f"{it.neuron_devices} devices, {it.neuron_cores} NeuronCores" if it.neuron_devices else "-"),
        ("EFA interfaces", str(it.efa_interfaces)),
        ("network bandwidth", _bandwidth(it) + (" (aggregate over all interfaces)" if it.network_bandwidth_mbps else "")),
        ("multi-node NVLink", "yes" if it.multi_node_nvlink else "no"),
        ("local NVMe", f"{it.local_nvme_gb} GB" if it.local_nvme_gb else "-"),
        ("extended resources", ", ".join(f"{k}={v}" for k, v in it.allocatable.items()) or "-"),
    ]
    return "\n".join([it.name, *(f"  {k + ':':<20}{v}" for k, v in rows)])


def _bandwidth(it: catalog_lib.InstanceType) -> str:
    gbps = it.network_bandwidth_gbps
    return "-" if gbps is None else f"{gbps:g} Gbps"


def _table(types: list[catalog_lib.InstanceType]) -> str:
    header = ("type", "arch", "vCPUs", "memory MiB", "accelerators", "EFA", "network")
    rows = [header] + [(t.name, t.arch, str(t.cpu), str(t.memory_mib), _accelerators(t), str(t.efa_interfaces), _bandwidth(t))
                       for t in types]
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows)


def _unknown(kind: str, name: str, close: str | None) -> UsageError:
    hint = f"; did you mean {close!r}?" if close else ""
    return UsageError(f"no {kind} {name!r} in the catalog{hint}")


@click.command("catalog")
@click.argument("names", nargs=-1)
@click.option("--family", "families", multiple=True, help="List every instance type of a family (repeatable).")
@click.option("--regions", is_flag=True, help="List the AWS regions strata accepts.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", help="Output for people or machines.")
def catalog(names: tuple[str, ...], families: tuple[str, ...], regions: bool, fmt: str) -> None:
    """Show the EC2 instance types (strata catalog p5.48xlarge, --family g6e) or AWS regions
    (--regions) strata knows; without arguments, a summary of every family."""
    if regions:
        found = catalog_lib.regions()
        click.echo(json.dumps(dict(found), indent=2) if fmt == "json" else "\n".join(f"{k:<16}{v}" for k, v in found.items()))
        return
    types: list[catalog_lib.InstanceType] = []
    for family in families:
        if family not in catalog_lib.families():
            raise _unknown("instance family", family, catalog_lib.suggest(family.split(".")[0]))
        types.extend(catalog_lib.families()[family])
    for name in names:
        it = catalog_lib.get(name)
        if it is None:
            raise _unknown("instance type", name, catalog_lib.suggest(name))
        types.append(it)
    if fmt == "json":
        click.echo(json.dumps([_record(t) for t in types] if types else _summary(), indent=2))
    elif names and not families:
        click.echo("\n\n".join(_details(t) for t in types))
    elif types:
        click.echo(_table(types))
    else:
        rows = _summary()
        width = max(len(r["family"]) for r in rows)
        for r in rows:
            click.echo(f"{r['family']:<{width}}  {'/'.join(r['architectures']):<11}  {r['types']:>3} types  {r['accelerators'] or '-'}")


def _summary() -> list[dict]:
    out = []
    for family, types in catalog_lib.families().items():
        accelerators = sorted({_accelerators(t).split(" x ", 1)[1].split(" (")[0] for t in types if t.gpu or t.accelerator})
        out.append({"family": family, "architectures": sorted({t.arch for t in types}), "types": len(types),
                    "accelerators": ", ".join(accelerators)})
    return out
