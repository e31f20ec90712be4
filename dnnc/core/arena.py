"""Offsets in one arena for buffers with known lifetimes (the algorithm behind dnn-plan-memory).

A buffer lives over an inclusive range of schedule positions ``[start, end]``; two buffers
whose ranges intersect must not share bytes. Placement is greedy: buffers in a fixed order,
each at the lowest aligned offset that fits between the already placed buffers whose ranges
intersect its own. Two orders are tried and the smaller arena kept: largest first (ties:
longest-lived first), which suits wide graphs, and program order, which suits branchy ones
where the largest-first order strands a big buffer above short-lived small ones. Together
they reach the lower bound (the most bytes live at one position) on the test graphs.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

ALIGNMENT = 64
"""Bytes: oneDNN's preferred alignment for buffers (one cache line, one AVX-512 vector)."""


@dataclass(frozen=True)
class Lifetime:
    """A buffer of ``size`` bytes, written at position ``start`` and last read at ``end``."""

    key: Hashable
    size: int
    start: int
    end: int

    def overlaps(self, other: Lifetime) -> bool:
        return self.start <= other.end and other.start <= self.end


@dataclass(frozen=True)
class ArenaPlan:
    offsets: dict[Hashable, int]
    """Byte offset of every buffer in the arena."""
    peak_bytes: int
    """Arena size: the end of the highest placed buffer."""
    lower_bound_bytes: int
    """No plan can use less: the most bytes live at one schedule position (aligned sizes)."""


def align(size: int, alignment: int = ALIGNMENT) -> int:
    return -(-size // alignment) * alignment


def lower_bound(lifetimes: Sequence[Lifetime], alignment: int = ALIGNMENT) -> int:
    """The largest sum of aligned sizes live at any one position."""
    events: list[tuple[int, int]] = []
    for lifetime in lifetimes:
        events.append((lifetime.start, align(lifetime.size, alignment)))
        events.append((lifetime.end + 1, -align(lifetime.size, alignment)))
    live = best = 0
    for _, delta in sorted(events):  # at equal positions frees (negative) come first
        live += delta
        best = max(best, live)
    return best


Conflicts = Mapping[Hashable, Sequence[Hashable]]
"""Per buffer key, the keys of the buffers whose lifetimes intersect its own."""


def conflicts(lifetimes: Sequence[Lifetime]) -> Conflicts:
    """Which buffers may not share bytes: a function of the lifetimes alone, so a caller that
    places the same buffers again with other sizes (a program template per input shape)
    finds them once."""
    return {
        buffer.key: tuple(o.key for o in lifetimes if o is not buffer and o.overlaps(buffer))
        for buffer in lifetimes
    }


def plan_arena(
    lifetimes: Sequence[Lifetime], alignment: int = ALIGNMENT, clashes: Conflicts | None = None
) -> ArenaPlan:
    """Place every buffer; buffers whose lifetimes intersect never share a byte (``clashes``:
    their ``conflicts``, when known)."""
    clashes = conflicts(lifetimes) if clashes is None else clashes
    orders = (
        sorted(lifetimes, key=lambda b: (-align(b.size, alignment), b.start - b.end, b.start)),
        sorted(lifetimes, key=lambda b: (b.start, -align(b.size, alignment))),
    )
    offsets, peak = min(
        (_place(order, alignment, clashes) for order in orders),
        key=lambda placement: placement[1],
    )
    return ArenaPlan(offsets, peak, lower_bound(lifetimes, alignment))


def _place(
    order: Sequence[Lifetime], alignment: int, clashes: Conflicts
) -> tuple[dict[Hashable, int], int]:
    """Offsets of the buffers placed first-fit in this order, and the arena size."""
    offsets: dict[Hashable, int] = {}
    ends: dict[Hashable, int] = {}
    peak = 0
    for buffer in order:
        size = align(buffer.size, alignment)
        busy = sorted((offsets[k], ends[k]) for k in clashes[buffer.key] if k in offsets)
        offset = 0
        for begin, end in busy:
            if offset + size <= begin:
                break  # the gap below this busy range fits
            offset = max(offset, end)
        offsets[buffer.key] = offset
        ends[buffer.key] = offset + size
        peak = max(peak, offset + size)
    return offsets, peak
