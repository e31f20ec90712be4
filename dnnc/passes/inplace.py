"""dnn-inplace: a result takes the buffer of an operand whose value nobody reads afterwards.

An analysis of SSA values in program order, recorded as the attribute the memory planner
honours; nothing is renamed, moved or scheduled. Rules (one decision per op, remark says which):
  OverwriteOperand
    %y = <op> %x ...  ==> %y = <op> %x ... {dnn.inplace = array<i64: k>}   (%x operand k)
    for the ops whose oneDNN 3.2 primitive runs with dst == src: eltwise, softmax, log_softmax,
    batch_norm, layer_norm (src), binary (src_0; either operand of a commutative algorithm
    with both operands of the result's shape, the lowering then swaps them). Never sum: oneDNN
    runs it in place only through an extra buffer (PaddlePaddle leaves it out for that reason).
  AccumulateResidual
    %y = <anchor> ... post_args(..., %r, ...) {post_ops = [E..., #dnn.binary<add>, ...]}
    ==> the same with #dnn.sum<1.0> for that add and dnn.inplace = the index of %r
    for conv2d, deconv2d, matmul, inner_product: oneDNN's sum post-op adds what dst holds before the
    primitive, so with dst in %r's buffer it computes d + %r exactly as the binary add did.
    Only the first add of the chain, of %r typed exactly as %y, with no sum yet and only
    eltwise post-ops before it (d = eltwise(conv) + r either way; oneDNN's optimized
    convolutions take a sum first or after eltwise post-ops).
A candidate operand %x is taken when (dnnc.passes.buffer_classes.ClassBuilder
.inplace_refusal, which the planner checks again): %x's buffer class (%x with its reshape views,
values in place over it, implicit concat parts) is computed, not a caller's argument or
constant storage; %x has the result's type (shape, element type, layout); no op after this one
reads any member of the class (func.return included); no other operand of the op shares the
buffer. Decisions are made in program order on the classes formed so far, so chains
(relu -> softmax -> add -> tanh) share one buffer, and a later decision sees earlier ones.
Options: `annotate_only` writes `dnn.inplace_candidate = array<i64: k or -1>` on every
candidate op instead (no post-op rewritten, the planner unaffected), analysing exactly as if
the decisions were made.
Pre:  the IR verifies; tensor types static where a decision is made (the planner needs them).
Post: every `dnn.inplace` entry written is honoured by dnn-plan-memory; a remark per
      candidate says "in place over ..." or "not in place: <why>".
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from dnnc.core.diagnostics import remark
from dnnc.core.kinds import BinaryAlg, SumPostOp, takes_argument
from dnnc.core.shapes import same_shape
from dnnc.dialects.dnn import (
    BatchNormOp,
    BinaryOp,
    BinaryPostOpAttr,
    EltwiseOp,
    EltwisePostOpAttr,
    LayerNormOp,
    LogSoftmaxOp,
    SoftmaxOp,
    SumOp,
    SumPostOpAttr,
)
from dnnc.dialects.dnn.base import PostOpAnchor, i64_array, shape_of
from dnnc.ir.decisions import INPLACE
from dnnc.passes.buffer_classes import (
    ClassBuilder,
    describe,
)
from dnnc.passes.functions import dnn_functions
from dnnc.target.kernel_calls import kernel_call
from dnnc.target.post_op_rules import COMMUTATIVE, accumulates

INPLACE_CANDIDATE = "dnn.inplace_candidate"
"""What annotate_only writes: the operand the result would take the buffer of, or -1."""

_OVERWRITE_SRC = (EltwiseOp, SoftmaxOp, LogSoftmaxOp, BatchNormOp, LayerNormOp)
"""oneDNN 3.2 documents these forward primitives as supporting dst == src."""


def overwritable_operands(op: Operation) -> tuple[list[int], str | None]:
    """The operands oneDNN may overwrite with the result of `op`, or why none (None: `op`
    is no candidate at all, nothing to remark)."""
    if isinstance(op, _OVERWRITE_SRC):
        return [0], None
    if isinstance(op, SumOp):
        return [], "oneDNN's sum primitive runs in place only through an extra buffer"
    if not isinstance(op, BinaryOp):
        return [], None
    if op.sum_post_args():
        return [], "its sum post-op already accumulates into the destination"
    call = kernel_call(op)
    if call.reference:
        return [], "it runs the reference kernel (oneDNN cannot broadcast its lhs)"
    if op.alg.data in COMMUTATIVE and same_shape(shape_of(op.lhs), shape_of(op.rhs)):
        return [0, 1], None
    return [0 if dict(call.ins)["src_0"] == "lhs" else 1], None  # oneDNN: dst == src_0 only


def residual_add(op: PostOpAnchor) -> tuple[int, int] | None:
    """The post-op index and operand index of the binary add a sum post-op may replace."""
    first_post_arg = op.first_post_arg
    argument = 0
    for index, attr in enumerate(op.post_ops.data):
        if isinstance(attr, SumPostOpAttr):
            return None  # oneDNN takes one sum post-op per primitive
        if isinstance(attr, BinaryPostOpAttr) and attr.alg.data is BinaryAlg.ADD:
            arg = op.operands[first_post_arg + argument]
            if arg.type != op.result.type:
                return None  # a broadcast operand: sum needs exactly dst's type
            return index, first_post_arg + argument
        if not isinstance(attr, EltwisePostOpAttr):
            return None  # after another binary post-op: keep the fast oneDNN kernels
        argument += takes_argument(attr.post_op)
    return None


@dataclass(frozen=True)
class _Decide:
    """Decisions for one function, in program order, on the builder's classes."""

    builder: ClassBuilder
    annotate_only: bool

    def visit(self, op: Operation) -> None:
        if INPLACE in op.attributes or len(op.results) != 1:
            self.builder.add(op)  # decided already (by hand or an earlier run), or multi-result
            return
        if isinstance(op, PostOpAnchor) and accumulates(op) and not op.sum_post_args():
            chosen = self._accumulate_residual(op)
        else:
            chosen = self._overwrite_operand(op)
        self.builder.add(op, [chosen])

    def _overwrite_operand(self, op: Operation) -> int:
        candidates, why_not = overwritable_operands(op)
        if isinstance(op, PostOpAnchor) and accumulates(op):  # a sum post-op's argument is dst
            candidates = [op.first_post_arg + i for i in op.sum_post_args()]
        if not candidates:
            if why_not is not None:
                remark(op, f"not in place: {why_not}")
            return -1
        reasons = []
        for operand in candidates:
            reason = self.builder.inplace_refusal(op, 0, operand)
            if reason is None:
                self._record(op, operand)
                remark(op, f"in place over operand {operand} ({describe(op.operands[operand])})")
                return operand
            reasons.append(reason)
        self._record(op, -1)
        remark(op, f"not in place: {'; '.join(reasons)}")
        return -1

    def _accumulate_residual(self, op: PostOpAnchor) -> int:
        site = residual_add(op)
        if site is None:
            return -1
        index, operand = site
        residual = describe(op.operands[operand])
        reason = self.builder.inplace_refusal(op, 0, operand)
        if reason is not None:
            self._record(op, -1)
            remark(op, f"residual add of {residual} kept as a binary post-op: {reason}")
            return -1
        if not self.annotate_only:
            post_ops = list(op.post_ops.data)
            post_ops[index] = SumPostOpAttr(SumPostOp(1.0))
            op.post_ops = ArrayAttr(post_ops)
        self._record(op, operand)
        remark(op, f"residual add of {residual} becomes #dnn.sum<1.0>, accumulating in place")
        return operand

    def _record(self, op: Operation, operand: int) -> None:
        if self.annotate_only:
            op.attributes[INPLACE_CANDIDATE] = i64_array(operand)
        elif operand >= 0:
            op.attributes[INPLACE] = i64_array(operand)


@dataclass(frozen=True)
class InplacePass(ModulePass):
    """Decide in-place execution for every function of dnn ops (see the module docstring)."""

    name = "dnn-inplace"

    annotate_only: bool = False
    """Only write `dnn.inplace_candidate` on each candidate op (analysis for tests; no rewrite)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in dnn_functions(op):
            decide = _Decide(ClassBuilder(function), self.annotate_only)
            for inner in decide.builder.ops:
                decide.visit(inner)
