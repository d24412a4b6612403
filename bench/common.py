"""Where the benchmark inputs are: the samples, and ``shared/eval`` when it exists."""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"


def eval_dir() -> Path | None:
    """``$EVIDEX_EVAL_DIR`` or ``../shared/eval`` beside the checkout; None when absent."""
    candidates = [os.environ.get("EVIDEX_EVAL_DIR"), ROOT.parent / "shared" / "eval"]
    for candidate in candidates:
        if candidate and Path(candidate).is_dir():
            return Path(candidate)
    return None


def best_of(fn: Callable[[], object], repeat: int = 3) -> float:
    """Best wall time of ``repeat`` runs, in seconds (the least disturbed by a noisy machine)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")
