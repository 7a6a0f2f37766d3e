"""Locate the pinned upstream reference data (``<repo root>/../shared/reference``).

It is not part of the repository. Where it is absent, tests that need it skip -- or fail when
``STRATA_REQUIRE_REFERENCE=1`` (CI sets it), so CI can never pass by skipping them.
"""

from __future__ import annotations

import importlib.util
import os
import pathlib
import types

import pytest

REPO_ROOT = pathlib.Path(__file__).resolve().parents[1]


def reference_dir() -> pathlib.Path:
    path = REPO_ROOT.parent / "shared" / "reference"
    if not path.is_dir():
        message = f"upstream reference data is absent: {path} does not exist"
        if os.environ.get("STRATA_REQUIRE_REFERENCE") == "1":
            pytest.fail(f"{message} (and STRATA_REQUIRE_REFERENCE=1)", pytrace=False)
        pytest.skip(message)
    return path


def load_script(name: str) -> types.ModuleType:
    """A generator script of scripts/ (``build-rule-table.py``) as a module, to call its
    functions: the scripts are files, not importable package modules."""
    path = REPO_ROOT / "scripts" / name
    spec = importlib.util.spec_from_file_location(path.stem.replace("-", "_"), path)
    assert spec and spec.loader, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
