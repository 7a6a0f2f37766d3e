"""The offline JSON-schema store kubeconform validates against.

Two parts, both plain files that kubeconform reads through ``-schema-location`` templates:

- CRD schemas, imported from CustomResourceDefinition YAML (``import_crds``) and converted
  *strictly*: an object that declares its properties rejects any other field, as the API
  server would prune it (a typo would silently vanish instead of taking effect).
- core Kubernetes schemas, from the ``kubernetes-validate`` package, converted once into the
  per-user cache (``core_schema_location``), never into the store.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TextIO

from strata import usercache, yamlio
from strata.errors import StrataError

# kubeconform fills these in from each resource's apiVersion and kind (lowercased).
CRD_LOCATION = "{{ .Group }}/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json"
_CORE_LOCATION = "{{ .NormalizedKubernetesVersion }}-local{{ .StrictSuffix }}/{{ .ResourceKind }}{{ .KindSuffix }}.json"


class SchemaImportError(StrataError):
    """A CRD source cannot be read or converted; the message names the file."""


SCOPES_FILE = "crd-scopes.json"  # beside the group directories


def default_store() -> Path:
    """``$STRATA_SCHEMA_STORE``, else ``$XDG_CACHE_HOME/strata/schemas`` (``~/.cache/...``)."""
    env = os.environ.get("STRATA_SCHEMA_STORE")
    if env:
        return Path(env)
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "strata" / "schemas"


def crd_schema_location(store: Path) -> str:
    return f"{Path(store).resolve()}/{CRD_LOCATION}"


def crd_schema_locations(store: Path) -> list[str]:
    """Where kubeconform looks for custom kinds, in order: the schemas the installed packs
    ship for the CRD sets they declare, then the store (``strata schemas import``: extra CRDs)."""
    shipped = [f"{directory.resolve()}/{CRD_LOCATION}" for _, _, directory in pack_schema_sets() if directory.is_dir()]
    return [*shipped, crd_schema_location(store)]


def crd_directories(store: Path) -> list[Path]:
    """The directories holding <group>/<kind>_<version>.json files: the packs' sets, the store."""
    return [*(d for _, _, d in pack_schema_sets() if d.is_dir()), Path(store)]


# --- CRD import -----------------------------------------------------------------------------


def import_crds(sources: Iterable[str | Path], store: Path, stdin: TextIO | None = None) -> list[Path]:
    """Write ``store/<group>/<kind>_<version>.json`` for every served version of every CRD
    in ``sources`` (files, directories searched recursively, or ``-`` for ``stdin``).
    Returns the paths written, sorted. Nothing is written if any source is bad."""
    converted, scopes = convert_crds(sources, stdin)
    written = []
    for rel, content in converted.items():
        path = Path(store) / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        _write_atomic(path, content)
        written.append(path)
    if scopes:
        Path(store).mkdir(parents=True, exist_ok=True)
        _write_atomic(Path(store) / SCOPES_FILE, scopes_file({**crd_scopes(store, shipped=False), **scopes}))
    return sorted(written)


def convert_crds(sources: Iterable[str | Path], stdin: TextIO | None = None, *,
                 compact: bool = False) -> tuple[dict[Path, str], dict[str, str]]:
    """The converted schemas (relative path -> JSON text) of every served version of every CRD
    in ``sources``, and each CRD's scope by "group/Kind". ``compact``: without descriptions
    and whitespace (what packs ship; kubeconform never reads a description)."""
    converted: dict[Path, tuple[str, str]] = {}  # relative path -> (content, source)
    scopes: dict[str, str] = {}  # "group/Kind" -> Namespaced | Cluster
    for name, text in _read_sources(sources, stdin):
        try:
            documents = yamlio.load_all(text)
        except yamlio.YAMLError as e:
            raise SchemaImportError(f"{name}: not valid YAML: {_one_line(str(e))}") from None
        for doc in documents:
            if not (isinstance(doc, dict) and doc.get("kind") == "CustomResourceDefinition"):
                continue
            spec = doc.get("spec") or {}
            scopes[f"{spec.get('group')}/{(spec.get('names') or {}).get('kind')}"] = spec.get("scope", "Namespaced")
            for rel, content in _convert_crd(doc, name, compact):
                previous = converted.get(rel)
                # Two different definitions of one resource (e.g. the GPU operator and the DRA
                # driver both ship ComputeDomain): a cluster has only one, so let the user pick.
                if previous and previous[0] != content:
                    raise SchemaImportError(
                        f"{name}: {rel.with_suffix('')} is also defined, differently, by {previous[1]}: "
                        "import only one of them"
                    )
                converted[rel] = (content, name)
    return {rel: content for rel, (content, _) in converted.items()}, scopes


