"""The built-in EC2 instance catalog and region list (src/strata/catalog)."""

from __future__ import annotations

import subprocess
import sys
from importlib.resources import files

import pytest
from reference import REPO_ROOT, reference_dir

from strata import catalog

SCRIPT = REPO_ROOT / "scripts" / "build-instance-catalog.py"
REFERENCE_MD = "karpenter-1.14.1-instance-types.md"


@pytest.mark.parametrize(
    "family",
    ["g4dn", "g5", "g6", "g6e", "p4d", "p4de", "p5", "p5e", "p5en", "p6-b200",
     "trn1", "trn2", "inf2"],
)
def test_catalog_has_family(family: str) -> None:
    types = catalog.families()[family]
    assert types and all(t.family == family and t.name.startswith(family + ".") for t in types)


@pytest.mark.parametrize(
    ("name", "gpu"),
    [
        # Values as in Karpenter 1.14.1's reference (instance-gpu-* labels, MiB per GPU).
        ("p4d.24xlarge", catalog.Gpu("nvidia", "a100", 8, 40960)),
        ("p4de.24xlarge", catalog.Gpu("nvidia", "a100", 8, 81920)),
        # 22888, not 24576: EC2 lists the A10G as 24 GB (decimal), i.e. 22888 MiB.
        ("g5.xlarge", catalog.Gpu("nvidia", "a10g", 1, 22888)),
        ("p5.48xlarge", catalog.Gpu("nvidia", "h100", 8, 81920)),
        ("g4ad.xlarge", catalog.Gpu("amd", "radeon-pro-v520", 1, 8192)),
    ],
)
def test_gpu_facts(name: str, gpu: catalog.Gpu) -> None:
    it = catalog.get(name)
    assert it is not None and it.gpu == gpu and it.is_gpu and it.accelerator is None
    resource = "amd.com/gpu" if gpu.manufacturer == "amd" else "nvidia.com/gpu"
    assert it.allocatable[resource] == gpu.count


def test_instance_facts() -> None:
    p4d = catalog.get("p4d.24xlarge")
    assert p4d is not None
    assert (p4d.arch, p4d.cpu, p4d.memory_mib, p4d.local_nvme_gb) == ("amd64", 96, 1179648, 8000)
    assert p4d.allocatable["vpc.amazonaws.com/efa"] == 4
    g5g = catalog.get("g5g.xlarge")
    assert g5g is not None and g5g.arch == "arm64" and g5g.local_nvme_gb is None


def test_neuron_accelerators() -> None:
    trn2 = catalog.get("trn2.48xlarge")
    assert trn2 is not None and not trn2.is_gpu and trn2.gpu is None
    assert trn2.accelerator == catalog.Accelerator("aws", "trainium2", 16)
    assert trn2.allocatable["aws.amazon.com/neuron"] == 16
    assert trn2.allocatable["aws.amazon.com/neuroncore"] == 128
    inf2 = catalog.get("inf2.xlarge")
    assert inf2 is not None and inf2.accelerator == catalog.Accelerator("aws", "inferentia2", 1)


def test_cpu_types_and_no_core_resources() -> None:
    # Every type of the reference, CPU-only ones included (1,336 in Karpenter 1.14.1).
    assert len(catalog.instance_types()) == 1336 and len(catalog.families()) == 175
    m5 = catalog.get("m5.large")
    assert m5 is not None and (m5.arch, m5.cpu, m5.memory_mib, m5.gpu, m5.accelerator) == ("amd64", 2, 8192, None, None)
    c7g = catalog.get("c7g.16xlarge")
    assert c7g is not None and c7g.arch == "arm64" and c7g.efa_interfaces == 1
    for it in catalog.instance_types().values():
        assert {"cpu", "memory", "pods", "ephemeral-storage"}.isdisjoint(it.allocatable)


def test_efa_as_the_reference_states_it() -> None:
    p5 = catalog.get("p5.48xlarge")
    assert p5 is not None and p5.efa_interfaces == 32
    assert catalog.get("m5.large").efa_interfaces == 0  # type: ignore[union-attr]


@pytest.mark.parametrize(("name", "efa", "gbps"), [
    # As the reference states them: the bandwidth is the instance's aggregate over all its
    # interfaces, so p4d is 4 EFA interfaces and 400 Gbps in total (not 4 x 400), trn1n 16
    # interfaces and 1600 Gbps in total (not 16 x 1600).
    ("p4d.24xlarge", 4, 400), ("trn1n.32xlarge", 16, 1600), ("p5.48xlarge", 32, 3200), ("trn2.48xlarge", 16, 3200),
    ("m5.large", 0, 0.75),
])
def test_network_facts_as_the_reference_states_them(name: str, efa: int, gbps: float) -> None:
    it = catalog.get(name)
    assert it is not None and it.efa_interfaces == efa and it.network_bandwidth_gbps == gbps


