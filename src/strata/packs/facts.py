"""Typed facts between packs. A pack publishes what others may read through its ``exports``
hook; a pack that reads them declares it in pack.yaml (``uses: [storage]``). The engine
computes every export once per spec, in dependency order, and hands each hook a ``Facts``
mapping holding exactly the packs it uses. Hooks never see another pack's spec section: they
receive the core spec (cluster, node pools, teams) and their own config."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from typing import Any

from pydantic import BaseModel

from strata.errors import PackError
from strata.packs.contract import Pack
from strata.spec.model import CoreSpec


def pack_config(spec: Any, pack: Pack) -> Any | None:
    """The pack's section of the spec, its defaults when enabled by default, else None
    (the pack is off). The one place a pack's defaults come from."""
    section = getattr(spec, pack.field_name, None)
    if section is None and pack.manifest.enabled_by_default:
        return pack.config()
    return section


def core_spec(spec: Any) -> CoreSpec:
    """The spec without any pack's section: what every hook and template receives as ``spec``."""
    if type(spec) is CoreSpec:
        return spec
    return CoreSpec.model_construct(**{name: getattr(spec, name) for name in CoreSpec.model_fields})


class Facts(Mapping[str, Any]):
    """The facts one pack may read, by pack name: the export of each pack its pack.yaml
    ``uses``, or None when that pack is off for this spec."""

    def __init__(self, reader: str, uses: tuple[str, ...], exports: Mapping[str, Any]) -> None:
        self._reader = reader
        self._uses = uses
        self._exports = exports

    def __getitem__(self, name: str) -> Any:
        if name not in self._uses:
            declared = f"it uses {', '.join(self._uses)}" if self._uses else "it declares no uses"
            raise PackError(f"pack {self._reader} reads the facts of pack {name!r}, but {declared}: "
                            f"add {name} to uses in its pack.yaml")
        return self._exports.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._uses

    def __iter__(self) -> Iterator[str]:
        return iter(self._uses)

    def __len__(self) -> int:
        return len(self._uses)

    def __repr__(self) -> str:
        return f"Facts({self._reader}: {', '.join(self._uses)})"


@dataclasses.dataclass(frozen=True)
class PackFacts:
    """Every enabled pack's export for one spec (None for packs that are off or export nothing)."""

    exports: Mapping[str, Any]

    def for_pack(self, pack: Pack) -> Facts:
        return Facts(pack.name, pack.manifest.uses, self.exports)


def compute(spec: Any, packs: tuple[Pack, ...]) -> PackFacts:
    """Run every enabled pack's ``exports`` hook once, each after the packs it uses."""
    by_name = {p.name: p for p in packs}
    core = core_spec(spec)
    exports: dict[str, Any] = {}
    done: set[str] = set()

    def visit(pack: Pack) -> None:
        if pack.name in done:
            return
        done.add(pack.name)  # cycles were refused when the packs were loaded
        for used in pack.manifest.uses:
            if used in by_name:
                visit(by_name[used])
        config = pack_config(spec, pack)
        if config is None or pack.exports is None:
            return
        value = pack.call("exports", core, config, Facts(pack.name, pack.manifest.uses, exports))
        if not _frozen(value):
            raise PackError(f"pack {pack.name}: exports in {pack.root / 'pack.py'} returned {type(value).__name__}; "
                            "it must return a frozen dataclass or a frozen pydantic model")
        exports[pack.name] = value

    for pack in packs:
        visit(pack)
    return PackFacts(exports)


def _frozen(value: Any) -> bool:
    if isinstance(value, BaseModel):
        return bool(type(value).model_config.get("frozen"))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return bool(type(value).__dataclass_params__.frozen)  # type: ignore[attr-defined]
    return False
