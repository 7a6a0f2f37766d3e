"""Random and mutated specs never crash the loader: every outcome is a spec or problems."""

from __future__ import annotations


import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import VALUES
from strata import pipeline

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


def _assert_loads_cleanly(text: bytes) -> None:
    loaded = pipeline.load([("fuzz.yaml", text)])
    if loaded.spec is None:
        assert any(p.is_error for p in loaded.problems), "a refused spec must say why"
    for problem in loaded.problems:
        assert problem.format()  # every problem prints


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(path=st.sampled_from(PATHS), value=values)
def test_mutated_example_gives_problems_not_tracebacks(path, value):
    example, path = path
    doc = yaml.safe_load((VALUES / f"{example}.yaml").read_text())
    _set(doc, path, value)
    _assert_loads_cleanly(yaml.safe_dump(doc).encode())


@settings(max_examples=150, deadline=None)
@given(doc=values)
def test_random_documents_give_problems_not_tracebacks(doc):
    _assert_loads_cleanly(yaml.safe_dump(doc).encode())


@settings(max_examples=150, deadline=None)
@given(raw=st.binary(max_size=200))
def test_random_bytes_give_problems_not_tracebacks(raw):
    _assert_loads_cleanly(raw)


@settings(max_examples=300, deadline=None)
@given(path=st.sampled_from(PATHS), value=values)
def test_valid_mutations_render_without_crashing(path, value):
    example, path = path
    doc = yaml.safe_load((VALUES / f"{example}.yaml").read_text())
    _set(doc, path, value)
    loaded = pipeline.load([("fuzz.yaml", yaml.safe_dump(doc).encode())])
    if loaded.spec is not None and not any(p.is_error for p in loaded.problems):
        tree, problems = pipeline.render(loaded)
        assert tree or problems