def scopes_file(scopes: dict[str, str]) -> str:
    return json.dumps(scopes, indent=2, sort_keys=True) + "\n"


def crd_scopes(store: Path, shipped: bool = True) -> dict[str, str]:
    """Every known CRD's scope by "group/Kind" (Namespaced or Cluster): the packs' shipped
    sets (unless ``shipped`` is False) and the store's imports."""
    scopes: dict[str, str] = {}
    for directory in crd_directories(store) if shipped else [Path(store)]:
        path = directory / SCOPES_FILE
        if path.is_file():
            scopes.update(json.loads(path.read_text()))
    return scopes


def _read_sources(sources: Iterable[str | Path], stdin: TextIO | None) -> Iterable[tuple[str, str]]:
    for source in sources:
        if str(source) == "-":
            yield "<stdin>", (stdin or sys.stdin).read()
            continue
        path = Path(source)
        if path.is_dir():
            files = sorted(p for p in path.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())
        elif path.is_file():
            files = [path]
        else:
            raise SchemaImportError(f"{source}: no such file or directory")
        for file in files:
            yield str(file), file.read_text(encoding="utf-8")


def _convert_crd(crd: dict, source: str, compact: bool = False) -> list[tuple[Path, str]]:
    name = (crd.get("metadata") or {}).get("name", "?")
    if crd.get("apiVersion") != "apiextensions.k8s.io/v1":
        raise SchemaImportError(f"{source}: CRD {name} is {crd.get('apiVersion')}, not apiextensions.k8s.io/v1")
    spec = crd.get("spec") or {}
    group, kind = spec.get("group"), (spec.get("names") or {}).get("kind")
    if not group or not kind:
        raise SchemaImportError(f"{source}: CRD {name} has no spec.group or spec.names.kind")
    out = []
    for version in spec.get("versions") or []:
        if not version.get("served"):
            continue
        schema = (version.get("schema") or {}).get("openAPIV3Schema")
        if not isinstance(schema, dict):
            raise SchemaImportError(f"{source}: CRD {name} version {version.get('name')} has no openAPIV3Schema")
        converted = _convert(schema, closed=True, resource=True)
        if compact:
            content = json.dumps(_without_descriptions(converted), sort_keys=True, separators=(",", ":")) + "\n"
        else:
            content = json.dumps(converted, indent=2, sort_keys=True) + "\n"
        out.append((Path(group) / f"{kind.lower()}_{version['name']}.json", content))
    return out


# --- openAPIV3Schema -> JSON Schema (draft 4, kubeconform's default) -------------------------


