"""A team's GPU cap holds for DRA: every team with a quota gets a ResourceQuota capping each
GPU DeviceClass and its ResourceClaims, and a workload whose claims would go over it is
refused at render time, charged the way the API server's quota evaluator charges claims."""

from __future__ import annotations

import yaml
from conftest import VALUES, render_clean

from strata import pipeline

EXAMPLE = VALUES / "ml-storage-dra.yaml"


def load(text: str) -> pipeline.Loaded:
    return pipeline.load([("ml-storage-dra.yaml", text.encode())])


def quota_problems(text: str) -> list[str]:
    return [p.format() for p in load(text).problems if p.rule == "dra/exceeds-team-quota"]


def test_every_team_quota_caps_each_gpu_device_class_and_claims():
    tree = render_clean(("ml-storage-dra.yaml", EXAMPLE.read_bytes()))
    quota = yaml.safe_load(tree["dra/team-quotas/resourcequota-inference-dra-devices.yaml"])
    assert quota["spec"]["hard"] == {
        "count/resourceclaims.resource.k8s.io": "32",
        "gpu.nvidia.com.deviceclass.resource.k8s.io/devices": "16",
        "h100.gpu.platform.example.com.deviceclass.resource.k8s.io/devices": "16",
        "mig.nvidia.com.deviceclass.resource.k8s.io/devices": "16",
        "vfio.gpu.nvidia.com.deviceclass.resource.k8s.io/devices": "16",
    }


def test_the_example_fits_its_quotas():
    assert quota_problems(EXAMPLE.read_text()) == []


def test_a_deployment_over_the_team_gpu_cap_is_refused():
    # llm-inference (team serving, 16 GPUs): one GPU per Pod; 13 replicas run 17 Pods while rolling.
    text = EXAMPLE.read_text().replace("      replicas: 2\n", "      replicas: 13\n")
    problems = quota_problems(text)
    assert len(problems) == 1
    assert "dra.workloads[1]" in problems[0]
    assert "llm-inference (17 Pods during a rolling update) brings team serving's gpu.nvidia.com devices to 17" in problems[0]
    assert "its quota allows 16 (teams[1].quota.gpus)" in problems[0]
    assert quota_problems(EXAMPLE.read_text().replace("      replicas: 2\n", "      replicas: 12\n")) == []


def test_allocation_mode_all_is_charged_its_worst_case():
    # all-h100 asks for every H100 of a node: the quota evaluator charges 32 devices per claim.
    text = EXAMPLE.read_text().replace("      kind: Job\n      team: research\n", "      kind: Job\n      team: research\n      replicas: 2\n")
    problems = quota_problems(text)
    assert len(problems) == 1
    assert "brings team research's h100.gpu.platform.example.com devices to 64 (allocationMode All counts as 32)" in problems[0]


def test_a_claim_cap_below_the_workloads_claims_is_refused():
    text = EXAMPLE.read_text().replace("quota: {cpu: \"128\", memory: 512Gi, gpus: 16}", "quota: {cpu: \"128\", memory: 512Gi, gpus: 16, resourceClaims: 2}")
    problems = quota_problems(text)
    assert len(problems) == 1
    assert "brings team serving's ResourceClaims to 3; its quota allows 2 (teams[1].quota.resourceClaims)" in problems[0]
