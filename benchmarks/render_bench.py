"""Scale benchmark: strata as whole processes, side by side with `helm template` (and Kapitan
when present) producing the same objects, at 250, 500, 1,000 and 2,000 teams.

For each size it builds the teams workload (a platform with N teams: namespace, quota,
limits, RBAC and network policies each, plus two node pools) in a fresh directory (on tmpfs
when /dev/shm exists) and times, median of --repeat runs, each a separate process:

  cold         strata render --no-validate into an empty directory
  helm         helm template of a chart that emits the very objects strata rendered (toYaml,
               Helm's lightest possible work)
  check        strata render --check on the unchanged tree strata wrote (validated): proven
               current by the render record that render left (README, CI)
  incremental  strata render --no-validate after one team's quota changed (the tree's
               document memo from its last render in place)
  validate     strata validate of the tree
  kubeconform  kubeconform alone over the tree's objects, with the flags strata passes it

It prints time per object of the cold render (it must stay flat within 20 % across sizes)
and the ratios cold/helm, check/cold, incremental/cold and validate/kubeconform with pass or
fail against the targets of issue 13 (judged at 1,000 teams). Ratios, not absolute times, are
the result: they compare against tools run on the same machine in the same minute.
Optional: --pools N adds the node-pool workload (N NodePools + EC2NodeClasses templated by
both engines); --kapitan PATH (or kapitan on PATH) adds `kapitan compile` of the same objects.

Run: .venv/bin/python benchmarks/render_bench.py   (needs .tools/bin and a schema store:
STRATA_SCHEMA_STORE, imported with `strata schemas import --pack-crds ../shared/reference/crds`)
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from strata import tools
from strata.validate import kubeconform, schema_store

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
FAMILIES = [["g6e", "g6"], ["p5"], ["m7i", "c7i"], ["g5"]]
SIZES = (250, 500, 1000, 2000)
JUDGED = 1000  # the size the ratio targets are judged at
TARGETS = {  # ratio: (maximum, what it compares)
    "cold/helm": (0.5, "cold render vs helm template of the same objects"),
    "check/cold": (0.25, "render --check of an unchanged tree vs cold render"),
    "incremental/cold": (0.4, "re-render after one team changed vs cold render"),
    "validate/kubeconform": (3.0, "strata validate vs kubeconform alone"),
}
FLATNESS = 1.2  # largest / smallest cold time per object, net of a render of no teams


def spec_doc(pools: int) -> dict:
    node_pools = []
    for i in range(pools):
        families = FAMILIES[i % len(FAMILIES)]
        gpu = families[0][0] in "gp"
        pool = {"name": f"pool-{i}", "instanceFamilies": families, "capacityTypes": ["spot", "on-demand"],
                "amiAlias": "al2023@v20251120", "labels": {"platform.example.com/team": f"team-{i}"},
                "disruption": {"consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "5m"}}
        if gpu:
            pool["taints"] = [{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}]
            pool["limits"] = {"gpus": 8}
        node_pools.append(pool)
    return {"apiVersion": "strata.dev/v1alpha1", "kind": "Platform",
            "cluster": {"name": "bench", "region": "us-east-1", "kubernetesVersion": "1.36"}, "nodePools": node_pools}


def spec_text(pools: int) -> bytes:
    return yaml.safe_dump(spec_doc(pools), sort_keys=False).encode()


def teams_spec_text(teams: int, changed_team: int | None = None, cpu: str = "64") -> bytes:
    """The teams workload; ``changed_team`` gets ``cpu`` as its quota (the incremental edit)."""
    doc = spec_doc(2)
    doc["teams"] = [{"name": f"team-{i}", "groups": [f"team-{i}-engineers"],
                     "quota": {"cpu": cpu if i == changed_team else "64", "memory": "256Gi", "gpus": 4}} for i in range(teams)]
    return yaml.safe_dump(doc, sort_keys=False).encode()


HELM_NODEPOOL = """{{- range .Values.pools }}
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: {{ .name }}
  labels: {app.kubernetes.io/managed-by: strata}
