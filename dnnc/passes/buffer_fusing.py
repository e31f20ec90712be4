"""dnn-buffer-fusing: implicit concat and implicit slice (OpenVINO's prepare_buffer_fusing).

Rules (what makes a part contiguous is dnnc.passes.regions; the safety conditions are
dnnc.passes.buffer_classes.ClassBuilder.concat_refusal / slice_refusal, which the planner
checks again):
  ImplicitConcat
    %c = dnn.concat %a, %b {axis}  ==>  %c = dnn.concat %a, %b {axis, dnn.implicit_concat =
    array<i64: 0, Ba>}: the producers of %a and %b write straight into their parts of %c's
    buffer (at those byte offsets) and the concat runs nothing. Taken when every input is a
    contiguous part of the result laid out like the input (plain: every dimension before the
    axis is 1; blocked on the axis: offsets and sizes whole blocks, a partial last block
    allowed), of the result's layout, and its buffer class is computed (not a caller's argument
    or constant), whole (not a view, nor already part of another implicit concat) and not
    shared with another input (the same value concatenated twice).
  ImplicitSlice
    %s = dnn.slice %x {starts, ends}  ==>  ... {dnn.implicit_slice = B : i64}: %s is a view
    of %x's buffer at byte offset B, no copy. Taken when the steps are 1, the window is a
    contiguous part of %x laid out like %s, and %x's class is computed (the runtime binds a
    caller's array or a constant whole, never at an offset).
Readers of a part after the concat stay correct: the part's bytes are not written again
unless dnn-inplace decides so, and that decision counts every reader of the whole buffer.
A fused buffer lives from its first part's definition to its last reader (the price: parts
reserve their place early); one returned is copied to the caller's array.
Pre:  the IR verifies; static tensor types on concat and slice (others are left alone).
Post: every attribute written is honoured by dnn-plan-memory; each concat and unit-step slice
      got a remark: "implicit ..." or "not fused: <why>".
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, TensorType, i64
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from dnnc.core.diagnostics import remark
from dnnc.dialects.dnn import ConcatOp, SliceOp
from dnnc.dialects.dnn.base import i64_array
from dnnc.ir.decisions import IMPLICIT_CONCAT, IMPLICIT_SLICE
from dnnc.passes.buffer_classes import (
    ClassBuilder,
)
from dnnc.passes.functions import dnn_functions


def _static(op: Operation) -> bool:
    """Whether every tensor `op` touches has a static shape (byte offsets need one)."""
    values = [*op.operands, *op.results]
    return all(
        isinstance(v.type, TensorType) and all(d >= 0 for d in v.type.get_shape()) for v in values
    )


def _fuse_concat(op: ConcatOp, builder: ClassBuilder) -> None:
    offsets, reason = builder.concat_refusal(op)
    if reason is not None:
        remark(op, f"not fused: {reason}")
        return
    op.attributes[IMPLICIT_CONCAT] = i64_array(*offsets)
    remark(op, f"implicit concat: the inputs are written at byte offsets {offsets}")


def _fuse_slice(op: SliceOp, builder: ClassBuilder) -> None:
    offset, reason = builder.slice_refusal(op)
    if reason is not None:
        remark(op, f"not fused: {reason}")
        return
    op.attributes[IMPLICIT_SLICE] = IntegerAttr(offset, i64)
    remark(op, f"implicit slice: a view at byte offset {offset}")


@dataclass(frozen=True)
class BufferFusingPass(ModulePass):
    """Fuse concats and slices into views of one buffer (see the module docstring)."""

    name = "dnn-buffer-fusing"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in dnn_functions(op):
            builder = ClassBuilder(function)
            for inner in builder.ops:
                decided = IMPLICIT_CONCAT in inner.attributes or IMPLICIT_SLICE in inner.attributes
                if isinstance(inner, ConcatOp) and not decided and _static(inner):
                    _fuse_concat(inner, builder)
                elif isinstance(inner, SliceOp) and not decided and _static(inner):
                    _fuse_slice(inner, builder)
                builder.add(inner)
