"""Locate the pinned upstream reference data (``<repo root>/../shared/reference``).

It is not part of the repository. Where it is absent, tests that need it skip -- or fail when
``STRATA_REQUIRE_REFERENCE=1`` (CI sets it), so CI can never pass by skipping them.
"""

from __future__ import annotations

import os
import pathlib

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
