"""`strata doctor`: what this machine has of what strata needs, as one table. Each row is a
check with what strata expects, what it found and a status; the CLI only prints them."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from strata import hydrate, tools
from strata.packs.loader import discover
from strata.spec.model import SUPPORTED_KUBERNETES
from strata.tools import buildinfo
from strata.validate import schema_store

OK, MISSING, MISMATCH, OPTIONAL, INFO = "ok", "missing", "mismatch", "optional", "info"


@dataclasses.dataclass(frozen=True)
class Row:
    check: str
    expected: str
    found: str
    status: str  # ok, missing, mismatch (wrong version), optional (not needed unless asked), info
    hint: str = ""

    @property
    def failed(self) -> bool:
        return self.status in (MISSING, MISMATCH)


def rows(store: Path, chart_cache: Path) -> list[Row]:
    return [*tool_rows(), *schema_rows(store), chart_row(chart_cache), kubernetes_row()]


def tool_rows() -> list[Row]:
    out = []
    for pin in tools.PINS.values():
        located = tools.locate(pin.name)
        label = f"tool {pin.name}" + (" (--server)" if pin.server else "")
        if located is None:
            out.append(Row(label, pin.version, "not found", OPTIONAL if pin.server else MISSING, f"run {pin.install_command()}"))
            continue
        where, path = located
        version = buildinfo.version_of(path, pin.module)
        what = version or (f"a build of {main}" if (main := buildinfo.main_module(path)) else "unknown version")
        found = f"{what} ({where}: {path})"
        if version == pin.version:
            out.append(Row(label, pin.version, found, OK))
        else:
            out.append(Row(label, pin.version, found, MISMATCH, f"run {pin.install_command()} (the user cache is searched before PATH)"))
    return out


def schema_rows(store: Path) -> list[Row]:
    versions = schema_store.core_versions()
    core = schema_store.core_cache_dir()
    out = [Row("core schemas", f"Kubernetes {SUPPORTED_KUBERNETES[0]} - {SUPPORTED_KUBERNETES[-1]}",
               f"{versions[0]} - {versions[-1]} from kubernetes-validate, converted into {core}",
               OK if set(SUPPORTED_KUBERNETES) <= set(versions) else MISMATCH)]
    for crd_set, pack, location in schema_store.pack_schema_sets():
        present = location.is_dir()
        out.append(Row(f"CRD schemas {crd_set}", f"shipped with pack {pack}", str(location) if present else "not found",
                       OK if present else MISSING, "" if present else f"reinstall pack {pack}"))
    imported = sum(1 for d in store.glob("*.*") if d.is_dir() for _ in d.glob("*.json")) if store.is_dir() else 0
    access = "read-only" if store.is_dir() and not os.access(store, os.W_OK) else "writable" if store.is_dir() else "absent"
    out.append(Row("schema store", "extra CRDs (strata schemas import)", f"{store}: {imported} schema(s), {access}", INFO))
    return out


def chart_row(cache: Path) -> Row:
    releases = [r for pack in discover() for r in pack.manifest.helm_releases]
    cached = [r for r in releases if (cache / f"{r.chart}-{r.version}.tgz").is_file()]
    return Row("chart cache", f"{len(releases)} pinned chart(s) for --hydrate", f"{cache}: {len(cached)} cached", INFO,
               "" if len(cached) == len(releases) else "strata charts pull DIR fills it (online)")


def kubernetes_row() -> Row:
    ranges = sorted({f"{p.name} {p.manifest.kubernetes[0]}-{p.manifest.kubernetes[1]}" for p in discover()})
    return Row("kubernetes versions", ", ".join(SUPPORTED_KUBERNETES), "packs: " + ", ".join(ranges), INFO)


def default_chart_cache() -> Path:
    return hydrate.default_chart_cache()
