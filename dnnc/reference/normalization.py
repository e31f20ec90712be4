"""Normalizations and reductions: batch_norm, layer_norm, lrn, softmax, log_softmax, reduce,
cumsum.

All compute in float64 and convert once to src's element type (cumsum adds integers in their
own type). Channels are dimension 1
for batch_norm and lrn; layer_norm normalizes over the last dimension with the population
variance, as oneDNN does.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from dnnc.core.kinds import LrnKind, ReduceKind
from dnnc.reference.dtypes import as_f64, to_dtype


def _per_channel(values: np.ndarray, rank: int) -> np.ndarray:
    """A [C] vector shaped [1, C, 1, ...] to broadcast over dimension 1 of a rank-`rank` array."""
    return as_f64(values).reshape((1, -1) + (1,) * (rank - 2))


def batch_norm(
    src: np.ndarray,
    scale: np.ndarray,
    shift: np.ndarray,
    mean: np.ndarray,
    variance: np.ndarray,
    *,
    epsilon: float = 1e-5,
) -> np.ndarray:
    """``dnn.batch_norm`` with global statistics: scale (src - mean) / sqrt(var + eps) + shift."""
    rank = src.ndim
    normalized = (as_f64(src) - _per_channel(mean, rank)) / np.sqrt(
        _per_channel(variance, rank) + epsilon
    )
    d = _per_channel(scale, rank) * normalized + _per_channel(shift, rank)
    return to_dtype(d, src.dtype)


def layer_norm(
    src: np.ndarray,
    scale: np.ndarray | None = None,
    shift: np.ndarray | None = None,
    *,
    epsilon: float = 1e-5,
) -> np.ndarray:
    """``dnn.layer_norm`` over the last dimension, then optional scale and shift [C]."""
    x = as_f64(src)
    mean = x.mean(axis=-1, keepdims=True)
    variance = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    d = (x - mean) / np.sqrt(variance + epsilon)
    if scale is not None:
        d = d * as_f64(scale)
    if shift is not None:
        d = d + as_f64(shift)
    return to_dtype(d, src.dtype)


def lrn(
    src: np.ndarray,
    *,
    kind: LrnKind | str,
    size: int,
    alpha: float = 1e-4,
    beta: float = 0.75,
    k: float = 1.0,
) -> np.ndarray:
    """``dnn.lrn`` with oneDNN's definition (``ref_lrn``), which differs from torch's:

    ``d = s / (k + alpha / summands * sum(s'^2)) ** beta`` where the sum runs over
    ``[i - h, i + h]`` with ``h = (size - 1) // 2`` along the channel dimension
    (across_channels; ``summands = size``) or along every spatial dimension
    (within_channel; ``summands = size ** spatial_rank``), clipped to the tensor. For odd
    sizes this is torch's ``local_response_norm``; for even sizes oneDNN's window is
    symmetric with ``size - 1`` taps while torch's is ``[i - size//2, i + (size-1)//2]``.
    """
    x = as_f64(src)
    half = (size - 1) // 2
    axes = (1,) if LrnKind(kind) is LrnKind.ACROSS_CHANNELS else tuple(range(2, x.ndim))
    widths = [(half, half) if axis in axes else (0, 0) for axis in range(x.ndim)]
    squares = np.pad(x * x, widths)
    window = (2 * half + 1,) * len(axes)
    sums = sliding_window_view(squares, window, axis=axes).sum(
        axis=tuple(range(x.ndim, x.ndim + len(axes)))
    )
    d = x / (k + alpha / size ** len(axes) * sums) ** beta
    return to_dtype(d, src.dtype)


def _normalized_axis(axis: int, rank: int) -> int:
    """``axis`` in [0, rank), negative axes counting from the end."""
    if not -rank <= axis < rank:
        raise ValueError(f"axis {axis} is out of range for rank {rank}")
    return axis % rank


def _log_softmax_f64(src: np.ndarray, axis: int) -> np.ndarray:
    """x - max - log(sum(exp(x - max))) along ``axis`` (oneDNN's accurate algorithm)."""
    x = as_f64(src)
    axis = _normalized_axis(axis, x.ndim)
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def softmax(src: np.ndarray, *, axis: int) -> np.ndarray:
    """``dnn.softmax``: exp(x - max) / sum(exp(x - max)) along ``axis``."""
    return to_dtype(np.exp(_log_softmax_f64(src, axis)), src.dtype)


def log_softmax(src: np.ndarray, *, axis: int) -> np.ndarray:
    """``dnn.log_softmax``: log of softmax along ``axis``."""
    return to_dtype(_log_softmax_f64(src, axis), src.dtype)


REDUCTIONS: dict[ReduceKind, Callable[..., np.ndarray]] = {
    ReduceKind.SUM: np.sum,
    ReduceKind.MEAN: np.mean,
    ReduceKind.MAX: np.max,
    ReduceKind.MIN: np.min,
    ReduceKind.MUL: np.prod,
}
"""Each reduction kind as a numpy reduction taking ``axis`` and ``keepdims``."""


def reduce(
    src: np.ndarray,
    *,
    kind: ReduceKind | str,
    axes: Sequence[int],
    keep_dims: bool = True,
) -> np.ndarray:
    """``dnn.reduce`` over ``axes``: reduced dims become 1, or are dropped without keep_dims.
    Over no element (a zero-sized axis) a sum is 0, a product 1 and a max (min) the lowest
    (highest) value of the type: -inf (+inf) for floats, as ONNX specifies."""
    normalized = tuple(sorted({_normalized_axis(a, src.ndim) for a in axes}))
    reduction = REDUCTIONS[ReduceKind(kind)]
    options: dict[str, object] = {"axis": normalized, "keepdims": keep_dims}
    if ReduceKind(kind) in (ReduceKind.MAX, ReduceKind.MIN):
        options["initial"] = _extreme(src.dtype, lowest=ReduceKind(kind) is ReduceKind.MAX)
    return to_dtype(np.asarray(reduction(as_f64(src), **options)), src.dtype)


def cumsum(
    src: np.ndarray, *, axis: int, exclusive: bool = False, reverse: bool = False
) -> np.ndarray:
    """``dnn.cumsum``: running sums along ``axis`` (ONNX CumSum); ``exclusive`` shifts them by
    one (the first is 0), ``reverse`` sums from the end. Integers add in their own type, so
    they wrap on overflow as ONNX Runtime's do (float64 would round s64 sums past 2^53)."""
    along = _normalized_axis(axis, src.ndim)
    values = np.asarray(src) if src.dtype.kind in "iu" else as_f64(src)
    values = np.flip(values, along) if reverse else values
    sums = np.cumsum(values, axis=along, dtype=values.dtype)
    if exclusive:
        shifted = np.zeros_like(sums)
        ahead = [slice(None)] * src.ndim
        behind = [slice(None)] * src.ndim
        ahead[along], behind[along] = slice(1, None), slice(None, -1)
        shifted[tuple(ahead)] = sums[tuple(behind)]
        sums = shifted
    sums = np.flip(sums, along) if reverse else sums
    if src.dtype.kind in "iu":
        return np.ascontiguousarray(sums)
    return to_dtype(sums, src.dtype)


def _extreme(dtype: np.dtype, *, lowest: bool) -> float:
    """The lowest (or highest) value of an element type, as a float64."""
    if dtype.kind == "b":
        return 0.0 if lowest else 1.0
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return float(info.min if lowest else info.max)
    return -math.inf if lowest else math.inf
