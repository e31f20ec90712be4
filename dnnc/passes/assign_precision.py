"""dnn-assign-precision: compute in a lower-precision data type where this CPU really can.

Rule: %y = dnn.<op> ... {dnn.kernel = #dnn.kernel<onednn, f32>}
      ==> %y = dnn.<op> ... {dnn.kernel = #dnn.kernel<onednn, bf16>}
      when this CPU computes natively in ``dtype`` (below) and oneDNN runs this very op (its
      shapes, parameters and post-ops; kernel_table.kernel_support) in ``dtype`` with a real
      kernel: no ``ref:any`` in the hot path (oneDNN 3.2 runs a bf16 matmul with a
      full-shape binary post-op on ``ref:any``).
The kernel's data type is the "expected" type: dnn-insert-data-transforms then casts the
operands the kernel computes with (first operand, weights, same-shaped operands, a depthwise
convolution's bias: kernel_table.data_operands) and the results follow; other biases,
normalization statistics and broadcast post-op arguments stay f32, as oneDNN reads them.
Function arguments and results keep their types (casts at the edges).

Where the CPU does not compute natively in ``dtype`` (dnnc.target.computes_in: oneDNN's
effective ISA has no bf16 instructions, or convolution, matmul or inner product has no real
bf16 kernel; every AVX2 CPU, and AVX-512 without avx512_bf16, where oneDNN's emulated bf16
measured 4x slower than f32 on ResNet blocks), lowering would only add casts and time: the
pass leaves the graph f32 and says so in one warning. Asking for bf16 never makes a model
fail or run on reference kernels.

Not lowered (each a remark "kept f32: <why>"): reference kernels; log_softmax, whose results
near 0 need f32's relative precision; ops oneDNN lacks natively in ``dtype`` here. Softmax and
layer_norm are lowered: oneDNN keeps their statistics (max and sum, mean and variance) in f32
inside the kernel, so bf16 only rounds what they read and write, which their bf16 neighbours
round anyway (ViT-B/16 on AMX: 98 casts fewer, 38.0 -> 33.0 ms, error against ONNX Runtime
f32 1.1e-2 of the largest output as before). Reorders and casts run in
whatever type their source has, so they carry no choice.

Pre:  dnn-select-kernels ran (every op that runs a kernel has ``dnn.kernel``).
Post: every other f32 oneDNN kernel computes in ``dtype``, or, on a CPU without native
      ``dtype`` compute kernels, the IR is unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern

from dnnc.core.diagnostics import remark, warn
from dnnc.core.kinds import DataType
from dnnc.dialects.dnn import CastOp, DnnOp, KernelAttr, KernelLibrary, ReorderOp
from dnnc.target import computes_in, effective_isa, onednn_version
from dnnc.target.kernel_table import (
    KEEP_F32,
    KERNEL,
    Probe,
    Support,
    kernel_kind,
    kernel_of,
    kernel_support,
)

LowerPrecision = Literal["bf16"]
"""The data types ``dtype`` may name."""


@dataclass
class LowerKernelPrecision(RewritePattern):
    """Set an f32 oneDNN kernel's data type to `dtype`."""

    dtype: DataType
    probe: Probe = field(default_factory=Probe)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        kernel = kernel_of(op)
        if not isinstance(op, DnnOp) or kernel is None or isinstance(op, ReorderOp | CastOp):
            return  # no kernel, or a transform (it runs in its source's type)
        if kernel.data_type.data is not DataType.F32:
            return  # already lowered, or an integer kernel
        if kernel.library.data is not KernelLibrary.ONEDNN:
            remark(op, "kept f32: the reference kernel computes in the operand type")
            return  # the lowering runs numpy here
        if isinstance(op, KEEP_F32):
            remark(op, f"kept f32: {op.name} results near 0 need f32's relative precision")
            return  # log values near 0 would lose their relative precision in bf16
        support = kernel_support(op, self.dtype, self.probe)
        if support is not Support.NATIVE:
            what = "only a reference" if support is Support.REFERENCE else "no"
            remark(
                op,
                f"kept f32: oneDNN has {what} {self.dtype} {kernel_kind(op)} on {effective_isa()}",
            )
            return  # a reference kernel would be far slower than f32; none would fail
        op.attributes[KERNEL] = KernelAttr(KernelLibrary.ONEDNN, self.dtype)
        rewriter.notify_op_modified(op)


@dataclass(frozen=True)
class AssignPrecisionPass(ModulePass):
    """Run f32 oneDNN kernels in a lower precision (module docstring)."""

    name = "dnn-assign-precision"

    dtype: LowerPrecision = "bf16"
    """The compute data type (oneDNN spelling)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        dtype = DataType(self.dtype)
        if not computes_in(dtype):
            warn(
                f"dnn-assign-precision: oneDNN {onednn_version()} has no native {dtype} "
                f"convolution, matmul or inner product on this CPU (effective ISA "
                f"{effective_isa()}): the graph stays f32"
            )
            return  # lowering eltwise alone would add casts and gain nothing
        PatternRewriteWalker(LowerKernelPrecision(dtype), apply_recursively=False).rewrite_module(
            op
        )
