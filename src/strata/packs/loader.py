"""Find packs (entry points of group ``strata.packs``, built-in ones included) and load
them. Finding and loading are separate; order is deterministic; errors name the pack."""

from __future__ import annotations

import difflib
import importlib
import importlib.util
import sys
import types
from functools import cache
from pathlib import Path

from pydantic import BaseModel, ValidationError

from strata import overrides, yamlio
from strata.errors import PackError
from strata.packs import conformance, entry
from strata.packs.contract import Pack, PackManifest

MODULE_NAMESPACE = "strata.packs.imported"


def module_name(pack: str) -> str:
    """The name pack.py is imported under (its sibling modules live below it)."""
    return f"{MODULE_NAMESPACE}.{pack}"


def _import_pack_module(name: str, path: Path) -> types.ModuleType:
    importlib.import_module(MODULE_NAMESPACE)
    module_name = f"{MODULE_NAMESPACE}.{name}"
    # A package rooted at the pack directory, so pack.py can import its siblings (from .config import ...).
    spec = importlib.util.spec_from_file_location(module_name, path, submodule_search_locations=[str(path.parent)])
    if spec is None or spec.loader is None:
        raise PackError(f"pack {name!r}: cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        raise PackError(f"pack {name!r}: {path.name} failed to import: {exc}") from exc
    return module


def load_pack(root: Path, source: str, expected_name: str | None = None) -> Pack:
    manifest_path = root / "pack.yaml"
    label = expected_name or root.name
    if not manifest_path.is_file():
        raise PackError(f"pack {label!r}: {manifest_path} is missing")
    try:
        raw = yamlio.load(manifest_path.read_bytes())
        manifest = PackManifest.model_validate(raw)
    except (yamlio.YAMLError, ValidationError) as exc:
        raise PackError(f"pack {label!r}: invalid {manifest_path}: {exc}") from exc
    if expected_name and manifest.name != expected_name:
        raise PackError(f"pack {label!r}: pack.yaml names it {manifest.name!r}")
    from strata import charts  # imports the pack contract too

    if problems := charts.manifest_problems(manifest.helm_releases):
        raise PackError(f"pack {label!r}: invalid {manifest_path}: {'; '.join(problems)}")
    pack_py = root / "pack.py"
    module = _import_pack_module(manifest.name, pack_py)
    config = getattr(module, "Config", None)
    if not (isinstance(config, type) and issubclass(config, BaseModel)):
        raise PackError(f"pack {manifest.name!r} ({pack_py}): pack.py must define a pydantic model named Config")
    conformance.check_module(manifest, module, pack_py)
    conformance.check_templates(manifest, root)
    conformance.check_release_files(manifest, root)
    rules = conformance.check_rules(manifest, getattr(module, "RULES", ()), pack_py)
    overrides.validate_manifest(manifest.name, root, config, manifest.helm_releases)
    return Pack(
        manifest=manifest,
        root=root,
        source=source,
        config=config,
        check=getattr(module, "check", None),
        context=getattr(module, "context", None),
        exports=getattr(module, "exports", None),
        documents=getattr(module, "documents", None),
        rules=rules,
        legacy_fields=conformance.check_legacy_fields(manifest, getattr(module, "LEGACY_FIELDS", ()), rules, pack_py),
    )


@cache
def discover() -> tuple[Pack, ...]:
    """Every installed pack, ordered so that required packs come first, then by name."""
    found: dict[str, Pack] = {}
    for ep in entry.entries():
        source = entry.source(ep)
        if ep.name in found:
            if found[ep.name].source == "builtin" or source == "builtin":
                raise PackError(f"pack {ep.name!r} from {source} would shadow the built-in pack of that name")
            raise PackError(f"pack {ep.name!r} is installed twice ({found[ep.name].source}, {source})")
        found[ep.name] = load_pack(entry.pack_dir(ep), source, expected_name=ep.name)
    return order(found)


def order(packs: dict[str, Pack]) -> tuple[Pack, ...]:
    """Packs in dependency order: every pack after the packs it requires or uses (whose facts
    it reads), then by name. A cycle through requires/uses is refused."""
    ordered: dict[str, Pack] = {}
    path: list[str] = []

    def visit(name: str) -> None:
        if name in ordered:
            return
        if name in path:
            cycle = " -> ".join([*path[path.index(name):], name])
            raise PackError(f"packs depend on each other in a cycle ({cycle}): "
                            f"requires/uses in pack.yaml of {', '.join(sorted(set(path[path.index(name):])))} must not loop")
        pack = packs[name]
        path.append(name)
        for kind in ("requires", "uses"):
            for other in sorted(getattr(pack.manifest, kind)):
                if other not in packs:
                    close = difflib.get_close_matches(other, packs, n=1)
                    hint = f"; did you mean {close[0]!r}?" if close else ""
                    raise PackError(f"pack {name!r} {kind} pack {other!r}, which is not installed "
                                    f"({pack.root / 'pack.yaml'}){hint}")
                if kind == "uses" and packs[other].exports is None:
                    raise PackError(f"pack {name!r} uses pack {other!r}, which exports no facts "
                                    f"(its pack.py has no exports hook; {pack.root / 'pack.yaml'})")
                visit(other)
        path.pop()
        ordered[name] = pack

    for name in sorted(packs):
        visit(name)
    return tuple(ordered.values())
