"""The zero point after the rounding: a rewrite dnn-fuse-quantized and dnn-fuse-quantized-matmul
share for their int8 ops.

Rule: %yq = dnn.qconv2d|qmatmul ..., %sy, %zy {post_ops: P}  [constant %sy, constant %zy != 0]
      ==> %yq = dnn.qconv2d|qmatmul ..., 1.0, 0 {post_ops: P, linear(1/%sy), round,
          linear(1, %zy)}
ONNX rounds ``x / sy`` half to even and then adds the zero point; oneDNN adds its
destination zero point in f32 before it rounds. At an exact tie an odd zero point turns the
rounding the other way (measured with values that are half-integers and zero point 3: a 1x1
convolution had half of its outputs one step from ONNX Runtime, which is exact, a matmul a
third),
and next to a tie the sum ``x / sy + zy``, rounded to f32 at the magnitude of the integer
range, can round it the other way too. So the requantization moves into the post-ops, where
the rounding comes before the zero point (the scale as oneDNN applies it, a multiplication
by the f32 reciprocal); the final conversion saturates. A zero point of 0 (what
dnn-shift-to-u8 leaves after a ReLU) needs nothing: oneDNN then runs without one, and an
f32 result (a qmatmul without ``dst``) has no zero point. Not rewritten (remark "zero point
added before rounding (oneDNN's): <why>") when the scale is not a constant (known at run time
only: the post-op needs a number).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.pattern_rewriter import (
    InsertPoint,
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from dnnc.core.diagnostics import remark
from dnnc.core.kinds import EltwiseAlg, EltwisePostOp, PostOp
from dnnc.dialects.dnn import ConstantOp, QConv2DOp, QMatmulOp
from dnnc.dialects.dnn.base import post_ops_of, tensor_type
from dnnc.ir.weights import constant_value
from dnnc.passes.constants import constant_op
from dnnc.passes.matching import NoMatch, constant_number

QuantizedAnchor = QConv2DOp | QMatmulOp
"""The int8 ops whose result the rule requantizes."""


def _rebuilt(
    op: QuantizedAnchor, one: ConstantOp, nought: ConstantOp, post_ops: list[PostOp]
) -> QuantizedAnchor:
    """``op`` quantizing its result with scale ``one`` and zero point ``nought`` after
    ``post_ops``."""
    if isinstance(op, QConv2DOp):
        return op.requantized(
            one.result, nought.result, tensor_type(op.result), post_ops, list(op.post_args)
        )
    return QMatmulOp(
        op.src,
        op.wei,
        (op.src_scale, op.src_zero_point, op.wei_scale),
        wei_zero_point=op.wei_zero_point,
        dst=(one.result, nought.result),
        bias=op.bias,
        post_ops=post_ops,
    )


def rounded_quotient(scale: float) -> list[PostOp]:
    """The post-ops that turn an f32 result into the integer steps of ``scale`` (divided by
    it, rounded half to even): a quantize's first two steps, as post-ops."""
    return [EltwisePostOp(EltwiseAlg.LINEAR, 1.0 / scale, 0.0), EltwisePostOp(EltwiseAlg.ROUND)]


@dataclass
class RoundBeforeZeroPoint(RewritePattern):
    """The rule of the module docstring, on the ops of type ``anchor``."""

    anchor: type[QConv2DOp] | type[QMatmulOp]

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: QuantizedAnchor, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, self.anchor) or op.dst_scale is None or op.dst_zero_point is None:
            return  # the other pass's op, or an f32 result: no zero point
        zero = op.dst_zero_point.owner
        if not isinstance(zero, ConstantOp) or not np.any(constant_value(zero)):
            return  # no zero point, or one known at run time: nothing to move
        try:
            scale = constant_number(op.dst_scale, "the result's scale")
        except NoMatch as refusal:
            remark(op, f"zero point added before rounding (oneDNN's): {refusal}")
            return
        one = constant_op(np.ones((), np.float32), tensor_type(op.dst_scale), op)
        nought = constant_op(np.zeros((), np.int64), tensor_type(op.dst_zero_point), op)
        requantization = [
            *rounded_quotient(scale),
            EltwisePostOp(EltwiseAlg.LINEAR, 1.0, float(constant_value(zero))),
        ]
        rewriter.insert([one, nought], InsertPoint.before(op))
        fused = _rebuilt(op, one, nought, [*post_ops_of(op.post_ops), *requantization])
        fused.location = op.location
        fused.result.name_hint = op.result.name_hint
        rewriter.replace(op, fused)
