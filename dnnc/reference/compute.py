"""The compute-heavy ops that take post-ops: conv2d, deconv2d, matmul, inner_product, pool.

Each reads its operands as float64, accumulates in float64, adds the bias, applies the
post-ops (``apply_post_ops``) and converts once to the first operand's element type.
Spatial properties follow docs/dialect.md: ``dilations`` of 1 means dense (oneDNN's 0), the
output size is ``(in + pad_begin + pad_end - ((kernel - 1) * dilation + 1)) // stride + 1``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from dnnc.core.kinds import PoolKind, PostOp
from dnnc.reference.dtypes import as_f64, to_dtype
from dnnc.reference.elementwise import apply_post_ops


def _windows(
    padded: np.ndarray,
    kernel: Sequence[int],
    strides: Sequence[int],
    dilations: Sequence[int],
) -> np.ndarray:
    """View [N, C, OH, OW, KH, KW] of the taps of every output position of a padded image."""
    extent = tuple((k - 1) * d + 1 for k, d in zip(kernel, dilations))
    if any(e > n for e, n in zip(extent, padded.shape[2:])):
        raise ValueError(
            f"window of extent {extent} does not fit the padded input {padded.shape[2:]}"
        )
    view = sliding_window_view(padded, extent, axis=(2, 3))
    (sh, sw), (dh, dw) = strides, dilations
    return view[:, :, ::sh, ::sw, ::dh, ::dw]


def _pad(
    x: np.ndarray, pads_begin: Sequence[int], pads_end: Sequence[int], value: float
) -> np.ndarray:
    """x [N, C, H, W] padded spatially with ``value``."""
    widths = ((0, 0), (0, 0), *zip(pads_begin, pads_end))
    return np.pad(x, widths, constant_values=value)


def _check_groups(name: str, src: np.ndarray, wei: np.ndarray, groups: int) -> None:
    """src [N,C,...] and wei [O,C/groups,...] fit ``groups`` (C and O both divide)."""
    channels, (outputs, per_group) = src.shape[1], wei.shape[:2]
    if channels != per_group * groups or outputs % groups:
        raise ValueError(
            f"{name}: src channels {channels} and weights {wei.shape} do not fit groups={groups}"
        )


def conv2d(
    src: np.ndarray,
    wei: np.ndarray,
    bias: np.ndarray | None = None,
    *post_args: np.ndarray,
    strides: Sequence[int] = (1, 1),
    pads_begin: Sequence[int] = (0, 0),
    pads_end: Sequence[int] = (0, 0),
    dilations: Sequence[int] = (1, 1),
    groups: int = 1,
    post_ops: Sequence[PostOp] = (),
) -> np.ndarray:
    """``dnn.conv2d``: src [N,C,H,W] * wei [O,C/groups,KH,KW] (+ bias [O]) -> [N,O,OH,OW]."""
    _check_groups("conv2d", src, wei, groups)
    n = src.shape[0]
    o, c_per_group, kh, kw = wei.shape
    taps = _windows(_pad(as_f64(src), pads_begin, pads_end, 0.0), (kh, kw), strides, dilations)
    oh, ow = taps.shape[2:4]
    taps = taps.reshape(n, groups, c_per_group, oh, ow, kh, kw)
    weights = as_f64(wei).reshape(groups, o // groups, c_per_group, kh, kw)
    d = np.einsum("ngchwij,gocij->ngohw", taps, weights, optimize=True).reshape(n, o, oh, ow)
    if bias is not None:
        d = d + as_f64(bias).reshape(1, o, 1, 1)
    return to_dtype(apply_post_ops(d, post_ops, post_args), src.dtype)


def deconv2d(
    src: np.ndarray,
    wei: np.ndarray,
    bias: np.ndarray | None = None,
    *post_args: np.ndarray,
    strides: Sequence[int] = (1, 1),
    pads_begin: Sequence[int] = (0, 0),
    pads_end: Sequence[int] = (0, 0),
    dilations: Sequence[int] = (1, 1),
    groups: int = 1,
    post_ops: Sequence[PostOp] = (),
) -> np.ndarray:
    """``dnn.deconv2d``, the transpose of conv2d: src [N,C,H,W] scattered through
    wei [O,C/groups,KH,KW] (+ bias [O]) -> [N,O,OH,OW]. Input pixel (y, x) adds to the
    full-size output at (y sh + ky dh, x sw + kx dw); the result is that full output cropped
    by pads_begin / pads_end (a negative pads_end appends zero rows before the bias)."""
    _check_groups("deconv2d", src, wei, groups)
    n, _, h, w = src.shape
    o, c_per_group, kh, kw = wei.shape
    (sh, sw), (dh, dw) = strides, dilations
    full_h, full_w = (h - 1) * sh + (kh - 1) * dh + 1, (w - 1) * sw + (kw - 1) * dw + 1
    extra_h, extra_w = max(-pads_end[0], 0), max(-pads_end[1], 0)
    full = np.zeros((n, groups, o // groups, full_h + extra_h, full_w + extra_w))
    grouped = as_f64(src).reshape(n, groups, c_per_group, h, w)
    weights = as_f64(wei).reshape(groups, o // groups, c_per_group, kh, kw)
    for ky in range(kh):
        for kx in range(kw):
            taps = np.einsum("ngchw,goc->ngohw", grouped, weights[..., ky, kx], optimize=True)
            rows = slice(ky * dh, ky * dh + (h - 1) * sh + 1, sh)
            columns = slice(kx * dw, kx * dw + (w - 1) * sw + 1, sw)
            full[:, :, :, rows, columns] += taps
    (top, left), (bottom, right) = pads_begin, pads_end
    d = full.reshape(n, o, *full.shape[3:])[
        :, :, top : full_h - max(bottom, 0) + extra_h, left : full_w - max(right, 0) + extra_w
    ]
    if bias is not None:
        d = d + as_f64(bias).reshape(1, o, 1, 1)
    return to_dtype(apply_post_ops(d, post_ops, post_args), src.dtype)


def matmul(
    lhs: np.ndarray,
    rhs: np.ndarray,
    bias: np.ndarray | None = None,
    *post_args: np.ndarray,
    post_ops: Sequence[PostOp] = (),
) -> np.ndarray:
    """``dnn.matmul``: [...,M,K] @ [...,K,N] -> [...,M,N], batch dims broadcast (+ bias)."""
    if lhs.ndim < 2 or rhs.ndim < 2 or lhs.shape[-1] != rhs.shape[-2]:
        raise ValueError(f"matmul: shapes {lhs.shape} and {rhs.shape} do not multiply")
    d = np.matmul(as_f64(lhs), as_f64(rhs))
    if bias is not None:
        if bias.ndim > d.ndim or np.broadcast_shapes(d.shape, bias.shape) != d.shape:
            raise ValueError(f"matmul: bias {bias.shape} does not broadcast to {d.shape}")
        d = d + as_f64(bias)
    return to_dtype(apply_post_ops(d, post_ops, post_args), lhs.dtype)


def inner_product(
    src: np.ndarray,
    wei: np.ndarray,
    bias: np.ndarray | None = None,
    *post_args: np.ndarray,
    post_ops: Sequence[PostOp] = (),
) -> np.ndarray:
    """``dnn.inner_product``: src [N,C,...] . wei [O,C,...] over all but the first dim -> [N,O]."""
    if src.shape[1:] != wei.shape[1:]:
        raise ValueError(f"inner_product: src {src.shape} and wei {wei.shape} differ past dim 0")
    d = as_f64(src).reshape(src.shape[0], -1) @ as_f64(wei).reshape(wei.shape[0], -1).T
    if bias is not None:
        d = d + as_f64(bias).reshape(1, -1)
    return to_dtype(apply_post_ops(d, post_ops, post_args), src.dtype)


def pool(
    src: np.ndarray,
    *post_args: np.ndarray,
    kind: PoolKind | str,
    kernel: Sequence[int],
    strides: Sequence[int] = (1, 1),
    pads_begin: Sequence[int] = (0, 0),
    pads_end: Sequence[int] = (0, 0),
    dilations: Sequence[int] = (1, 1),
    post_ops: Sequence[PostOp] = (),
) -> np.ndarray:
    """``dnn.pool``: max or average over windows of src [N,C,H,W] -> [N,C,OH,OW].

    Padding never wins a max, nor does NaN unless the window holds nothing else (fmax: as
    ONNX's reference MaxPool ignores NaN; ONNX Runtime's result there depends on where the NaN
    lies); a window of -inf gives -inf (oneDNN and ONNX Runtime: -3.4e38).
    ``avg_include_pad`` divides by the number of taps (KH * KW) everywhere;
    ``avg_exclude_pad`` by the number of taps inside the input.
    """
    kind = PoolKind(kind)
    x = as_f64(src)
    window_args = (kernel, strides, dilations)
    if kind is PoolKind.MAX:
        padded = _pad(x, pads_begin, pads_end, np.nan)  # fmax ignores it
        d = np.fmax.reduce(_windows(padded, *window_args), axis=(4, 5))
    else:
        sums = _windows(_pad(x, pads_begin, pads_end, 0.0), *window_args).sum(axis=(4, 5))
        if kind is PoolKind.AVG_INCLUDE_PAD:
            counts = np.full(sums.shape[2:], float(np.prod(kernel)))
        else:
            inside = _pad(np.ones((1, 1, *x.shape[2:])), pads_begin, pads_end, 0.0)
            counts = _windows(inside, *window_args).sum(axis=(4, 5))[0, 0]
        d = sums / counts
    return to_dtype(apply_post_ops(d, post_ops, post_args), src.dtype)
