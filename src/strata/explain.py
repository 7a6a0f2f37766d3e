"""`strata explain RULE`: a rule's reason and fix, shown on its case (the spec under
tests/cases/invalid/ that the rule tests fire on, shipped in the wheel too) with the lines it
marks and the message it really gives, and a good snippet: the same field as a bundled
example writes it (the examples trigger no rule, tests/test_rules.py)."""

from __future__ import annotations

import dataclasses
from functools import cache
from importlib import resources
from pathlib import Path

from strata import rules as core_rules
from strata.problems import Mark, Path as SpecPath, format_path
from strata.spec import sources as spec_sources

_SOURCE_ROOT = Path(__file__).resolve().parents[2]
# The examples searched for a good snippet, smallest first.
EXAMPLE_ORDER = ("minimal", "realistic", "jark", "observability", "ml-storage-dra")


def _packaged(name: str, checkout: str) -> Path:
    shipped = Path(str(resources.files("strata").joinpath(name)))
    return shipped if shipped.is_dir() else _SOURCE_ROOT / checkout


def cases_dir() -> Path:
    return _packaged("_rule_cases", "tests/cases")


def examples_dir() -> Path:
    return _packaged("_examples", "values")


@dataclasses.dataclass(frozen=True)
class Snippet:
    file: str  # as shown: relative to the checkout (tests/cases/..., values/...) or the package
    lines: tuple[tuple[int, str, bool], ...]  # (line number, text, marked)
    note: str = ""


@dataclasses.dataclass(frozen=True)
class Explanation:
    rule: core_rules.Rule
    case: Path | None
    bad: Snippet | None
    messages: tuple[str, ...]  # what the rule reports on its case
    good: Snippet | None


def _display(path: Path) -> str:
    for root, shown in ((cases_dir(), "tests/cases"), (examples_dir(), "values")):
        if path.is_relative_to(root):
            return f"{shown}/{path.relative_to(root).as_posix()}"
    return str(path)


@cache
def _case_index() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for case in sorted((cases_dir() / "invalid").glob("*.yaml")):
        first = case.read_text(encoding="utf-8").partition("\n")[0]
        if first.startswith("# expect: "):
            found.setdefault(first.removeprefix("# expect: ").split()[0], case)
    return found


def explain(rule: core_rules.Rule) -> Explanation:
    from strata import pipeline

    case = _case_index().get(rule.id)
    if case is None:
        return Explanation(rule, None, None, (), None)
    text = case.read_bytes()
    fired = [p for p in pipeline.load([(_display(case), text)]).problems if p.rule == rule.id]
    marked = {p.mark.line for p in fired if p.mark}
    lines = text.decode("utf-8").splitlines()
    shown = range(2, len(lines) + 1)  # the first line is the test's expectation
    if len(lines) > 30 and marked:
        shown = range(max(2, min(marked) - 8), min(len(lines), max(marked) + 4) + 1)
    bad = Snippet(_display(case), tuple((n, lines[n - 1], n in marked) for n in shown))
    paths = [p.path for p in fired if p.path]
    return Explanation(rule, case, bad, tuple(p.format() for p in fired), _good(paths[0]) if paths else None)


def _examples() -> list[Path]:
    root = examples_dir()
    ordered = [root / f"{name}.yaml" for name in EXAMPLE_ORDER]
    return [p for p in ordered if p.is_file()] + sorted(set(root.glob("*.yaml")) - set(ordered))


def _good(path: SpecPath) -> Snippet | None:
    """The deepest part of ``path`` a bundled example sets, shown as that example writes it:
    within its named list item (a node pool, a team) when the path is inside one, so the
    value is seen with what it depends on."""
    best: tuple[int, Path, int, int] | None = None  # (matched depth, file, marked line, first line)
    for example in _examples():
        sources = spec_sources.load_file(example.name, example.read_bytes())[1]
        for depth in range(len(path), 0, -1):
            # list indexes differ between specs: any item of the same list will do
            found = _lookup(sources, path[:depth])
            if found is not None:
                if best is None or depth > best[0]:
                    matched, mark = found
                    item = next((i + 1 for i, part in enumerate(matched) if isinstance(part, int)), None)
                    anchor = sources.values.get(matched[:item]) if item and item < len(matched) else None
                    best = (depth, example, mark.line, anchor.line if anchor else mark.line)
                break
    if best is None:
        return None
    depth, example, line, first = best
    lines = example.read_text(encoding="utf-8").splitlines()
    block = _block(lines, first, limit=20)
    if line not in block:
        block = _block(lines, line)
    note = "" if depth == len(path) else f"the nearest field an example sets: {format_path(path[:depth])}"
    return Snippet(_display(example), tuple((n, lines[n - 1], n == line) for n in block), note)


def _lookup(sources: spec_sources.SourceMap, path: SpecPath) -> tuple[SpecPath, Mark] | None:
    candidates = [p for p in {*sources.keys, *sources.values} if len(p) == len(path)
                  and all(a == b or (isinstance(a, int) and isinstance(b, int)) for a, b in zip(p, path, strict=True))]
    if not candidates:
        return None
    first = min(candidates, key=lambda p: tuple(x if isinstance(x, int) else 0 for x in p))
    mark = sources.keys.get(first) or sources.values.get(first)
    return (first, mark) if mark else None


def _block(lines: list[str], line: int, limit: int = 12) -> range:
    """The line and the lines below it that belong to its value (a key's more indented lines,
    a list item's lines), at most ``limit``."""
    text = lines[line - 1]
    content = len(text) - len(text.lstrip(" -"))  # where the key starts, after any "- "
    item = text.lstrip(" ").startswith("- ")
    end = line
    while end < len(lines) and end - line < limit - 1:
        nxt = lines[end]
        indent = len(nxt) - len(nxt.lstrip(" "))
        if nxt.strip() and (indent < content if item else indent <= content) or item and nxt.strip() and indent < content:
            break
        if item and nxt.lstrip(" ").startswith("- ") and indent < content:
            break
        end += 1
    while end > line and not lines[end - 1].strip():  # no trailing blank lines
        end -= 1
    return range(line, end + 1)
