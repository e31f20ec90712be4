"""dnn-hoist-strides: compute a value only at the pixels its strided 1x1 convolutions read.

Rule: %v = <producer> ...
      %a = dnn.conv2d %v, %w1 {strides = array<i64: 2, 2>}
      %b = dnn.conv2d %v, %w2 {strides = array<i64: 2, 2>}
      ==> %u = <producer at stride 2> ...
          %a = dnn.conv2d %u, %w1
          %b = dnn.conv2d %u, %w2
      when every reader of %v is a dnn.conv2d with a 1x1 kernel and no padding that reads it as
      its source with the same strides s (not all 1), %v is an image of static shape, and its
      producer is a dnn.conv2d, dnn.eltwise or dnn.binary whose pixel-wise operands (a binary
      op's sources, post-op arguments) each have the result's shape or one pixel. Such a
      reader sees %v's pixels (s_h y, s_w x) only. "At stride s" computes exactly those:
      - dnn.conv2d: the same convolution with its strides multiplied by s (output pixel j of
        the new one is pixel s j of the old, for any kernel, padding and stride); a 1x1 one
        without padding or stride instead reads its source at stride s, so the stride keeps
        moving up, or reads it with stride s where that source cannot move;
      - dnn.eltwise: the same function of its source at stride s;
      - dnn.binary: the same op of each operand of the result's shape at stride s (broadcast
        operands, one pixel wide, as they are);
      - post-ops stay, their arguments of the result's shape taken at stride s as well;
      an operand at stride s is computed so in turn when this op is its only reader and its
      producer is one of the above; otherwise it is copied at stride s by a 1x1 average pool
      (each output the one pixel it reads: exact, NaN and infinities included).
ResNet v1 (He et al., the ONNX model zoo's resnet50-v1, Caffe's) downsamples with stride-2 1x1
convolutions on both paths of a stage's first block, so the last block of the stage before
computed four times the pixels anyone reads: its 3x3 convolution now runs at stride 2, its
1x1 and residual add on a quarter of the pixels (OpenVINO does the same in its
StridesOptimization). Networks that downsample in a 3x3 convolution (ResNet v1.5, MobileNet)
have no such reader and are left alone, as is a value also read at full resolution.

Pre:  the IR verifies; after dnn-fold-constants (batch norms folded into convolutions) and
      before dnn-assign-layouts (plain types); it runs before dnn-fuse-post-ops, so that
      fusion sees the smaller ops.
Post: no value the rule matches is left; the IR verifies; the function computes the same
      values (each a sum in the order oneDNN's kernel for the new strides takes).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue, Use
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.rewriter import InsertPoint

from dnnc.core.kinds import PoolKind
from dnnc.core.shapes import positive_sizes, same_shape
from dnnc.dialects.dnn import BinaryOp, Conv2DOp, EltwiseOp, PoolOp, shape_of
from dnnc.dialects.dnn.base import ints, retyped_op, stand_in, tensor_type

Strides = tuple[int, int]


def _reader_strides(use: Use) -> Strides | None:
    """The strides of a 1x1 unpadded dnn.conv2d reading the value as its source, else None."""
    conv = use.operation
    if not isinstance(conv, Conv2DOp) or use.index != 0:
        return None
    if shape_of(conv.wei)[2:] != (1, 1) or any(ints(conv.pads_begin) + ints(conv.pads_end)):
        return None
    height, width = ints(conv.strides)
    return height, width


def _common_strides(value: SSAValue) -> Strides | None:
    """The strides (not all 1) every reader of `value` reads it with (_reader_strides)."""
    found = {_reader_strides(use) for use in value.uses}
    if len(found) != 1:
        return None
    strides = found.pop()
    return strides if strides is not None and strides != (1, 1) else None


def _is_static_image(value: SSAValue) -> bool:
    shape = shape_of(value)
    return len(shape) == 4 and positive_sizes(shape)


def _is_pointwise_1x1(conv: Conv2DOp) -> bool:
    """A 1x1 convolution without padding or stride: pixel (y, x) of the result reads pixel
    (y, x) of the source only."""
    return (
        shape_of(conv.wei)[2:] == (1, 1)
        and not any(ints(conv.pads_begin) + ints(conv.pads_end))
        and ints(conv.strides) == [1, 1]
    )


@dataclass
class _AtStride:
    """Builds the ops that compute values at `strides` (module docstring), each inserted
    before the op it stands for; `replaced` lists those ops, producers before readers."""

    rewriter: PatternRewriter
    strides: Strides
    replaced: list[Operation] = field(default_factory=list)

    def subsampled(self, value: SSAValue) -> TensorType:
        """`value`'s type at the strides: every s-th row and column, the first included
        (rounded up in integer arithmetic: a traced size stays an expression of the input
        sizes, dnnc.core.symbols)."""
        type_ = tensor_type(value)
        n, c, h, w = type_.get_shape()
        sh, sw = self.strides
        return TensorType(type_.get_element_type(), [n, c, (h + sh - 1) // sh, (w + sw - 1) // sw])

    def operand(self, value: SSAValue, reader: Operation) -> SSAValue:
        """`value` (read by `reader`) at the strides: computed so, or copied."""
        producer = value.owner
        if (
            isinstance(producer, Operation)
            and value.has_one_use()
            and _pixelwise(producer) is not None
        ):
            return self.computed(producer)
        pool = PoolOp(
            PoolKind.AVG_EXCLUDE_PAD,
            value,
            kernel=(1, 1),
            strides=self.strides,
            result_type=self.subsampled(value),
        )
        pool.location = reader.location
        self.rewriter.insert_op(pool, InsertPoint.before(reader))
        return pool.result

    def computed(self, op: Operation) -> SSAValue:
        """The result of `op` (one _pixelwise accepts) at the strides."""
        pixelwise = _pixelwise(op)
        assert pixelwise is not None
        operands = list(op.operands)
        strides: tuple[int, int] | None = None
        if isinstance(op, Conv2DOp):
            producer = op.src.owner
            if (
                _is_pointwise_1x1(op)
                and op.src.has_one_use()
                and isinstance(producer, Operation)
                and _pixelwise(producer) is not None
            ):
                operands[0] = self.computed(producer)
            else:
                height, width = ints(op.strides)
                strides = (height * self.strides[0], width * self.strides[1])
        full = shape_of(op.results[0])
        for index in pixelwise:
            if shape_of(operands[index]) == full:
                operands[index] = self.operand(operands[index], op)
        subsampled = self.subsampled(op.results[0])
        if isinstance(op, Conv2DOp):
            first = op.first_post_arg
            new: Operation = op.rebuilt(
                operands[0],
                op.wei,
                op.bias,
                post_ops=op.post_op_chain,
                post_args=operands[first:],
                strides=strides,
                result_type=subsampled,
            )
            stand_in(new, op)
        else:
            new = retyped_op(op, operands, subsampled)
        self.rewriter.insert_op(new, InsertPoint.before(op))
        self.replaced.append(op)
        return new.results[0]


def _pixelwise(op: Operation) -> list[int] | None:
    """The indices of the operands `op` reads at each result pixel's own position (an eltwise
    or binary op's sources, the post-op arguments of a convolution or binary op), when the
    rule handles `op`: a dnn.conv2d, dnn.eltwise or dnn.binary whose such operands each have
    the result's shape or are one pixel wide (broadcast to every pixel); None otherwise."""
    if isinstance(op, EltwiseOp):
        return [0]
    if isinstance(op, Conv2DOp):
        indices = list(range(op.first_post_arg, len(op.operands)))
    elif isinstance(op, BinaryOp):
        indices = list(range(len(op.operands)))
    else:
        return None
    full = shape_of(op.results[0])
    for index in indices:
        shape = shape_of(op.operands[index])
        if not same_shape(shape, full) and any(d != 1 for d in shape[-2:]):
            return None  # broadcast along rows or columns: its pixels are not the result's
    return indices


class HoistStridesOfReaders(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if _pixelwise(op) is None or len(op.results) != 1 or not _is_static_image(op.results[0]):
            return
        value = op.results[0]
        strides = _common_strides(value)
        if strides is None:
            return
        build = _AtStride(rewriter, strides)
        computed = build.computed(op)
        for use in list(value.uses):
            reader = use.operation
            assert isinstance(reader, Conv2DOp)  # _common_strides
            unstrided = reader.rebuilt(
                computed,
                reader.wei,
                reader.bias,
                post_ops=reader.post_op_chain,
                post_args=reader.post_args,
                strides=(1, 1),
            )
            rewriter.replace(reader, stand_in(unstrided, reader))
        for old in reversed(build.replaced):  # readers first: each is unused once they are gone
            rewriter.erase_op(old)


class HoistStridesPass(ModulePass):
    """Compute values at the strides of the 1x1 convolutions reading them (module
    docstring)."""

    name = "dnn-hoist-strides"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(HoistStridesOfReaders(), apply_recursively=False).rewrite_module(op)
