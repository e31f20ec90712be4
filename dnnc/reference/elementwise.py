"""Element-wise math: the eltwise and binary algorithms as tables, and post-op application.

The eltwise formulas are oneDNN 3.x's ``eltwise_*`` forward formulas with its ``alpha`` and
``beta`` (see docs/dialect.md); note that oneDNN 3.x ``soft_relu`` is
``log(1 + e^(alpha x)) / alpha``, so softplus is ``alpha = 1``. Everything here works on
float64 arrays; the kernels convert to the result type once, after the post-ops, the way
oneDNN applies post-ops in f32 before writing the destination.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from dnnc.core.kinds import (
    BinaryAlg,
    BinaryPostOp,
    CompareAlg,
    EltwiseAlg,
    EltwisePostOp,
    LogicalAlg,
    PostOp,
    SumPostOp,
)
from dnnc.reference.dtypes import as_f64, to_dtype

EltwiseFn = Callable[[np.ndarray, float, float], np.ndarray]

_ERF = np.frompyfunc(math.erf, 1, 1)


def _erf(x: np.ndarray) -> np.ndarray:
    """erf element-wise, in float64 (math.erf: exact to the last bit)."""
    return np.asarray(_ERF(x), dtype=np.float64)


_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    """1 / (1 + e^-x) without overflow warnings for large |x|."""
    return np.exp(-np.logaddexp(0.0, -x))


def _softplus(x: np.ndarray) -> np.ndarray:
    """log(1 + e^x), stable for large |x|."""
    return np.logaddexp(0.0, x)


def _gelu_erf(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


def _gelu_tanh(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + np.tanh(_SQRT_2_OVER_PI * (x + 0.044715 * x**3)))


def _relu(x: np.ndarray, alpha: float) -> np.ndarray:
    """x > 0 ? x : alpha * x, NaN kept and relu(-inf) = 0 (not 0 * -inf)."""
    negative = alpha * x if alpha != 0.0 else np.zeros_like(x)
    return np.where((x > 0) | np.isnan(x), x, negative)


def _elu(x: np.ndarray, alpha: float) -> np.ndarray:
    return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0.0)))


ELTWISE: dict[EltwiseAlg, EltwiseFn] = {
    EltwiseAlg.RELU: lambda x, a, b: _relu(x, a),
    EltwiseAlg.LEAKY_RELU: lambda x, a, b: _relu(x, a),
    EltwiseAlg.GELU_ERF: lambda x, a, b: _gelu_erf(x),
    EltwiseAlg.GELU_TANH: lambda x, a, b: _gelu_tanh(x),
    EltwiseAlg.TANH: lambda x, a, b: np.tanh(x),
    EltwiseAlg.SIGMOID: lambda x, a, b: _sigmoid(x),
    EltwiseAlg.ELU: lambda x, a, b: _elu(x, a),
    EltwiseAlg.SWISH: lambda x, a, b: x * _sigmoid(a * x),
    EltwiseAlg.HARDSWISH: lambda x, a, b: x * np.clip(a * x + b, 0.0, 1.0),
    EltwiseAlg.HARDSIGMOID: lambda x, a, b: np.clip(a * x + b, 0.0, 1.0),
    EltwiseAlg.CLIP: lambda x, a, b: np.minimum(np.maximum(x, a), b),
    EltwiseAlg.RELU6: lambda x, a, b: np.clip(x, 0.0, 6.0),
    EltwiseAlg.EXP: lambda x, a, b: np.exp(x),
    EltwiseAlg.LOG: lambda x, a, b: np.log(x),
    EltwiseAlg.SQRT: lambda x, a, b: np.sqrt(x),
    EltwiseAlg.ABS: lambda x, a, b: np.abs(x),
    EltwiseAlg.SQUARE: lambda x, a, b: x * x,
    EltwiseAlg.LINEAR: lambda x, a, b: a * x + b,
    EltwiseAlg.POW: lambda x, a, b: a * np.power(x, b),
    EltwiseAlg.SOFT_RELU: lambda x, a, b: _softplus(a * x) / a,
    EltwiseAlg.MISH: lambda x, a, b: x * np.tanh(_softplus(x)),
    EltwiseAlg.ROUND: lambda x, a, b: np.rint(x),
    EltwiseAlg.SOFTSIGN: lambda x, a, b: x / (1.0 + np.abs(x)),
    EltwiseAlg.ERF: lambda x, a, b: _erf(x),
    EltwiseAlg.SIN: lambda x, a, b: np.sin(x),
    EltwiseAlg.COS: lambda x, a, b: np.cos(x),
}
"""Forward formula of each eltwise algorithm, ``f(x, alpha, beta)`` on float64."""

BINARY: dict[BinaryAlg, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    BinaryAlg.ADD: np.add,
    BinaryAlg.SUB: np.subtract,
    BinaryAlg.MUL: np.multiply,
    BinaryAlg.DIV: np.divide,
    BinaryAlg.MAX: np.maximum,
    BinaryAlg.MIN: np.minimum,
    BinaryAlg.POW: np.power,
}
"""Each binary algorithm as a numpy ufunc (numpy broadcasting)."""


def eltwise_f64(x: np.ndarray, alg: EltwiseAlg | str, alpha: float, beta: float) -> np.ndarray:
    """One eltwise algorithm applied to float64 values."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return ELTWISE[EltwiseAlg(alg)](x, float(alpha), float(beta))