spec:
  template:
    metadata:
      labels: {{ toJson .labels }}
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: {{ .name }}}
      requirements:
        - {key: karpenter.sh/capacity-type, operator: In, values: {{ toJson .capacityTypes }}}
        - {key: karpenter.k8s.aws/instance-family, operator: In, values: {{ toJson .instanceFamilies }}}
      {{- with .taints }}
      taints: {{ toJson . }}
      {{- end }}
      expireAfter: 720h
  disruption: {{ toJson .disruption }}
  {{- with .limits }}
  limits: {"nvidia.com/gpu": {{ .gpus | quote }}}
  {{- end }}
{{- end }}
"""
HELM_NODECLASS = """{{- range .Values.pools }}
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: {{ .name }}
spec:
  role: KarpenterNodeRole-bench
  amiSelectorTerms: [{alias: {{ .amiAlias }}}]
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: bench}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: bench}}]
  blockDeviceMappings:
    - {deviceName: /dev/xvda, rootVolume: true, ebs: {volumeSize: 100Gi, volumeType: gp3, encrypted: true}}
  metadataOptions: {httpEndpoint: enabled, httpTokens: required, httpPutResponseHopLimit: 1}
{{- end }}
"""
HELM_OBJECTS = """{{- range .Values.objects }}
---
{{ toYaml . }}
{{- end }}
"""
KAPITAN_TEMPLATE = """{% for obj in inventory.parameters.objects %}
---
{{ obj | yaml }}
{% endfor %}
"""


def strata_command() -> list[str]:
    script = Path(sys.executable).with_name("strata")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "strata"]


def run(args: list[str], *, cwd: Path | None = None, ok: tuple[int, ...] = (0,)) -> None:
    proc = subprocess.run(args, cwd=cwd, capture_output=True, text=True, check=False)
    if proc.returncode not in ok:
        raise SystemExit(f"{' '.join(args[:4])} ... failed (exit {proc.returncode}):\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")


CPU: dict[str, float] = {}  # measurement -> median CPU seconds (user + system) of its processes


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def median_time(fn, repeat: int, before=None, cpu: str | None = None) -> float:
    """Median wall time of ``fn()``; ``before()`` runs untimed ahead of each run. With
    ``cpu``, the median CPU time of the processes is kept in CPU[cpu]: on a machine other jobs
    load, wall times swing far more than CPU times do (read both)."""
    times, cpus = [], []
    for i in range(repeat):
        if before:
            before(i)
        start, start_cpu = time.perf_counter(), _children_cpu()
        fn()
        times.append(time.perf_counter() - start)
        cpus.append(_children_cpu() - start_cpu)
    if cpu:
        CPU[cpu] = statistics.median(cpus)
    return statistics.median(times)


def helm_chart(root: Path, templates: dict[str, str], values: dict) -> list[str]:
    chart = root / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: bench\nversion: 0.1.0\n")
    for name, text in templates.items():
        (chart / "templates" / name).write_text(text)
    values_file = root / "values.yaml"
    values_file.write_text(yaml.safe_dump(values))
    return [str(tools.find("helm")), "template", "bench", str(chart), "-f", str(values_file)]


def kapitan_compile(kapitan: str, objects: list, root: Path, repeat: int) -> float:
    (root / "templates").mkdir(parents=True)
    (root / "templates" / "objects.yaml").write_text(KAPITAN_TEMPLATE)
    (root / "inventory" / "targets").mkdir(parents=True)
    (root / "inventory" / "classes").mkdir()  # Kapitan refuses an inventory without it
    target = {"parameters": {"objects": objects, "kapitan": {
        "vars": {"target": "bench"},
        "compile": [{"output_path": "manifests", "input_type": "jinja2", "input_paths": ["templates/objects.yaml"]}]}}}
    (root / "inventory" / "targets" / "bench.yml").write_text(yaml.safe_dump(target))
    return median_time(lambda: run([kapitan, "compile", "-t", "bench"], cwd=root), repeat)


def object_files(out: Path) -> list[str]:
    """The tree's Kubernetes objects, as strata validate sees them (not kustomizations, Helm values, the lock)."""
    from strata import pipeline
    from strata.output import lock

    previous = lock.read(out)
    assert previous is not None
    return pipeline.manifest_files(previous.files)


