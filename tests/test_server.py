"""`validate --server`: the real kube-apiserver and etcd (built from the pinned wrapper
modules) accept every example and valid case without a single warning, reject the classic
mistakes kubeconform lets through (CEL rules of the CRDs, built-in and DRA validation, Pod
Security), and leave no process, port or temp dir behind, also when interrupted.

One control plane serves the whole session (CRDs installed once); the CLI tests start their
own, as a user's run does."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import EXAMPLES, REPO_ROOT, VALUES, render_clean, require_tool
from reference import reference_dir
from stand_ins import notebook, stand_ins

from strata import pipeline
from strata.cli.commands import pack_crd_sets
from strata.validate import kubeconform
from strata.validate.server import SERVER, ControlPlane

CASES = REPO_ROOT / "tests" / "cases" / "valid"
FLEET = VALUES / "fleet"


def _require_server_tools() -> None:
    require_tool("etcd")
    require_tool("kube-apiserver")


@pytest.fixture(scope="session")
def plane():
    _require_server_tools()
    with ControlPlane(pack_crd_sets(reference_dir() / "crds")) as control_plane:
        yield control_plane


def _write(tree: dict[str, bytes], root: Path) -> list[str]:
    for path, content in tree.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(content)
    return pipeline.manifest_files(list(tree))


def _layers(*paths: Path) -> list[tuple[str, bytes]]:
    return [(str(p.relative_to(REPO_ROOT)), p.read_bytes()) for p in paths]


TREES = {
    **{f"values/{e}": (VALUES / f"{e}.yaml",) for e in EXAMPLES},
    "values/fleet/prod": (FLEET / "base.yaml", FLEET / "prod.yaml"),
    "values/fleet/staging": (FLEET / "base.yaml", FLEET / "staging.yaml"),
    **{f"cases/valid/{c.stem}": (c,) for c in sorted(CASES.glob("*.yaml"))},
}


WORKLOADS = {"Job", "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet"}
ENFORCE = "pod-security.kubernetes.io/enforce"


def _write_pods(root: Path, files: list[str]) -> list[str]:
    """Stand-in Pods for every pod template of the tree: those inside RayClusters, RayJobs and
    WorkflowTemplates (tests/stand_ins.py; Argo steps with the executor containers the tree's
    argo-workflows values give them) and those of Jobs and Deployments. Pod Security admission
    only warns about a pod template but refuses a Pod: as Pods, the templates meet the enforce
    level of their namespace. Written to stand-ins/, returned as tree files."""
    docs = [yaml.safe_load((root / f).read_text()) for f in files]
    argo_values = next((root / f for f in _values_files(root) if f.parent.name == "argo-workflows"), None)
    executor = (yaml.safe_load(argo_values.read_text()) or {}).get("executor", {}) if argo_values else None
    pods = []
    for doc in docs:
        pods += stand_ins(doc, executor=executor)
        if doc["kind"] in WORKLOADS:
            template = doc["spec"]["template"]
            pods.append({"apiVersion": "v1", "kind": "Pod",
                         "metadata": {"name": f"{doc['kind'].lower()}-{doc['metadata']['name']}",
                                      "namespace": doc["metadata"].get("namespace"),
                                      "labels": dict((template.get("metadata") or {}).get("labels") or {})},
                         "spec": template["spec"]})
    out = []
    for pod in pods:
        path = f"stand-ins/{pod['metadata']['namespace']}/pod-{pod['metadata']['name']}.yaml"
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(yaml.safe_dump(pod, sort_keys=False))
        out.append(path)
    return out


def _values_files(root: Path) -> list[Path]:
    return sorted(p.relative_to(root) for p in root.glob("*/helm/*/values.yaml"))


@pytest.mark.parametrize("name", sorted(TREES))
def test_tree_passes_the_api_server_without_a_warning(name, plane, tmp_path):
    """Every object, and every pod template as a Pod in its namespace (so Pod Security refuses
    what the namespace's enforce level does not admit, instead of warning)."""
    tree = render_clean(*_layers(*TREES[name]))
    files = _write(tree, tmp_path)
    assert files, "a tree without objects proves nothing"
    assert plane.validate_tree(tmp_path, [*files, *_write_pods(tmp_path, files)], "out") == []


def test_team_pods_are_admitted_where_restricted_is_enforced_and_others_refused(plane, rendered_examples, tmp_path):
    """The jark and DRA examples' team namespaces enforce Pod Security restricted; every Pod
    strata makes there (Ray heads with the autoscaler, workers, the RayJob submitter, Argo steps
    with their executor, DRA Jobs and Deployments) is admitted, so are the hub's notebooks (their
    namespace enforces baseline, for the chart's own Pods), and a Pod that breaks restricted is
    refused."""
    pods: list[str] = []
    namespaces: list[str] = []
    for example in ("jark", "ml-storage-dra"):
        root = tmp_path / example
        files = _write(rendered_examples[example], root)
        teams = {}
        for f in files:
            doc = yaml.safe_load((root / f).read_text())
            if doc["kind"] == "Namespace" and "strata.dev/team" in doc["metadata"].get("labels", {}):
                teams[doc["metadata"]["name"]] = doc["metadata"]["labels"][ENFORCE]
                namespaces.append(f"{example}/{f}")
        assert teams and set(teams.values()) == {"restricted"}, teams
        pods += [f"{example}/{p}" for p in _write_pods(root, files)
                 if yaml.safe_load((root / p).read_text())["metadata"]["namespace"] in teams]
    # the hub's notebooks as KubeSpawner makes them, judged where restricted is enforced
    hub_values = yaml.safe_load((tmp_path / "jark/jark/helm/jupyterhub/values.yaml").read_text())
    (tmp_path / "jark/stand-ins/research/pod-jupyterhub-notebook.yaml").write_text(yaml.safe_dump(notebook(hub_values, "research")))
    pods.append("jark/stand-ins/research/pod-jupyterhub-notebook.yaml")
    names = {Path(p).name for p in pods}
    assert {"pod-raycluster-research-head.yaml", "pod-rayjob-finetune-llm-submitter.yaml",
            "pod-workflowtemplate-dataflow-step-train.yaml", "pod-job-llm-finetune.yaml",
            "pod-deployment-llm-inference.yaml"} <= names, names
    head = next(p for p in pods if p.endswith("/pod-raycluster-research-head.yaml"))
    assert [c["name"] for c in yaml.safe_load((tmp_path / head).read_text())["spec"]["containers"]] == ["ray-head", "autoscaler"]
    assert plane.validate_tree(tmp_path, [*namespaces, *pods], "out") == []
    # the counter-proof: the same head Pod, its autoscaler allowed to escalate, is refused
    _edit(tmp_path / head, lambda d: d["spec"]["containers"][1]["securityContext"].update(allowPrivilegeEscalation=True))
    problems = plane.validate_tree(tmp_path, [*namespaces, head], "out")
    assert [(p.where, p.is_error) for p in problems] == [(f"out/{head}: Pod/research/raycluster-research-head", True)], problems
    assert 'violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "autoscaler"' in problems[0].message


def test_hydrated_releases_are_dry_run_too(plane, strata, tmp_path):
    from test_hydrate import _chart_cache

    require_tool("helm")
    out = tmp_path / "out"
    assert strata("render", "-f", VALUES / "minimal.yaml", "-o", out).returncode == 0
    result = strata("hydrate", out, "--charts", _chart_cache(tmp_path, out))
    assert result.returncode == 0, result.stderr
    files = pipeline.manifest_files(yaml.safe_load((out / "strata.lock").read_text())["files"])
    hydrated = [f for f in files if "/hydrated/" in f]
    assert hydrated
    assert plane.validate_tree(out, files, "out") == []
    # and the server really reads them: a hydrated Deployment with a broken selector
    deployment = next(f for f in hydrated if f.endswith("/karpenter/deployment-kube-system-karpenter.yaml"))
    _edit(out / deployment, lambda d: d["spec"]["selector"]["matchLabels"].update(app="other"))
    problems = plane.validate_tree(out, files, "out")
    assert [p.where for p in problems] == [f"out/{deployment}: Deployment/kube-system/karpenter"]
    assert "`selector` does not match template `labels`" in problems[0].message


def _edit(path: Path, change: Callable[[dict[str, Any]], Any]) -> None:
    doc = yaml.safe_load(path.read_text())
    change(doc)
    path.write_text(yaml.safe_dump(doc, sort_keys=False))


def _requirements(doc):
    return doc["spec"]["template"]["spec"]["requirements"]


def _dra_request(doc):
    return doc["spec"]["spec"]["devices"]["requests"][0]


# (example, file, change, what the server says) -- each is accepted by kubeconform -strict.
BROKEN = {
    "nodepool-hostname-requirement": (
        "realistic", "compute/karpenter/nodepool-gpu-training.yaml",
        lambda d: _requirements(d).append({"key": "kubernetes.io/hostname", "operator": "In", "values": ["node-1"]}),
        'label "kubernetes.io/hostname" is restricted'),
    "nodepool-nodepool-requirement": (
        "realistic", "compute/karpenter/nodepool-gpu-training.yaml",
        lambda d: _requirements(d).append({"key": "karpenter.sh/nodepool", "operator": "In", "values": ["x"]}),
        'label "karpenter.sh/nodepool" is restricted'),
    "nodepool-in-without-values": (
        "realistic", "compute/karpenter/nodepool-gpu-training.yaml",
        lambda d: _requirements(d).append({"key": "team", "operator": "In", "values": []}),
        "requirements with operator 'In' must have a value defined"),
    "ec2nodeclass-role-and-instance-profile": (
        "realistic", "compute/karpenter/ec2nodeclass-gpu-training.yaml",
        lambda d: d["spec"].update(instanceProfile="ml-prod-nodes"),
        "must specify exactly one of ['role', 'instanceProfile']"),
    "ec2nodeclass-bottlerocket-family-with-al2023-alias": (
        "realistic", "compute/karpenter/ec2nodeclass-gpu-training.yaml",
        lambda d: d["spec"].update(amiFamily="Bottlerocket"),
        "if set, amiFamily must be 'AL2023' or 'Custom' when using an AL2023 alias"),
    "ec2nodeclass-two-root-volumes": (
        "realistic", "compute/karpenter/ec2nodeclass-gpu-training.yaml",
        lambda d: d["spec"].update(blockDeviceMappings=[
            {"deviceName": "/dev/xvda", "rootVolume": True, "ebs": {"volumeSize": "100Gi"}},
            {"deviceName": "/dev/xvdb", "rootVolume": True, "ebs": {"volumeSize": "100Gi"}}]),
        "must have only one blockDeviceMappings with rootVolume"),
    "deviceclass-selector-does-not-compile": (
        "ml-storage-dra", "dra/device-classes/deviceclass-h100.gpu.platform.example.com.yaml",
        lambda d: d["spec"]["selectors"][0]["cel"].update(expression="device.driver ==="),
        "compilation failed"),
    "deviceclass-selector-not-a-bool": (
        "ml-storage-dra", "dra/device-classes/deviceclass-h100.gpu.platform.example.com.yaml",
        lambda d: d["spec"]["selectors"][0]["cel"].update(expression="device.driver"),
        "must evaluate to bool"),
    "dra-count-with-allocation-mode-all": (
        "ml-storage-dra", "dra/claims/resourceclaimtemplate-research-all-h100.yaml",
        lambda d: _dra_request(d)["exactly"].update(count=2),
        "must not be specified when allocationMode is 'All'"),
    "dra-invalid-request-name": (
        "ml-storage-dra", "dra/claims/resourceclaimtemplate-research-all-h100.yaml",
        lambda d: _dra_request(d).update(name="GPU_0"),
        "a lowercase RFC 1123 label must consist of"),
    "quota-quantity-with-a-unit-word": (
        "realistic", "tenancy/teams/resourcequota-research-team-quota.yaml",
        lambda d: d["spec"]["hard"].update({"requests.cpu": "400 cores"}),
        "quantities must match the regular expression"),
    "namespace-invalid-name": (
        "realistic", "tenancy/teams/namespace-research.yaml",
        lambda d: d["metadata"].update(name="Research_Team"),
        "a lowercase RFC 1123 label must consist of"),
    "networkpolicy-ipblock-and-selector-in-one-peer": (
        "realistic", "tenancy/teams/networkpolicy-research-allow-egress.yaml",
        lambda d: d["spec"]["egress"][0]["to"][0].update(podSelector={}),
        "may not specify both ipBlock and another peer"),
    "raycluster-managed-by": (
        "jark", "jark/kuberay/raycluster-research-research.yaml",
        lambda d: d["spec"].update(managedBy="someone-else"),
        "the managedBy field value must be either 'ray.io/kuberay-operator' or 'kueue.x-k8s.io/multikueue'"),
    "workflowtemplate-depends-and-dependencies": (
        "jark", "jark/argo-workflows/workflowtemplate-research-dataflow.yaml",
        lambda d: d["spec"]["templates"][0]["dag"]["tasks"][1].update(dependencies=["validate"]),
        "cannot use both 'depends' and 'dependencies'"),
}


@pytest.fixture(scope="module")
def rendered_examples(tmp_path_factory):
    """Each example rendered once; a broken case copies the tree it changes."""
    return {e: render_clean(*_layers(VALUES / f"{e}.yaml")) for e in {case[0] for case in BROKEN.values()}}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_server_rejects_what_kubeconform_accepts(case, plane, rendered_examples, schema_store, tmp_path):
    require_tool("kubeconform")
    example, file, change, expected = BROKEN[case]
    tree = rendered_examples[example]
    files = _write(tree, tmp_path)
    assert file in files, f"{example} no longer renders {file}"
    _edit(tmp_path / file, change)
    version = yaml.safe_load(tree["strata.lock"])["kubernetesVersion"]
    # kubeconform alone: strict OpenAPI shape, accepted
    assert kubeconform.validate_files(tmp_path, [file], version, schema_store) == []
    # the server: the changed object (plus the Namespaces, for their Pod Security labels)
    namespaces = [f for f in files if "/namespace-" in f]
    problems = plane.validate_tree(tmp_path, sorted({file, *namespaces}), "out")
    doc = yaml.safe_load((tmp_path / file).read_text())
    ns = doc["metadata"].get("namespace")
    where = f"out/{file}: {doc['kind']}/{ns + '/' if ns else ''}{doc['metadata']['name']}"
    assert [(p.where, p.rule, p.is_error) for p in problems] == [(where, SERVER.id, True)], problems
    assert expected in problems[0].message


def test_pod_security_warnings_become_problems(plane, rendered_examples, tmp_path):
    """A Pod on the host network in a namespace that enforces restricted: the server accepts
    the Job (its Pods would be refused) and warns; the warning is a problem."""
    tree = rendered_examples["realistic"]
    files = _write(tree, tmp_path)
    job = next(f for f in files if "/job-" in f)
    namespace = yaml.safe_load((tmp_path / job).read_text())["metadata"]["namespace"]
    ns_file = next(f for f in files if f.endswith(f"/namespace-{namespace}.yaml"))
    _edit(tmp_path / ns_file, lambda d: d["metadata"].setdefault("labels", {}).update({
        "pod-security.kubernetes.io/enforce": "restricted", "pod-security.kubernetes.io/warn": "restricted"}))
    _edit(tmp_path / job, lambda d: d["spec"]["template"]["spec"].update(hostNetwork=True))
    problems = plane.validate_tree(tmp_path, [job, ns_file], "out")
    assert len(problems) == 1 and not problems[0].is_error, problems
    assert problems[0].where.startswith(f"out/{job}: Job/{namespace}/")
    assert 'would violate PodSecurity "restricted:latest"' in problems[0].message
    assert "hostNetwork=true" in problems[0].message


# -- the CLI: one control plane per run, torn down every time ---------------------------------


def _control_plane_processes(tmp: Path) -> dict[int, list[str]]:
    """pid -> argv of every process whose command line names a path under ``tmp``."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0")
        except OSError:
            continue
        if any(str(tmp) in arg for arg in argv):
            found[int(entry.name)] = argv
    return found


def _ports(argv: list[str]) -> set[int]:
    ports = set()
    for arg in argv:
        for part in arg.replace(",", " ").replace("=", " ").split():
            if part.startswith("http://127.0.0.1:"):
                ports.add(int(part.rsplit(":", 1)[1]))
    if "--secure-port" in argv:
        ports.add(int(argv[argv.index("--secure-port") + 1]))
    return ports


def _run_strata(args: list[str], tmp: Path, schema_store: Path, *, interrupt: signal.Signals | None = None):
    """Run strata with its temp dir inside ``tmp``; watch the control plane it starts.
    Returns (exit code, stdout, stderr, {pid: argv} seen while it ran)."""
    tmp.mkdir()
    env = dict(os.environ, TMPDIR=str(tmp), STRATA_SCHEMA_STORE=str(schema_store))
    proc = subprocess.Popen([sys.executable, "-m", "strata", *args], cwd=REPO_ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen: dict[int, list[str]] = {}
    deadline = time.monotonic() + 600
    while proc.poll() is None and time.monotonic() < deadline:
        seen.update(_control_plane_processes(tmp))
        if interrupt is not None and any(Path(a[0]).name == "kube-apiserver" for a in seen.values()):
            time.sleep(1)  # mid-start: etcd up, the apiserver starting
            proc.send_signal(interrupt)
            interrupt = None
        time.sleep(0.1)
    out, err = proc.communicate(timeout=120)
    return proc.returncode, out, err, seen


def _assert_nothing_survives(tmp: Path, seen: dict[int, list[str]]) -> None:
    names = {Path(argv[0]).name for argv in seen.values()}
    assert {"etcd", "kube-apiserver"} <= names, f"the control plane was not observed: {seen}"
    assert _control_plane_processes(tmp) == {}, "a control plane process survived"
    assert list(tmp.iterdir()) == [], "a temp dir survived"
    for port in set().union(*(_ports(argv) for argv in seen.values())):
        with socket.socket() as sock:
            assert sock.connect_ex(("127.0.0.1", port)) != 0, f"port {port} still listens"
    for argv in seen.values():
        if Path(argv[0]).name not in ("etcd", "kube-apiserver"):
            continue  # kustomize and kubeconform, run on files in the temp dir
        bound = [a for a in argv if "127.0.0.1" in a or a.startswith("--bind-address")]
        assert all("0.0.0.0" not in a for a in argv), argv
        assert bound, f"{argv[0]} binds nothing explicitly to loopback"


def _rendered_example(strata, tmp_path, example: str):
    out = tmp_path / "out"
    result = strata("render", "-f", VALUES / f"{example}.yaml", "-o", out)
    assert result.returncode == 0, result.stderr
    return out


@pytest.fixture
def realistic_tree(strata, tmp_path):
    return _rendered_example(strata, tmp_path, "realistic")


def test_cli_validate_server_passes_realistic_and_leaves_nothing(realistic_tree, schema_store, tmp_path):
    _require_server_tools()
    code, out, err, seen = _run_strata(["validate", "--server", "--crds", reference_dir() / "crds", realistic_tree],
                                       tmp_path / "tmp", schema_store)
    assert code == 0, out + err
    assert out == ""
    objects = len(pipeline.manifest_files(yaml.safe_load((realistic_tree / "strata.lock").read_text())["files"]))
    assert f"{realistic_tree}: {objects} objects valid (and on kube-apiserver v" in err
    _assert_nothing_survives(tmp_path / "tmp", seen)


@pytest.fixture
def minimal_tree(strata, tmp_path):
    """The smallest tree with CRD kinds: a CLI run installs only the Karpenter and GPU Operator CRDs."""
    return _rendered_example(strata, tmp_path, "minimal")


def test_cli_validate_server_names_each_broken_object(minimal_tree, schema_store, tmp_path):
    _require_server_tools()
    nodepool, nodeclass = "compute/karpenter/nodepool-gpu.yaml", "compute/karpenter/ec2nodeclass-gpu.yaml"
    _edit(minimal_tree / nodepool, BROKEN["nodepool-hostname-requirement"][2])
    _edit(minimal_tree / nodeclass, BROKEN["ec2nodeclass-role-and-instance-profile"][2])
    code, out, err, seen = _run_strata(["validate", "--server", "--crds", reference_dir() / "crds", minimal_tree],
                                       tmp_path / "tmp", schema_store)
    assert code == 1, out + err
    lines = out.splitlines()
    assert len(lines) == 2, out
    assert lines[0].startswith(f"{minimal_tree}/{nodeclass}: EC2NodeClass/gpu: ")
    assert "must specify exactly one of ['role', 'instanceProfile']" in lines[0] and lines[0].endswith("[validate/server]")
    assert lines[1].startswith(f"{minimal_tree}/{nodepool}: NodePool/gpu: ")
    assert 'label "kubernetes.io/hostname" is restricted' in lines[1]
    _assert_nothing_survives(tmp_path / "tmp", seen)


def test_cli_render_server_validates_before_writing(schema_store, tmp_path):
    _require_server_tools()
    out = tmp_path / "out"
    code, stdout, err, seen = _run_strata(["render", "-f", VALUES / "minimal.yaml", "-o", out, "--server",
                                           "--crds", reference_dir() / "crds"], tmp_path / "tmp", schema_store)
    assert code == 0, stdout + err
    assert (out / "strata.lock").is_file()
    _assert_nothing_survives(tmp_path / "tmp", seen)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_interrupted_run_leaves_nothing(sig, minimal_tree, schema_store, tmp_path):
    _require_server_tools()
    code, out, err, seen = _run_strata(["validate", "--server", "--crds", reference_dir() / "crds", minimal_tree],
                                       tmp_path / "tmp", schema_store, interrupt=sig)
    assert code == 2, out + err
    assert "strata: aborted" in err and "Traceback" not in err
    _assert_nothing_survives(tmp_path / "tmp", seen)


def test_missing_server_binaries_give_one_line_naming_the_install_command(minimal_tree, schema_store, tmp_path):
    empty = tmp_path / "no-tools"
    (empty / "bin").mkdir(parents=True)
    env = dict(os.environ, STRATA_TOOLS_DIR=str(empty), PATH=f"{empty / 'bin'}:/usr/bin:/bin", STRATA_SCHEMA_STORE=str(schema_store),
               XDG_CACHE_HOME=str(tmp_path / "cache"))
    # kubeconform and kustomize would be missing first: link them in, leave the server out
    from strata import tools

    for name in ("kubeconform", "kustomize"):
        (empty / "bin" / name).symlink_to(tools.find(name))
    result = subprocess.run([sys.executable, "-m", "strata", "validate", "--server", "--crds", str(reference_dir() / "crds"),
                             str(minimal_tree)], cwd=REPO_ROOT, env=env, capture_output=True, text=True, check=False)
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stderr.strip().splitlines() == [
        "strata: error: etcd, kube-apiserver are not installed: run strata tools install --server (builds them once, about a quarter of an hour)"]


def test_server_rule_is_listed_and_explained(strata):
    assert SERVER.id in strata("rules").stdout
    result = strata("explain", SERVER.id)
    assert result.returncode == 0 and "CEL" in result.stdout


def test_server_without_crds_is_a_usage_error_naming_the_option(minimal_tree, strata):
    """The CRD YAML is not in the schema store (only converted schemas are): say where to give it."""
    result = strata("validate", "--server", minimal_tree, env={"STRATA_CRDS": ""})
    assert result.returncode == 2, result.stdout + result.stderr
    assert "give --crds DIR (e.g. ../shared/reference/crds) or set STRATA_CRDS" in result.stderr
