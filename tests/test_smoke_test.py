"""One GPU smoke test: both GPU packs' smokeTest sections are the shared model with their own
defaults, and their Jobs come from the one shared macro, differing only in how the GPU is held."""

from __future__ import annotations

import pytest

from strata.packs.loader import discover
from strata.spec.model import NodePool
from strata.spec.pools import facts
from strata.spec.shared import GpuSmokeTest, smoke_test_job

PACKS = {p.name: p for p in discover()}


@pytest.mark.parametrize(("pack", "namespace"), [("compute", "gpu-smoke-test"), ("dra", "dra-smoke-test")])
def test_each_pack_keeps_its_defaults_on_the_shared_model(pack, namespace):
    model = PACKS[pack].config.model_fields["smoke_test"].annotation
    assert issubclass(model, GpuSmokeTest)
    defaults = model()
    assert (defaults.enabled, defaults.node_pool, defaults.namespace) == (False, None, namespace)


def test_the_gpu_is_held_by_a_limit_or_by_a_claim():
    pool = facts(NodePool.model_validate({"name": "gpu", "instanceTypes": ["g6.xlarge"],
                                          "taints": [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}]}))
    test = GpuSmokeTest(namespace="smoke")
    by_limit = smoke_test_job(test, "gpu-smoke-test", pool, run_as=65534)
    by_claim = smoke_test_job(test, "dra-smoke-test", pool, run_as=1000, claim_template="single-gpu")
    assert by_limit["resources"]["limits"] == {"memory": "128Mi", "nvidia.com/gpu": 1} and "claims" not in by_limit["resources"]
    assert by_claim["resources"]["limits"] == {"memory": "128Mi"} and by_claim["resources"]["claims"] == [{"name": "gpu"}]
    assert by_limit["tolerations"] == [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    assert by_limit["node_selector"] == {"karpenter.sh/nodepool": "gpu"}
