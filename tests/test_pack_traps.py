"""Each way a pack author can get the pack contract wrong is a clear PackError naming the pack
and its file (exit 1 from the real CLI, never the internal-error exit 3), and packs read each
other only through declared, typed facts."""

from __future__ import annotations

import itertools
import textwrap
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from strata import cli, pipeline
from strata.errors import PackError
from strata.packs import entry, loader
from strata.packs.loader import discover, load_pack

SPEC = """\
apiVersion: strata.dev/v1alpha1
kind: Platform
cluster: {name: c1, region: us-east-1, kubernetesVersion: "1.36"}
teams: [{name: research, groups: [ml-research]}]
probe: {}
"""
CONFIGMAP = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: probe, namespace: default}\ndata: {value: {{ value | q }}}\n"
_MODULE_NUMBERS = itertools.count()
PACK_PY = "from strata.pack import StrictModel\n\n\nclass Config(StrictModel):\n    pass\n"


def with_hooks(code: str) -> str:
    """pack.py: the empty Config plus ``code`` (hooks and whatever they need)."""
    return PACK_PY + "\n\n" + textwrap.dedent(code)


def write_pack(root: Path, pack_py: str = PACK_PY, manifest: str = "", templates: dict[str, str] | None = None,
               name: str = "probe", files: dict[str, str] | None = None) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "pack.yaml").write_text(f"name: {name}\nversion: 0.0.1\nsummary: test pack\nlayer: probe\n" + textwrap.dedent(manifest))
    (root / "pack.py").write_text(pack_py)
    for rel, text in (templates if templates is not None else {"things/configmap.yaml.j2": CONFIGMAP}).items():
        (root / "templates" / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / "templates" / rel).write_text(text)
    for rel, text in (files or {}).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


@pytest.fixture
def install(tmp_path, monkeypatch):
    """Install a pack directory as if a distribution registered it under strata.packs, so
    the real CLI (in process) discovers it beside the built-in packs."""
    site = tmp_path / "site"

    def run(**pack) -> Path:
        module = f"probe_pack_{next(_MODULE_NUMBERS)}"  # a new module: entry points are imported once
        root = write_pack(site / module, **pack)
        (root / "__init__.py").write_text("")
        monkeypatch.syspath_prepend(str(site))
        builtin = list(entry.entry_points(group=entry.GROUP))
        probe = EntryPoint(name=pack.get("name", "probe"), value=module, group=entry.GROUP)
        monkeypatch.setattr(entry, "entry_points", lambda group: [*builtin, probe])
        discover.cache_clear()
        return root

    yield run
    discover.cache_clear()


def strata(*args: str | Path) -> tuple[int, str]:
    """The CLI's exit code and its stderr, run in process."""
    import io
    from contextlib import redirect_stderr, redirect_stdout

    err, out = io.StringIO(), io.StringIO()
    with redirect_stderr(err), redirect_stdout(out), pytest.raises(SystemExit) as exit_:
        cli.main([str(a) for a in args])
    return exit_.value.code, err.getvalue() + out.getvalue()


def render(tmp_path: Path, spec: str = SPEC) -> tuple[int, str]:
    (tmp_path / "spec.yaml").write_text(spec)
    return strata("render", "-f", tmp_path / "spec.yaml", "-o", tmp_path / "out", "--no-validate")


def test_a_well_formed_probe_pack_renders(install, tmp_path):
    install(pack_py=PACK_PY + "\n\ndef context(spec, config, facts):\n    return {'value': 'ok'}\n")
    code, output = render(tmp_path)
    assert code == 0, output
    assert "value: ok" in (tmp_path / "out/probe/things/configmap-default-probe.yaml").read_text()


# --- typed facts between packs --------------------------------------------------------------

