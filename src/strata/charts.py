"""The spec's ``charts:`` section: a Helm release's chart version and repository, overridden
within the version range the release's pack declares it supports (pack.yaml
``helmReleases[].supportedVersions``, e.g. ``>=1.14.1 <1.15.0``; without one, only the pinned
version). The release then renders, locks, pulls and hydrates with what the spec chose."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from typing import Any

from strata import rules
from strata.packs.contract import HelmReleaseManifest, Pack
from strata.problems import Problem

_CONSTRAINT = re.compile(r"^(>=|<=|>|<|=)?(v?[0-9]+(?:\.[0-9]+){0,2})$")
_VERSION = re.compile(r"^v?([0-9]+)\.([0-9]+)\.([0-9]+)$")


def version_key(version: str) -> tuple[int, int, int] | None:
    """A release version as numbers (a leading v ignored); None for anything else (a prerelease)."""
    match = _VERSION.match(version)
    return (int(match[1]), int(match[2]), int(match[3])) if match else None


def _padded(version: str) -> tuple[int, int, int]:
    parts = [int(p) for p in version.removeprefix("v").split(".")]
    return (parts + [0, 0, 0])[0], (parts + [0, 0])[1], (parts + [0, 0, 0])[2]


def in_range(version: str, supported: str) -> bool:
    """Whether ``version`` satisfies every space-separated constraint of ``supported``."""
    key = version_key(version)
    if key is None:
        return False
    for constraint in supported.split():
        match = _CONSTRAINT.match(constraint)
        if match is None:
            raise ValueError(f"not a version constraint: {constraint!r} (write e.g. >=1.14.1 <1.15.0)")
        op, bound = match[1] or "=", _padded(match[2])
        ok = {">=": key >= bound, "<=": key <= bound, ">": key > bound, "<": key < bound, "=": key == bound}[op]
        if not ok:
            return False
    return True


def supported(release: HelmReleaseManifest) -> str:
    return release.supported_versions or f"={release.version}"


def releases(packs: Iterable[Pack]) -> dict[str, tuple[Pack, HelmReleaseManifest]]:
    return {r.name: (p, r) for p in packs for r in p.manifest.helm_releases}


def check(pins: Mapping[str, Any], packs: Iterable[Pack]) -> list[Problem]:
    known = releases(packs)
    problems = []
    for name, pin in pins.items():
        if name not in known:
            close = difflib.get_close_matches(name, list(known), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else f"; the releases are {', '.join(sorted(known))}"
            problems.append(rules.UNKNOWN_CHART_RELEASE.problem(("charts", name), f"no installed pack has a Helm release named {name!r}{hint}"))
            continue
        pack, release = known[name]
        if pin.version is not None and not in_range(pin.version, supported(release)):
            problems.append(rules.CHART_VERSION_RANGE.problem(("charts", name, "version"), (
                f"{release.chart} {pin.version} is outside what pack {pack.name} {pack.version} supports "
                f"({supported(release)}; pinned {release.version})")))
    return problems


def apply(release: HelmReleaseManifest, pins: Mapping[str, Any]) -> HelmReleaseManifest:
    """The release as the spec's ``charts:`` entry for it says (unchanged without one)."""
    pin = pins.get(release.name)
    if pin is None:
        return release
    update = {k: v for k, v in (("version", pin.version), ("repo", pin.repo)) if v is not None}
    return release.model_copy(update=update)


def manifest_problems(releases_: Iterable[HelmReleaseManifest]) -> list[str]:
    """A pack's own range must parse and hold its pin (checked when the pack loads)."""
    found = []
    for release in releases_:
        try:
            if not in_range(release.version, supported(release)):
                found.append(f"helmReleases[{release.name}]: version {release.version} is outside its supportedVersions "
                             f"{supported(release)!r}")
        except ValueError as exc:
            found.append(f"helmReleases[{release.name}].supportedVersions: {exc}")
    return found
