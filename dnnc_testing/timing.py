"""Timing for the benchmarks: medians of repeated runs."""

from __future__ import annotations

import statistics
import time

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
