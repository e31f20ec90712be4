"""Throughput mode: several inferences at once on one executable, as OpenVINO's streams.

``Streams(executable, streams=N)`` starts N worker threads that share the executable (its
primitives, packed weights and plan) and each run in an execution context of their own
(dnnc.runtime.executor), with ``threads_per_stream`` OpenMP threads each (default: the cores
divided among the streams, at least one). ``map(batches)`` runs every input of an iterable
and yields the outputs in the order of the inputs; ``run(inputs)`` is one call from any
thread. For latency (one request at a time) one stream with every core is best; for
throughput (many independent requests) several streams with fewer cores each keep the cores
busy where one inference alone cannot (small layers, reference kernels, the Python between
primitives).

oneDNN's OpenMP runtime (libgomp) takes its thread count per calling thread
(``omp_set_num_threads``, dnnc.dnnl.threads), so each worker sets its own once, at start.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np

from dnnc.core.diagnostics import DnncError
from dnnc.dnnl.threads import set_thread_count
from dnnc.driver.executables import AnyExecutable

Inputs = Mapping[str, object] | Sequence[object]
Outputs = list[np.ndarray] | dict[str, np.ndarray]


def cores() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


class Streams:
    """N concurrent inference streams over one executable (module docstring)."""

    def __init__(
        self,
        executable: AnyExecutable,
        streams: int = 2,
        threads_per_stream: int | None = None,
    ) -> None:
        if streams < 1:
            raise DnncError(f"streams must be >= 1, got {streams}")
        threads = threads_per_stream or max(1, cores() // streams)
        if threads < 1:
            raise DnncError(f"threads_per_stream must be >= 1, got {threads_per_stream}")
        self.executable = executable
        self.streams = streams
        self.threads_per_stream = threads
        self._pool = ThreadPoolExecutor(
            streams,
            thread_name_prefix="dnnc-stream",
            initializer=set_thread_count,
            initargs=(threads,),
        )
        self._closed = threading.Event()

    def submit(self, inputs: Inputs, *, as_dict: bool = False) -> Future[Outputs]:
        """Start one inference; its outputs arrive in the returned future."""
        if self._closed.is_set():
            raise DnncError("these Streams are closed")
        return self._pool.submit(self.executable.run, inputs, as_dict=as_dict)

    def run(self, inputs: Inputs, *, as_dict: bool = False) -> Outputs:
        """One inference on a stream (from any thread); its outputs."""
        return self.submit(inputs, as_dict=as_dict).result()

    def map(self, batches: Iterable[Inputs], *, as_dict: bool = False) -> Iterator[Outputs]:
        """The outputs of every input of `batches`, in order, ``streams`` at a time."""
        pending: list[Future[Outputs]] = []
        for inputs in batches:
            pending.append(self.submit(inputs, as_dict=as_dict))
            if len(pending) > 2 * self.streams:  # bounded read-ahead
                yield pending.pop(0).result()
        for future in pending:
            yield future.result()

    def close(self) -> None:
        """Finish what was submitted and stop the worker threads."""
        self._closed.set()
        self._pool.shutdown(wait=True)

    def __enter__(self) -> Streams:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
