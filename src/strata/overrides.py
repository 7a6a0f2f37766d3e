"""Chart value overrides, one mechanism for every Helm release.

A pack declares per release in pack.yaml which component of its section takes overrides
(``valuesOverrides: gpuOperator`` -> ``compute.gpuOperator.valuesOverrides``; the component
model inherits :class:`strata.spec.shared.ChartOverrides`) and which chart keys its typed
fields set (``typedValues: {driver.enabled: gpuOperator.driver}``). The engine owns the rest:
it reads the overrides, merges them over the rendered values (the user's word wins), and
refuses any key path the pinned chart does not have (against the pack's generated key index
``helm/keys/<chart>-<version>.yaml``, see scripts/build-chart-keys.py) and any key a typed
field owns. Packs' rules judge the merged result through ``ChartOverrides.effective``."""

from __future__ import annotations

import difflib
import functools
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from strata import nested, rules, yamlio
from strata.errors import PackError
from strata.packs.contract import HelmReleaseManifest, Pack
from strata.problems import Problem
from strata.spec.model import CoreSpec
from strata.spec.shared import ChartOverrides

FIELD = "valuesOverrides"


def index_file(root: Path, release: HelmReleaseManifest) -> Path:
    return root / "helm" / "keys" / f"{release.chart}-{release.version}.yaml"


@functools.cache
def chart_keys(path: Path) -> dict[str, Any]:
    """A chart's key tree: nested maps of its value keys; an empty map takes any key below it."""
    data = yamlio.load(path.read_bytes())
    if not isinstance(data, dict) or not isinstance(data.get("keys"), dict):
        raise PackError(f"{path}: not a chart key index (regenerate it with scripts/build-chart-keys.py)")
    return data["keys"]


def _field(model: type[BaseModel], camel: str) -> tuple[str, Any] | None:
    """(attribute name, annotation) of the field ``camel`` is the YAML name of."""
    for name, field in model.model_fields.items():
        if (field.alias or name) == camel:
            return name, field.annotation
    return None


def _model(annotation: Any) -> type[BaseModel] | None:
    """The model an annotation holds (``X``, ``X | None``), or None."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    models = [m for a in typing.get_args(annotation) if (m := _model(a)) is not None]
    return models[0] if len(models) == 1 else None


def component_model(config: type[BaseModel], dotted: str) -> type[BaseModel] | None:
    """The model class at a dotted camelCase path below a model, or None."""
    model: type[BaseModel] | None = config
    for part in dotted.split("."):
        found = _field(model, part) if model is not None else None
        if found is None:
            return None
        model = _model(found[1])
    return model


def has_field(model: type[BaseModel], dotted: str) -> bool:
    *parents, last = dotted.split(".")
    parent = component_model(model, ".".join(parents)) if parents else model
    return parent is not None and _field(parent, last) is not None


def component(config: BaseModel, dotted: str) -> ChartOverrides | None:
    """The component at a dotted camelCase path of a pack's section (None: it is not set)."""
    value: Any = config
    for part in dotted.split("."):
        if value is None:
            return None
        found = _field(type(value), part)
        assert found is not None, f"pack.yaml names {dotted}, which the loader checked"
        value = getattr(value, found[0])
    return value


def values(config: BaseModel, release: HelmReleaseManifest) -> dict[str, Any]:
    """The user's overrides of a release ({} when the release takes none)."""
    part = component(config, release.values_overrides) if release.values_overrides else None
    return part.values_overrides if part is not None else {}


