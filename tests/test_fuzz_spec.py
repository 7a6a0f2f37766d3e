"""Random and mutated specs never crash `strata render`: whatever the input, it ends with exit 0
and no error, or exit 1 with error problems and nothing written, and every problem names a rule
`strata rules` lists and points at a line and column inside the spec file it was given.

Each property runs a bounded number of examples, so the fuzzing costs seconds in every test run;
for a longer hunt: ``STRATA_FUZZ_EXAMPLES=2000 pytest tests/test_fuzz_spec.py``."""

from __future__ import annotations

import json
import os
import re
import tempfile
from functools import cache
from pathlib import Path

import pytest
import yaml
from conftest import VALUES, CliResult, run_cli
from hypothesis import HealthCheck, example, given, settings, strategies as st

settings.register_profile(
    "strata-fuzz",
    max_examples=int(os.environ.get("STRATA_FUZZ_EXAMPLES", "30")),
    deadline=None,  # the machine is shared: time per example says nothing about correctness
    suppress_health_check=[HealthCheck.too_slow],
)
FUZZ = settings(settings.get_profile("strata-fuzz"))

EXAMPLES = {p.stem: yaml.safe_load(p.read_text()) for p in sorted(VALUES.glob("*.yaml"))}

scalars = st.one_of(st.none(), st.booleans(), st.integers(-(2**40), 2**40), st.floats(allow_nan=True),
                    st.text(max_size=12), st.sampled_from(["", "1.36", "spot", "WhenUnderutilized", "al2@latest", "-1"]))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                     st.dictionaries(st.text(max_size=8), inner, max_size=4)), max_leaves=12)


def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, prefix + (i,))


PATHS = [(name, p) for name, doc in EXAMPLES.items() for p in _paths(doc) if p]


def _set(doc, path, value):
    node = doc
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value


# What YAML counts as a line break (PyYAML: YAML 1.1, so NEL and the Unicode separators too).
YAML_LINE_BREAK = re.compile(rb"\r\n|\r|\n|\xc2\x85|\xe2\x80[\xa8\xa9]")


@cache
def _rule_ids() -> frozenset[str]:
    listed = run_cli(["rules", "--format", "json"])
    assert listed.returncode == 0, listed.stderr
    return frozenset(rule["id"] for rule in json.loads(listed.stdout))


def _assert_render_ends_cleanly(text: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        spec, out = Path(tmp) / "fuzz.yaml", Path(tmp) / "out"
        spec.write_bytes(text)
        result = run_cli(["render", "-f", spec, "-o", out, "--no-validate", "--format", "json"])
        _assert_clean_outcome(text, str(spec), result, wrote=out.exists())


def _assert_clean_outcome(text: bytes, spec: str, result: CliResult, *, wrote: bool) -> None:
    # 2 is a usage error and 3 an internal error (a crash): neither is how a bad spec is reported
    assert result.returncode in (0, 1), f"exit {result.returncode}: {result.stderr}"
    assert "Traceback" not in result.stderr + result.stdout
    report = json.loads(result.stdout)
    errors = [p for p in report["problems"] if p["severity"] == "error"]
    assert report["errors"] == len(errors)
    assert result.returncode == (1 if errors else 0), report
    assert wrote == (result.returncode == 0), "a tree is written exactly when there is no error"
    last_line = len(YAML_LINE_BREAK.findall(text)) + 1
    for problem in report["problems"]:
        assert problem["rule"] in _rule_ids(), problem
        assert problem["file"] == spec, problem
        line, column = problem["line"], problem["column"]
        assert isinstance(line, int) and isinstance(column, int) and 1 <= line <= last_line and column >= 1, problem


@FUZZ
@given(path=st.sampled_from(PATHS), value=values)
# Found by this test: a C1 control character in a spec string made templates print invalid YAML.
@example(path=("jark", ("jark", "jupyterhub", "auth", "oauth", "allowedGroups", 1)), value="g\x9c\x14\x7f")
def test_mutated_example_renders_or_gives_located_problems(path, value):
    example, path = path
    doc = yaml.safe_load((VALUES / f"{example}.yaml").read_text())
    _set(doc, path, value)
    _assert_render_ends_cleanly(yaml.safe_dump(doc).encode())


@FUZZ
@given(doc=values)
def test_random_document_gives_located_problems(doc):
    _assert_render_ends_cleanly(yaml.safe_dump(doc).encode())


@FUZZ
@given(raw=st.binary(max_size=200))
@example(raw=b"\r!")  # a lone CR ends a line in YAML
@example(raw=b"[")  # found by this test: libyaml put the error on a line after the file's last
def test_random_bytes_give_located_problems(raw):
    _assert_render_ends_cleanly(raw)


def _report(*problems: dict, code: int = 1) -> CliResult:
    errors = sum(p["severity"] == "error" for p in problems)
    return CliResult(code, json.dumps({"problems": list(problems), "errors": errors, "warnings": len(problems) - errors}), "")


LOCATED = {"rule": "spec", "severity": "error", "message": "m", "path": "cluster", "file": "s.yaml", "line": 2, "column": 1}


def test_a_located_error_without_a_tree_passes_the_properties():
    _assert_clean_outcome(b"a: 1\nb: 2\n", "s.yaml", _report(LOCATED), wrote=False)


@pytest.mark.parametrize("result, wrote", [
    (CliResult(3, "", "strata: internal error: KeyError: 'x'"), False),
    (_report(LOCATED, code=0), True),  # exit 0 despite an error
    (_report(LOCATED), True),  # half-written tree
    (_report({**LOCATED, "rule": "no-such-rule"}), False),
    (_report({**LOCATED, "file": "other.yaml"}), False),
    (_report({**LOCATED, "line": 9}), False),  # past the end of the file
    (_report({**LOCATED, "line": None, "column": None}), False),
], ids=["crash", "exit-0-with-error", "half-written", "unknown-rule", "other-file", "past-end", "no-location"])
def test_the_properties_can_fail(result, wrote):
    with pytest.raises(AssertionError):
        _assert_clean_outcome(b"a: 1\nb: 2\n", "s.yaml", result, wrote=wrote)