def test_network_bandwidth_absent_only_where_the_reference_gives_none() -> None:
    c1 = catalog.get("c1.medium")
    assert c1 is not None and c1.network_bandwidth_mbps is None and c1.network_bandwidth_gbps is None
    missing = [t for t in catalog.instance_types().values() if t.network_bandwidth_mbps is None]
    # The oldest generations and a few of the newest metal/9th-generation types (m9g, r8in.metal...).
    assert len(missing) == 81 and {"m3.medium", "m9g.48xlarge", "r8in.metal-96xl"} <= {t.name for t in missing}


def test_neuron_counts() -> None:
    trn1n, inf2, p5 = catalog.get("trn1n.32xlarge"), catalog.get("inf2.48xlarge"), catalog.get("p5.48xlarge")
    assert trn1n is not None and (trn1n.neuron_devices, trn1n.neuron_cores) == (16, 32)
    assert inf2 is not None and (inf2.neuron_devices, inf2.neuron_cores) == (12, 24)
    assert p5 is not None and (p5.neuron_devices, p5.neuron_cores) == (0, 0)


def test_fractional_gpu_types_have_no_whole_gpu() -> None:
    # Karpenter labels g6f with instance-gpu-count 0 and advertises no nvidia.com/gpu.
    g6f = catalog.get("g6f.large")
    assert g6f is not None and g6f.gpu is None and "nvidia.com/gpu" not in g6f.allocatable


@pytest.mark.parametrize(("name", "close"), [
    ("c7i.4xlarj", "c7i.4xlarge"), ("c7ii", "c7i"), ("g6x", "g6"), ("p5.48xlarg", "p5.48xlarge"), ("zzzzzz", None),
])
def test_suggest(name: str, close: str | None) -> None:
    assert catalog.suggest(name) == close


def test_regions() -> None:
    assert {"us-west-2", "us-east-1", "eu-central-1", "us-gov-west-1", "cn-north-1", "ap-southeast-7"} <= set(catalog.regions())
    assert "us-wst-2" not in catalog.regions() and catalog.suggest_region("us-wst-2") == "us-west-2"


def test_multi_node_nvlink_only_for_ultraserver_families() -> None:
    # Karpenter 1.14.1's reference has no P6e-GB200/GB300 UltraServer family, so none is set.
    flagged = {it.family for it in catalog.instance_types().values() if it.multi_node_nvlink}
    assert flagged <= {f for f in catalog.families() if f.startswith("p6e-gb")}


def test_resolve_and_unknown() -> None:
    resolved = catalog.resolve(["p5", "nope"], ["g5.xlarge", "p5.48xlarge", "zz.big"])
    names = [t.name for t in resolved]
    assert names == sorted({"p5.4xlarge", "p5.48xlarge", "g5.xlarge"})
    missing = catalog.unknown(["p5", "nope", "m5", "nope"], ["g5.xlarge", "zz.big"])
    assert missing == ("nope", "zz.big")
    assert catalog.unknown([], []) == () and catalog.resolve([], []) == ()
    with pytest.raises(TypeError):
        catalog.resolve("p5", [])


def test_gpu_names() -> None:
    assert {"t4", "a10g", "l4", "l40s", "a100", "h100", "h200", "b200"} <= catalog.gpu_names()


def test_catalog_is_read_only() -> None:
    it = catalog.get("g5.xlarge")
    assert it is not None
    with pytest.raises(TypeError):
        it.allocatable["nvidia.com/gpu"] = 2  # type: ignore[index]
    with pytest.raises(TypeError):
        catalog.instance_types()["x"] = it  # type: ignore[index]


def test_catalog_is_regenerated_from_reference(tmp_path) -> None:
    source = reference_dir() / REFERENCE_MD
    out = tmp_path / "instance_types.json"
    subprocess.run([sys.executable, str(SCRIPT), str(source), "--output", str(out)], check=True)
    committed = files("strata.catalog").joinpath("instance_types.json").read_bytes()
    assert out.read_bytes() == committed, (
        "src/strata/catalog/instance_types.json is stale: run scripts/build-instance-catalog.py"
    )
