"""CRD import into the schema store, and offline validation with the real kubeconform binary."""

from __future__ import annotations

import io
import json
import os
import textwrap
from pathlib import Path

import pytest
from reference import reference_dir

from strata import rules, tools
from strata.errors import ToolMissing
from strata.validate import schema_store
from strata.validate.kubeconform import validate_files
from strata.validate.schema_store import SchemaImportError, import_crds

K8S = "1.36"
# Both ship resource.nvidia.com ComputeDomain, with different schemas; the DRA driver's copy
# is imported on its own (test_conflicting_definitions_are_refused).
DUPLICATE_PROJECT = "dra-driver-nvidia-gpu-0.4.1"


@pytest.fixture(scope="module")
def kubeconform() -> None:
    try:
        tools.find("kubeconform")
    except ToolMissing as e:
        if os.environ.get("STRATA_REQUIRE_TOOLS") == "1":
            pytest.fail(f"{e} (and STRATA_REQUIRE_TOOLS=1)", pytrace=False)
        pytest.skip(str(e))


@pytest.fixture(scope="module")
def crds() -> Path:
    return reference_dir() / "crds"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory, crds: Path) -> Path:
    path = tmp_path_factory.mktemp("store")
    import_crds(sorted(p for p in crds.iterdir() if p.name != DUPLICATE_PROJECT), path)
    return path


def check(tmp_path: Path, store: Path, manifests: dict[str, str], version: str = K8S) -> list:
    for name, text in manifests.items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    return validate_files(tmp_path, sorted(manifests), version, store)


NODEPOOL = """\
    apiVersion: karpenter.sh/v1
    kind: NodePool
    metadata:
      name: gpu
      labels: {team: ml}
    spec:
      template:
        metadata:
          labels: {accelerator: nvidia}
        spec:
          nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: gpu}
          requirements:
            - key: karpenter.k8s.aws/instance-family
              operator: In
              values: [p5]
          taints:
            - {key: nvidia.com/gpu, effect: NoSchedule}
          expireAfter: 720h
      limits:
        cpu: CPU
        nvidia.com/gpu: "8"
      disruption:
        consolidationPolicy: WhenEmpty
        consolidateAfter: 5m
"""

EC2NODECLASS = """\
    apiVersion: karpenter.k8s.aws/v1
    kind: EC2NodeClass
    metadata:
      name: gpu
    spec:
      role: KarpenterNodeRole-demo
      amiSelectorTerms:
        - alias: al2023@latest
      subnetSelectorTerms:
        - tags: {karpenter.sh/discovery: demo}
      securityGroupSelectorTerms:
        - tags: {karpenter.sh/discovery: demo}
      blockDeviceMappings:
        - deviceName: /dev/xvda
          ebs: {volumeSize: 200Gi, volumeType: gp3, encrypted: true}
"""

DEPLOYMENT = """\
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: web
      namespace: apps
    spec:
      selector:
        matchLabels: {app: web}
      template:
        metadata:
          labels: {app: web}
        spec:
          EXTRA
          containers:
            - name: web
              image: nginx:1.27
              resources:
                limits: {cpu: 1, memory: 1Gi}
"""


# --- kubeconform over imported CRDs ---------------------------------------------------------


def test_valid_karpenter_objects_pass(kubeconform, tmp_path, store) -> None:
    manifests = {"nodepool.yaml": NODEPOOL.replace("CPU", "100"), "ec2nodeclass.yaml": EC2NODECLASS}
    assert check(tmp_path, store, manifests) == []


def test_misspelled_field_is_rejected(kubeconform, tmp_path, store) -> None:
    bad = NODEPOOL.replace("CPU", "100").replace("      requirements:", "      requirments:")
    [problem] = check(tmp_path, store, {"nodepool.yaml": bad})
    assert problem.rule == rules.VALIDATION.id
    assert problem.where == "nodepool.yaml: NodePool/gpu"
    assert problem.message == (
        "spec.template.spec: additional properties 'requirments' not allowed; "
        "spec.template.spec: missing property 'requirements'"
    )


