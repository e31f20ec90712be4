"""Measured primitive times: oneDNN's kernels timed on this host, remembered on disk.

The measured cost model of dnn-assign-layouts asks ``PrimitiveTimes.time(handler, desc)``:
the primitive is created, run on zero-filled buffers ``WARMUP`` times (more the first time
in a process: OpenMP's threads start then), then timed at least ``RUNS`` times and for at
least ``MIN_SECONDS`` (at most ``MAX_RUNS`` times), and the least time kept (on a shared
machine noise only ever adds time). Times are
kept per target in one JSON file, ``<cache>/timings-<target>.json``, where the target is the
CPU name, oneDNN's effective ISA and its version, and the cache directory is
``$DNNC_CACHE_DIR`` or ``$XDG_CACHE_HOME/dnnc`` (``~/.cache/dnnc``): a second compile of a
model with the same primitives measures nothing. The reorder cost is measured afresh by every
compile (two small reorders), never kept: one slow moment must not price every later compile.

Measuring is opt-in (``DNNC_TUNE=on``, or ``dnn-assign-layouts{cost=measured}``): a measurement
taken while the machine was busy is kept like any other, and one such reorder time (5 ms for
a 1.6 MB copy) once made every ResNet-50 compile on that machine avoid reorders at any price,
4x slower in bf16. Until measurements are checked against each other, the analytic model is
the default.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from dnnc.target.host import cpu_description, effective_isa, onednn_version

if TYPE_CHECKING:
    from dnnc.dnnl.objects import PrimitiveDesc
    from dnnc.dnnl.primitives.base import PrimitiveHandler

TUNE_VARIABLE = "DNNC_TUNE"
"""``on`` (or ``1``, ``yes``, ``true``): measure; anything else or unset: the analytic model."""
CACHE_VARIABLE = "DNNC_CACHE_DIR"
"""Where measured times are kept (default ``$XDG_CACHE_HOME/dnnc``, ``~/.cache/dnnc``)."""

WARMUP = 2
FIRST_WARMUP = 20
RUNS = 5
MAX_RUNS = 50
MIN_SECONDS = 0.002
SLOW_SECONDS = 0.05
"""A primitive slower than this per run is timed once (a reference kernel: it loses anyway)."""


def tuning_enabled() -> bool:
    """Whether compile-time measuring is on (``DNNC_TUNE``, default off)."""
    return os.environ.get(TUNE_VARIABLE, "off").strip().lower() in ("on", "1", "yes", "true")


def cache_directory() -> Path:
    """``$DNNC_CACHE_DIR``, else ``$XDG_CACHE_HOME/dnnc``, else ``~/.cache/dnnc``."""
    explicit = os.environ.get(CACHE_VARIABLE)
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "dnnc"


def target_name() -> str:
    """The CPU, effective ISA and oneDNN version times are valid for, as a file-name digest."""
    identity = json.dumps([cpu_description()[0], effective_isa(), onednn_version()])
    return hashlib.sha256(identity.encode()).hexdigest()[:16]


class PrimitiveTimes:
    """Microseconds per primitive on this target, measured once and kept in ``path``."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or cache_directory() / f"timings-{target_name()}.json"
        self.times: dict[str, float] = self._read()
        self.measured = 0
        """Primitives timed by this object (not found in the file)."""

    def _read(self) -> dict[str, float]:
        try:
            loaded = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return {}  # no file yet, or a damaged one: measure again
        return {k: float(v) for k, v in loaded.items()} if isinstance(loaded, dict) else {}

    def time(self, handler: PrimitiveHandler, desc: PrimitiveDesc) -> float:
        """Least microseconds per run of the primitive `desc` (created by `handler`)."""
        key = hashlib.sha256(repr(handler.key()).encode()).hexdigest()
        if key not in self.times:
            self.times[key] = _measure(handler, desc)
            self.measured += 1
        return self.times[key]

    def save(self) -> None:
        """Merge this object's times into the file (atomically: concurrent compiles never
        read half a file; the last writer's new times win)."""
        if not self.measured:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            merged = self._read() | self.times
            handle, temporary = tempfile.mkstemp(prefix=".timings.", dir=self.path.parent)
            with os.fdopen(handle, "w") as file:
                json.dump(merged, file)
            os.replace(temporary, self.path)
        except OSError:
            pass  # a read-only cache: the times are measured again next time


REORDER_PROBES = ((1, 16, 1, 1), (1, 64, 56, 56))
"""The f32 tensors whose nchw -> nhwc reorders give a reorder's fixed cost and its rate."""


def reorder_cost() -> tuple[float, float]:
    """(microseconds per reorder step, microseconds per byte moved) on this target now, from
    two reorders measured here (REORDER_PROBES; not kept): the small one's time is the fixed
    part, the large one's extra time over its extra bytes (read and written) the rate."""
    from dnnc.core.kinds import DataType
    from dnnc.core.layouts import parse_layout, plain_layout
    from dnnc.dnnl.objects import Engine, MemoryDesc
    from dnnc.dnnl.primitives import handler_for

    measured = []
    for shape in REORDER_PROBES:
        descs = {
            "src": MemoryDesc.of_layout(shape, DataType.F32, plain_layout(4)),
            "dst": MemoryDesc.of_layout(shape, DataType.F32, parse_layout("nhwc")),
        }
        handler = handler_for("reorder", descs, {})
        measured.append((_measure(handler, handler.create(Engine.default())), shape))
    (small, small_shape), (large, large_shape) = measured
    extra_bytes = 8 * (math.prod(large_shape) - math.prod(small_shape))
    return small, max(large - small, 0.0) / extra_bytes


def _measure(handler: PrimitiveHandler, desc: PrimitiveDesc) -> float:
    from dnnc.dnnl.objects import Memory, Primitive

    ids = handler.exec_args(desc)
    memories = {}
    for role, memory_desc in handler.exec_descs(desc).items():
        memory = Memory.empty(memory_desc)
        memory.buffer[...] = 0  # no NaN or denormal from uninitialized bytes
        memories[ids[role]] = memory
    run = Primitive(desc).bind(memories)
    start = time.perf_counter()
    run()
    first = time.perf_counter() - start
    if first > SLOW_SECONDS:
        return first * 1e6
    for _ in range(WARMUP if _WARM else FIRST_WARMUP):
        run()
    _WARM.append(True)
    best = float("inf")
    for _ in range(min(max(RUNS, int(MIN_SECONDS / max(first, 1e-7))), MAX_RUNS)):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best * 1e6


_WARM: list[bool] = []
"""Not empty once a primitive ran in this process."""
