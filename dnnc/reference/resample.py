"""``dnn.resize``: ONNX Resize (nearest, linear, cubic; the coordinate modes of
``dnn.resize``), axis by axis in float64. The formulas are the ONNX specification's, with
``resized = in * scale`` (a float): the input coordinate of output index x is half_pixel
(x + 0.5) / scale - 0.5, pytorch_half_pixel the same but 0 when resized <= 1, align_corners
x (in - 1) / (resized - 1), asymmetric x / scale, tf_half_pixel_for_nn (x + 0.5) / scale,
half_pixel_symmetric the half_pixel coordinate shifted to keep the image centred. Nearest
picks floor(c) or floor(c) + 1 by the fraction and ``nearest_mode``; linear weighs both;
cubic the four around c with Keys' kernel (``cubic_coeff_a``), ``exclude_outside``
renormalizing without those beyond the edge; indices outside [0, in) take the edge."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from dnnc.reference.dtypes import as_f64, to_dtype


def _coordinates(mode: str, size_in: int, size_out: int, scale: float) -> np.ndarray:
    x = np.arange(size_out, dtype=np.float64)
    resized = size_in * scale
    if mode == "half_pixel":
        return (x + 0.5) / scale - 0.5
    if mode == "half_pixel_symmetric":
        adjustment = size_out / resized
        return size_in / 2 * (1 - adjustment) + (x + 0.5) / scale - 0.5
    if mode == "pytorch_half_pixel":
        return (x + 0.5) / scale - 0.5 if resized > 1 else np.zeros(size_out)
    if mode == "align_corners":
        return x * (size_in - 1) / (resized - 1) if resized != 1 else np.zeros(size_out)
    if mode == "asymmetric":
        return x / scale
    if mode == "tf_half_pixel_for_nn":
        return (x + 0.5) / scale
    raise ValueError(f"coordinate mode '{mode}'")


def _nearest(mode: str, coordinates: np.ndarray) -> np.ndarray:
    below = np.floor(coordinates)
    fraction = coordinates - below
    up = {
        "round_prefer_floor": fraction > 0.5,
        "round_prefer_ceil": fraction >= 0.5,
        "floor": np.zeros_like(fraction, dtype=bool),
        "ceil": fraction > 0,
    }[mode]
    return (below + up).astype(np.int64)


def _cubic_weights(fraction: np.ndarray, a: float) -> np.ndarray:
    """Keys' cubic kernel at the four neighbours floor(c) - 1 .. floor(c) + 2: [out, 4]."""
    r = fraction[:, None] + np.array([1.0, 0.0, -1.0, -2.0])  # distances to the neighbours
    d = np.abs(r)
    near = ((a + 2) * d - (a + 3)) * d * d + 1
    far = ((a * d - 5 * a) * d + 8 * a) * d - 4 * a
    return np.where(d <= 1, near, np.where(d < 2, far, 0.0))


def _cubic(
    values: np.ndarray, coordinates: np.ndarray, axis: int, a: float, exclude_outside: bool
) -> np.ndarray:
    size_in = values.shape[axis]
    below = np.floor(coordinates)
    weights = _cubic_weights(coordinates - below, a)
    neighbours = below.astype(np.int64)[:, None] + np.arange(-1, 3)
    if exclude_outside:
        weights = np.where((neighbours >= 0) & (neighbours < size_in), weights, 0.0)
        weights = weights / weights.sum(axis=1, keepdims=True)
    index = np.clip(neighbours, 0, size_in - 1)
    total = np.zeros(0)
    for k in range(4):
        term = np.take(values, index[:, k], axis=axis) * _along(weights[:, k], axis, values.ndim)
        total = term if k == 0 else total + term
    return total


def _along(values: np.ndarray, axis: int, rank: int) -> np.ndarray:
    """A 1-D array shaped to broadcast along ``axis`` of a rank-``rank`` array."""
    shape = [1] * rank
    shape[axis] = -1
    return values.reshape(shape)


def resize(
    src: np.ndarray,
    *,
    sizes: Sequence[int],
    scales: Sequence[float],
    mode: str,
    coordinate_mode: str = "half_pixel",
    nearest_mode: str = "round_prefer_floor",
    cubic_coeff_a: float = -0.75,
    exclude_outside: bool = False,
) -> np.ndarray:
    """``dnn.resize`` (module docstring)."""
    out = as_f64(src)
    for axis, (size, scale) in enumerate(zip(sizes, scales, strict=True)):
        size_in = out.shape[axis]
        if size == size_in and scale == 1.0:
            continue
        coordinates = _coordinates(coordinate_mode, size_in, size, float(scale))
        if mode == "nearest":
            index = np.clip(_nearest(nearest_mode, coordinates), 0, max(size_in - 1, 0))
            out = np.take(out, index, axis=axis)
            continue
        if mode == "cubic":
            out = _cubic(out, coordinates, axis, float(cubic_coeff_a), bool(exclude_outside))
            continue
        clamped = np.clip(coordinates, 0, max(size_in - 1, 0))
        low = np.floor(clamped).astype(np.int64)
        high = np.minimum(low + 1, size_in - 1)
        weight = _along(clamped - low, axis, out.ndim)
        out = np.take(out, low, axis=axis) * (1 - weight) + np.take(out, high, axis=axis) * weight
    return to_dtype(out, src.dtype)