@pytest.mark.parametrize("cpu", ["100", '"100"', '"1500m"'])
def test_int_or_string_accepts_both(kubeconform, tmp_path, store, cpu) -> None:
    assert check(tmp_path, store, {"nodepool.yaml": NODEPOOL.replace("CPU", cpu)}) == []


def test_int_or_string_rejects_other_types(kubeconform, tmp_path, store) -> None:
    [problem] = check(tmp_path, store, {"nodepool.yaml": NODEPOOL.replace("CPU", "[1]")})
    assert problem.message == "spec.limits.cpu: got array, want integer or string"


def test_unknown_version_is_a_missing_schema(kubeconform, tmp_path, store) -> None:
    old = NODEPOOL.replace("CPU", "100").replace("karpenter.sh/v1", "karpenter.sh/v1beta1")
    [problem] = check(tmp_path, store, {"nodepool.yaml": old})
    assert problem.rule == rules.MISSING_SCHEMA.id
    assert problem.where == "nodepool.yaml: NodePool/gpu"
    assert "karpenter.sh/v1beta1 NodePool" in problem.message
    assert "neither a CRD set an installed pack ships nor an imported CRD defines it" in problem.message
    assert problem.message.endswith("import the CRDs that define it: strata schemas import <CRD files>")


def test_every_reference_crd_compiles(kubeconform, tmp_path, store) -> None:
    # kubeconform reports a schema it cannot compile as "could not find schema": catch that
    # for every imported schema with a minimal object of each kind.
    manifests = {}
    for schema in sorted(store.glob("*.*/*.json")):
        kind, version = schema.stem.rsplit("_", 1)
        manifests[f"{schema.parent.name}-{schema.stem}.yaml"] = json.dumps(
            {"apiVersion": f"{schema.parent.name}/{version}", "kind": kind, "metadata": {"name": "x"}}
        )
    assert len(manifests) >= 20
    problems = check(tmp_path, store, manifests)
    assert [p for p in problems if p.rule == rules.MISSING_SCHEMA.id] == []
    # What remains is objects without their required spec, i.e. the schemas were applied.
    assert all("missing property" in p.message for p in problems)


# --- core Kubernetes schemas ------------------------------------------------------------------


def test_core_deployment_validates(kubeconform, tmp_path, store) -> None:
    assert check(tmp_path, store, {"deploy.yaml": DEPLOYMENT.replace("EXTRA", "restartPolicy: Always")}) == []


def test_core_deployment_unknown_field_fails_strict(kubeconform, tmp_path, store) -> None:
    [problem] = check(tmp_path, store, {"deploy.yaml": DEPLOYMENT.replace("EXTRA", "bogusField: 1")})
    assert problem.rule == rules.VALIDATION.id
    assert problem.where == "deploy.yaml: Deployment/apps/web"
    assert problem.message == "spec.template.spec: additional properties 'bogusField' not allowed"


def test_core_schemas_resolve_definitions_offline(tmp_path) -> None:
    # The converted copies reference _definitions.json next to them, never kubernetes.io.
    location = schema_store.core_schema_location(K8S)
    directory = Path(location.split("{{")[0]) / "v1.36.0-local-strict"
    text = (directory / "deployment-apps-v1.json").read_text()
    assert '"_definitions.json#/$defs/io.k8s.api.apps.v1.DeploymentSpec"' in text
    assert "kubernetes.io/api" not in text and (directory / "_definitions.json").is_file()


def test_unsupported_kubernetes_version(kubeconform, tmp_path, store) -> None:
    [problem] = check(tmp_path, store, {"deploy.yaml": DEPLOYMENT.replace("EXTRA", "")}, version="1.99")
    assert problem.rule == rules.VALIDATION.id and "Kubernetes 1.99" in problem.message


