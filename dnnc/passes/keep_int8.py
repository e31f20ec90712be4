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

Pre:  the IR verifies; runs before dnn-fuse-quantized (which then sees the int8 values).
Post: no matching chain is left; every quantize of such an op got a remark.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from dnnc.core.diagnostics import remark
from dnnc.core.kinds import PoolKind
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
from dnnc.dialects.dnn.base import ints, retyped_op, tensor_type
from dnnc.dialects.types import data_type_of
from dnnc.ir.weights import constant_value
from dnnc.passes.data_transforms import retyped
from dnnc.passes.matching import NoMatch, need, only_use

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


class RunMovementOnIntegers(RewritePattern):
    """The rule of the module docstring, anchored on the quantize."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: QuantizeOp, rewriter: PatternRewriter, /) -> None:
        mover = op.src.owner
        if not isinstance(mover, _MOVEMENT):
            return  # not data movement: nothing to say
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


@dataclass(frozen=True)
class KeepInt8Pass(ModulePass):
    """dnn-keep-int8 (module docstring)."""

    name = "dnn-keep-int8"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        pattern = RunMovementOnIntegers()
        PatternRewriteWalker(pattern, apply_recursively=False).rewrite_module(op)
