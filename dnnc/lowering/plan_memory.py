"""dnn-plan-memory: give every computed tensor a place in one arena, reusing dead buffers.

Rule: per func.func of dnn ops, schedule = program order. Values are grouped into alias
      classes (dnnc.passes.buffer_classes: reshape views, honoured `dnn.inplace` requests).
      A computed class that is not written into a caller's output array is one buffer of its
      root's physical size (padded blocked dims x itemsize), live from its first definition
      to the last read of any member; dnnc.core.arena.plan_arena places them (64-byte
      aligned) so that buffers live at the same time never share a byte.
      ==> op attribute `dnn.arena_offsets = array<i64: ...>` (per result; -1: not in the
      arena: an argument, constant storage or a caller's output array), function attributes
      `dnn.arena_bytes` and `dnn.lower_bound_bytes`, and a remark per function:
      "planned 8192 bytes, lower bound 8192 (+0.0%)".
A view (an input of an implicit concat, an implicit slice) gets its class's offset plus its
own byte offset in the class's buffer.
Refused `dnn.inplace` entries (caller-owned or constant operand, operand read later, an
operand sharing the buffer, types that differ, a sum post-op on another operand, the rhs of a
binary that cannot swap its operands) are rewritten
to -1, refused `dnn.implicit_concat` / `dnn.implicit_slice` attributes dropped, each with a
remark, so that the plan and the IR agree and later passes honour what remains as it stands.
Pre:  the IR verifies; tensor types are static.
Post: the IR is unchanged apart from those attributes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i64
from xdsl.ir import OpResult
from xdsl.passes import ModulePass

from dnnc.core.arena import ArenaPlan, Lifetime, plan_arena
from dnnc.core.diagnostics import remark
from dnnc.dialects.dnn.base import i64_array
from dnnc.ir.decisions import (
    ARENA_BYTES,
    ARENA_OFFSETS,
    INPLACE,
    LOWER_BOUND_BYTES,
    inplace_requests,
)
from dnnc.passes.buffer_classes import (
    BufferClass,
    BufferClasses,
    Owner,
    buffer_classes,
    memory_type,
)
from dnnc.passes.functions import dnn_functions


def in_arena(buffer: BufferClass) -> bool:
    """Computed classes not written into a caller's output array live in the arena."""
    return buffer.owner is Owner.COMPUTED and buffer.output is None


def _lifetime(buffer: BufferClass) -> Lifetime:
    """The arena buffer of a computed class (rooted at an op result): its root's bytes."""
    root = cast(OpResult, buffer.root)
    return Lifetime(id(buffer), memory_type(root.op, root).nbytes, buffer.start, buffer.end)


def _reject_refused(classes: BufferClasses) -> None:
    """Rewrite refused in-place entries to -1, drop refused implicit concats and slices, and
    say why."""
    for refusal in classes.refusals:
        if refusal.attribute != INPLACE:
            del refusal.op.attributes[refusal.attribute]
            remark(refusal.op, f"not fused into its buffer: {refusal.reason}")
            continue
        entries = inplace_requests(refusal.op)
        entries[refusal.result] = -1
        refusal.op.attributes[INPLACE] = i64_array(*entries)
        remark(refusal.op, f"result {refusal.result} not in place: {refusal.reason}")


def plan_function(function: func.FuncOp) -> ArenaPlan:
    """Plan one function and write the plan as attributes (see the module docstring)."""
    classes = buffer_classes(function)
    _reject_refused(classes)
    arena = [c for c in classes.distinct() if in_arena(c)]
    plan = plan_arena([_lifetime(c) for c in arena])
    for op in classes.schedule:
        if op.results:
            offsets = [
                plan.offsets[id(classes.of[r])] + classes.of[r].views.get(r, 0)
                if in_arena(classes.of[r])
                else -1
                for r in op.results
            ]
            op.attributes[ARENA_OFFSETS] = i64_array(*offsets)
    function.attributes[ARENA_BYTES] = IntegerAttr(plan.peak_bytes, i64)
    function.attributes[LOWER_BOUND_BYTES] = IntegerAttr(plan.lower_bound_bytes, i64)
    excess = plan.peak_bytes / plan.lower_bound_bytes - 1 if plan.lower_bound_bytes else 0.0
    remark(
        function,
        f"planned {plan.peak_bytes} bytes, lower bound {plan.lower_bound_bytes} (+{excess:.1%})",
    )
    return plan


@dataclass(frozen=True)
class PlanMemoryPass(ModulePass):
    """Plan the arena of every function that holds dnn ops."""

    name = "dnn-plan-memory"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in dnn_functions(op):
            plan_function(function)
