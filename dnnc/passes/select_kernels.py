"""dnn-select-kernels: record which library and data type each dnn op runs with.

Rule: %y = dnn.<op> %x ... : tensor<...xT>       [the op runs a kernel]
      ==> %y = dnn.<op> %x ... {dnn.kernel = #dnn.kernel<library, K>}
      library: ``reference`` where the lowering runs a numpy kernel (kernel_table.is_reference:
      top_k, a slice with steps, a binary broadcasting its left operand that cannot swap),
      else ``onednn``; K: the op's data type T (its first operand's; a reorder's or cast's
      source type, which the reorder primitive reads), except that
      - a bf16 or f16 op gets K = f32 when oneDNN runs it natively in f32 but this CPU does
        not compute natively in T (dnnc.target.computes_in: no bf16 instructions, as on
        AVX2 and plain AVX-512, where oneDNN 3.2 has no bf16 kernels or emulated ones) or
        oneDNN has no real T kernel for this op (kernel_table.kernel_support asks with the
        op's own shapes and post-ops); dnn-insert-data-transforms puts explicit dnn.casts
        around it: such a graph runs on every CPU, at f32 speed or better;
      - data movement (reorders, casts, concat) runs in T whatever oneDNN's implementation.
Sources (dnn.constant, dnn.weight) and dnn.reshape (a view) run nothing and get no kernel.
A remark names each op oneDNN runs with its reference implementation or not at all (the
executor then refuses it with the op's location).

Pre:  the IR verifies.
Post: every op that runs a kernel carries ``dnn.kernel``; an existing one is kept (a later
      pass, dnn-assign-precision, may have changed its data type).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)

from dnnc.core.diagnostics import remark
from dnnc.core.kinds import DataType
from dnnc.dialects.dnn import DnnOp, KernelAttr, KernelLibrary
from dnnc.dialects.dnn.base import tensor_type
from dnnc.dialects.types import data_type_of
from dnnc.target import computes_in, effective_isa
from dnnc.target.kernel_table import (
    DATA_MOVEMENT_KINDS,
    KERNEL,
    REDUCED_FLOATS,
    Probe,
    Support,
    kernel_kind,
    kernel_of,
    kernel_support,
    library_of,
    runs_kernel,
)


@dataclass
class SelectKernel(RewritePattern):
    """Attach ``dnn.kernel = #dnn.kernel<library, data type>`` to an op that runs a kernel."""

    probe: Probe = field(default_factory=Probe)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, DnnOp) or not runs_kernel(op):
            return  # not a dnn op, or a source or reshape: no kernel runs
        if kernel_of(op) is not None:
            return  # already chosen (perhaps in another data type by dnn-assign-precision)
        data_type = data_type_of(tensor_type(op.operands[0]).get_element_type())
        library = library_of(op)
        if library is KernelLibrary.ONEDNN:
            data_type = _onednn_data_type(op, data_type, self.probe)
        op.attributes[KERNEL] = KernelAttr(library, data_type)
        rewriter.notify_op_modified(op)


def _onednn_data_type(op: DnnOp, data_type: DataType, probe: Probe) -> DataType:
    """The data type oneDNN runs `op` in here (module docstring), with a remark on a
    fallback, a reference implementation or none at all."""
    if kernel_kind(op) in DATA_MOVEMENT_KINDS:
        return data_type  # no arithmetic to fall back from
    support = kernel_support(op, data_type, probe)
    native = support is Support.NATIVE and (
        data_type not in REDUCED_FLOATS or computes_in(data_type)
    )
    if native:
        return data_type
    isa = effective_isa()
    if data_type in REDUCED_FLOATS and kernel_support(op, DataType.F32, probe) is Support.NATIVE:
        remark(op, f"computed in f32: oneDNN has no native {data_type} {kernel_kind(op)} on {isa}")
        return DataType.F32  # exact enough: f32 is wider; the casts round once
    if support is Support.REFERENCE:
        remark(
            op,
            f"oneDNN runs {op.name} in {data_type} on {isa} in plain layouts with "
            "its reference implementation only",
        )
    else:
        remark(op, f"oneDNN has no {op.name} in {data_type} on {isa}: dnn.cast it to f32")
    return data_type


@dataclass(frozen=True)
class SelectKernelsPass(ModulePass):
    """Record each op's kernel library and data type (module docstring)."""

    name = "dnn-select-kernels"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(SelectKernel(), apply_recursively=False).rewrite_module(op)
