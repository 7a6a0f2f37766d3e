"""The chart key indexes under packs/*/helm/keys/ are exactly what scripts/build-chart-keys.py
makes from the pinned charts' reference values, one per pinned release."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from reference import REPO_ROOT, reference_dir

from strata.overrides import index_file
from strata.packs.loader import discover

SCRIPT = REPO_ROOT / "scripts" / "build-chart-keys.py"


def _committed() -> dict[str, bytes]:
    return {p.relative_to(REPO_ROOT / "packs").as_posix(): p.read_bytes() for p in sorted((REPO_ROOT / "packs").glob("*/helm/keys/*.yaml"))}


def test_chart_keys_are_regenerated_from_the_reference(tmp_path: Path) -> None:
    subprocess.run([sys.executable, str(SCRIPT), "--reference", str(reference_dir() / "chart-values"),
                    "--output-root", str(tmp_path)], check=True, capture_output=True)
    generated = {p.relative_to(tmp_path).as_posix(): p.read_bytes() for p in sorted(tmp_path.glob("*/helm/keys/*.yaml"))}
    assert generated.keys() == _committed().keys(), "run scripts/build-chart-keys.py: the set of indexes is stale"
    stale = [name for name, text in generated.items() if _committed()[name] != text]
    assert not stale, f"stale chart key indexes {stale}: run scripts/build-chart-keys.py"


def test_every_release_taking_overrides_has_an_index_naming_its_chart() -> None:
    from strata import yamlio

    for pack in discover():
        for release in pack.manifest.helm_releases:
            if release.values_overrides is None and not index_file(pack.root, release).is_file():
                continue  # takes no overrides, and the reference has no values to index
            index = yamlio.load(index_file(pack.root, release).read_bytes())
            assert (index["chart"], index["version"]) == (release.chart, release.version)
            assert index["keys"], f"{release.name}: an empty index would accept any key"
