"""The per-user cache strata keeps what it builds or converts in: ``$XDG_CACHE_HOME/strata``
(``~/.cache/strata``). Never a directory the user pointed strata at."""

from __future__ import annotations

import os
from pathlib import Path


def root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "strata"
