#!/usr/bin/env python3
"""Write docs/spec-reference.md from the spec models: every field of the core spec and of
every built-in pack's section, with its YAML name, type, default and description (the
field's comment in the model). tests/test_spec_reference.py fails while it is stale.

    python scripts/build-spec-reference.py [--check]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from strata.packs.loader import discover
from strata.spec.describe import markdown_reference

OUTPUT = Path(__file__).resolve().parents[1] / "docs" / "spec-reference.md"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if the reference is stale")
    args = parser.parse_args(argv)
    packs = tuple(p for p in discover() if p.source == "builtin")
    text = markdown_reference(packs)
    current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.is_file() else ""
    if args.check:
        if text != current:
            print(f"{OUTPUT} is stale: run scripts/build-spec-reference.py", file=sys.stderr)
            return 1
        return 0
    if text != current:
        OUTPUT.parent.mkdir(parents=True, exist_ok=True)
        OUTPUT.write_text(text, encoding="utf-8")
        print(f"wrote {OUTPUT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
