"""``strata catalog``: shows the instance types, families and regions the rules check against."""

from __future__ import annotations

import json

import pytest

from strata.cli import main


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(["catalog", *args])
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def test_one_type(capsys) -> None:
    code, out, _ = run(capsys, "p5.48xlarge")
    assert code == 0
    assert "8 x nvidia h100 (81920 MiB each)" in out and "EFA interfaces:     32" in out and "vCPUs:              192" in out


def test_capacity_facts_of_a_neuron_type(capsys) -> None:
    code, out, _ = run(capsys, "trn1n.32xlarge")
    assert code == 0
    assert "Neuron:             16 devices, 32 NeuronCores" in out and "EFA interfaces:     16" in out
    assert "network bandwidth:  1600 Gbps (aggregate over all interfaces)" in out


def test_family_lists_every_type(capsys) -> None:
    code, out, _ = run(capsys, "--family", "g6e")
    lines = out.splitlines()
    assert code == 0 and lines[0].split() == ["type", "arch", "vCPUs", "memory", "MiB", "accelerators", "EFA", "network"]
    assert [line.split()[0] for line in lines[1:]] == [
        "g6e.xlarge", "g6e.2xlarge", "g6e.4xlarge", "g6e.8xlarge", "g6e.12xlarge", "g6e.16xlarge", "g6e.24xlarge", "g6e.48xlarge"]


def test_json_cpu_type(capsys) -> None:
    code, out, _ = run(capsys, "--format", "json", "c7i.4xlarge")
    (record,) = json.loads(out)
    assert code == 0
    assert record | {"allocatable": None} == {
        "name": "c7i.4xlarge", "family": "c7i", "architecture": "amd64", "vcpus": 16, "memoryMiB": 32768, "gpu": None,
        "accelerator": None, "efaInterfaces": 0, "neuronDevices": 0, "neuronCores": 0, "networkBandwidthMbps": 6250, "multiNodeNVLink": False, "localNvmeGB": None, "allocatable": None}


def test_summary_names_every_family(capsys) -> None:
    code, out, _ = run(capsys, "--format", "json")
    families = {r["family"]: r for r in json.loads(out)}
    assert code == 0 and len(families) == 175
    assert families["p5"]["accelerators"] == "nvidia h100" and families["m7g"]["architectures"] == ["arm64"]


@pytest.mark.parametrize(("args", "message"), [
    (["c7i.4xlarj"], "no instance type 'c7i.4xlarj' in the catalog; did you mean 'c7i.4xlarge'?"),
    (["--family", "c7ii"], "no instance family 'c7ii' in the catalog; did you mean 'c7i'?"),
])
def test_unknown_name_is_a_usage_error_with_a_suggestion(capsys, args, message) -> None:
    code, out, err = run(capsys, *args)
    assert code == 2 and out == "" and message in err


def test_regions(capsys) -> None:
    code, out, _ = run(capsys, "--regions", "--format", "json")
    assert code == 0 and json.loads(out)["us-west-2"] == "US West (Oregon)"
