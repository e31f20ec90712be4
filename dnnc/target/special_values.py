"""Where oneDNN 3.2's kernels do not carry NaN and infinities as ONNX Runtime does.

ONNX Runtime (the oracle, test/python/differential/test_special_values.py) propagates NaN
through every element-wise function and softmax; oneDNN's kernels are built from ``max`` /
``min`` instructions and clamped polynomials that drop it:
- ``relu`` (slope 0) and ``clip`` / ``relu6`` take ``max(x, lo)``: NaN becomes 0 or lo;
  ``hardsigmoid`` clips too (NaN -> 1);
- ``exp`` clamps its input: exp(NaN) = inf; ``log`` takes denormals as the smallest normal
  (log(1e-40) = -88.0, not -92.1); ``gelu_erf``, ``gelu_tanh`` and ``swish`` give NaN for +inf;
- ``softmax`` (and log-softmax) take the row maximum ignoring NaN, so a row holding NaN or +inf
  is not all NaN, and ``lrn`` sums its window with NaN dropped;
- binary ``max`` / ``min`` (and their post-op forms) keep the second operand of the vector
  max: max(NaN, 1) = 1 but max(1, NaN) = NaN;
- max ``pooling`` ignores NaN (as ONNX's reference MaxPool does) but starts from the lowest
  f32, so a window of only NaN or -inf gives -3.4e38 (ONNX: NaN, -inf).
Leaky relu with a nonzero slope and ``elu`` (a blend, not a max) propagate NaN: relu is exactly
``elu`` with alpha 0 (the sign of a zero result aside), which dnn-propagate-special-values
rewrites it to. Max / min reductions are not listed: oneDNN propagates NaN there, as numpy and
ONNX's reference do (ONNX Runtime's result depends on where the NaN lies: its vector max keeps
the second operand).

Each entry names the special values (`Special`) the kernel mishandles, so that an input is
guarded only against those that can reach it (dnn-guard-special-values). A kernel keeps the
kinds it does not list, measured with oneDNN 3.2 under AVX-512 and AVX2 and checked on every
test run (test/python/passes/test_guard_special_values.py); where the two ISAs differ
(gelu_erf drops +inf on AVX-512 only) or the notes above say more than was seen (gelu_tanh,
swish), the kind is listed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from dnnc.core.kinds import BinaryAlg, BinaryPostOp, EltwiseAlg, EltwisePostOp, PoolKind


class Special(StrEnum):
    """The kinds of special value a floating-point tensor may hold."""

    NAN = "nan"
    POS_INF = "+inf"
    NEG_INF = "-inf"
    SUBNORMAL = "subnormal"


ANY_SPECIAL = frozenset(Special)


@dataclass(frozen=True)
class Masking:
    """How a oneDNN kernel differs from ONNX (``how``) and on which special values."""

    how: str
    kinds: frozenset[Special]


_NAN = frozenset({Special.NAN})

MASKING_ELTWISE: Mapping[EltwiseAlg, Masking] = {
    EltwiseAlg.RELU: Masking("relu(NaN) = 0", _NAN),
    EltwiseAlg.CLIP: Masking("clip(NaN) = its lower bound", _NAN),
    EltwiseAlg.RELU6: Masking("relu6(NaN) = 0", _NAN),
    EltwiseAlg.HARDSIGMOID: Masking("hardsigmoid(NaN) = 1", _NAN),
    EltwiseAlg.EXP: Masking("exp(NaN) = inf", _NAN),
    EltwiseAlg.LOG: Masking("log of a subnormal is log(FLT_MIN)", frozenset({Special.SUBNORMAL})),
    EltwiseAlg.GELU_ERF: Masking("gelu(+inf) = NaN", frozenset({Special.POS_INF})),
    EltwiseAlg.GELU_TANH: Masking("gelu(+inf) = NaN", frozenset({Special.POS_INF})),
    EltwiseAlg.SWISH: Masking("swish(+inf) = NaN", frozenset({Special.POS_INF})),
}
"""The eltwise algorithms whose oneDNN kernel differs on special values, with how."""

MASKING_BINARY: Mapping[BinaryAlg, Masking] = {
    BinaryAlg.MAX: Masking("max(NaN, x) = x (NaN only as the second operand)", _NAN),
    BinaryAlg.MIN: Masking("min(NaN, x) = x (NaN only as the second operand)", _NAN),
}
"""The binary algorithms whose oneDNN kernel differs on special values, with how."""

MAX_POOLING = Masking(
    "a max window of only NaN or -inf gives -3.4e38", frozenset({Special.NAN, Special.NEG_INF})
)
"""How oneDNN's max pooling differs on special values."""

MASKING_KINDS: Mapping[str, Masking] = {
    "softmax": Masking(
        "a row holding NaN or +inf is not all NaN", frozenset({Special.NAN, Special.POS_INF})
    ),
    "lrn": Masking("NaN in a window is dropped", ANY_SPECIAL),
}
"""The primitive kinds that differ on special values whatever their parameters (lrn on every
kind: only NaN was seen to differ, but ONNX Runtime's own window sums differ on infinities)."""


def eltwise_masks(alg: EltwiseAlg | str, alpha: float = 0.0) -> Masking | None:
    """How oneDNN's eltwise `alg` differs from ONNX on special values, None if it does not
    (a leaky relu with a nonzero slope blends, and so propagates NaN)."""
    chosen = EltwiseAlg(alg)
    if chosen in (EltwiseAlg.RELU, EltwiseAlg.LEAKY_RELU):
        return MASKING_ELTWISE[EltwiseAlg.RELU] if alpha == 0.0 else None
    return MASKING_ELTWISE.get(chosen)


def kernel_masks(kind: str, params: Mapping[str, object]) -> Masking | None:
    """How a oneDNN primitive of `kind` with `params` (an op's kernel call's) differs from
    ONNX on special values by its own algorithm; None if it does not."""
    if kind in MASKING_KINDS:
        return MASKING_KINDS[kind]
    if kind == "pooling" and str(params.get("kind")) == PoolKind.MAX:
        return MAX_POOLING
    if kind == "eltwise":
        alpha = params.get("alpha", 0.0)
        assert isinstance(alpha, int | float)  # an eltwise's alpha is a number
        return eltwise_masks(str(params["alg"]), float(alpha))
    if kind == "binary":
        return MASKING_BINARY.get(BinaryAlg(str(params["alg"])))
    return None


def post_op_masks(post_ops: object) -> list[Masking]:
    """How each of a primitive's post-ops that differs from ONNX on special values does."""
    found: list[Masking] = []
    for post_op in post_ops if isinstance(post_ops, list | tuple) else ():
        if isinstance(post_op, EltwisePostOp):
            masking = eltwise_masks(post_op.alg, post_op.alpha)
        elif isinstance(post_op, BinaryPostOp):
            masking = MASKING_BINARY.get(post_op.alg)
        else:
            continue
        if masking is not None:
            found.append(Masking(f"its {post_op.alg} post-op: {masking.how}", masking.kinds))
    return found