def test_a_pack_reads_the_facts_of_the_packs_it_uses(install, tmp_path):
    install(manifest="uses: [storage]\n", pack_py=with_hooks("""
        def context(spec, config, facts):
            storage = facts["storage"]
            return {"value": ",".join(storage.class_names) if storage else "no storage"}
        """))
    assert render(tmp_path)[0] == 0
    assert "value: no storage" in (tmp_path / "out/probe/things/configmap-default-probe.yaml").read_text()
    spec = SPEC + "storage: {existingClasses: [gp3, shared]}\n"
    code, output = render(tmp_path, spec)
    assert code == 0, output
    assert 'value: "gp3,shared"' in (tmp_path / "out/probe/things/configmap-default-probe.yaml").read_text()


def test_hooks_see_the_core_spec_not_other_packs_sections(install, tmp_path):
    install(pack_py=with_hooks("""
        def context(spec, config, facts):
            return {"value": f"{type(spec).__name__} {hasattr(spec, 'compute')} {hasattr(spec, 'probe')} {len(spec.teams)}"}
        """))
    assert render(tmp_path)[0] == 0
    assert "value: CoreSpec False False 1" in (tmp_path / "out/probe/things/configmap-default-probe.yaml").read_text()


def test_reading_facts_of_a_pack_not_declared_in_uses_is_refused(install, tmp_path):
    install(pack_py=PACK_PY + "\n\ndef check(spec, config, facts):\n    facts['compute']\n    return []\n")
    code, output = render(tmp_path)
    assert code == 1
    assert "pack probe reads the facts of pack 'compute', but it declares no uses: add compute to uses in its pack.yaml" in output


def test_facts_hold_exactly_the_used_packs(install, tmp_path):
    install(manifest="uses: [compute, storage]\n", pack_py=with_hooks("""
        def context(spec, config, facts):
            seen = [list(facts), "compute" in facts, "jark" in facts, facts["compute"].gpu_operator.enabled, facts["storage"]]
            return {"value": repr(seen)}
        """))
    code, output = render(tmp_path)
    assert code == 0, output
    assert "value: \"[['compute', 'storage'], True, False, True, None]\"" in (tmp_path / "out/probe/things/configmap-default-probe.yaml").read_text()


def test_using_a_pack_that_is_not_installed_is_refused_with_a_suggestion(install):
    root = install(manifest="uses: [storag]\n")
    code, output = strata("packs", "list")
    assert code == 1
    assert f"pack 'probe' uses pack 'storag', which is not installed ({root / 'pack.yaml'}); did you mean 'storage'?" in output


def test_using_a_pack_that_exports_nothing_is_refused(install):
    install(manifest="uses: [gitops]\n")
    code, output = strata("packs", "list")
    assert code == 1 and "pack 'probe' uses pack 'gitops', which exports no facts" in output


def test_a_cycle_through_uses_and_requires_is_refused(tmp_path):
    a = load_pack(write_pack(tmp_path / "a", name="alpha", manifest="uses: [beta]\n",
                             pack_py=PACK_PY + "\n\ndef exports(spec, config, facts):\n    return None\n"), "test")
    b = load_pack(write_pack(tmp_path / "b", name="beta", manifest="requires: [alpha]\n",
                             pack_py=PACK_PY + "\n\ndef exports(spec, config, facts):\n    return None\n"), "test")
    with pytest.raises(PackError, match=r"packs depend on each other in a cycle \(alpha -> beta -> alpha\)") as error:
        loader.order({"alpha": a, "beta": b})
    assert error.value.exit_code == 1


def test_the_cli_refuses_a_cycle_with_exit_1(install):
    install(manifest="uses: [probe]\n", pack_py=with_hooks("def exports(spec, config, facts):\n    return None\n"))
    code, output = strata("packs", "list")
    assert code == 1 and "packs depend on each other in a cycle (probe -> probe)" in output


