"""The OpenMP thread count oneDNN runs primitives with, per calling thread.

oneDNN's GNU OpenMP build runs a primitive on a team of ``omp_get_max_threads()`` threads of
the thread that executes it: that thread's own count (OpenMP's nthreads-var), which
``omp_set_num_threads`` sets for the calling thread only, so that threads running primitives
concurrently each keep theirs (dnnc.driver.streams gives each stream worker its count). The
count matters twice: when a primitive is created (brgemm kernels divide their work among
that many threads once) and when it runs (most other kernels divide it then), so a primitive
runs under the count it was created with (dnnc.runtime.cache keys on it).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from dnnc.dnnl.capi import openmp_function


def thread_count() -> int:
    """The threads a primitive created or run by the calling thread uses now."""
    return int(openmp_function("omp_get_max_threads")())


def set_thread_count(threads: int) -> None:
    """The threads oneDNN uses for primitives the calling thread creates and runs from now on
    (its OpenMP count: OMP_NUM_THREADS until set)."""
    if threads < 1:
        raise ValueError(f"a thread count must be >= 1, got {threads}")
    openmp_function("omp_set_num_threads")(threads)


@contextmanager
def running_on(threads: int) -> Iterator[None]:
    """The calling thread's count set to ``threads`` inside the block, its own count back
    after it (an exception included)."""
    caller = thread_count()
    if caller == threads:
        yield
        return
    set_thread_count(threads)
    try:
        yield
    finally:
        set_thread_count(caller)
