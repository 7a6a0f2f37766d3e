"""Progress lines on stderr for steps that take longer than a second: a line when such a step
has run for a second, another with its duration when it ends. Off when stderr is not a
terminal (CI logs stay the report alone) or with --quiet; $STRATA_PROGRESS=1 turns them on
for a non-terminal too. Quick steps print nothing."""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Iterator

THRESHOLD_SECONDS = 1.0
_quiet = False


def configure(quiet: bool) -> None:
    global _quiet
    _quiet = quiet


def enabled() -> bool:
    if _quiet:
        return False
    return os.environ.get("STRATA_PROGRESS") == "1" or sys.stderr.isatty()


def note(message: str) -> None:
    """A progress line now (long steps that announce themselves, e.g. a Go build)."""
    if enabled():
        print(f"strata: {message}", file=sys.stderr, flush=True)


@contextlib.contextmanager
def step(label: str, threshold: float | None = None) -> Iterator[None]:
    threshold = THRESHOLD_SECONDS if threshold is None else threshold
    if not enabled():
        yield
        return
    started = time.monotonic()
    announced = threading.Event()

    def announce() -> None:
        announced.set()
        note(f"{label} ...")

    timer = threading.Timer(threshold, announce)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        if announced.is_set():
            note(f"{label}: done in {time.monotonic() - started:.1f} s")
