"""dnn-canonicalize: local rewrites that bring data movement and scales into one form.

Exporters spell them several ways; in one form the transposes of attention meet their matmuls
(dnn-transpose-as-view) and scales meet the matmul's post-ops (dnn-fuse-post-ops).

Rules:
  ComposeTransposes        transpose(transpose(%x, p), q)  ==> transpose(%x, [p[i] for i in q])
      (nothing when that is the identity)
  TransposeOfUnitDims      transpose(%x, p)  ==> reshape(%x)
      when p moves only dims of size 1 (the row-major elements stay in order: a view)
  ReshapeBeforeTranspose   reshape(transpose(%x, p))  ==> transpose(reshape(%x), p')
      when the reshape only inserts or drops dims of size 1 (shapes.transpose_before_reshape)
      and is the transpose's only reader, so that a transpose on either side can compose
  ComposeReshapes          reshape(reshape(%x))  ==> reshape(%x)
  ScalarsAfterMatmul       matmul(mul(%a, %s), mul(%b, %t))  ==> mul(mul(matmul(%a, %b), %s), %t)
      when %s and %t hold one element (every dim 1, rank at most the matmul's) and each mul
      is read by the matmul only, which has no bias and no post-op yet: a scalar factor of
      either operand is one of the product (PyTorch's attention scales q and k by
      d^-1/4 each); fusion then makes both muls post-ops.
All shapes static for the reshape rules (the dynamic ones stay as they are).

Pre:  the IR verifies; plain layouts (it runs before dnn-assign-layouts).
Post: no rule applies; the IR verifies; results are unchanged up to float rounding (the scale
      rule multiplies in another order).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from dnnc.core import shapes
from dnnc.core.kinds import BinaryAlg
from dnnc.dialects.dnn import BinaryOp, MatmulOp, ReshapeOp, TransposeOp, shape_of
from dnnc.dialects.dnn.base import ints, tensor_type


def _is_identity(permutation: Sequence[int]) -> bool:
    return list(permutation) == list(range(len(permutation)))


def _replace(rewriter: PatternRewriter, op: Operation, ops: list[Operation]) -> None:
    """Replace `op` by `ops` (the last one's result replaces op's), keeping op's name; each
    new op takes op's location (an error or a profile line then names the source op)."""
    hint = op.results[0].name_hint
    for new in ops:
        new.location = op.location
    rewriter.replace(op, ops, [ops[-1].results[0]])
    for new in ops[:-1]:
        new.results[0].name_hint = None
    ops[-1].results[0].name_hint = hint


class ComposeTransposes(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TransposeOp, rewriter: PatternRewriter, /) -> None:
        inner = op.src.owner
        if not isinstance(inner, TransposeOp):
            return
        first = ints(inner.permutation)
        composed = [first[i] for i in ints(op.permutation)]
        if _is_identity(composed):
            rewriter.replace(op, [], [inner.src])
            return
        moved = TransposeOp(inner.src, permutation=composed, result_type=tensor_type(op.result))
        _replace(rewriter, op, [moved])


class TransposeOfUnitDims(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TransposeOp, rewriter: PatternRewriter, /) -> None:
        if shapes.moves_only_unit_dims(shape_of(op.src), ints(op.permutation)):
            _replace(rewriter, op, [ReshapeOp(op.src, shape_of(op.result))])


class ReshapeBeforeTranspose(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ReshapeOp, rewriter: PatternRewriter, /) -> None:
        inner = op.src.owner
        if not isinstance(inner, TransposeOp) or not op.src.has_one_use():
            return  # another reader keeps the transpose: a second one would move data twice
        found = shapes.transpose_before_reshape(
            shape_of(inner.src), ints(inner.permutation), shape_of(op.result)
        )
        if found is None:
            return
        first, permutation = found
        reshaped = ReshapeOp(inner.src, first)
        moved = TransposeOp(
            reshaped.result, permutation=permutation, result_type=tensor_type(op.result)
        )
        _replace(rewriter, op, [reshaped, moved])


class ComposeReshapes(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ReshapeOp, rewriter: PatternRewriter, /) -> None:
        inner = op.src.owner
        if isinstance(inner, ReshapeOp):
            _replace(rewriter, op, [ReshapeOp(inner.src, shape_of(op.result))])


def _scaled(value: SSAValue, reader: MatmulOp) -> tuple[SSAValue, SSAValue] | None:
    """(the unscaled operand, the one-element factor) when `value` is mul(x, s) or mul(s, x)
    read by `reader` only (ScalarsAfterMatmul); None otherwise."""
    mul = value.owner
    if not isinstance(mul, BinaryOp) or mul.alg.data != BinaryAlg.MUL or mul.post_ops.data:
        return None
    if not value.has_one_use():
        return None
    rank = len(shape_of(reader.result))
    for x, s in ((mul.lhs, mul.rhs), (mul.rhs, mul.lhs)):
        factor = shape_of(s)
        if all(d == 1 for d in factor) and len(factor) <= rank and shape_of(x) == shape_of(value):
            return x, s
    return None


class ScalarsAfterMatmul(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MatmulOp, rewriter: PatternRewriter, /) -> None:
        if op.bias is not None or op.post_args or op.post_ops.data:
            return
        operands, factors = [op.lhs, op.rhs], []
        for index in range(2):
            found = _scaled(operands[index], op)
            if found is not None:
                operands[index], factor = found
                factors.append(factor)
        if not factors:
            return
        result_type = tensor_type(op.result)
        ops: list[Operation] = [MatmulOp(*operands, result_type=result_type)]
        for factor in factors:
            ops.append(BinaryOp(BinaryAlg.MUL, ops[-1].results[0], factor, result_type=result_type))
        _replace(rewriter, op, ops)


class CanonicalizePass(ModulePass):
    """Local rewrites of data movement and scales (module docstring)."""

    name = "dnn-canonicalize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        patterns = [
            ComposeTransposes(),
            TransposeOfUnitDims(),
            ReshapeBeforeTranspose(),
            ComposeReshapes(),
            ScalarsAfterMatmul(),
        ]
        PatternRewriteWalker(GreedyRewritePatternApplier(patterns)).rewrite_module(op)
