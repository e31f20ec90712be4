"""dnn-share-dynamic-quantize: one dynamic quantization per quantized value.

Rule: %q1, %s1, %z1 = dnn.dynamic_quantize %a
      ...
      %q2, %s2, %z2 = dnn.dynamic_quantize %b      [in the same block, after the first]
      ==> the second's results are the first's
      when %a and %b are one value, or reshapes of one value to one type (reshapes of a
      reshape are composed by dnn-canonicalize, which runs before). ONNX Runtime's
      quantize_dynamic writes one DynamicQuantizeLinear per MatMulInteger, so attention's q,
      k and v projections each quantize the same hidden states: 6 dynamic quantizations per
      BERT layer where 4 do. Exact: equal inputs give equal integers, scale and zero point
      (the op is a function of its input alone). A reshape left unread goes too.

Not shared: quantizations of other values, or of one value in other shapes (its integers
would need a reshape), or in another block. Silent: no remark (there is nothing to refuse).

Pre:  the IR verifies.
Post: no two dynamic quantizations of a block read one value in one shape.
"""

from __future__ import annotations

from dataclasses import dataclass

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

from dnnc.dialects.dnn import DynamicQuantizeOp, ReshapeOp


def _unreshaped(value: SSAValue) -> SSAValue:
    """The value a reshape reads if ``value`` is a reshape's result, else ``value``."""
    owner = value.owner
    return owner.src if isinstance(owner, ReshapeOp) else value


def _views(value: SSAValue) -> list[SSAValue]:
    """``value`` and every reshape of it."""
    reshapes = [u.operation for u in value.uses if isinstance(u.operation, ReshapeOp)]
    return [value, *(r.result for r in reshapes)]


class ShareDynamicQuantize(RewritePattern):
    """The rule (module docstring): ``op`` takes the results of an earlier quantization of
    its input."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: DynamicQuantizeOp, rewriter: PatternRewriter, /) -> None:
        block = op.parent_block()
        for view in _views(_unreshaped(op.src)):
            if view.type != op.src.type:
                continue  # another shape: its integers are laid out otherwise
            for use in view.uses:
                first = use.operation
                if not isinstance(first, DynamicQuantizeOp) or first is op:
                    continue
                if first.parent_block() is not block or not first.is_before_in_block(op):
                    continue  # the earliest of a block stays: its results dominate the others'
                reshape = op.src.owner
                rewriter.replace(op, [], list(first.results))
                if isinstance(reshape, ReshapeOp) and not reshape.result.uses:
                    rewriter.erase(reshape)
                return


@dataclass(frozen=True)
class ShareDynamicQuantizePass(ModulePass):
    """dnn-share-dynamic-quantize (module docstring)."""

    name = "dnn-share-dynamic-quantize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(ShareDynamicQuantize(), apply_recursively=False).rewrite_module(op)
