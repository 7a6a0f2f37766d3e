"""Render benchmark: strata's render engine against Helm's template engine on the same objects.

Two workloads, each rendered by strata (spec load + checks + render + output tree, in memory,
no validation) and by `helm template` from a generated chart producing the same objects:
  pools: N node pools (a Karpenter NodePool + EC2NodeClass each), templated by both engines;
  teams: a platform with N teams (namespace, quota, limits, RBAC, network policies each); Helm
         emits the objects strata rendered from values with toYaml, its lightest possible work.
and, for the teams workload, by Kapitan (`kapitan compile` of a target whose inventory holds
the same objects and whose Jinja2 template prints them), when a `kapitan` executable is given
with --kapitan or found on PATH (Kapitan is not a dependency: install it in its own venv).
Prints wall times (best of --repeat runs) and ratios. Run: python benchmarks/render_bench.py
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from strata import pipeline, tools

FAMILIES = [["g6e", "g6"], ["p5"], ["m7i", "c7i"], ["g5"]]


def spec_text(pools: int) -> bytes:
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
    doc = {"apiVersion": "strata.dev/v1alpha1", "kind": "Platform",
           "cluster": {"name": "bench", "region": "us-east-1", "kubernetesVersion": "1.36"}, "nodePools": node_pools}
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


def teams_spec_text(teams: int) -> bytes:
    doc = yaml.safe_load(spec_text(2))
    doc["teams"] = [{"name": f"team-{i}", "groups": [f"team-{i}-engineers"],
                     "quota": {"cpu": "64", "memory": "256Gi", "gpus": 4}} for i in range(teams)]
    return yaml.safe_dump(doc, sort_keys=False).encode()


HELM_OBJECTS = """{{- range .Values.objects }}
---
{{ toYaml . }}
{{- end }}
"""


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def strata_render(text: bytes) -> dict[str, bytes]:
    loaded = pipeline.load([("bench.yaml", text)])
    assert not [p for p in loaded.problems if p.is_error], loaded.problems[:3]
    tree, problems = pipeline.render(loaded)
    assert not problems
    return tree


def helm_template(chart_templates: dict[str, str], values: dict, repeat: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        chart = Path(tmp) / "bench"
        (chart / "templates").mkdir(parents=True)
        (chart / "Chart.yaml").write_text("apiVersion: v2\nname: bench\nversion: 0.1.0\n")
        for name, text in chart_templates.items():
            (chart / "templates" / name).write_text(text)
        values_file = Path(tmp) / "values.yaml"
        values_file.write_text(yaml.safe_dump(values))
        helm = str(tools.find("helm"))
        run = lambda: subprocess.run([helm, "template", "bench", str(chart), "-f", str(values_file)], check=True, capture_output=True)  # noqa: E731
        return best(run, repeat)


KAPITAN_TEMPLATE = """{% for obj in inventory.parameters.objects %}
---
{{ obj | yaml }}
{% endfor %}
"""


def kapitan_compile(kapitan: str, objects: list, repeat: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "templates").mkdir()
        (root / "templates" / "objects.yaml").write_text(KAPITAN_TEMPLATE)
        (root / "inventory" / "targets").mkdir(parents=True)
        (root / "inventory" / "classes").mkdir()  # Kapitan refuses an inventory without it
        target = {"parameters": {"objects": objects, "kapitan": {
            "vars": {"target": "bench"},
            "compile": [{"output_path": "manifests", "input_type": "jinja2", "input_paths": ["templates/objects.yaml"]}]}}}
        (root / "inventory" / "targets" / "bench.yml").write_text(yaml.safe_dump(target))
        run = lambda: subprocess.run([kapitan, "compile", "-t", "bench"], cwd=root, check=True, capture_output=True)  # noqa: E731
        return best(run, repeat)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pools", type=int, default=3000, help="node pools (objects = 2 x pools)")
    parser.add_argument("--teams", type=int, default=1000, help="teams of the platform workload")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--kapitan", default=shutil.which("kapitan"), help="a kapitan executable (default: on PATH)")
    args = parser.parse_args()

    pools = spec_text(args.pools)
    strata_s = best(lambda: strata_render(pools), args.repeat)
    helm_s = helm_template({"nodepool.yaml": HELM_NODEPOOL, "ec2nodeclass.yaml": HELM_NODECLASS},
                           {"pools": yaml.safe_load(pools)["nodePools"]}, args.repeat)
    report("pools", 2 * args.pools, strata_s, helm_s)

    teams = teams_spec_text(args.teams)
    tree = strata_render(teams)
    objects = [yaml.load(body, Loader=yaml.CSafeLoader) for path, body in tree.items()
               if path.endswith(".yaml") and "/helm/" not in path and not path.endswith("kustomization.yaml")]
    strata_s = best(lambda: strata_render(teams), args.repeat)
    helm_s = helm_template({"objects.yaml": HELM_OBJECTS}, {"objects": objects}, args.repeat)
    report("teams", len(objects), strata_s, helm_s)
    if args.kapitan:
        kapitan_s = kapitan_compile(args.kapitan, objects, args.repeat)
        print(f"teams: kapitan compile {kapitan_s:.2f} s  ratio strata/kapitan {strata_s / kapitan_s:.2f}")
    else:
        print("teams: kapitan not found (pass --kapitan PATH to compare)")
    return 0


def report(name: str, objects: int, strata_s: float, helm_s: float) -> None:
    print(f"{name:>5}: {objects} objects  strata {strata_s:.2f} s  helm template {helm_s:.2f} s  ratio strata/helm {strata_s / helm_s:.2f}")


if __name__ == "__main__":
    sys.exit(main())
