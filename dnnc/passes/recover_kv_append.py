"""dnn-recover-kv-append: a KV cache's concat with one step's keys or values is a dnn.kv_append.

Rule: func.func @f(..., %past: tensor<...>, ...) {
        %r = dnn.concat %past, %new {axis = a}     [%past read only here, %r returned]
        func.return ..., %r, ...
      ==> %r = dnn.kv_append %past, %new {axis = a}
The values do not change; the op says that %past is state the caller hands back as the
result grows it. Its lowering (a kv_append step, dnnc.runtime.plan.AppendStep) writes the
result's argument directly, so a caller may bind that output over the past (the past the
present's leading slots, ONNX Runtime's shared past/present buffer): the step then writes
only %new's slots, and every reader of %r reads the cache where it lives. Called plainly,
the step copies the past and %new into the output: the model's outputs stay exactly what
it declares.

Not rewritten (remark "not a cache append: <why>" on the concat) when the concat does not
have exactly two inputs (a cache grows by one step at a time), its first input is not an
argument of the function (not a cache the caller owns; a past given second would prepend),
the past has another reader (it must stay readable apart from the output it is bound
over), or its result is not returned by the function (nothing hands the grown cache back).

Pre:  the IR verifies.   Post: every concat matching the rule is a dnn.kv_append.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import BlockArgument
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from dnnc.core.diagnostics import remark
from dnnc.dialects.dnn import ConcatOp, KvAppendOp


def _refusal(op: ConcatOp) -> str | None:
    """Why ``op`` is not a cache append (module docstring), or None."""
    if len(op.inputs) != 2:
        return f"{len(op.inputs)} inputs, not a cache and one step"
    past = op.inputs[0]
    if not isinstance(past, BlockArgument) or not isinstance(past.owner.parent_op(), func.FuncOp):
        return "the first input is not an argument of the function"
    if not past.has_one_use():
        return "the past has another reader"
    if not any(isinstance(use.operation, func.ReturnOp) for use in op.result.uses):
        return "the result is not returned"
    return None


class RecoverKvAppend(RewritePattern):
    """The rule of the module docstring."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ConcatOp, rewriter: PatternRewriter, /) -> None:
        refusal = _refusal(op)
        if refusal is not None:
            remark(op, f"not a cache append: {refusal}")
            return
        append = KvAppendOp.build(
            operands=[op.inputs[0], op.inputs[1]],
            result_types=[op.result.type],
            properties={"axis": op.axis},
        )
        append.location = op.location
        rewriter.replace(op, append)
        remark(append, "cache append")


@dataclass(frozen=True)
class RecoverKvAppendPass(ModulePass):
    """dnn-recover-kv-append (module docstring)."""

    name = "dnn-recover-kv-append"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(RecoverKvAppend(), apply_recursively=False).rewrite_module(op)
