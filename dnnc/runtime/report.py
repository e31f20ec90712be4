"""What an executable tells about itself: its steps, their times, its memory."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StepInfo:
    """What a step runs: library (onednn / reference), kind, IR location, each role's
    memory as ``role=1x16x8x8xf32[,layout]``, the implementation: oneDNN's
    ``impl_info`` (``brg:avx512_core``, ``ref:any``), or ``numpy`` for a reference kernel,
    the bytes of all the memories it reads and writes, and its thread count."""

    library: str
    kind: str
    location: str
    operands: tuple[str, ...]
    implementation: str
    bytes: int
    threads: int | None = None
    """The most OpenMP threads a primitive step runs on (1: a small step,
    dnnc.runtime.step_threads); None for a reference step."""


@dataclass(frozen=True)
class StepTime:
    """A step and its median time over the profiled runs, in seconds."""

    step: StepInfo
    seconds: float


@dataclass(frozen=True)
class MemoryReport:
    """Bytes an Executable uses besides the caller's arrays."""

    planned_bytes: int
    """The plan's arena size (``onednn.arena_bytes``)."""
    lower_bound_bytes: int
    """The most bytes of arena values live at one step (no plan can do with less)."""
    arena_bytes: int
    """The arena actually allocated."""
    scratchpad_bytes: int
    constant_bytes: int
    """Constants: loaded arrays plus the buffers of reordered ones."""