def binary_f64(alg: BinaryAlg | str, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """One binary algorithm applied to float64 values (numpy broadcasting)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return BINARY[BinaryAlg(alg)](lhs, rhs)


def apply_post_ops(
    d: np.ndarray, post_ops: Sequence[PostOp], post_args: Sequence[np.ndarray]
) -> np.ndarray:
    """The float64 result ``d`` after the post-op chain, in order, as oneDNN applies it.

    Binary and sum post-ops each consume the next of ``post_args``. A binary argument has
    ``d``'s rank and each dimension equal to ``d``'s or 1 (oneDNN's per-tensor, per-channel,
    ... broadcasts); a sum argument has exactly ``d``'s shape.
    """
    args = iter(post_args)
    consumed = 0
    for post_op in post_ops:
        if isinstance(post_op, EltwisePostOp):
            d = eltwise_f64(d, post_op.alg, post_op.alpha, post_op.beta)
            continue
        p = next(args, None)
        if p is None:
            raise ValueError(
                f"post-op {consumed + 1} ({post_op}) needs an argument, only {len(post_args)} given"
            )
        consumed += 1
        p = as_f64(p)
        if isinstance(post_op, SumPostOp):
            if p.shape != d.shape:
                raise ValueError(f"sum post-op argument has shape {p.shape}, expected {d.shape}")
            d = d + post_op.scale * (p - post_op.zero_point)
        elif isinstance(post_op, BinaryPostOp):
            if p.ndim != d.ndim or any(n not in (1, m) for n, m in zip(p.shape, d.shape)):
                raise ValueError(
                    f"binary post-op argument of shape {p.shape} does not broadcast to {d.shape}"
                )
            d = binary_f64(post_op.alg, d, p)
        else:
            raise TypeError(f"not a post-op: {post_op!r}")
    if consumed != len(post_args):
        raise ValueError(f"{len(post_args)} post-op arguments given, the post-ops use {consumed}")
    return d


def eltwise(
    src: np.ndarray, *, alg: EltwiseAlg | str, alpha: float = 0.0, beta: float = 0.0
) -> np.ndarray:
    """``dnn.eltwise``: ``alg(src)`` with oneDNN's formula, in src's element type."""
    return to_dtype(eltwise_f64(as_f64(src), alg, alpha, beta), src.dtype)


def binary(
    lhs: np.ndarray,
    rhs: np.ndarray,
    *post_args: np.ndarray,
    alg: BinaryAlg | str,
    post_ops: Sequence[PostOp] = (),
) -> np.ndarray:
    """``dnn.binary``: ``lhs <alg> rhs`` with numpy broadcasting, then the post-ops. Integer
    division truncates toward zero, as ONNX (and C) define it, in exact integer arithmetic;
    a zero divisor is an error."""
    if BinaryAlg(alg) is BinaryAlg.DIV and np.dtype(lhs.dtype).kind in "iu":
        a, b = np.broadcast_arrays(lhs.astype(np.int64), rhs.astype(np.int64))
        if (b == 0).any():
            raise ValueError("integer division by zero")
        quotient = np.abs(a) // np.abs(b) * np.sign(a) * np.sign(b)
        if not post_ops:
            return quotient.astype(lhs.dtype)
        d = quotient.astype(np.float64)
    else:
        d = binary_f64(alg, as_f64(lhs), as_f64(rhs))
    return to_dtype(apply_post_ops(d, post_ops, post_args), lhs.dtype)


_COMPARE = {
    "eq": np.equal,
    "ne": np.not_equal,
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
}
_LOGICAL = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}


def compare(lhs: np.ndarray, rhs: np.ndarray, *, alg: CompareAlg | str) -> np.ndarray:
    """``dnn.compare``: ``lhs <alg> rhs`` broadcast, exactly (integers are not converted)."""
    return _COMPARE[str(CompareAlg(alg))](lhs, rhs)


def logical(lhs: np.ndarray, rhs: np.ndarray, *, alg: LogicalAlg | str) -> np.ndarray:
    """``dnn.logical``: ``lhs <alg> rhs`` on booleans, broadcast."""
    return _LOGICAL[str(LogicalAlg(alg))](lhs, rhs)


def where(lhs: np.ndarray, rhs: np.ndarray, condition: np.ndarray) -> np.ndarray:
    """``dnn.where``: ``condition ? lhs : rhs``, broadcast, in lhs's type."""
    return np.where(condition, lhs, rhs).astype(lhs.dtype)
