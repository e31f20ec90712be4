"""The quantization ops: ONNX QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear
exactly, in f32 arithmetic as ONNX Runtime computes them.

``x / scale`` is an f32 division (a float64 quotient can round to another side of a tie),
rounded half to even, then the zero point is added and the sum saturated to the integer
type (a NaN, 0 / 0, becomes 0: ONNX leaves it undefined).
Dequantization subtracts in integers and multiplies in f32.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from dnnc.core.kinds import PostOp
from dnnc.reference.compute import conv2d, matmul

_F32 = np.float32
_U8 = np.iinfo(np.uint8)


def _per_axis(array: np.ndarray, ndim: int, axis: int | None) -> np.ndarray:
    """A scale or zero point shaped to broadcast against a rank-``ndim`` tensor."""
    if axis is None:
        return array.reshape(())
    shape = [1] * ndim
    shape[axis % ndim] = array.size
    return array.reshape(shape)


def _saturated(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Whole-number float values clipped into ``dtype``'s range and converted."""
    info = np.iinfo(dtype)
    return np.clip(np.nan_to_num(values, nan=0.0), info.min, info.max).astype(dtype)


def quantize(
    src: np.ndarray, scale: np.ndarray, zero_point: np.ndarray, *, axis: int | None = None
) -> np.ndarray:
    """``dnn.quantize``: saturate(round_half_even(src / scale) + zero_point) in
    zero_point's type."""
    scale = _per_axis(scale.astype(_F32), src.ndim, axis)
    zero = _per_axis(zero_point, src.ndim, axis).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        rounded = np.rint(np.asarray(src, _F32) / scale).astype(np.float64)
    return _saturated(rounded + zero, zero_point.dtype)


def dequantize(
    src: np.ndarray, scale: np.ndarray, zero_point: np.ndarray, *, axis: int | None = None
) -> np.ndarray:
    """``dnn.dequantize``: (src - zero_point) * scale in f32."""
    scale = _per_axis(scale.astype(_F32), src.ndim, axis)
    zero = _per_axis(zero_point, src.ndim, axis).astype(np.int64)
    return (src.astype(np.int64) - zero).astype(_F32) * scale


def dynamic_quantize(src: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``dnn.dynamic_quantize``: src quantized to u8 over its own range widened to hold 0,
    with that scale and zero point; an all-zero src has scale 1, as in ONNX Runtime (the
    specification's formula divides by zero). The range skips NaN, which quantizes to 0, as
    in ONNX Runtime.

    A run-time kernel of dynamically quantized models (before every int8 matmul), so it
    makes few passes over src: one reduction each for the range (NaN-skipping ones only if
    there is a NaN), then the quotient rounded, shifted and clipped in place in f32 (exact:
    whole numbers below 2**24)."""
    x = np.asarray(src, _F32)
    high, low = _F32(max(x.max(initial=0.0), 0.0)), _F32(min(x.min(initial=0.0), 0.0))
    nan = bool(np.isnan(high) or np.isnan(low))
    if nan:
        high = _F32(np.fmax.reduce(x, axis=None, initial=0.0))
        low = _F32(np.fmin.reduce(x, axis=None, initial=0.0))
    scale = _F32(1.0) if high == low else _F32(_F32(high - low) / _F32(_U8.max - _U8.min))
    zero = _F32(np.rint(np.clip(_F32(_U8.min) - low / scale, _U8.min, _U8.max)))
    with np.errstate(invalid="ignore"):
        q = np.divide(x, scale, dtype=_F32)
    np.rint(q, out=q)
    q += zero
    if nan:
        np.nan_to_num(q, copy=False, nan=0.0)
    np.clip(q, _U8.min, _U8.max, out=q)
    return q.astype(np.uint8), np.asarray(scale), np.asarray(zero, np.uint8)


def qconv2d(
    src: np.ndarray,
    wei: np.ndarray,
    src_scale: np.ndarray,
    src_zero_point: np.ndarray,
    wei_scale: np.ndarray,
    dst_scale: np.ndarray,
    dst_zero_point: np.ndarray,
    bias: np.ndarray | None = None,
    *post_args: np.ndarray,
    dtype: np.dtype,
    strides: Sequence[int] = (1, 1),
    pads_begin: Sequence[int] = (0, 0),
    pads_end: Sequence[int] = (0, 0),
    dilations: Sequence[int] = (1, 1),
    groups: int = 1,
    post_ops: Sequence[PostOp] = (),
) -> np.ndarray:
    """``dnn.qconv2d``: the f32 convolution of the dequantized src and wei (per-tensor, or
    per output channel for a rank-1 ``wei_scale``), bias and post-ops (a sum's argument an
    int8 residual, its scale and zero point the post-op's), quantized to ``dtype`` (the
    result's type: the zero point may be i32)."""
    axis = 0 if wei_scale.ndim else None
    real = conv2d(
        dequantize(src, src_scale, src_zero_point),
        dequantize(wei, wei_scale, np.zeros_like(wei_scale, np.int32), axis=axis),
        bias,
        *post_args,
        strides=strides,
        pads_begin=pads_begin,
        pads_end=pads_end,
        dilations=dilations,
        groups=groups,
        post_ops=post_ops,
    )
    return quantize(real, dst_scale, dst_zero_point.astype(dtype))


def qmatmul(
    src: np.ndarray,
    wei: np.ndarray,
    src_scale: np.ndarray,
    src_zero_point: np.ndarray,
    wei_scale: np.ndarray,
    wei_zero_point: np.ndarray | None = None,
    dst_scale: np.ndarray | None = None,
    dst_zero_point: np.ndarray | None = None,
    bias: np.ndarray | None = None,
    *,
    dtype: np.dtype,
    post_ops: Sequence[PostOp] = (),
) -> np.ndarray:
    """``dnn.qmatmul``: the f32 matmul of the dequantized src and wei (per tensor, or per
    column for a rank-1 ``wei_scale``; zero point 0 unless given), bias and post-ops,
    quantized to ``dtype`` (the result's type: the zero point may be i32) when a dst scale
    is given, else f32."""
    axis = -1 if wei_scale.ndim else None
    wei_zero = np.zeros_like(wei_scale, np.int32) if wei_zero_point is None else wei_zero_point
    real = matmul(
        dequantize(src, src_scale, src_zero_point),
        dequantize(wei, wei_scale, wei_zero, axis=axis),
        bias,
        post_ops=post_ops,
    )
    if dst_scale is None or dst_zero_point is None:
        return real
    return quantize(real, dst_scale, dst_zero_point.astype(dtype))