def test_exports_are_computed_once_per_spec_in_dependency_order(tmp_path):
    calls = tmp_path / "calls"
    exporter = with_hooks(f"""
        import dataclasses

        @dataclasses.dataclass(frozen=True)
        class Seen:
            names: tuple

        def exports(spec, config, facts):
            with open({str(calls)!r}, "a") as f:
                f.write("NAME\\n")
            return Seen(tuple(facts) + tuple(str(facts[n] is not None) for n in facts))
        """)
    first = load_pack(write_pack(tmp_path / "a", name="alpha", manifest="uses: [beta]\n", pack_py=exporter.replace("NAME", "alpha")), "test")
    second = load_pack(write_pack(tmp_path / "b", name="beta", pack_py=exporter.replace("NAME", "beta")), "test")
    packs = (*discover(), first, second)  # deliberately not in dependency order
    spec = SPEC.replace("probe: {}", "alpha: {}\nbeta: {}").encode()
    loaded = pipeline.load([("spec.yaml", spec)], packs)
    assert loaded.problems == []
    pipeline.render(loaded)
    assert calls.read_text() == "beta\nalpha\n"
    assert loaded.facts.exports["alpha"].names == ("beta", "True")


def test_exports_must_be_frozen(install, tmp_path):
    install(pack_py=PACK_PY + "\n\ndef exports(spec, config, facts):\n    return {'mutable': True}\n")
    code, output = render(tmp_path)
    assert code == 1
    assert "pack probe: exports in " in output and "returned dict; it must return a frozen dataclass or a frozen pydantic model" in output


# --- the checked contract: pack.py --------------------------------------------------------

@pytest.mark.parametrize("wrong, meant", [("checks", "check"), ("contexts", "context"), ("export", "exports")])
def test_a_misspelled_hook_is_refused_with_a_suggestion(install, wrong, meant):
    root = install(pack_py=with_hooks(f"def {wrong}(spec, config, facts):\n    return []\n"))
    code, output = strata("packs", "list")
    assert code == 1
    assert f"pack 'probe' ({root / 'pack.py'}): {wrong!r} is not part of the pack contract; did you mean {meant!r}?" in output


def test_a_misspelled_declaration_is_refused(install):
    install(pack_py=with_hooks("RULE = ()\n"))
    code, output = strata("packs", "list")
    assert code == 1 and "'RULE' is not part of the pack contract; did you mean 'RULES'?" in output


def test_a_public_helper_function_in_pack_py_is_refused(install):
    install(pack_py=with_hooks("def greet(name):\n    return name\n"))
    code, output = strata("packs", "list")
    assert code == 1 and "'greet' is not part of the pack contract (pack.py defines Config, RULES, LEGACY_FIELDS" in output


def test_functions_pack_py_imports_are_not_taken_for_hooks(install, tmp_path):
    install(pack_py="from dataclasses import dataclass, field\n" + with_hooks("def context(spec, config, facts):\n    return {'value': 'x'}\n"))
    code, output = render(tmp_path)
    assert code == 0, output


def test_a_hook_with_the_wrong_arguments_is_refused(install):
    install(pack_py=with_hooks("def check(spec, config):\n    return []\n"))
    code, output = strata("packs", "list")
    assert code == 1 and "check(spec, config) must take check(spec, config, facts)" in output


@pytest.mark.parametrize("rules, message", [
    ("RULES = ('probe/x',)", "RULES[0] is a str, not a Rule"),
    ("RULES = Rule('probe/x', 'why', 'fix')", "RULES must be a tuple of Rule, not Rule"),
    ("RULES = (Rule('other/x', 'why', 'fix'),)", "rule id 'other/x' must be probe/<name>: a pack's rules live under its name"),
    ("RULES = (Rule('probe/x', 'why', 'fix'), Rule('probe/x', 'again', 'fix'))", "rule id 'probe/x' is listed twice in RULES"),
])
def test_bad_rules_are_refused(install, rules, message):
    root = install(pack_py=PACK_PY.replace("import StrictModel", "import Rule, StrictModel") + "\n" + rules + "\n")
    code, output = strata("packs", "list")
    assert code == 1 and f"pack 'probe' ({root / 'pack.py'}): {message}" in output


