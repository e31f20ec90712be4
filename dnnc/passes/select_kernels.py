"""dnn-select-kernels: record which library and data type each dnn op runs with.

Rule: %y = dnn.<op> %x ... : tensor<...xT>       [the op runs a kernel]
      ==> %y = dnn.<op> %x ... {dnn.kernel = #dnn.kernel<library, T>}
      library: ``reference`` where the lowering runs a numpy kernel (kernel_table.is_reference:
      top_k, a slice with steps, a binary broadcasting its left operand that cannot swap),
      else ``onednn``; T: the op's data type (its first operand's; a reorder's or cast's
      source type, which the reorder primitive reads).
Sources (dnn.constant, dnn.weight) and dnn.reshape (a view) run nothing and get no kernel.
An op whose data type oneDNN does not implement (kernel_table.AVAILABILITY) keeps it and
gets a remark: oneDNN will refuse it when the executor creates the primitive.

Pre:  the IR verifies.
Post: every op that runs a kernel carries ``dnn.kernel``; an existing one is kept (a later
      pass, dnn-assign-precision, may have changed its data type).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.passes import ModulePass

from dnnc.diagnostics import remark
from dnnc.dialects.dnn import DnnOp, KernelAttr, KernelLibrary
from dnnc.dialects.dnn.base import tensor_type
from dnnc.dialects.types import data_type_of
from dnnc.passes.kernel_table import AVAILABILITY, KERNEL, kernel_of, library_of, runs_kernel


class SelectKernel(RewritePattern):
    """Attach ``dnn.kernel = #dnn.kernel<library, data type>`` to an op that runs a kernel."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, DnnOp) or not runs_kernel(op):
            return  # not a dnn op, or a source or reshape: no kernel runs
        if kernel_of(op) is not None:
            return  # already chosen (perhaps in another data type by dnn-assign-precision)
        data_type = data_type_of(tensor_type(op.operands[0]).get_element_type())
        library = library_of(op)
        if library is KernelLibrary.ONEDNN and data_type not in AVAILABILITY[type(op)].data_types:
            remark(op, f"oneDNN has no {op.name} in {data_type}: dnn.cast it to f32")
        op.attributes[KERNEL] = KernelAttr(library, data_type)
        rewriter.notify_op_modified(op)


@dataclass(frozen=True)
class SelectKernelsPass(ModulePass):
    """Record each op's kernel library and data type (module docstring)."""

    name = "dnn-select-kernels"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(SelectKernel(), apply_recursively=False).rewrite_module(op)
