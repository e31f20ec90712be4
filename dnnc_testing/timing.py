"""Timing for the benchmarks: medians of repeated runs, and of rounds of worker processes."""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterable

import numpy as np

import dnnc


def median_ms(executable: dnnc.Executable, inputs: list[np.ndarray], repeats: int) -> float:
    """Median wall time of one run in milliseconds, after 3 warm-up runs."""
    for _ in range(3):
        executable.run(inputs)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        executable.run(inputs)
        times.append(time.perf_counter() - start)
    return 1e3 * statistics.median(times)


PEAK_KEYS = ("rss_mib", "peak_mib")
"""Figures of a worker that combine as the largest over the rounds (peak memory)."""


def combine_rounds(measured: Iterable[dict | str]) -> dict | str:
    """One (model, engine) worker's figures over the rounds it ran, in turn with the others
    (a burst of noise on a shared VM then lands on one round rather than on one engine): the
    median of each figure, the largest peak memory, and ``<figure>_range`` (lowest, highest);
    the first error if a round failed."""
    rounds = list(measured)
    failed = [r for r in rounds if isinstance(r, str)]
    if failed:
        return failed[0]
    figures = [r for r in rounds if isinstance(r, dict)]
    combined: dict = {}
    for key in figures[0]:
        values = [r[key] for r in figures]
        if key in PEAK_KEYS:
            combined[key] = max(values)
        else:
            combined[key] = statistics.median(values)
            combined[f"{key}_range"] = (min(values), max(values))
    return combined