def measure(teams: int, work: Path, repeat: int, store: Path, kapitan: str | None) -> dict[str, float]:
    strata = strata_command()
    spec = work / "spec.yaml"
    spec.write_bytes(teams_spec_text(teams))
    out = work / "out"
    results: dict[str, float] = {}

    def fresh(_: int) -> None:
        shutil.rmtree(work / "cold", ignore_errors=True)

    results["cold"] = median_time(lambda: run([*strata, "render", "-f", str(spec), "-o", str(work / "cold"), "--no-validate"]),
                                  repeat, fresh, cpu=f"{teams}:cold")
    run([*strata, "render", "-f", str(spec), "-o", str(out)])  # validated, as a user writes it
    files = object_files(out)
    results["objects"] = len(files)
    objects = [yaml.load((out / f).read_bytes(), Loader=_Loader) for f in files]

    helm = helm_chart(work / "helm", {"objects.yaml": HELM_OBJECTS}, {"objects": objects})
    results["helm"] = median_time(lambda: run(helm), repeat, cpu=f"{teams}:helm")
    results["check"] = median_time(lambda: run([*strata, "render", "-f", str(spec), "-o", str(out), "--check"]), repeat,
                                   cpu=f"{teams}:check")

    # One team's quota changes each run (alternating values, so every run has a change to write).
    edited = work / "edited.yaml"

    def edit(i: int) -> None:
        edited.write_bytes(teams_spec_text(teams, changed_team=7, cpu=str(100 + i)))

    results["incremental"] = median_time(
        lambda: run([*strata, "render", "-f", str(edited), "-o", str(out), "--no-validate"]), repeat, edit, cpu=f"{teams}:incremental")
    run([*strata, "render", "-f", str(spec), "-o", str(out)])  # back to the spec, validated
    results["validate"] = median_time(lambda: run([*strata, "validate", str(out)]), repeat, cpu=f"{teams}:validate")
    conform = [str(tools.find("kubeconform")), *kubeconform.arguments("1.36", store), *files]
    results["kubeconform"] = median_time(lambda: run(conform, cwd=out), repeat, cpu=f"{teams}:kubeconform")
    if kapitan:
        results["kapitan"] = kapitan_compile(kapitan, objects, work / "kapitan", repeat)
    return results


def pools_workload(pools: int, work: Path, repeat: int) -> tuple[float, float]:
    spec = work / "pools.yaml"
    spec.write_bytes(spec_text(pools))

    def fresh(_: int) -> None:
        shutil.rmtree(work / "pools-out", ignore_errors=True)

    strata_s = median_time(lambda: run([*strata_command(), "render", "-f", str(spec), "-o", str(work / "pools-out"), "--no-validate"]),
                           repeat, fresh)
    helm = helm_chart(work / "pools-helm", {"nodepool.yaml": HELM_NODEPOOL, "ec2nodeclass.yaml": HELM_NODECLASS},
                      {"pools": spec_doc(pools)["nodePools"]})
    return strata_s, median_time(lambda: run(helm), repeat)


