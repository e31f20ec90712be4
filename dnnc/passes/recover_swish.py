"""dnn-recover-swish: x * sigmoid(x), as exporters write SiLU, becomes one dnn.eltwise swish.

Rule: %s = dnn.eltwise sigmoid %x;  %y = dnn.binary mul %x, %s   (either operand order)
      ==> %y = dnn.eltwise swish %x {alpha = 1.0}
torch's SiLU (EfficientNet, MobileNetV3's decoder, YOLO, LLaMA's MLP) exports as ONNX
Sigmoid + Mul: two kernels and a tensor written and read in between. oneDNN's swish is one
kernel, which dnn-fuse-post-ops then fuses into the convolution or matmul producing x.

Not recovered (remark "not recovered: <why>" on the sigmoid) when the sigmoid has another
use (it would still be computed), the mul has post-ops, or the mul's result type is not x's
(a broadcast). Special values: oneDNN's swish gives NaN for +inf where x * sigmoid(x) gives
+inf (dnnc.target.special_values); an executable holding it refuses inputs with infinities,
and none is recovered in a module that dnn-propagate-special-values marked.

Pre:  the IR verifies.   Post: no matching sigmoid-mul pair is left; every sigmoid read by a
      mul of its own input got a remark.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from dnnc.core.diagnostics import remark
from dnnc.core.kinds import BinaryAlg, EltwiseAlg
from dnnc.dialects.dnn import BinaryOp, EltwiseOp
from dnnc.passes.matching import (
    NoMatch,
    binary_user,
    need,
    other_operand,
    recover_unless_propagating,
)


class RecoverSwish(RewritePattern):
    """The rule of the module docstring, anchored on the sigmoid."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: EltwiseOp, rewriter: PatternRewriter, /) -> None:
        if op.alg.data != EltwiseAlg.SIGMOID:
            return
        users = {use.operation for use in op.result.uses}
        if not any(isinstance(u, BinaryOp) and op.src in u.operands for u in users):
            return  # not x * sigmoid(x): nothing to say
        try:
            need(op.result.has_one_use(), "the sigmoid has another use")
            mul = binary_user(op.result, "the sigmoid", BinaryAlg.MUL)
            need(other_operand(mul, op.result) is op.src, "the mul does not take x")
            need(mul.result.type == op.src.type, f"the result type {mul.result.type} is not x's")
        except NoMatch as refusal:
            remark(op, f"not recovered: {refusal}")
            return
        swish = EltwiseOp(EltwiseAlg.SWISH, op.src, alpha=1.0)
        rewriter.replace(mul, swish)
        rewriter.erase(op)
        remark(swish, "recovered swish")


@dataclass(frozen=True)
class RecoverSwishPass(ModulePass):
    """dnn-recover-swish (module docstring)."""

    name = "dnn-recover-swish"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        recover_unless_propagating(op, RecoverSwish())
