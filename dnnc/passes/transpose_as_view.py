"""dnn-transpose-as-view: the transposes around a matmul become views of its operands.

The matmul reads or writes through permuted strides instead of moving data (attention's q/k/v
and output transposes).

Rules (p a permutation; L.transposed(p) the layout in which transpose(x, p) holds the bytes
of x in layout L, dnnc.core.layouts):
  ReadTransposedOperand   %t = dnn.transpose %x {p} : (tensor<S, Lx>) -> tensor<S', Lt>
                          %y = dnn.matmul %t, %w   (or %w, %t)
      ==> %t : tensor<S', Lx.transposed(p)>: a view of %x's bytes; the matmul reads them
      through permuted strides
      when Lx is unblocked, every reader of %t is a dnn.matmul reading it as lhs or rhs, and
      oneDNN runs each of them with %t in that layout no worse: the implementation it runs
      now, or one that is not a fallback (kernel_table.is_fallback).
  WriteTransposedResult   %m = dnn.matmul ... -> tensor<S, Lm>
                          %t = dnn.transpose %m {p} -> tensor<S', Lt>
      ==> %m : tensor<S, L> with L.transposed(p) = Lt: the matmul writes dst through permuted
      strides and %t is a view of it
      when Lt is unblocked, %t is the only reader of %m, the matmul has no post-op arguments
      (they would be read in dst's logical order) and oneDNN runs it with dst in L no worse.
Both need static shapes (oneDNN is asked). A transpose that is a view runs no kernel: the
lowering makes it an ``onednn.reshape`` of the same bytes and memory planning gives it its
source's buffer (runs_kernel, buffer_classes).

Pre:  layouts are in the tensor types (dnn-insert-data-transforms ran).
Post: no rule applies; the IR verifies; a remark per function counts the transposes that are
      views and the bytes they no longer move.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import DYNAMIC_INDEX, ModuleOp, NoneAttr
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import Rewriter

from dnnc.core.diagnostics import remark
from dnnc.core.layouts import Layout
from dnnc.core.shapes import inverse_permutation
from dnnc.dialects.dnn import LayoutAttr, MatmulOp, TransposeOp, layout_of
from dnnc.dialects.dnn.base import ints, tensor_type
from dnnc.dialects.types import data_type_of
from dnnc.passes.data_transforms import retyped
from dnnc.passes.functions import dnn_functions
from dnnc.target.kernel_table import Probe, is_fallback, roles_of

_OPERAND_ROLES = {0: "src", 1: "weights"}
"""The matmul operands that may be read through permuted strides: lhs and rhs."""


def _static(value: SSAValue) -> bool:
    return DYNAMIC_INDEX not in tensor_type(value).get_shape()


def _retype(value: SSAValue, layout: Layout) -> None:
    """Give `value` (and its readers) its type in `layout`, keeping its name."""
    encoding = NoneAttr() if layout.is_plain else LayoutAttr(layout)
    hint = value.name_hint
    new = Rewriter.replace_value_with_new_type(
        value, retyped(tensor_type(value), encoding=encoding)
    )
    new.name_hint = hint


def _runs_no_worse(probe: Probe, op: MatmulOp, changed: Mapping[str, Layout]) -> bool:
    """Whether oneDNN runs `op` with the roles in `changed` in those layouts (the others as
    they are) on its present implementation, or on one that is not a fallback."""
    current: dict[str, Layout | None] = {
        role: layout_of(tensor_type(op.operands[index])) for role, index in roles_of(op)
    }
    current["dst"] = layout_of(tensor_type(op.result))
    now = probe.implementation(op, current)
    then = probe.implementation(op, {**current, **changed})
    if then is None or then.startswith("ref"):
        return False
    return then == now or not is_fallback(then)


@dataclass
class ReadTransposedOperand(RewritePattern):
    probe: Probe

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TransposeOp, rewriter: PatternRewriter, /) -> None:
        view = op.view_layout(tensor_type(op.src))
        if view is None or op.is_view() or not _static(op.src) or not op.result.uses:
            return
        roles: dict[MatmulOp, dict[str, Layout]] = {}
        for use in op.result.uses:
            reader = use.operation
            if not isinstance(reader, MatmulOp) or use.index not in _OPERAND_ROLES:
                return  # a reader that is no matmul, or reads it as bias or post-op argument
            roles.setdefault(reader, {})[_OPERAND_ROLES[use.index]] = view
        if all(_runs_no_worse(self.probe, reader, changed) for reader, changed in roles.items()):
            _retype(op.result, view)
            rewriter.notify_op_modified(op)


@dataclass
class WriteTransposedResult(RewritePattern):
    probe: Probe

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TransposeOp, rewriter: PatternRewriter, /) -> None:
        producer = op.src.owner
        if not isinstance(producer, MatmulOp) or op.is_view() or producer.post_args:
            return
        if not op.src.has_one_use() or not _static(op.src):
            return  # another reader needs the matmul's result in its present layout
        wanted = layout_of(tensor_type(op.result))
        if wanted.is_blocked:
            return
        shape = tuple(tensor_type(op.src).get_shape())
        layout = wanted.transposed(inverse_permutation(ints(op.permutation))).units_outermost(shape)
        if not _runs_no_worse(self.probe, producer, {"dst": layout}):
            return
        _retype(op.src, layout)
        rewriter.notify_op_modified(op)


def _moved_by_transposes(function: func.FuncOp) -> tuple[int, int]:
    """(transposes that are views, bytes those views no longer move)."""
    views = [op for op in function.walk() if isinstance(op, TransposeOp) and op.is_view()]
    moved = 0
    for view in views:
        type_ = tensor_type(view.src)
        elements = layout_of(type_).num_elements(tuple(type_.get_shape()))
        moved += 2 * elements * data_type_of(type_.get_element_type()).itemsize  # read, write
    return len(views), moved


class TransposeAsViewPass(ModulePass):
    """Transposes around matmuls become views (module docstring)."""

    name = "dnn-transpose-as-view"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        probe = Probe()
        patterns = [ReadTransposedOperand(probe), WriteTransposedResult(probe)]
        walker = PatternRewriteWalker(GreedyRewritePatternApplier(patterns, dce_enabled=False))
        walker.rewrite_module(op)
        for function in dnn_functions(op):
            views, moved = _moved_by_transposes(function)
            if views:
                remark(function, f"{views} transposes are views: {moved} bytes not moved")
