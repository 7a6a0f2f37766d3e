"""Nested plain data (spec layers, Helm values, rendered objects): read a value at a key
path, walk every value with its path, merge maps. One helper each, used by the engine and
the packs alike."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

MISSING: Any = object()  # the default that tells "absent" from a stored None


def get(data: Any, path: Sequence[Any], default: Any = None) -> Any:
    """``data[p0][p1]...``, or ``default`` when a step is absent or not a container."""
    for part in path:
        if isinstance(data, dict):
            if part not in data:
                return default
            data = data[part]
        elif isinstance(data, list) and isinstance(part, int) and 0 <= part < len(data):
            data = data[part]
        else:
            return default
    return data


def has(data: Any, path: Sequence[Any]) -> bool:
    return get(data, path, MISSING) is not MISSING


def walk(data: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """Every (path, value) pair, the root first, maps and lists depth first in their order."""
    yield path, data
    if isinstance(data, dict):
        for key, value in data.items():
            yield from walk(value, path + (key,))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from walk(value, path + (i,))


def merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """``over`` merged into a copy of ``base``: maps merge key by key, anything else replaces
    (Helm's coalescing of values files)."""
    merged = dict(base)
    for key, value in over.items():
        merged[key] = merge(merged[key], value) if isinstance(value, dict) and isinstance(merged.get(key), dict) else value
    return merged