def _convert(schema: Any, *, closed: bool, resource: bool = False) -> Any:
    """Convert one schema node. ``closed``: the node is a real part of the object's shape
    (not a branch of allOf/anyOf/oneOf/not, which only adds constraints), so declaring
    properties means no others are allowed. ``resource``: the node is a whole Kubernetes
    object (the top level or an embedded resource) and must accept apiVersion/kind/metadata."""
    if not isinstance(schema, dict):
        return schema
    ext = {k: v for k, v in schema.items() if k.startswith("x-kubernetes-")}
    out = {k: v for k, v in schema.items() if not k.startswith("x-kubernetes-") and k != "nullable"}
    preserve = ext.get("x-kubernetes-preserve-unknown-fields") is True

    own = set()  # properties this function sets itself, not converted again
    if resource or ext.get("x-kubernetes-embedded-resource") is True:
        props = dict(out.get("properties") or {})
        props.setdefault("apiVersion", {"type": "string"})
        props.setdefault("kind", {"type": "string"})
        # Never closed: the API server checks metadata as ObjectMeta whatever the CRD declares
        # (controller-gen often lists only name/namespace, and labels must still be allowed).
        props["metadata"] = _object_meta(props.get("metadata"))
        out["properties"] = props
        own = {"metadata"}

    if isinstance(out.get("properties"), dict):
        out["properties"] = {
            name: sub if name in own else _convert(sub, closed=closed) for name, sub in out["properties"].items()
        }
    for key in ("patternProperties", "definitions"):
        if isinstance(out.get(key), dict):
            out[key] = {name: _convert(sub, closed=closed) for name, sub in out[key].items()}
    if isinstance(out.get("dependencies"), dict):
        out["dependencies"] = {k: _convert(v, closed=closed) for k, v in out["dependencies"].items()}
    for key in ("additionalProperties", "additionalItems"):
        if isinstance(out.get(key), dict):
            out[key] = _convert(out[key], closed=closed)
    if isinstance(out.get("items"), dict):
        out["items"] = _convert(out["items"], closed=closed)
    elif isinstance(out.get("items"), list):
        out["items"] = [_convert(s, closed=closed) for s in out["items"]]
    for key in ("allOf", "anyOf", "oneOf"):
        if isinstance(out.get(key), list):
            out[key] = [_convert(s, closed=False) for s in out[key]]
    if isinstance(out.get("not"), dict):
        out["not"] = _convert(out["not"], closed=False)

    if closed and out.get("properties") and not preserve and "additionalProperties" not in out:
        out["additionalProperties"] = False

    nullable = schema.get("nullable") is True
    if ext.get("x-kubernetes-int-or-string") is True:
        out.pop("type", None)
        choices = [{"type": "integer"}, {"type": "string"}] + ([{"type": "null"}] if nullable else [])
        # controller-gen already writes exactly anyOf [integer, string]: replace it, so that
        # null (when nullable) is one of the choices rather than failing the original.
        if "anyOf" not in out or _is_int_or_string(out["anyOf"]):
            out["anyOf"] = choices
        else:
            out["allOf"] = [*out.get("allOf", []), {"anyOf": choices}]
    elif nullable:
        out = _allow_null(out)
    return out


