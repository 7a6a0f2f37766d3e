"""Render benchmark: strata's render engine against Helm's template engine on the same objects.

Generates a platform with N node pools (each a Karpenter NodePool + EC2NodeClass, so 2N
objects), renders it with strata (spec load + checks + render + output tree, in memory, no
validation), and renders the same 2N objects with `helm template` from a generated chart.
Prints wall times (best of --repeat runs) and the ratio. Run: python benchmarks/render_bench.py
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


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pools", type=int, default=3000, help="node pools (objects = 2 x pools)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    text = spec_text(args.pools)

    def strata_render() -> None:
        loaded = pipeline.load([("bench.yaml", text)])
        assert not [p for p in loaded.problems if p.is_error], loaded.problems[:3]
        tree, problems = pipeline.render(loaded)
        assert not problems and len(tree) > 2 * args.pools

    strata_s = best(strata_render, args.repeat)
    with tempfile.TemporaryDirectory() as tmp:
        chart = Path(tmp) / "bench"
        (chart / "templates").mkdir(parents=True)
        (chart / "Chart.yaml").write_text("apiVersion: v2\nname: bench\nversion: 0.1.0\n")
        (chart / "templates" / "nodepool.yaml").write_text(HELM_NODEPOOL)
        (chart / "templates" / "ec2nodeclass.yaml").write_text(HELM_NODECLASS)
        values = Path(tmp) / "values.yaml"
        values.write_text(yaml.safe_dump({"pools": yaml.safe_load(text)["nodePools"]}))
        helm = str(tools.find("helm"))
        run = lambda: subprocess.run([helm, "template", "bench", str(chart), "-f", str(values)], check=True, capture_output=True)  # noqa: E731
        helm_s = best(run, args.repeat)
    objects = 2 * args.pools
    print(f"objects: {objects}")
    print(f"strata render (load + checks + render + tree): {strata_s:.2f} s")
    print(f"helm template (same objects, process included): {helm_s:.2f} s")
    print(f"ratio strata/helm: {strata_s / helm_s:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
