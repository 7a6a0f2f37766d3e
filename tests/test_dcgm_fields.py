"""The observability pack's DCGM field table is generated from the exporter's default
counter list and must match a fresh build from the pinned reference byte for byte."""

from __future__ import annotations

import subprocess
import sys

from reference import REPO_ROOT, reference_dir

SCRIPT = REPO_ROOT / "scripts" / "build-dcgm-fields.py"
TABLE = REPO_ROOT / "packs" / "observability" / "data" / "dcgm_fields.yaml"


def test_field_table_is_regenerated_from_reference(tmp_path):
    csv = reference_dir() / "chart-values" / "dcgm-exporter-4.5.3-4.8.2" / "default-counters.csv"
    out = tmp_path / "fields.yaml"
    subprocess.run([sys.executable, str(SCRIPT), str(csv), "--output", str(out)], check=True)
    assert out.read_bytes() == TABLE.read_bytes()


def test_xid_gauge_and_framebuffer_fields_are_known():
    import yaml

    rows = {r["name"]: r for r in yaml.safe_load(TABLE.read_text())["fields"]}
    assert rows["DCGM_FI_DEV_XID_ERRORS"]["type"] == "gauge" and rows["DCGM_FI_DEV_XID_ERRORS"]["enabled"]
    assert rows["DCGM_FI_DEV_FB_USED"]["enabled"] and rows["DCGM_FI_DEV_FB_FREE"]["enabled"]
    assert not rows["DCGM_EXP_XID_ERRORS_COUNT"]["enabled"], "the XID counter is opt-in in the default list"
