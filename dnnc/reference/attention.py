"""Scaled dot-product attention: the reference kernel of ``dnn.sdpa`` (float64, as ONNX
Runtime's MatMul -> Mul -> Add -> Softmax -> MatMul computes it)."""

from __future__ import annotations

import numpy as np

from dnnc.reference.dtypes import as_f64, to_dtype


def causal_mask(queries: int, keys: int) -> np.ndarray:
    """[L, S] additive mask: -inf where key j lies after query i (j > i + S - L), else 0."""
    i = np.arange(queries)[:, None]
    j = np.arange(keys)[None, :]
    return np.where(j > i + keys - queries, -np.inf, 0.0)


def sdpa(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    mask: np.ndarray | None = None,
    *,
    scale: float,
    causal: bool = False,
    nan_to_zero: bool = False,
) -> np.ndarray:
    """``dnn.sdpa``: softmax(scale q kᵀ + mask + causal) v, key/value head h // (Hq / Hkv);
    NaN probabilities become 0 with ``nan_to_zero``."""
    group = q.shape[1] // k.shape[1]
    keys = np.repeat(as_f64(k), group, axis=1)
    values = np.repeat(as_f64(v), group, axis=1)
    scores = scale * (as_f64(q) @ np.swapaxes(keys, -1, -2))
    if mask is not None:
        scores = scores + as_f64(mask)
    if causal:
        scores = scores + causal_mask(q.shape[2], k.shape[2])
    with np.errstate(invalid="ignore"):  # a row of -inf scores gives NaN, as in ONNX Runtime
        weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
        weights /= weights.sum(axis=-1, keepdims=True)
    if nan_to_zero:
        weights = np.where(np.isnan(weights), 0.0, weights)
    return to_dtype(weights @ values, q.dtype)