def verdict(ok: bool) -> str:
    return "pass" if ok else "FAIL"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--teams", default=",".join(map(str, SIZES)), help="comma-separated team counts")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement (the median counts)")
    parser.add_argument("--pools", type=int, default=0, help="also the node-pool workload with this many pools")
    parser.add_argument("--kapitan", default=shutil.which("kapitan"), help="a kapitan executable (default: on PATH)")
    parser.add_argument("--workdir", type=Path, default=Path("/dev/shm") if Path("/dev/shm").is_dir() else None,
                        help="where the trees are written (default: /dev/shm, a tmpfs, when present)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.teams.split(",")]
    store = schema_store.default_store()
    print(f"strata benchmark: teams {sizes}, median of {args.repeat}, {os.cpu_count()} cores, trees in {args.workdir or tempfile.gettempdir()}")

    rows: dict[int, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="strata-bench-", dir=args.workdir) as tmp:
        # Render records and document memos of these runs stay in the run's own directory,
        # not in the user's cache; a cold render into a fresh directory has no memo to use.
        os.environ["STRATA_RENDER_CACHE"] = str(Path(tmp) / "render-cache")
        base_dir = Path(tmp) / "teams-0"
        base_dir.mkdir()
        base_spec = base_dir / "spec.yaml"
        base_spec.write_bytes(teams_spec_text(0))
        base = median_time(lambda: run([*strata_command(), "render", "-f", str(base_spec), "-o", str(base_dir / "out"),
                                         "--no-validate"]), args.repeat, lambda _: shutil.rmtree(base_dir / "out", ignore_errors=True))
        base_objects = len(object_files(base_dir / "out"))
        print(f"    0 teams {base_objects:>6} objects | cold {base:.2f} s (the fixed cost of a process: imports, packs)", flush=True)
        for teams in sizes:
            work = Path(tmp) / f"teams-{teams}"
            work.mkdir()
            r = rows[teams] = measure(teams, work, args.repeat, store, args.kapitan if teams == JUDGED else None)
            n = int(r["objects"])
            print(f"{teams:>5} teams {n:>6} objects | cold {r['cold']:.2f} s ({r['cold'] / n * 1e6:.0f} us/object)"
                  f"  helm {r['helm']:.2f} s  check {r['check']:.2f} s  incremental {r['incremental']:.2f} s"
                  f"  validate {r['validate']:.2f} s  kubeconform {r['kubeconform']:.2f} s", flush=True)
            shutil.rmtree(work, ignore_errors=True)
        if args.pools:
            strata_s, helm_s = pools_workload(args.pools, Path(tmp), args.repeat)
            print(f"pools: {2 * args.pools} objects  strata {strata_s:.2f} s  helm template {helm_s:.2f} s  ratio {strata_s / helm_s:.2f}")

    print(f"\nratios (target; judged at {JUDGED} teams)")
    failed = False
    for teams, r in rows.items():
        ratios = {"cold/helm": r["cold"] / r["helm"], "check/cold": r["check"] / r["cold"],
                  "incremental/cold": r["incremental"] / r["cold"], "validate/kubeconform": r["validate"] / r["kubeconform"]}
        cells = []
        for name, value in ratios.items():
            limit = TARGETS[name][0]
            judged = teams == JUDGED or JUDGED not in rows
            failed |= judged and value > limit
            cells.append(f"{name} {value:.2f}" + (f" (<= {limit}: {verdict(value <= limit)})" if judged else ""))
        print(f"{teams:>5} teams: " + "  ".join(cells))
        c = {name: CPU.get(f"{teams}:{name}", 0.0) for name in ("cold", "helm", "check", "incremental", "validate", "kubeconform")}
        if all(c.values()):
            print(f"{teams:>5} teams, CPU time (user+system; informational): cold/helm {c['cold'] / c['helm']:.2f}  "
                  f"check/cold {c['check'] / c['cold']:.2f}  incremental/cold {c['incremental'] / c['cold']:.2f}  "
                  f"validate/kubeconform {c['validate'] / c['kubeconform']:.2f}")
        if "kapitan" in r:
            print(f"{teams:>5} teams: cold/kapitan {r['cold'] / r['kapitan']:.2f}")
    # Linear cost is a fixed cost per process plus a cost per object: the cost per object, net
    # of a render of no teams, must not grow with the size (the raw quotient also falls as the
    # fixed cost spreads over more objects, so it is printed but not judged).
    raw = {t: r["cold"] / r["objects"] for t, r in rows.items()}
    per_object = {t: (r["cold"] - base) / (r["objects"] - base_objects) for t, r in rows.items()}
    spread = max(per_object.values()) / min(per_object.values())
    flat = spread <= FLATNESS
    failed |= not flat
    print("cold time per object: " + ", ".join(f"{t} teams {v * 1e6:.0f} us" for t, v in raw.items())
          + f"; net of the 0-team render ({base:.2f} s): " + ", ".join(f"{t} teams {v * 1e6:.0f} us" for t, v in per_object.items())
          + f"; largest/smallest (net) {spread:.2f} (<= {FLATNESS}: {verdict(flat)})")
    if not args.kapitan:
        print("kapitan not found (pass --kapitan PATH to compare)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
