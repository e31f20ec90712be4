"""Contiguous sub-tensors: when a box of a tensor is one byte range laid out like a tensor.

A box (per dimension a start and a size) of a tensor in layout L is a *region* when its
elements fill one contiguous range of L's physical buffer in exactly the order L gives a tensor
of the box's shape. Then a producer can write the box as if it were a tensor of its own (an
implicit concat) and a consumer can read it without a copy (a slice view). In the physical
array (outer dimensions in L's order, then the inner blocks) that holds when every outer axis
before some axis p spans one index, axis p spans any range, and every axis after p (blocks
included) is whole; a blocked dimension must start on a block boundary and end on one or at
the tensor's end (the padding of a last, partial block is the same bytes in both).
"""

from __future__ import annotations

from collections.abc import Sequence

from dnnc.core.layouts import Layout
from dnnc.core.symbols import SymbolicInt


def region_offset(
    shape: Sequence[int], layout: Layout, starts: Sequence[int], sizes: Sequence[int]
) -> int | None:
    """The element offset of the box in `shape`'s physical buffer, or None if no region."""
    shape = tuple(shape)
    physical = layout.physical_shape(shape)
    outer = len(layout.order)
    strides = [1] * len(physical)
    for i in range(len(physical) - 2, -1, -1):
        strides[i] = strides[i + 1] * physical[i + 1]
    firsts: list[int] = []
    counts: list[int] = []
    for d in layout.order:
        block = layout.block_product(d)
        start, size = starts[d], sizes[d]
        if start % block or (size % block and start + size != shape[d]):
            return None  # a block would hold elements of the box and of its neighbours
        firsts.append(start // block)
        counts.append(-(-size // block))
    partial = [i for i in range(outer) if counts[i] != physical[i]]
    before = sorted(
        range(partial[-1] if partial else 0), key=lambda i: isinstance(counts[i], SymbolicInt)
    )
    if any(counts[i] != 1 for i in before):  # fixed counts first: they settle it for any size
        return None  # an axis before the last partial one spans several indices: strided
    return sum(first * stride for first, stride in zip(firsts, strides))


def concat_offsets(
    shapes: Sequence[Sequence[int]], result: Sequence[int], layout: Layout, axis: int
) -> list[int] | None:
    """Element offsets of each concatenated input in the result, None if one is no region."""
    offsets: list[int] = []
    start = 0
    for shape in shapes:
        starts = [start if d == axis else 0 for d in range(len(result))]
        offset = region_offset(result, layout, starts, shape)
        if offset is None:
            return None
        offsets.append(offset)
        start += shape[axis]
    return offsets