# --- import ------------------------------------------------------------------------------------


def test_import_is_byte_identical_across_runs(tmp_path, crds) -> None:
    first = import_crds([crds / "karpenter-1.14.1"], tmp_path / "a")
    again = import_crds([crds / "karpenter-1.14.1"], tmp_path / "a")
    other = import_crds([crds / "karpenter-1.14.1"], tmp_path / "b")
    assert first == again
    assert [p.relative_to(tmp_path / "a") for p in first] == [p.relative_to(tmp_path / "b") for p in other]
    assert [p.read_bytes() for p in first] == [p.read_bytes() for p in other]
    assert [p.relative_to(tmp_path / "a").as_posix() for p in first] == [
        "karpenter.k8s.aws/ec2nodeclass_v1.json",
        "karpenter.sh/nodeclaim_v1.json",
        "karpenter.sh/nodeoverlay_v1alpha1.json",
        "karpenter.sh/nodepool_v1.json",
    ]


def test_import_from_stdin(tmp_path, crds) -> None:
    source = crds / "karpenter-1.14.1" / "karpenter.sh_nodepools.yaml"
    written = import_crds(["-"], tmp_path / "stdin", stdin=io.StringIO(source.read_text()))
    [from_file] = import_crds([source], tmp_path / "file")
    assert written == [tmp_path / "stdin" / "karpenter.sh" / "nodepool_v1.json"]
    assert written[0].read_bytes() == from_file.read_bytes()


def test_conflicting_definitions_are_refused(kubeconform, tmp_path, crds) -> None:
    with pytest.raises(SchemaImportError, match=r"resource\.nvidia\.com/computedomain_v1beta1 .* import only one"):
        import_crds([crds / DUPLICATE_PROJECT, crds / "gpu-operator-26.7.0"], tmp_path / "all")
    assert not (tmp_path / "all").exists()  # nothing written
    # Each copy on its own is fine.
    written = import_crds([crds / DUPLICATE_PROJECT], tmp_path / "dra")
    assert [p.name for p in written] == ["computedomain_v1beta1.json", "computedomainclique_v1beta1.json"]
    domain = """\
        apiVersion: resource.nvidia.com/v1beta1
        kind: ComputeDomain
        metadata: {name: d}
        spec: {numNodes: 2, channel: {resourceClaimTemplate: {name: c}}}
    """
    assert check(tmp_path, tmp_path / "dra", {"cd.yaml": domain}) == []


WIDGET_CRD = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: not-a-crd}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.strata.dev}
spec:
  group: example.strata.dev
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
    - name: v1alpha1
      served: false
      storage: false
      schema: {openAPIV3Schema: {type: object}}
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          x-kubernetes-validations: [{rule: "self.spec.size > 0"}]
          properties:
            spec:
              type: object
              properties:
                size: {x-kubernetes-int-or-string: true, anyOf: [{type: integer}, {type: string}]}
                port: {x-kubernetes-int-or-string: true, nullable: true}
                note: {type: string, nullable: true, enum: [a, b]}
                free:
                  type: object
                  x-kubernetes-preserve-unknown-fields: true
                  properties: {known: {type: string}}
                anything: {x-kubernetes-preserve-unknown-fields: true}
                template:
                  type: object
                  x-kubernetes-embedded-resource: true
                  properties: {spec: {type: object, properties: {replicas: {type: integer}}}}
                either:
                  type: object
                  properties: {a: {type: string}, b: {type: string}}
                  oneOf: [{properties: {a: {type: string}}, required: [a]}, {required: [b]}]
                tags:
                  type: array
                  x-kubernetes-list-type: set
                  items: {type: string}
            status:
              type: object
              properties: {phase: {type: string}}
