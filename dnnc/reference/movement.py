"""Ops that combine or move data: sum, concat, slice, reshape, transpose, top_k, reorder, cast.

Layout contract: every reference kernel takes and returns LOGICAL arrays (row-major, in
logical dimension order). A layout is a property of a buffer, not of a value, so
``reorder`` is the identity on values (it returns a copy) and ``cast`` only converts the
element type. Tests that compare physical buffers of the runtime use ``to_layout`` and
``from_layout``, which delegate to ``dnnc.core.layouts.Layout``.

Only ``sum`` computes (in float64); the others move values exactly, in src's element type.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Sequence

import numpy as np

from dnnc.core.arrays import transposed
from dnnc.core.kinds import DataType
from dnnc.core.layouts import Layout, parse_layout
from dnnc.reference.dtypes import as_f64, data_type, to_dtype


def sum(*inputs: np.ndarray, scales: Sequence[float] | None = None) -> np.ndarray:
    """``dnn.sum``: sum of ``scales[i] * inputs[i]`` (scales all 1.0 when None)."""
    if not inputs:
        raise ValueError("sum: needs at least one input")
    if scales is None:
        scales = [1.0] * len(inputs)
    if len(scales) != len(inputs) or len({x.shape for x in inputs}) != 1:
        raise ValueError(
            f"sum: {len(inputs)} inputs of shapes {[x.shape for x in inputs]} "
            f"and {len(scales)} scales"
        )
    d = np.zeros(inputs[0].shape, dtype=np.float64)
    for scale, x in zip(scales, inputs):
        d += float(scale) * as_f64(x)
    return to_dtype(d, inputs[0].dtype)


def concat(*inputs: np.ndarray, axis: int) -> np.ndarray:
    """``dnn.concat`` of same-typed inputs along ``axis``."""
    if len({x.dtype for x in inputs}) != 1:
        raise ValueError(f"concat: inputs of different element types {[x.dtype for x in inputs]}")
    return np.concatenate(inputs, axis=axis)


def kv_append(past: np.ndarray, new: np.ndarray, *, axis: int) -> np.ndarray:
    """``dnn.kv_append``: ``new`` after ``past`` along ``axis`` (a concat of the two)."""
    return concat(past, new, axis=axis)


def slice(
    src: np.ndarray,
    *,
    starts: Sequence[int],
    ends: Sequence[int],
    steps: Sequence[int] | None = None,
) -> np.ndarray:
    """``dnn.slice``: ``src[starts:ends:steps]`` per dimension, 0 <= start <= end <= dim."""
    if steps is None:
        steps = [1] * src.ndim
    if not len(starts) == len(ends) == len(steps) == src.ndim:
        raise ValueError(f"slice: one start, end and step per dimension of {src.shape} needed")
    for start, end, step, dim in zip(starts, ends, steps, src.shape):
        if not 0 <= start <= end <= dim or step < 1:
            raise ValueError(f"slice: [{start}:{end}:{step}] does not fit dimension {dim}")
    index = tuple(builtins.slice(s, e, st) for s, e, st in zip(starts, ends, steps))
    return np.ascontiguousarray(src[index])


def reshape(src: np.ndarray, *, shape: Sequence[int]) -> np.ndarray:
    """``dnn.reshape`` to ``shape`` (the result type's shape) in row-major order."""
    if int(np.prod(shape, dtype=np.int64)) != src.size:
        raise ValueError(f"reshape: {src.shape} has {src.size} elements, {tuple(shape)} does not")
    return src.reshape(tuple(shape)).copy()


def transpose(src: np.ndarray, *, permutation: Sequence[int]) -> np.ndarray:
    """``dnn.transpose``: result dim i is src dim ``permutation[i]``."""
    if sorted(permutation) != list(range(src.ndim)):
        raise ValueError(f"transpose: {list(permutation)} is not a permutation of {src.ndim} dims")
    return transposed(src, permutation)


def reorder(src: np.ndarray) -> np.ndarray:
    """``dnn.reorder``: the identity on logical values (a copy); see the module docstring."""
    return src.copy()


def cast(src: np.ndarray, *, dtype: DataType | str | np.dtype | type) -> np.ndarray:
    """``dnn.cast`` to ``dtype`` as ONNX Cast (ONNX Runtime is the oracle): to a float type
    rounded to nearest (dtypes.to_dtype); to an integer type as C does it on x86-64, which is
    what ONNX Runtime gives: a float is truncated toward zero into 32 bits (64 for s64), NaN
    and values out of that range becoming its minimum, and narrower integers wrap (300 -> 44
    in s8); to boolean, nonzero (NaN too) is true."""
    target = data_type(dtype)
    if target in (DataType.F32, DataType.BF16, DataType.F16, DataType.BOOL):
        return to_dtype(as_f64(src), target)
    if src.dtype.kind in "iub":
        return src.astype(target.numpy)  # two's complement wrap, as C's conversions
    wide = np.int64 if target is DataType.S64 else np.int32
    info = np.iinfo(wide)
    values = np.trunc(as_f64(src))
    valid = (values >= info.min) & (values <= info.max)  # NaN compares false
    whole = np.where(valid, values, info.min).astype(wide)
    return whole.astype(target.numpy)


def to_layout(logical: np.ndarray, layout: Layout | str) -> np.ndarray:
    """The physical array that holds ``logical`` in ``layout`` (blocked dims zero-padded)."""
    if isinstance(layout, str):
        layout = parse_layout(layout)
    return layout.to_physical(logical)


def from_layout(physical: np.ndarray, layout: Layout | str, shape: Sequence[int]) -> np.ndarray:
    """The logical array of ``shape`` held by ``physical`` in ``layout``."""
    if isinstance(layout, str):
        layout = parse_layout(layout)
    return layout.from_physical(physical, tuple(shape))


def gather(src: np.ndarray, indices: np.ndarray, *, axis: int = 0) -> np.ndarray:
    """``dnn.gather``: ``src`` entries along ``axis`` at ``indices`` (negative ones count from
    the end, as ONNX Gather); ValueError naming the first index out of range."""
    return np.take(src, _in_range(indices, src.shape[axis], axis), axis=axis)


def _in_range(indices: np.ndarray, size: int, axis: int) -> np.ndarray:
    """Indices into an axis of ``size`` as int64 with negative ones counted from the end;
    ValueError naming the first index out of range."""
    flat = np.asarray(indices, dtype=np.int64)
    bad = (flat < -size) | (flat >= size)
    if bad.any():
        raise ValueError(
            f"index {int(flat[bad].flat[0])} is out of range for axis {axis} of "
            f"size {size} (valid: -{size} to {size - 1})"
        )
    return np.where(flat < 0, flat + size, flat)


def gather_elements(src: np.ndarray, indices: np.ndarray, *, axis: int = 0) -> np.ndarray:
    """``dnn.gather_elements``: ``src`` entries picked one by one along ``axis`` at
    ``indices`` (negative ones count from the end, as ONNX GatherElements); the result has the
    indices' shape. ValueError naming the first index out of range."""
    along = axis % src.ndim
    picked = _in_range(indices, src.shape[along], axis)
    region = tuple(
        builtins.slice(None) if dim == along else builtins.slice(0, n)
        for dim, n in enumerate(picked.shape)
    )  # the src entries the indices' other coordinates reach
    return np.take_along_axis(src[region], picked, axis=along)


def gather_nd(src: np.ndarray, indices: np.ndarray, *, batch_dims: int = 0) -> np.ndarray:
    """``dnn.gather_nd``: the slices of ``src`` each row of ``indices`` names after the first
    ``batch_dims`` axes, which both share (ONNX GatherND; negative indices count from the end).
    ValueError naming the first index out of range."""
    depth = indices.shape[-1]
    batch = math.prod(src.shape[:batch_dims])
    rows = np.asarray(indices).reshape(batch, -1, depth)
    coordinates = [
        _in_range(rows[..., j], src.shape[batch_dims + j], batch_dims + j) for j in range(depth)
    ]
    flat = src.reshape(batch, *src.shape[batch_dims:])
    picked = flat[(np.arange(batch)[:, None], *coordinates)]
    return picked.reshape(*indices.shape[:-1], *src.shape[batch_dims + depth :])


def expand(src: np.ndarray, *, shape: Sequence[int]) -> np.ndarray:
    """``dnn.expand``: ``src`` broadcast with ``shape`` (numpy's rule, ONNX Expand)."""
    target = np.broadcast_shapes(src.shape, tuple(shape))
    return np.broadcast_to(src, target).copy()


def top_k(
    src: np.ndarray,
    *,
    k: int,
    axis: int = -1,
    largest: bool = True,
    sorted: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """``dnn.top_k``: the k largest (or smallest) values along ``axis`` and their int64 indices.

    Ties go to the lower index (ONNX TopK). With ``sorted`` the results are ordered best
    first (equal values by index); otherwise by index. NaN is not supported. Cost: one
    ``argpartition``-like selection over the axis, then a sort of the k winners only.
    """
    if not 0 <= k <= src.shape[axis]:
        raise ValueError(f"top_k: k={k} is out of range for dimension {src.shape[axis]}")
    moved = np.moveaxis(src, axis, -1)
    lead_shape, n = moved.shape[:-1], moved.shape[-1]
    keys = moved.reshape(-1, n)
    if DataType.of_numpy(keys.dtype) in (DataType.BF16, DataType.F16):
        keys = keys.astype(np.float32)  # exact, and partitions natively
    if keys.dtype.kind == "f" and np.isnan(keys).any():
        raise ValueError(
            "NaN values are not supported: ONNX leaves their order open (ONNX Runtime's "
            "is arbitrary)"
        )
    indices = _select(keys, k, largest)
    if sorted:
        indices = _order(keys, indices, largest)
    values = np.take_along_axis(moved.reshape(-1, n), indices, axis=-1)
    shape = (*lead_shape, k)
    return (
        np.ascontiguousarray(np.moveaxis(values.reshape(shape), -1, axis)),
        np.ascontiguousarray(np.moveaxis(indices.reshape(shape), -1, axis)),
    )


def _select(keys: np.ndarray, k: int, largest: bool) -> np.ndarray:
    """Per row of ``keys`` [R, n], the indices (ascending) of the k best, ties to lower index."""
    rows, n = keys.shape
    if k == 0:
        return np.zeros((rows, 0), dtype=np.int64)
    kth = n - k if largest else k - 1
    threshold = np.partition(keys, kth, axis=-1)[:, kth : kth + 1]
    chosen = keys > threshold if largest else keys < threshold
    still_needed = k - chosen.sum(axis=-1)
    # Fill each row with its first `still_needed` elements equal to the threshold. nonzero
    # lists them row by row in ascending column order, so the rank of a tie within its row
    # is its position minus that of the row's first tie.
    tie_rows, tie_cols = np.nonzero(keys == threshold)
    rank = np.arange(len(tie_rows)) - np.searchsorted(tie_rows, tie_rows)
    keep = rank < still_needed[tie_rows]
    chosen[tie_rows[keep], tie_cols[keep]] = True
    return np.nonzero(chosen)[1].reshape(rows, k).astype(np.int64)


def _order(keys: np.ndarray, indices: np.ndarray, largest: bool) -> np.ndarray:
    """``indices`` (ascending per row) reordered best value first, equal values by index."""
    chosen = np.take_along_axis(keys, indices, axis=-1)
    if largest:
        # Stable ascending sort of the reversed row, reversed back: descending values,
        # equal values still in ascending index order.
        k = indices.shape[-1]
        order = (k - 1) - np.argsort(chosen[:, ::-1], axis=-1, kind="stable")[:, ::-1]
    else:
        order = np.argsort(chosen, axis=-1, kind="stable")
    return np.take_along_axis(indices, order, axis=-1)
