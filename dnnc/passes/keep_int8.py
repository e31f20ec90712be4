"""dnn-keep-int8: data movement between a dequantize and a quantize of equal parameters
runs on the 8-bit values.

Rule: %f = dnn.dequantize %q, %s, %z                 [per tensor]
      %g = <op> %f ...                               [pool, reshape, transpose, slice or
                                                      concat (each input such a dequantize);
                                                      %g read only by the quantize]
      %r = dnn.quantize %g, %s', %z'                 [%s' = %s, %z' = %z: the same value or
                                                      equal constants]
      ==> %r = <op> %q ...
These ops move, pick (max pooling) or average values without mixing in anything else, so on
the integers with one scale and zero point they give what quantize(op(dequantize)) gives:
exactly for all but the average, and for the average (oneDNN's int8 pooling rounds the mean
of the integers half to even) but at a tie of an even window with an odd zero point, one
step. ONNX Runtime's quantize_static gives MaxPool, Reshape, Transpose, Slice and
AveragePool their input's parameters, so a quantized network stays int8 from one
convolution to the next (dnn-fuse-quantized). The dequantize stays when something else
reads it.

Not rewritten (remark "not kept in int8: <why>" on the quantize) when the parameters differ
(or are not constants where the values differ), a quantization is per axis, the op has other
readers or post-ops, or an average pooling counts padding under a zero point other than 0
(padding is 0 in the integers, not the zero point). A quantize of anything else is left
alone silently.

Rule (requantizing pooling):
      %f = dnn.dequantize %q, %s, %z                 [per tensor, constant %s, %z]
      %g = dnn.pool %f                               [no post-ops; read only by the quantize]
      %r = dnn.quantize %g, %s', %z'                 [per tensor, constant %s', %z', other
                                                      parameters than %f's; %r typed as %q]
      ==> %r = dnn.pool %q post_args(%s' as [1, 1, 1, 1]) {post_ops = [linear(1, -%z),
          linear(%s), binary div, round, linear(1, %z')]}   [no linear for a zero point 0]
A pooling that gives its result parameters of its own (quantize_static's GlobalAveragePool:
the mean of a channel has a narrower range than its values) runs on the integers too, as
oneDNN's int8 pooling with the requantization in its post-ops: ``(m - z) * s`` (the
dequantize: exact integers, one rounding), divided by ``s'``, rounded half to even, plus
``z'``, saturated to the result's type (the quantize, as dnn.quantize lowers it). For a max
that is quantize(max(dequantize)) exactly (dequantizing is monotonic); for an average the
mean of the integers takes the place of the mean of the dequantized values (a different f32
rounding: it can differ only next to a rounding tie). One pooling step in place of a
dequantizing reorder, an f32 pooling and a quantizing division (MobileNetV2's last one:
18 + 10 + 8 us against 7 us, Zen 5, 2 threads, steps timed apart).
Not rewritten (remark "not requantized in the pooling: <why>") when a scale or zero point
is not a constant or is per axis, the integer types differ (a pooling keeps its type), the
pooling has other readers or post-ops, or it averages padding under a nonzero zero point.

Pre:  the IR verifies; runs before dnn-fuse-quantized (which then sees the int8 values).
Post: no matching chain is left; every quantize of such an op got a remark.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    InsertPoint,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from dnnc.core.diagnostics import remark
from dnnc.core.kinds import BinaryAlg, BinaryPostOp, EltwiseAlg, EltwisePostOp, PoolKind, PostOp
from dnnc.dialects.dnn import (
    ConcatOp,
    ConstantOp,
    DequantizeOp,
    PoolOp,
    QuantizeOp,
    ReshapeOp,
    SliceOp,
    TransposeOp,
    shape_of,
)
from dnnc.dialects.dnn.base import ints, post_ops_attr, retyped_op, tensor_type
from dnnc.dialects.types import data_type_of
from dnnc.ir.weights import constant_value
from dnnc.passes.constants import constant_op
from dnnc.passes.data_transforms import retyped
from dnnc.passes.matching import NoMatch, constant_number, need, only_use

_MOVEMENT = (PoolOp, ReshapeOp, TransposeOp, SliceOp, ConcatOp)
"""The ops that run on the integers as they are."""


def _equal(a: SSAValue, b: SSAValue) -> bool:
    """Whether two scales (or zero points) are one value or equal constants of one type."""
    if a is b:
        return True
    if not (isinstance(a.owner, ConstantOp) and isinstance(b.owner, ConstantOp)):
        return False
    same_type = tensor_type(a).get_element_type() == tensor_type(b).get_element_type()
    return same_type and np.array_equal(constant_value(a.owner), constant_value(b.owner))


def _dequantized(value: SSAValue, quantize: QuantizeOp) -> DequantizeOp:
    """The dequantize defining ``value``, with the quantize's parameters."""
    dq = value.owner
    need(isinstance(dq, DequantizeOp), "an input is not dequantized")
    assert isinstance(dq, DequantizeOp)  # checked above
    need(dq.axis is None and not shape_of(dq.scale), "an input is dequantized per axis")
    need(
        tensor_type(dq.src).get_element_type() == tensor_type(quantize.result).get_element_type(),
        "an input has another integer type than the result",
    )
    need(_equal(dq.scale, quantize.scale), "the quantize's scale is not the dequantize's")
    need(
        _equal(dq.zero_point, quantize.zero_point),
        "the quantize's zero point is not the dequantize's",
    )
    return dq