def validate_manifest(pack_name: str, root: Path, config: type[BaseModel], releases: tuple[HelmReleaseManifest, ...]) -> None:
    """Load-time checks of a pack's override declarations; each mistake is a PackError."""
    where = f"pack {pack_name!r} ({root / 'pack.yaml'})"
    for release in releases:
        if release.values_overrides is None:
            if release.typed_values:
                raise PackError(f"{where}: release {release.name} lists typedValues but no valuesOverrides component")
            continue
        model = component_model(config, release.values_overrides)
        if model is None or not issubclass(model, ChartOverrides):
            raise PackError(f"{where}: release {release.name}: valuesOverrides: {release.values_overrides} must name a "
                            "component of the Config whose model inherits strata's ChartOverrides")
        keys_path = index_file(root, release)
        if not keys_path.is_file():
            raise PackError(f"{where}: release {release.name} takes overrides but has no chart key index {keys_path.relative_to(root)} "
                            "(generate it with scripts/build-chart-keys.py)")
        keys = chart_keys(keys_path)
        for chart_key, typed in release.typed_values:
            if _unknown(keys, tuple(chart_key.split("."))) is not None:
                raise PackError(f"{where}: release {release.name}: typedValues key {chart_key} is not a key of the chart")
            section, _, rest = typed.partition(".")
            if not (has_field(config, rest) if section == pack_name else has_field(CoreSpec, typed)):
                raise PackError(f"{where}: release {release.name}: typedValues names {typed}, which is not a field of "
                                f"the spec (give the full spec path, e.g. {pack_name}.<component>.<field>)")


def _unknown(keys: dict[str, Any], path: tuple[Any, ...]) -> int | None:
    """The index of the first part of ``path`` the key tree does not have, or None."""
    node = keys
    for i, part in enumerate(path):
        if not node:
            return None  # open: the chart takes anything below
        if not isinstance(part, str) or part not in node:
            return i
        node = node[part]
    return None


def check(pack: Pack, config: BaseModel) -> Iterator[Problem]:
    """Unknown chart keys and keys typed fields own, in every override of the pack."""
    section = (pack.field_name,)
    for release in pack.manifest.helm_releases:
        if release.values_overrides is None:
            continue
        over = values(config, release)
        base = section + tuple(release.values_overrides.split(".")) + (FIELD,)
        keys = chart_keys(index_file(pack.root, release))
        yield from _unknown_keys(release, keys, over, base)
        yield from _typed_keys(pack, release, over, base)


def unexplained(found: Iterator[Problem], explained: list[Problem]) -> list[Problem]:
    """The engine's override problems that no pack problem already explains at the same key
    (e.g. compute/removed-chart-value says what replaced a key the chart no longer has)."""
    paths = {p.path for p in explained if FIELD in p.path}
    return [p for p in found if p.rule != rules.UNKNOWN_CHART_KEY.id or not any(p.path[:len(q)] == q for q in paths)]


def _unknown_keys(release: HelmReleaseManifest, keys: dict[str, Any], over: dict[str, Any], base: tuple) -> Iterator[Problem]:
    for path, _ in nested.walk(over):
        if not path or _unknown(keys, path) != len(path) - 1:
            continue  # the root, a known key, or below a key already reported
        parent = nested.get(keys, path[:-1]) or {}
        near = difflib.get_close_matches(str(path[-1]), list(parent), n=1)
        hint = f"; did you mean {'.'.join(map(str, path[:-1] + (near[0],)))}?" if near else ""
        yield rules.UNKNOWN_CHART_KEY.problem(base + path, f"{'.'.join(map(str, path))} is not a key of the {release.chart} "
                                              f"{release.version} chart{hint}")


def _typed_keys(pack: Pack, release: HelmReleaseManifest, over: dict[str, Any], base: tuple) -> Iterator[Problem]:
    for chart_key, typed in release.typed_values:
        path = tuple(chart_key.split("."))
        for depth in range(1, len(path) + 1):
            value = nested.get(over, path[:depth], nested.MISSING)
            if value is nested.MISSING:
                break
            if depth == len(path) or not isinstance(value, dict):  # the key itself, or a value replacing its map
                yield rules.TYPED_CHART_KEY.problem(base + path[:depth], f"{chart_key} of the {release.chart} chart is set by "
                                                    f"{typed}: set that field instead of overriding it")
                break
