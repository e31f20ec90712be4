"""dnn-scale-weights: scale a convolution's weights instead of its input, if fewer elements.

Rule: %y = dnn.binary mul %x, %s        (or mul %s, %x)
      %z = dnn.conv2d %y, %w, ...
      ==> %v = dnn.binary mul %w, %s
          %z = dnn.conv2d %x, %v, ...
      when %s holds one factor per channel of %x (shape [1, C, 1, 1], %x [N, C, H, W]) and is
      computed at run time after %x's producer (from %x, as squeeze-and-excitation does),
      every reader of %y is a dnn.conv2d with one group reading it as its source, and the
      weights of those convolutions have at most half as many elements as %x. A factor of
      input channel c multiplies every product of that channel, so it may as well multiply
      the weights of channel c; zero padding stays zero. Squeeze-and-excitation blocks
      (EfficientNet, MobileNetV3, RegNet) end in such a mul: the rule replaces a pass over
      the block's widest activation (e.g. 144 x 56 x 56) by one over the weights of the 1x1
      projection after it (24 x 144). Left alone: deeper blocks, whose 7 x 7 activations are
      smaller than their weights, and a factor known before %x's producer runs (a graph
      input, a constant, an earlier result), which dnn-fuse-post-ops makes a post-op of that
      producer: no pass over memory at all.

Pre:  the IR verifies; static shapes where it applies; it runs after dnn-fold-constants (so
      that weights are folded first: the scaled weights are computed at run time) and before
      dnn-assign-layouts (plain types).
Post: no rule applies; the IR verifies; results are unchanged up to float rounding (each
      product is multiplied in another order).
"""

from __future__ import annotations

import math

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from dnnc.core.kinds import BinaryAlg
from dnnc.core.shapes import positive_sizes, same_shape
from dnnc.dialects.dnn import BinaryOp, ConstantOp, Conv2DOp, WeightOp, shape_of
from dnnc.dialects.dnn.base import tensor_type


def _per_channel(x: SSAValue, s: SSAValue) -> bool:
    """Whether `s` holds one factor per channel of the image `x` ([1, C, 1, 1] and
    [N, C, H, W], static, of one element type)."""
    image, factor = shape_of(x), shape_of(s)
    return (
        len(image) == 4
        and positive_sizes(image)
        and same_shape(factor, (1, image[1], 1, 1))  # a batch of 1 last: its own guard
        and tensor_type(x).get_element_type() == tensor_type(s).get_element_type()
    )


def _computed_after(s: SSAValue, x: SSAValue) -> bool:
    """Whether `s` is computed at run time after `x`'s producer runs (so that no post-op of
    that producer can read it); a graph input `x` has no producer to fuse into."""
    factor, producer = s.owner, x.owner
    if not isinstance(factor, Operation) or isinstance(factor, ConstantOp | WeightOp):
        return False  # an input or a constant: known before anything runs
    return not isinstance(producer, Operation) or producer.is_before_in_block(factor)


def _scaled_convolutions(mul: BinaryOp) -> list[Conv2DOp] | None:
    """The readers of `mul`, when each is a one-group dnn.conv2d reading it as its source,
    its weights of the product's element type."""
    element = tensor_type(mul.result).get_element_type()
    readers = []
    for use in mul.result.uses:
        conv = use.operation
        if not isinstance(conv, Conv2DOp) or use.index != 0 or conv.groups.value.data != 1:
            return None
        if tensor_type(conv.wei).get_element_type() != element:
            return None
        readers.append(conv)
    return readers


class ScaleWeightsNotInput(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: BinaryOp, rewriter: PatternRewriter, /) -> None:
        if op.alg.data != BinaryAlg.MUL or op.post_ops.data:
            return
        found = [
            (x, s)
            for x, s in ((op.lhs, op.rhs), (op.rhs, op.lhs))
            if _per_channel(x, s) and _computed_after(s, x)
        ]
        convolutions = _scaled_convolutions(op)
        if not found or not convolutions:
            return
        x, s = found[0]
        weights = sum(math.prod(shape_of(conv.wei)) for conv in convolutions)
        if 2 * weights > math.prod(shape_of(x)):
            return  # the weights are the larger pass: keep the mul
        for conv in convolutions:
            scaled = BinaryOp(BinaryAlg.MUL, conv.wei, s, result_type=tensor_type(conv.wei))
            scaled.location = op.location  # the multiply it moves
            rewriter.insert(scaled, InsertPoint.before(conv))
            conv.operands[1] = scaled.result
            rewriter.notify_op_modified(conv)
        rewriter.replace(op, [], [x])


class ScaleWeightsPass(ModulePass):
    """Scale convolution weights instead of their input (module docstring)."""

    name = "dnn-scale-weights"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(ScaleWeightsNotInput(), apply_recursively=False).rewrite_module(op)