def _check_pool(pool: PoolOp, zero_point: SSAValue) -> None:
    need(not pool.post_ops.data, "the pooling has post-ops")
    if pool.kind.data is not PoolKind.AVG_INCLUDE_PAD or not any(
        ints(pool.pads_begin) + ints(pool.pads_end)
    ):
        return
    owner = zero_point.owner
    need(
        isinstance(owner, ConstantOp) and not np.any(constant_value(owner)),
        "the average counts padding, which is 0 in the integers, not the zero point",
    )


def _requantizing(pool: PoolOp, quantize: QuantizeOp) -> bool:
    """Whether a pooling of a dequantize gives its result other parameters than its input's
    (the requantizing rule's case)."""
    dq = pool.src.owner
    if not isinstance(dq, DequantizeOp):
        return False
    return not (_equal(dq.scale, quantize.scale) and _equal(dq.zero_point, quantize.zero_point))


class RunMovementOnIntegers(RewritePattern):
    """The rule of the module docstring, anchored on the quantize."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: QuantizeOp, rewriter: PatternRewriter, /) -> None:
        mover = op.src.owner
        if not isinstance(mover, _MOVEMENT):
            return  # not data movement: nothing to say
        if isinstance(mover, PoolOp) and _requantizing(mover, op):
            return  # RequantizeInPooling's
        try:
            need(op.axis is None and not shape_of(op.scale), "the result is quantized per axis")
            only_use(op.src, f"the {mover.name}'s f32 result")
            sources = list(mover.inputs) if isinstance(mover, ConcatOp) else [mover.src]
            dequantizes = [_dequantized(v, op) for v in sources]
            if isinstance(mover, PoolOp):
                _check_pool(mover, op.zero_point)
        except NoMatch as refusal:
            remark(op, f"not kept in int8: {refusal}")
            return
        element = tensor_type(op.result).get_element_type()
        operands = [dq.src for dq in dequantizes]
        if isinstance(mover, PoolOp):
            operands += list(mover.post_args)
        moved = retyped_op(mover, operands, retyped(tensor_type(mover.result), element=element))
        moved.results[0].name_hint = op.result.name_hint
        rewriter.replace_op(op, moved)
        rewriter.erase_op(mover)
        for dq in dict.fromkeys(dequantizes):
            if not dq.result.uses:
                rewriter.erase_op(dq)
        remark(moved, f"runs on {data_type_of(element)} values")


def _requantization(dq: DequantizeOp, quantize: QuantizeOp) -> list[PostOp]:
    """The post-ops computing quantize(dequantize(m)) of an integer m (module docstring)."""
    zero = constant_number(dq.zero_point, "the input's zero point")
    result_zero = constant_number(quantize.zero_point, "the result's zero point")
    return [
        *([EltwisePostOp(EltwiseAlg.LINEAR, 1.0, -zero)] if zero else []),
        EltwisePostOp(EltwiseAlg.LINEAR, constant_number(dq.scale, "the input's scale")),
        BinaryPostOp(BinaryAlg.DIV),
        EltwisePostOp(EltwiseAlg.ROUND),
        *([EltwisePostOp(EltwiseAlg.LINEAR, 1.0, result_zero)] if result_zero else []),
    ]


class RequantizeInPooling(RewritePattern):
    """The requantizing pooling rule of the module docstring, anchored on the quantize."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: QuantizeOp, rewriter: PatternRewriter, /) -> None:
        pool = op.src.owner
        if not isinstance(pool, PoolOp) or not _requantizing(pool, op):
            return  # not this rule's (perhaps RunMovementOnIntegers's)
        dq = pool.src.owner
        assert isinstance(dq, DequantizeOp)  # _requantizing
        try:
            need(op.axis is None and not shape_of(op.scale), "the result is quantized per axis")
            need(dq.axis is None and not shape_of(dq.scale), "the input is dequantized per axis")
            only_use(op.src, "the pool's f32 result")
            need(
                tensor_type(dq.src).get_element_type() == tensor_type(op.result).get_element_type(),
                "the input has another integer type than the result",
            )
            _check_pool(pool, dq.zero_point)
            post_ops = _requantization(dq, op)
            scale = constant_number(op.scale, "the result's scale")
        except NoMatch as refusal:
            remark(op, f"not requantized in the pooling: {refusal}")
            return
        result = tensor_type(op.result)
        divisor = constant_op(
            np.full([1] * result.get_num_dims(), scale, np.float32),
            TensorType(tensor_type(op.scale).get_element_type(), [1] * result.get_num_dims()),
            op,
        )
        rewriter.insert(divisor, InsertPoint.before(op))
        requantized = retyped_op(pool, [dq.src, divisor.result], result)
        requantized.properties["post_ops"] = post_ops_attr(post_ops)
        requantized.result.name_hint = op.result.name_hint
        rewriter.replace_op(op, requantized)
        rewriter.erase_op(pool)
        if not dq.result.uses:
            rewriter.erase_op(dq)
        remark(
            requantized, f"runs on {data_type_of(result.get_element_type())} values, requantized"
        )


@dataclass(frozen=True)
class KeepInt8Pass(ModulePass):
    """dnn-keep-int8 (module docstring)."""

    name = "dnn-keep-int8"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        patterns = GreedyRewritePatternApplier([RunMovementOnIntegers(), RequantizeInPooling()])
        PatternRewriteWalker(patterns, apply_recursively=False).rewrite_module(op)
