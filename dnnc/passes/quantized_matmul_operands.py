"""The operands of an int8 matmul, matched behind their dequantize (dnn-fuse-quantized-matmul's
rule 1): an 8-bit source quantized per tensor, and i8 weights, a constant (symmetric, per
tensor or per column, also read through a transpose of its last two dims: ONNX Gemm's transB)
or an activation (per tensor, with its zero point; u8 ones shifted to i8). Each refusal is a
NoMatch with its reason (dnnc.passes.matching)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import TensorType, f32
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from dnnc.core.kinds import DataType
from dnnc.dialects.dnn import (
    ConstantOp,
    DequantizeOp,
    QuantizeOp,
    TransposeOp,
    WeightOp,
    shape_of,
)
from dnnc.dialects.dnn.base import int_of, ints, tensor_type
from dnnc.dialects.dnn.quant import QUANTIZED_TYPES
from dnnc.dialects.types import data_type_of, element_type_of
from dnnc.ir.weights import constant_value
from dnnc.passes.constants import constant_op
from dnnc.passes.matching import need


def element(value: SSAValue) -> DataType:
    """The data type of a tensor value's elements."""
    return data_type_of(tensor_type(value).get_element_type())


def matmul_source(value: SSAValue) -> DequantizeOp:
    """The per-tensor dequantize of an 8-bit src defining ``value``."""
    dq = value.owner
    need(isinstance(dq, DequantizeOp), "the source is not dequantized")
    assert isinstance(dq, DequantizeOp)  # checked above
    need(element(dq.src) in QUANTIZED_TYPES, f"the source is dequantized from {element(dq.src)}")
    need(dq.axis is None, "the source is quantized per axis")
    return dq


@dataclass(frozen=True)
class MatmulWeights:
    """Matched 8-bit weights: their dequantize, the zero point the primitive takes (None:
    0), whether they are a constant read through a transpose of its last two dims (ONNX
    Gemm's transB), which the rewrite then applies to the i8 constant (folded later), and
    whether they are a u8 activation, which the rewrite shifts to i8 (oneDNN's weights
    type: q - 128 exactly, by a dequantize with scale 1 and zero point 128 and a quantize
    with scale 1, two oneDNN reorders; the zero point shifts with it, so it must be a
    constant)."""

    dq: DequantizeOp
    zero_point: SSAValue | None
    transposed: bool = False
    shifted: bool = False

    @property
    def constant(self) -> bool:
        return isinstance(self.dq.src.owner, ConstantOp | WeightOp)

    def shape(self) -> tuple[int, ...]:
        """The [..., K, N] shape the matmul reads."""
        shape = list(shape_of(self.dq.src))
        if self.transposed:
            shape[-2:] = shape[-1], shape[-2]
        return tuple(shape)

    def operands(
        self, rewriter: PatternRewriter, before: Operation
    ) -> tuple[SSAValue, SSAValue | None]:
        """The i8 weights as the matmul reads them and their zero point, with the ops that
        transpose or shift them inserted ``before``."""
        ops: list[Operation] = []
        weights, zero_point = self.dq.src, self.zero_point
        if self.transposed:
            rank = len(shape_of(weights))
            ops.append(TransposeOp(weights, permutation=swap_last(rank)))
            weights = ops[-1].results[0]
        if self.shifted:
            assert isinstance(zero_point, SSAValue)  # matmul_weights: a constant
            zero = zero_point.owner
            assert isinstance(zero, ConstantOp)
            i8, scalar = element_type_of(DataType.S8), TensorType(f32, [])
            one = constant_op(np.array(1.0, np.float32), scalar, before)
            u8 = TensorType(element_type_of(DataType.U8), [])
            half = constant_op(np.array(128, np.uint8), u8, before)
            nought = constant_op(np.array(0, np.int8), TensorType(i8, []), before)
            centered = DequantizeOp(weights, one.result, half.result)
            shifted = QuantizeOp(centered.result, one.result, nought.result)
            shifted_zero = constant_op(
                constant_value(zero).astype(np.int32) - 128, TensorType(i8, []), before
            )
            centered.location = shifted.location = before.location
            ops += [one, half, nought, centered, shifted, shifted_zero]
            weights, zero_point = shifted.result, shifted_zero.result
        rewriter.insert_op(ops, InsertPoint.before(before))
        return weights, zero_point


def swap_last(rank: int) -> list[int]:
    return [*range(rank - 2), rank - 1, rank - 2]


def matmul_weights(value: SSAValue) -> MatmulWeights:
    """i8 weights: a constant symmetric, per tensor or per column (through a transpose: per
    row of the constant); an activation per tensor, with its zero point."""
    transposed = False
    owner = value.owner
    if isinstance(owner, TransposeOp) and isinstance(owner.src.owner, DequantizeOp):
        rank = len(shape_of(owner.src))
        need(list(ints(owner.permutation)) == swap_last(rank), "the weights are permuted")
        transposed, owner = True, owner.src.owner
    dq = owner
    need(isinstance(dq, DequantizeOp), "the weights are not dequantized")
    assert isinstance(dq, DequantizeOp)  # checked above
    stored = element(dq.src)
    if not isinstance(dq.src.owner, ConstantOp | WeightOp):
        need(not transposed, "the weights are a transposed activation")
        need(stored in QUANTIZED_TYPES, f"the weights are dequantized from {stored}")
        need(dq.axis is None, "the weights are an activation quantized per axis")
        shifted = stored == DataType.U8
        need(
            not shifted or isinstance(dq.zero_point.owner, ConstantOp),
            "the weights are u8 with a zero point that is not a constant (to shift to i8)",
        )
        return MatmulWeights(dq, dq.zero_point, shifted=shifted)
    need(stored == DataType.S8, f"the weights are {stored}, not i8 (oneDNN's int8 weights)")
    zero = dq.zero_point.owner
    need(
        isinstance(zero, ConstantOp) and not np.any(constant_value(zero)),
        "the weights' zero point is not a constant 0",
    )
    if dq.axis is not None:
        rank = len(shape_of(dq.src))
        column = rank - 2 if transposed else rank - 1  # N in the array as stored
        need(
            int_of(dq.axis) % rank == column,
            "the weights are quantized per row, not per column (oneDNN scales columns)",
        )
    return MatmulWeights(dq, None, transposed=transposed)
