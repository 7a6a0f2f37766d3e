"""The documented team overlay (values/overlays/research) builds on a rendered tree with the
real kustomize and patches only the team's quota."""

from __future__ import annotations

import shutil

import yaml
from conftest import VALUES, require_tool

from strata import tools


def test_team_overlay_builds_on_the_rendered_base(strata, tmp_path):
    require_tool("kustomize")
    repo = tmp_path / "repo"
    base = repo / "clusters" / "ml-prod"
    assert strata("render", "-f", VALUES / "realistic.yaml", "-o", base, "--no-validate").returncode == 0
    shutil.copytree(VALUES / "overlays" / "research", repo / "overlays" / "research")
    built = tools.run("kustomize", ["build", str(repo / "overlays" / "research")])
    assert built.returncode == 0, built.stderr
    objects = list(yaml.safe_load_all(built.stdout))
    quotas = {(o["metadata"]["namespace"], o["metadata"]["name"]): o for o in objects if o["kind"] == "ResourceQuota"}
    assert quotas[("research", "team-quota")]["spec"]["hard"]["requests.nvidia.com/gpu"] == "48"
    assert quotas[("inference", "team-quota")]["spec"]["hard"]["requests.nvidia.com/gpu"] == "16", "other teams are untouched"
    assert any(o["kind"] == "ConfigMap" and o["metadata"]["name"] == "notebook-defaults" for o in objects)
    assert any(o["kind"] == "NodePool" for o in objects), "the overlay builds on the whole platform"
