"""dnn-shift-to-u8: 8-bit activations quantized as s8 are quantized as u8 instead (zero point
+128), for oneDNN's int8 convolutions.

Rule: %q = dnn.quantize %x, %s, %z -> i8             [per tensor, %z a constant]
      %f = dnn.dequantize %q, %s', %z' ...            [every reader such a dequantize, %z' a
                                                       constant equal to %z]
      ==> %q = dnn.quantize %x, %s, %z + 128 -> ui8
          %f = dnn.dequantize %q, %s', %z + 128 ...
Lossless: round(x / s) + z + 128 saturates to [0, 255] exactly where round(x / s) + z
saturates to [-128, 127], and the dequantized values are the same. ONNX Runtime does the
same on x86 (QDQS8ToU8Transformer). What it buys: most activations of a network quantized
S8S8 follow a removed Relu, quantized with zero point -128, which becomes 0, and oneDNN's
int8 convolution without a source zero point (dnnc.target.kernel_calls drops a constant-0
one) skips the zero-point compensation and, on an u8 source without zero points, runs its
depthwise kernel ``brdgmm_dw``: measured on Zen 4 (2 threads) an s8 source with zero point
against an u8 one without: 1x1 256->64 at 56x56 81 -> 78 us, depthwise 3x3 at 144x56x56
79 -> 68 us. The tensors with other zero points shift too, so that a residual and the
result it is added into keep one type (oneDNN's sum reads the residual from the result's
buffer): s8 and u8 with a zero point measured alike there (depthwise 181 and 181 us, 1x1
81 and 85 us). Without VNNI a u8 source is what makes oneDNN's int8 convolution exact (with
7-bit weights; for an s8 source it halves the weights): dnn-fuse-quantized.

Not shifted (silently: nothing is wrong) where a reader is not such a dequantize (a function
result keeps the type the caller expects), a zero point is not a constant or the
quantization is per axis.

Pre:  the IR verifies; runs before dnn-keep-int8 and dnn-fuse-quantized.
Post: every quantize to i8 with a rule's readers quantizes to ui8.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType, i32
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    InsertPoint,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from dnnc.core.kinds import DataType
from dnnc.dialects.dnn import ConstantOp, DequantizeOp, QuantizeOp, shape_of
from dnnc.dialects.dnn.base import retyped_op, tensor_type
from dnnc.dialects.types import data_type_of, element_type_of
from dnnc.ir.weights import constant_value
from dnnc.passes.constants import constant_op
from dnnc.passes.data_transforms import retyped

_SHIFT = 128
"""u8 = s8 + 128."""


def _zero_point(value: SSAValue) -> int | None:
    """The value of a rank-0 constant zero point, None if it is no such constant."""
    owner = value.owner
    if not isinstance(owner, ConstantOp) or shape_of(value):
        return None
    return int(constant_value(owner))


def _shiftable(op: QuantizeOp) -> int | None:
    """The s8 zero point of a quantize the rule shifts, None if it shifts none."""
    if data_type_of(tensor_type(op.result).get_element_type()) is not DataType.S8:
        return None
    if op.axis is not None or shape_of(op.scale):
        return None
    zero = _zero_point(op.zero_point)
    readers = [use.operation for use in op.result.uses]
    if zero is None or not readers:
        return None
    for reader in readers:
        if not isinstance(reader, DequantizeOp) or _zero_point(reader.zero_point) != zero:
            return None
    return zero


class ShiftActivationsToU8(RewritePattern):
    """The rule of the module docstring, anchored on the quantize."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: QuantizeOp, rewriter: PatternRewriter, /) -> None:
        zero = _shiftable(op)
        if zero is None:
            return
        integer = tensor_type(op.zero_point).get_element_type()
        zero_type = TensorType(i32 if integer == i32 else element_type_of(DataType.U8), [])
        shifted_zero = constant_op(np.asarray(zero + _SHIFT), zero_type, op)
        rewriter.insert(shifted_zero, InsertPoint.before(op))
        u8 = retyped(tensor_type(op.result), element=element_type_of(DataType.U8))
        quantize = retyped_op(op, [op.src, op.scale, shifted_zero.results[0]], u8)
        readers: list[Operation] = [use.operation for use in op.result.uses]
        rewriter.replace_op(op, quantize)
        for reader in readers:
            assert isinstance(reader, DequantizeOp)  # _shiftable
            operands = [quantize.result, reader.scale, shifted_zero.results[0]]
            rewriter.replace_op(reader, retyped_op(reader, operands, reader.result.type))


@dataclass(frozen=True)
class ShiftToU8Pass(ModulePass):
    """dnn-shift-to-u8 (module docstring)."""

    name = "dnn-shift-to-u8"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        pattern = ShiftActivationsToU8()
        PatternRewriteWalker(pattern, apply_recursively=False).rewrite_module(op)