def _without_descriptions(schema: Any) -> Any:
    """A converted schema without its descriptions (only the keyword: a property named
    "description" stays)."""
    if isinstance(schema, list):
        return [_without_descriptions(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key == "description":
            continue
        if key in ("properties", "patternProperties", "definitions", "dependencies") and isinstance(value, dict):
            out[key] = {name: _without_descriptions(sub) for name, sub in value.items()}
        elif key in ("items", "additionalProperties", "additionalItems", "not", "allOf", "anyOf", "oneOf"):
            out[key] = _without_descriptions(value)
        else:
            out[key] = value
    return out


def _object_meta(declared: Any) -> dict:
    description = declared.get("description") if isinstance(declared, dict) else None
    return {"type": "object", **({"description": description} if description else {})}


def _is_int_or_string(choices: list) -> bool:
    types = sorted(c.get("type", "") for c in choices if isinstance(c, dict) and set(c) == {"type"})
    return len(types) == len(choices) and types == ["integer", "string"]


def _allow_null(out: dict) -> dict:
    if "type" not in out:
        # No type to extend (only combinators constrain the value): null or the rest.
        return {"anyOf": [{"type": "null"}, out]}
    types = out["type"] if isinstance(out["type"], list) else [out["type"]]
    out["type"] = [*types, "null"] if "null" not in types else types
    if isinstance(out.get("enum"), list) and None not in out["enum"]:
        out["enum"] = [*out["enum"], None]
    return out


# --- core Kubernetes schemas ----------------------------------------------------------------


def core_cache_dir() -> Path:
    """Where the converted core schemas live: the per-user cache, one directory per
    kubernetes-validate release. Never the schema store, which may be read-only or shared."""
    _, package_version = _kubernetes_validate_schemas()
    return usercache.root() / "core-schemas" / f"kubernetes-validate-{package_version}"


def core_schema_location(kubernetes_version: str | None = None) -> str:
    """The ``-schema-location`` template for the core Kubernetes schemas.

    kubernetes-validate ships ``v1.X.0-local-strict/<kind>-<group>-<version>.json`` files whose
    ``$id`` is ``https://kubernetes.io/api/...`` and whose ``$ref``s point at
    ``/api/_definitions.json``: resolved against that ``$id``, kubeconform would fetch them
    from kubernetes.io (and, offline, silently report "could not find schema"). So they are
    copied once into the per-user cache (``core_cache_dir``) with the ``$id`` dropped and the
    references made relative to the file. Only the strict variant is converted: strata always
    runs kubeconform with ``-strict``. ``kubernetes_version`` (``1.36`` or ``1.36.0``) limits
    the conversion to that version; without it, every shipped version is converted."""
    source_root, _ = _kubernetes_validate_schemas()
    core = core_cache_dir().resolve()
    if kubernetes_version:
        wanted = [f"v{_full_version(kubernetes_version)}-local-strict"]
    else:
        wanted = sorted(p.name for p in source_root.glob("v*-local-strict"))
    for name in wanted:
        if (source_root / name).is_dir() and not (core / name).is_dir():
            try:
                _convert_core_dir(source_root / name, core / name)
            except OSError as exc:
                raise SchemaImportError(f"cannot write the converted Kubernetes schemas into {core}: {exc.strerror or exc}; "
                                        "set XDG_CACHE_HOME to a writable directory") from None
    return f"{core}/{_CORE_LOCATION}"


def core_versions() -> list[str]:
    """Kubernetes versions (``1.36``) the installed kubernetes-validate has schemas for."""
    source_root, _ = _kubernetes_validate_schemas()
    versions = (p.name[1:].split("-")[0].rsplit(".", 1)[0] for p in source_root.glob("v*-local-strict"))
    return sorted(versions, key=lambda v: tuple(map(int, v.split("."))))


def _kubernetes_validate_schemas() -> tuple[Path, str]:
    import kubernetes_validate
    from kubernetes_validate.version import __version__

    return Path(kubernetes_validate.__file__).parent / "kubernetes-json-schema", __version__


def _full_version(version: str) -> str:
    version = version.removeprefix("v")
    return version if version.count(".") == 2 else f"{version}.0"


_ABSOLUTE_DEFINITIONS = "/api/_definitions.json#"


def _convert_core_dir(source: Path, target: Path) -> None:
    # Build next to the target and rename into place: a concurrent or interrupted run
    # never leaves a half-converted directory that would later count as done.
    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    os.chmod(work, 0o755)  # mkdtemp makes it private; the store may be a shared cache
    try:
        for file in source.glob("*.json"):
            schema = json.loads(file.read_text(encoding="utf-8"))
            (work / file.name).write_text(json.dumps(_relative_refs(schema)), encoding="utf-8")
        try:
            work.rename(target)
        except OSError:
            if not target.is_dir():  # another run won the race otherwise
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _relative_refs(node: Any) -> Any:
    if isinstance(node, dict):
        out = {k: _relative_refs(v) for k, v in node.items() if k != "$id"}
        ref = out.get("$ref")
        if isinstance(ref, str) and ref.startswith(_ABSOLUTE_DEFINITIONS):
            out["$ref"] = "_definitions.json#" + ref[len(_ABSOLUTE_DEFINITIONS):]
        return out
    if isinstance(node, list):
        return [_relative_refs(v) for v in node]
    return node


# --- helpers --------------------------------------------------------------------------------


def _write_atomic(path: Path, content: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(content)
        os.chmod(tmp, 0o644)  # mkstemp makes it private; the store may be a shared cache
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def _one_line(text: str) -> str:
    return " ".join(text.split())


# --- CRD schemas shipped with packs ---------------------------------------------------------


def pack_schema_sets() -> list[tuple[str, str, Path]]:
    """(CRD set, pack, directory) for every CRD set an installed pack declares (pack.yaml
    ``crds``), with the directory the pack ships its converted schemas in."""
    from strata.packs.loader import discover

    return [(crd_set, pack.name, pack.root / "schemas" / crd_set) for pack in discover() for crd_set in pack.manifest.crds]
