"""README.md's compatibility table is what scripts/build-compatibility-table.py makes of the
packs' pins, and the script really reads those pins (a changed pin changes the table)."""

from __future__ import annotations

import subprocess
import sys

import yaml
from reference import REPO_ROOT, load_script

SCRIPT = REPO_ROOT / "scripts" / "build-compatibility-table.py"


def _script():
    return load_script("build-compatibility-table.py")


def test_readme_table_is_current():
    result = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr


def test_every_pinned_chart_and_crd_set_is_in_the_table():
    table = _script().table()
    for manifest_file in sorted((REPO_ROOT / "packs").glob("*/pack.yaml")):
        manifest = yaml.safe_load(manifest_file.read_text())
        for release in manifest.get("helmReleases", ()):
            row = next(line for line in table.splitlines() if line.startswith(f"| {manifest['name']} |") and f"| {release['name']} " in line)
            assert f"| {release['version']} | `{release['repo']}` |" in row
        for crd_set in manifest.get("crds", ()):
            assert crd_set in table


def test_a_changed_pin_makes_the_table_stale(tmp_path, monkeypatch):
    script = _script()
    packs = tmp_path / "packs"
    for manifest_file in (REPO_ROOT / "packs").glob("*/pack.yaml"):
        (packs / manifest_file.parent.name).mkdir(parents=True)
        (packs / manifest_file.parent.name / "pack.yaml").write_text(manifest_file.read_text())
    karpenter = packs / "compute" / "pack.yaml"
    karpenter.write_text(karpenter.read_text().replace("version: 1.14.1", "version: 1.99.0", 1))
    (tmp_path / "pyproject.toml").write_text((REPO_ROOT / "pyproject.toml").read_text())
    (tmp_path / "src").symlink_to(REPO_ROOT / "src")
    readme = tmp_path / "README.md"
    readme.write_text((REPO_ROOT / "README.md").read_text())
    monkeypatch.setattr(script, "ROOT", tmp_path)
    monkeypatch.setattr(script, "README", readme)

    assert script.main(["--check"]) == 1
    assert script.main([]) == 0
    assert "| compute | 0.1.0 | 1.34 to 1.37 | karpenter | 1.99.0 |" in readme.read_text()
    assert script.main(["--check"]) == 0