"""


@pytest.fixture(scope="module")
def widget_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("widgets")
    written = import_crds(["-"], path, stdin=io.StringIO(WIDGET_CRD))
    assert written == [path / "example.strata.dev" / "widget_v1.json"]  # not v1alpha1: not served
    return path


def test_conversion_rules(widget_store) -> None:
    schema = json.loads((widget_store / "example.strata.dev" / "widget_v1.json").read_text())
    assert not any("x-kubernetes" in key or key == "nullable" for key in _keys(schema))
    assert schema["additionalProperties"] is False
    assert schema["properties"]["metadata"] == {"type": "object"}
    spec = schema["properties"]["spec"]["properties"]
    assert spec["size"] == {"anyOf": [{"type": "integer"}, {"type": "string"}]}
    assert spec["port"] == {"anyOf": [{"type": "integer"}, {"type": "string"}, {"type": "null"}]}
    assert spec["note"] == {"type": ["string", "null"], "enum": ["a", "b", None]}
    assert "additionalProperties" not in spec["free"] and "additionalProperties" not in spec["anything"]
    assert all("additionalProperties" not in branch for branch in spec["either"]["oneOf"])
    assert set(spec["template"]["properties"]) == {"apiVersion", "kind", "metadata", "spec"}


@pytest.mark.parametrize(
    ("spec", "error"),
    [
        ("{size: 3, port: null, note: null}", None),
        ("{size: '3', port: http, note: a, tags: [x]}", None),
        ("{free: {known: k, other: 1}, anything: [1, {x: 2}]}", None),
        ("{template: {apiVersion: v1, kind: Pod, metadata: {name: p, labels: {a: b}}, spec: {replicas: 1}}}", None),
        ("{either: {a: x}}", None),
        ("{either: {b: x}}", None),
        ("{note: c}", "spec.note: value must be one of 'a', 'b', null"),
        ("{template: {spec: {replicas: 1, extra: 1}}}", "spec.template.spec: additional properties 'extra' not allowed"),
        ("{size: 1.5}", "spec.size: got number, want integer or string"),
        ("{sizes: 1}", "spec: additional properties 'sizes' not allowed"),
    ],
)
def test_converted_schema_with_kubeconform(kubeconform, tmp_path, widget_store, spec, error) -> None:
    widget = f"apiVersion: example.strata.dev/v1\nkind: Widget\nmetadata: {{name: w, namespace: n}}\nspec: {spec}\n"
    problems = check(tmp_path, widget_store, {"widget.yaml": widget})
    assert [p.message for p in problems] == ([error] if error else [])
    assert all(p.where == "widget.yaml: Widget/n/w" for p in problems)


def test_not_v1_crd_is_refused(tmp_path) -> None:
    crd = "apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\nmetadata: {name: old.example.dev}\n"
    with pytest.raises(SchemaImportError, match="not apiextensions.k8s.io/v1"):
        import_crds(["-"], tmp_path, stdin=io.StringIO(crd))


def test_default_store(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("STRATA_SCHEMA_STORE", str(tmp_path / "explicit"))
    assert schema_store.default_store() == tmp_path / "explicit"
    monkeypatch.delenv("STRATA_SCHEMA_STORE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert schema_store.default_store() == tmp_path / "cache" / "strata" / "schemas"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert schema_store.default_store() == Path.home() / ".cache" / "strata" / "schemas"


def _keys(node) -> list[str]:
    if isinstance(node, dict):
        return [*node, *(k for v in node.values() for k in _keys(v))]
    if isinstance(node, list):
        return [k for v in node for k in _keys(v)]
    return []


def test_import_records_each_crds_scope(tmp_path):
    from strata.validate.schema_store import crd_scopes, import_crds

    crds = reference_dir() / "crds"
    import_crds([crds / "karpenter-1.14.1"], tmp_path)
    import_crds([crds / "kuberay-1.7.0"], tmp_path)
    scopes = crd_scopes(tmp_path)
    assert scopes["karpenter.sh/NodePool"] == "Cluster" and scopes["ray.io/RayCluster"] == "Namespaced"
