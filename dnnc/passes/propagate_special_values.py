"""dnn-propagate-special-values: keep NaN and infinities where a oneDNN kernel would drop them.

They are then computed as ONNX Runtime does; dnnc.target.special_values says which kernels
drop them and how.

Rules:
  RelaxReluToElu
    %y = dnn.eltwise relu %x (slope 0)  ==>  %y = dnn.eltwise elu %x {alpha = 0.0}
    elu with alpha 0 is x > 0 ? x : 0 * (exp(x) - 1): relu's values (-0.0 where relu gives 0)
    with NaN kept, and oneDNN still fuses it into its producer as a post-op.
  PinToReference
    %y = dnn.<op> ...  ==>  the same with dnn.kernel = #dnn.kernel<reference, T>
    for an op whose oneDNN kernel differs on special values (eltwise clip, relu6, hardsigmoid,
    exp, log, gelu, swish; binary max and min; max pooling; softmax, log_softmax, lrn); T
    is its data type. The numpy kernel
    follows ONNX; dnn-fuse-post-ops fuses no pinned op and dnn-select-kernels keeps the pin.

What it costs: the pinned ops run numpy kernels, about an order of magnitude slower than
oneDNN's (what a model spends in softmax and clip, mostly); relu as elu is a few percent on a
CNN (ResNet-50: 5%). dnnc.compile's default pipeline leaves it out; an executable refuses
instead an input holding a special value that can reach a kernel dropping it
(dnn-guard-special-values decides which, dnnc.runtime.executor refuses), naming this pass.

Pre:  the IR verifies; no post-ops fused yet (a remark names a fused post-op that drops special
      values: the pass does not split it back out).
Post: every dnn.eltwise relu with slope 0 is an elu, every other op of the rules is pinned;
      the module carries the unit attribute ``dnn.propagate_special_values``, which the
      recovering rewrites that would bring in a masking kernel (dnn-recover-gelu,
      dnn-recover-swish) read as "leave the ops as they are".
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, UnitAttr
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from dnnc.core.diagnostics import remark
from dnnc.core.kinds import EltwiseAlg
from dnnc.dialects.dnn import DnnOp, EltwiseOp, KernelAttr, KernelLibrary
from dnnc.dialects.dnn.base import stand_in, tensor_type
from dnnc.dialects.types import data_type_of
from dnnc.ir.decisions import PROPAGATE_SPECIAL_VALUES
from dnnc.ir.values import attribute_value
from dnnc.target.kernel_calls import KERNEL, kernel_call, params_of, pinned_to_reference
from dnnc.target.special_values import kernel_masks, post_op_masks


def _relu_slope_zero(op: EltwiseOp) -> bool:
    return op.alg.data in (EltwiseAlg.RELU, EltwiseAlg.LEAKY_RELU) and op.alpha.value.data == 0.0


class RelaxReluToElu(RewritePattern):
    """dnn.eltwise relu (slope 0) ==> dnn.eltwise elu {alpha = 0.0} (module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: EltwiseOp, rewriter: PatternRewriter, /) -> None:
        if not _relu_slope_zero(op) or pinned_to_reference(op):
            return
        elu = EltwiseOp(EltwiseAlg.ELU, op.src, alpha=0.0, beta=op.beta.value.data)
        rewriter.replace(op, stand_in(elu, op))


class PinToReference(RewritePattern):
    """An op whose oneDNN kernel drops special values runs its reference kernel."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, DnnOp) or pinned_to_reference(op) or kernel_call(op).reference:
            return  # not a dnn op, pinned already, or a numpy kernel anyway
        if isinstance(op, EltwiseOp) and _relu_slope_zero(op):
            return  # RelaxReluToElu's case
        call = kernel_call(op)
        params = {name: attribute_value(a) for name, a in params_of(op, call).items()}
        masking = kernel_masks(call.kind, params)
        if masking is None:
            for fused in post_op_masks(params.get("post_ops", ()))[:1]:
                remark(op, f"keeps a fused post-op that drops special values: {fused.how}")
            return
        data_type = data_type_of(tensor_type(op.operands[0]).get_element_type())
        op.attributes[KERNEL] = KernelAttr(KernelLibrary.REFERENCE, data_type)
        remark(op, f"runs its reference kernel: oneDNN's differs on special values, {masking.how}")
        rewriter.notify_op_modified(op)


@dataclass(frozen=True)
class PropagateSpecialValuesPass(ModulePass):
    """Compute NaN and infinities as ONNX Runtime does (module docstring)."""

    name = "dnn-propagate-special-values"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        op.attributes[PROPAGATE_SPECIAL_VALUES] = UnitAttr()
        patterns = GreedyRewritePatternApplier([RelaxReluToElu(), PinToReference()])
        PatternRewriteWalker(patterns, apply_recursively=False).rewrite_module(op)