@pytest.mark.parametrize("fields, message", [
    ("LEGACY_FIELDS = ('probe.old',)", "LEGACY_FIELDS[0] is a str, not a LegacyField"),
    ("LEGACY_FIELDS = (LegacyField('probe.old', Rule('probe/elsewhere', 'why', 'fix'), 'moved'),)",
     "LEGACY_FIELDS[0] (probe.old) names a rule that is not in the pack's RULES"),
])
def test_bad_legacy_fields_are_refused_not_dropped(install, fields, message):
    install(pack_py=PACK_PY.replace("import StrictModel", "import LegacyField, Rule, StrictModel")
            + "\nOLD = Rule('probe/old', 'why', 'fix')\nRULES = (OLD,)\n" + fields + "\n")
    code, output = strata("packs", "list")
    assert code == 1 and message in output


def test_pack_py_is_imported_under_a_private_name_that_cannot_shadow_its_distribution(install):
    import sys

    root = install(pack_py=with_hooks("import os\nfrom strata import pack as _pack\n\nFACT = 'pack.py'\n"))
    assert strata("packs", "list")[0] == 0
    distribution = sys.modules[root.name]
    assert distribution.__file__ == str(root / "__init__.py") and not hasattr(distribution, "Config")
    assert sys.modules["strata.packs.imported.probe"].FACT == "pack.py"


# --- the checked contract: templates and pack.yaml ----------------------------------------

@pytest.mark.parametrize("stray", ["configmap.yaml.j2", "things/nested/configmap.yaml.j2", "things/configmap.yaml"])
def test_a_template_outside_a_component_folder_is_refused(install, stray):
    install(templates={"things/configmap.yaml.j2": CONFIGMAP, stray: CONFIGMAP})
    code, output = strata("packs", "list")
    assert code == 1
    assert f"templates/{stray} would never be rendered: templates are templates/<component>/<kind>.yaml.j2" in output


RELEASE = """\
helmReleases:
  - {name: thing, namespace: default, repo: https://example.com/charts, chart: thing, version: 1.0.0,
     values: helm/thing.yaml.j2, WHEN}
"""


@pytest.mark.parametrize("key, message", [
    ("when: thing_enabeld", "helmReleases[thing].when names 'thing_enabeld', which the pack's context does not provide; did you mean 'thing_enabled'?"),
    ("valuesOverrides: thing", "release thing: valuesOverrides: thing must name a component of the Config whose model inherits strata's ChartOverrides"),
])
def test_an_unknown_when_or_overrides_key_is_a_pack_error_not_an_internal_one(install, tmp_path, key, message):
    root = install(manifest=RELEASE.replace("WHEN", key), files={"helm/thing.yaml.j2": "replicas: 1\n"}, pack_py=with_hooks("""
        def context(spec, config, facts):
            return {"value": "x", "thing_enabled": True, "thing": {"overrides": {}}}
        """))
    code, output = render(tmp_path)
    assert code == 1, output
    assert f"pack 'probe' ({root / 'pack.yaml'}): {message}" in output
    assert not (tmp_path / "out").exists()


def test_a_release_whose_values_template_is_missing_is_refused(install):
    root = install(manifest=RELEASE.replace(", WHEN", ""), files={"helm/other.yaml.j2": "replicas: 1\n"})
    code, output = strata("packs", "list")
    assert code == 1
    assert f"pack 'probe' ({root / 'pack.yaml'}): helmReleases[thing].values helm/thing.yaml.j2 does not exist in the pack" in output


@pytest.mark.parametrize("name", ["config", "spec", "cluster", "facts"])
def test_a_context_key_that_would_replace_the_engines_is_refused(install, tmp_path, name):
    root = install(pack_py=with_hooks(f"def context(spec, config, facts):\n    return {{'value': 'x', {name!r}: 1}}\n"))
    code, output = render(tmp_path)
    assert code == 1
    assert f"pack 'probe' ({root / 'pack.py'}): context returns {name!r}, which the engine provides to every template" in output


def test_a_context_that_is_not_a_mapping_is_refused(install, tmp_path):
    install(pack_py=with_hooks("def context(spec, config, facts):\n    return [('value', 'x')]\n"))
    code, output = render(tmp_path)
    assert code == 1 and "context returned list; it must return a dict of template variables" in output
