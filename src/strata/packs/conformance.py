"""The pack contract, checked when a pack is loaded: each mistake a pack author can make is a
PackError naming the pack and the file, instead of something silently ignored or an internal
error later (see README "Writing a pack")."""

from __future__ import annotations
import __future__

import difflib
import inspect
import types
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from strata.errors import PackError
from strata.packs.contract import LegacyField, PackManifest
from strata.rules import Rule

# The hooks pack.py may define, with the arguments the engine passes them.
HOOKS: dict[str, tuple[str, ...]] = {"check": ("spec", "config", "facts"), "context": ("spec", "config", "facts"),
                                     "exports": ("spec", "config", "facts"), "documents": ("spec", "config", "facts")}
INVENTORY_CONTEXT = ("spec", "config", "facts", "inventory")
DECLARATIONS = ("Config", "RULES", "LEGACY_FIELDS")
# Names the engine puts into every template context; a pack's context may not replace them.
RESERVED_CONTEXT = frozenset({"spec", "cluster", "config", "facts"})


def _public_api() -> dict[str, Any]:
    import strata.pack

    return {name: getattr(strata.pack, name) for name in strata.pack.__all__}


def check_module(manifest: PackManifest, module: types.ModuleType, path: Path) -> None:
    """pack.py defines only what the contract knows: Config, RULES, LEGACY_FIELDS and hooks."""
    where = f"pack {manifest.name!r} ({path})"
    known = (*HOOKS, *DECLARATIONS)
    api = _public_api()
    for name, value in sorted(vars(module).items()):
        if name.startswith("_") or name in known or isinstance(value, (types.ModuleType, __future__._Feature)):
            continue
        if api.get(name) is value:  # imported from strata.pack
            continue
        close = difflib.get_close_matches(name.lower(), [k.lower() for k in known], n=1, cutoff=0.7)
        suggestion = next((k for k in known if close and k.lower() == close[0]), None)
        own_function = inspect.isfunction(value) and value.__module__.startswith(module.__name__)  # not an import
        if own_function or suggestion:
            hint = f"; did you mean {suggestion!r}?" if suggestion else ""
            raise PackError(f"{where}: {name!r} is not part of the pack contract{hint} "
                            f"(pack.py defines {', '.join(DECLARATIONS)} and the hooks {', '.join(HOOKS)}; "
                            "helpers belong in another module or start with _)")
    for hook, params in HOOKS.items():
        if manifest.inventory and hook == "context":
            params = INVENTORY_CONTEXT
        _check_signature(where, hook, getattr(module, hook, None), params)


def _check_signature(where: str, hook: str, fn: Any, params: tuple[str, ...]) -> None:
    if fn is None:
        return
    wanted = f"{hook}({', '.join(params)})"
    if not callable(fn):
        raise PackError(f"{where}: {hook} must be a function {wanted}")
    try:
        inspect.signature(fn).bind(*params)
    except TypeError:
        raise PackError(f"{where}: {hook}{inspect.signature(fn)} must take {wanted}") from None
    except ValueError:  # no signature to inspect (a builtin): the call will tell
        return


def check_rules(manifest: PackManifest, rules: Any, path: Path) -> tuple[Rule, ...]:
    where = f"pack {manifest.name!r} ({path})"
    if not isinstance(rules, (tuple, list)):
        raise PackError(f"{where}: RULES must be a tuple of Rule, not {type(rules).__name__}")
    seen: set[str] = set()
    for i, rule in enumerate(rules):
        if not isinstance(rule, Rule):
            raise PackError(f"{where}: RULES[{i}] is a {type(rule).__name__}, not a Rule (from strata.pack import Rule)")
        if not rule.id.startswith(f"{manifest.name}/") or rule.id == f"{manifest.name}/":
            raise PackError(f"{where}: rule id {rule.id!r} must be {manifest.name}/<name>: a pack's rules live under its name")
        if rule.id in seen:
            raise PackError(f"{where}: rule id {rule.id!r} is listed twice in RULES")
        seen.add(rule.id)
    return tuple(rules)


def check_legacy_fields(manifest: PackManifest, fields: Any, rules: tuple[Rule, ...], path: Path) -> tuple[LegacyField, ...]:
    where = f"pack {manifest.name!r} ({path})"
    if not isinstance(fields, (tuple, list)):
        raise PackError(f"{where}: LEGACY_FIELDS must be a tuple of LegacyField, not {type(fields).__name__}")
    ids = {r.id for r in rules}
    for i, field in enumerate(fields):
        if not isinstance(field, LegacyField):
            raise PackError(f"{where}: LEGACY_FIELDS[{i}] is a {type(field).__name__}, not a LegacyField (from strata.pack import LegacyField)")
        if not isinstance(field.pattern, str) or not field.pattern or not isinstance(field.message, str):
            raise PackError(f"{where}: LEGACY_FIELDS[{i}] needs a spec path pattern such as nodePools[*].field and a message")
        if not isinstance(field.rule, Rule) or field.rule.id not in ids:
            raise PackError(f"{where}: LEGACY_FIELDS[{i}] ({field.pattern}) names a rule that is not in the pack's RULES")
    return tuple(fields)


def check_templates(manifest: PackManifest, root: Path) -> None:
    """Only templates/<component>/<file>.j2 is rendered; anything else there would be ignored."""
    templates = root / "templates"
    if not templates.is_dir():
        return
    stray = sorted(p.relative_to(root).as_posix() for p in templates.rglob("*")
                   if p.is_file() and (len(p.relative_to(templates).parts) != 2 or p.suffix != ".j2"))
    if stray:
        raise PackError(f"pack {manifest.name!r} ({root}): {', '.join(stray)} would never be rendered: "
                        "templates are templates/<component>/<kind>.yaml.j2 (the folder names the component)")


def check_release_files(manifest: PackManifest, root: Path) -> None:
    """Every Helm release's values template exists (else every render would fail on it)."""
    missing = [f"helmReleases[{r.name}].values {r.values}" for r in manifest.helm_releases if not (root / r.values).is_file()]
    if missing:
        raise PackError(f"pack {manifest.name!r} ({root / 'pack.yaml'}): {', '.join(missing)} does not exist in the pack")


def check_context(pack_name: str, path: Path, context: Any) -> dict[str, Any]:
    where = f"pack {pack_name!r} ({path})"
    if not isinstance(context, dict):
        raise PackError(f"{where}: context returned {type(context).__name__}; it must return a dict of template variables")
    clash = sorted(RESERVED_CONTEXT & set(context))
    if clash:
        raise PackError(f"{where}: context returns {', '.join(map(repr, clash))}, which the engine provides to every template "
                        f"({', '.join(sorted(RESERVED_CONTEXT))}); rename the key")
    return context


def lookup(pack_name: str, manifest_path: Path, what: str, context: dict[str, Any], dotted: str) -> Any:
    """A value of the pack's context named in pack.yaml (a release's when/overrides/values)."""
    value: Any = context
    for depth, part in enumerate(dotted.split(".")):
        if not isinstance(value, dict) or part not in value:
            keys: Iterable[str] = value if isinstance(value, dict) else ()
            close = difflib.get_close_matches(part, [str(k) for k in keys], n=1)
            hint = f"; did you mean {'.'.join([*dotted.split('.')[:depth], close[0]])!r}?" if close else ""
            raise PackError(f"pack {pack_name!r} ({manifest_path}): {what} names {dotted!r}, "
                            f"which the pack's context does not provide{hint}")
        value = value[part]
    return value
