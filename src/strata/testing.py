"""Test a pack in process, the way strata runs it: ``render(spec, pack_dir)`` validates, checks
and renders the spec with the installed packs plus the pack under test (which replaces an
installed pack of the same name) and returns the problems and the rendered objects.

    from strata.testing import render

    def test_greets_every_team():
        result = render(SPEC, Path(__file__).parents[1] / "strata_pack_hello")
        assert result.problems == []
        assert result.object("ConfigMap", "greeting", "research")["data"] == {"message": "hi"}
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import yaml

from strata import pipeline
from strata.packs import loader
from strata.packs.contract import Pack
from strata.problems import Problem, has_errors

__all__ = ["Rendered", "load_packs", "render"]


@dataclasses.dataclass(frozen=True)
class Rendered:
    problems: list[Problem]  # spec, policy and render problems, sorted as strata prints them
    files: dict[str, str]  # the output tree strata would write (empty when an error stops it)
    objects: list[dict[str, Any]]  # the Kubernetes objects of the tree, in file order

    @property
    def lines(self) -> list[str]:
        """The problems as strata prints them: ``file:line:col: path: message [rule]``."""
        return [p.format() for p in self.problems]

    def object(self, kind: str, name: str, namespace: str | None = None) -> dict[str, Any]:
        found = [o for o in self.objects if o.get("kind") == kind and o["metadata"].get("name") == name
                 and (namespace is None or o["metadata"].get("namespace") == namespace)]
        if len(found) != 1:
            raise LookupError(f"{len(found)} objects are {kind} {namespace + '/' if namespace else ''}{name}")
        return found[0]


def load_packs(*pack_dirs: str | Path) -> tuple[Pack, ...]:
    """The installed packs plus the packs in ``pack_dirs`` (loaded and checked like any
    installed pack), in dependency order."""
    found = {p.name: p for p in loader.discover()}
    for root in pack_dirs:
        pack = loader.load_pack(Path(root), "test")
        found[pack.name] = pack
    return loader.order(found)


def render(spec: str | bytes | dict[str, Any], *pack_dirs: str | Path, file: str = "spec.yaml") -> Rendered:
    """Load, check and render ``spec`` (YAML text or a mapping) with the installed packs plus
    ``pack_dirs``; nothing is written and no external binary runs."""
    source = yaml.safe_dump(spec, sort_keys=False) if isinstance(spec, dict) else spec
    text = source.encode() if isinstance(source, str) else source
    loaded = pipeline.load([(file, text)], load_packs(*pack_dirs))
    if loaded.spec is None or has_errors(loaded.problems):
        return Rendered(loaded.problems, {}, [])
    tree, problems = pipeline.render(loaded)
    all_problems = sorted({*loaded.problems, *problems}, key=Problem.sort_key)
    files = {name: data.decode() for name, data in sorted(tree.items())}
    objects = [yaml.safe_load(files[name]) for name in pipeline.manifest_files(list(files))]
    return Rendered(all_problems, files if not has_errors(all_problems) else {}, objects)
