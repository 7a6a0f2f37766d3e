"""strata.lock is one typed model: what it writes it reads back unchanged, and a lock that is
not one strata wrote is refused with the file and the field, never half-read."""

from __future__ import annotations

import pytest
from conftest import VALUES, render_clean

from strata.errors import OutputError
from strata.output import lock as lockfile
from strata.output.lock import HydratedEntry


def _rendered_lock() -> bytes:
    return render_clean(("realistic.yaml", (VALUES / "realistic.yaml").read_bytes()))[lockfile.LOCK_NAME]


def test_a_written_lock_reads_back_to_the_same_bytes():
    content = _rendered_lock()
    lock = lockfile.parse(content)
    assert lock.kubernetes_version == "1.36" and lock.spec_digest.startswith("sha256:")
    assert {r.name: r.values_file for r in lock.helm_releases}["karpenter"] == "compute/helm/karpenter/values.yaml"
    assert [p.name for p in lock.packs][:2] == ["compute", "gitops"]
    assert lock.dump() == content


def test_hydrated_entries_round_trip_and_are_owned():
    lock = lockfile.parse(_rendered_lock())
    entry = HydratedEntry(release="karpenter", version="1.14.1", values_digest="sha256:00",
                          files=("compute/hydrated/karpenter/kustomization.yaml",))
    hydrated = lock.model_copy(update={"hydrated": (entry,)})
    again = lockfile.parse(hydrated.dump())
    assert again == hydrated and again.hydrated_files == {"compute/hydrated/karpenter/kustomization.yaml"}
    text = hydrated.dump().decode()
    assert text.index("hydrated:\n  - release: karpenter\n    version: \"1.14.1\"\n    valuesDigest:") < text.index("\nfiles:")
    assert "hydrated" not in lock.dump().decode(), "no hydrated key without hydration"


def test_an_interrupted_write_leaves_a_lock_that_owns_everything_and_is_no_tree():
    claimed = lockfile.parse(lockfile.claim(["a.yaml", "b/c.yaml"]))
    assert claimed.owned == {"a.yaml", "b/c.yaml"} and claimed.kubernetes_version == ""


@pytest.mark.parametrize(("content", "message"), [
    (b"files: [../outside.yaml]\n", "files.0: Value error, '../outside.yaml' is not a path inside the directory"),
    (b"files: [/etc/passwd]\n", "is not a path inside the directory"),
    (b"kubernetesVersion: '1.36'\n", "the files list is missing"),
    (b"files: []\nhelmReleases: [{name: karpenter}]\n", "helmReleases.0.namespace: Field required"),
    (b"files: []\nhydrated: [{release: x, version: '1', valuesDigest: d, files: [../x]}]\n", "hydrated.0.files.0"),
    (b"files: []\nsurprise: 1\n", "surprise: Extra inputs are not permitted"),
    (b"files: [a\n", "not a valid strata.lock"),
])
def test_a_lock_strata_did_not_write_is_refused_naming_the_field(content, message):
    with pytest.raises(OutputError, match="restore it from Git") as raised:
        lockfile.parse(content, "out/strata.lock")
    assert str(raised.value).startswith("out/strata.lock: ") and message in str(raised.value)

