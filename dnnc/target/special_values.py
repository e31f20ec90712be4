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
"""

from __future__ import annotations

from collections.abc import Mapping

from dnnc.core.kinds import BinaryAlg, BinaryPostOp, EltwiseAlg, EltwisePostOp, PoolKind

MASKING_ELTWISE: Mapping[EltwiseAlg, str] = {
    EltwiseAlg.RELU: "relu(NaN) = 0",
    EltwiseAlg.CLIP: "clip(NaN) = its lower bound",
    EltwiseAlg.RELU6: "relu6(NaN) = 0",
    EltwiseAlg.HARDSIGMOID: "hardsigmoid(NaN) = 1",
    EltwiseAlg.EXP: "exp(NaN) = inf",
    EltwiseAlg.LOG: "log of a denormal is log(FLT_MIN)",
    EltwiseAlg.GELU_ERF: "gelu(+inf) = NaN",
    EltwiseAlg.GELU_TANH: "gelu(+inf) = NaN",
    EltwiseAlg.SWISH: "swish(+inf) = NaN",
}
"""The eltwise algorithms whose oneDNN kernel differs on special values, with how."""

MASKING_BINARY: Mapping[BinaryAlg, str] = {
    BinaryAlg.MAX: "max(NaN, x) = x (NaN only as the second operand)",
    BinaryAlg.MIN: "min(NaN, x) = x (NaN only as the second operand)",
}
"""The binary algorithms whose oneDNN kernel differs on special values, with how."""

MAX_POOLING = "a max window of only NaN or -inf gives -3.4e38"
"""How oneDNN's max pooling differs on special values."""

MASKING_KINDS: Mapping[str, str] = {
    "softmax": "a row holding NaN or +inf is not all NaN",
    "lrn": "NaN in a window is dropped",
}
"""The primitive kinds that differ on special values whatever their parameters."""


def eltwise_masks(alg: EltwiseAlg | str, alpha: float = 0.0) -> str | None:
    """How oneDNN's eltwise `alg` differs from ONNX on special values, None if it does not
    (a leaky relu with a nonzero slope blends, and so propagates NaN)."""
    chosen = EltwiseAlg(alg)
    if chosen in (EltwiseAlg.RELU, EltwiseAlg.LEAKY_RELU):
        return MASKING_ELTWISE[EltwiseAlg.RELU] if alpha == 0.0 else None
    return MASKING_ELTWISE.get(chosen)


def kernel_masks(kind: str, params: Mapping[str, object]) -> str | None:
    """How a oneDNN primitive of `kind` with `params` (a handler's, or an op's kernel call's)
    differs from ONNX on NaN or infinities by its own algorithm; None if it does not."""
    if kind in MASKING_KINDS:
        return MASKING_KINDS[kind]
    if kind == "pooling" and str(params.get("kind")) == PoolKind.MAX:
        return MAX_POOLING
    if kind == "eltwise":
        alpha = params.get("alpha", 0.0)
        return eltwise_masks(str(params["alg"]), float(alpha))  # type: ignore[arg-type]
    if kind == "binary":
        return MASKING_BINARY.get(BinaryAlg(str(params["alg"])))
    return None


def post_op_masks(post_ops: object) -> str | None:
    """How one of a primitive's post-ops differs from ONNX on special values, or None."""
    for post_op in post_ops if isinstance(post_ops, list | tuple) else ():
        if isinstance(post_op, EltwisePostOp):
            found = eltwise_masks(post_op.alg, post_op.alpha)
        elif isinstance(post_op, BinaryPostOp):
            found = MASKING_BINARY.get(post_op.alg)
        else:
            continue
        if found is not None:
            return f"its {post_op.alg} post-op: {found}"
    return None


def primitive_masks(kind: str, params: Mapping[str, object]) -> str | None:
    """How a oneDNN primitive differs from ONNX on special values, by its own algorithm or one
    of its post-ops; None if it does not."""
    return kernel_masks(kind, params) or post_op_masks(params.get("post_ops", ()))
