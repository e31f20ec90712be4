"""Quantization as data transforms: the ops between f32 values and 8-bit integers.

A quantized tensor is ``real = scale * (q - zero_point)`` (ONNX's linear quantization). The
scale and zero point are operands, so they may be constants (static quantization) or values
computed at run time (dynamic quantization): a rank-0 scale is per-tensor, a rank-1 scale
per-axis along ``axis`` (one scale per index of that dimension). The zero point has the
scale's shape and the integer type of the quantized side (or i32: the lowering casts it so
for oneDNN, which takes s32 zero points; the quantized type is then the result's or src's).

* ``dnn.quantize``: ``q = saturate(round_half_even(x / scale) + zero_point)`` to i8 or ui8;
* ``dnn.dequantize``: ``real = (q - zero_point) * scale`` from i8, ui8 or i32 to f32;
* ``dnn.dynamic_quantize``: ui8 ``q`` with the scale and zero point of ``x``'s own range
  (ONNX DynamicQuantizeLinear), all three results.

Like ``dnn.cast`` they keep the source's layout; results take their element type from the
zero point (quantize) or the scale (dequantize).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import I64, IntegerAttr, NoneAttr, TensorType, f32, i32, i64
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from dnnc.core import shapes
from dnnc.core.kinds import DataType
from dnnc.dialects.dnn.base import DnnOp, int_of, shape_of, tensor_type
from dnnc.dialects.types import DATA_TYPES, element_type_of

QUANTIZED_TYPES = (DataType.S8, DataType.U8)
"""The element types of quantized values (oneDNN's int8 kernels take these)."""


def _like(src: SSAValue, element: Attribute, shape: shapes.Shape | None = None) -> TensorType:
    """A tensor type with `src`'s shape (or `shape`, then plain) and layout and `element`."""
    type_ = tensor_type(src)
    if shape is not None:
        return TensorType(element, list(shape))
    return TensorType(element, type_.get_shape(), type_.encoding)


def _axis_attr(axis: int | None) -> dict[str, Attribute]:
    return {} if axis is None else {"axis": IntegerAttr(axis, i64)}


class _AffineOp(DnnOp):
    """One side of ``real = scale * (q - zero_point)``: src, scale, zero point, per-axis
    ``axis`` when the scale has rank 1."""

    src = operand_def(TensorType)
    scale = operand_def(TensorType)
    zero_point = operand_def(TensorType)
    result = result_def(TensorType)
    axis = opt_prop_def(IntegerAttr[I64])
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$src `,` $scale `,` $zero_point attr-dict `:` "
        "`(` type($src) `,` type($scale) `,` type($zero_point) `)` `->` type($result)"
    )

    QUANTIZED: ClassVar[str]
    """Which side is the integer one: ``src`` or ``result``."""
    INTEGER_TYPES: ClassVar[tuple[DataType, ...]]
    """Element types that side may have."""

    def quantized_value(self) -> SSAValue:
        return self.src if self.QUANTIZED == "src" else self.result

    def real_value(self) -> SSAValue:
        return self.result if self.QUANTIZED == "src" else self.src

    def verify_op(self) -> None:
        quantized = DATA_TYPES[tensor_type(self.quantized_value()).get_element_type()]
        if quantized not in self.INTEGER_TYPES:
            names = ", ".join(str(element_type_of(t)) for t in self.INTEGER_TYPES)
            raise VerifyException(
                f"{self.QUANTIZED} has element type {element_type_of(quantized)}, expected "
                f"one of {names}"
            )
        real = tensor_type(self.real_value()).get_element_type()
        if real != f32 or tensor_type(self.scale).get_element_type() != f32:
            raise VerifyException(
                f"the real side and the scale must be f32, got {real} and "
                f"{tensor_type(self.scale).get_element_type()}"
            )
        zero_point = tensor_type(self.zero_point).get_element_type()
        if zero_point not in (element_type_of(quantized), i32):
            raise VerifyException(
                f"zero_point has element type {zero_point}, expected the {self.QUANTIZED} "
                f"element type {element_type_of(quantized)} (or i32, as oneDNN takes it)"
            )
        self._verify_granularity()
        self.expect_result_shape(self.result, shape_of(self.src))

    def _verify_granularity(self) -> None:
        """Rank-0 scale and zero point (per-tensor) without an axis, or rank-1 ones of the
        axis's size with it."""
        scale, zero_point = shape_of(self.scale), shape_of(self.zero_point)
        if scale != zero_point:
            raise VerifyException(
                f"scale {shapes.format_shape(scale)} and zero_point "
                f"{shapes.format_shape(zero_point)} must have one shape"
            )
        if self.axis is None:
            if scale:
                raise VerifyException(
                    f"a per-tensor scale has rank 0, got {shapes.format_shape(scale)} "
                    "(give an axis for per-axis quantization)"
                )
            return
        src = shape_of(self.src)
        axis = int_of(self.axis)
        if not -len(src) <= axis < len(src):
            raise VerifyException(f"axis {axis} is out of range for rank {len(src)}")
        size = src[axis]
        if len(scale) != 1 or not shapes.compatible((size,), scale):
            raise VerifyException(
                f"a per-axis scale has shape [{size}] (src dimension {axis}), got "
                f"{shapes.format_shape(scale)}"
            )

    def verify_result_types(self) -> None:
        """The result keeps src's layout (its element type is checked by verify_op)."""
        self.expect_layout("result", self.result, self.src)


@irdl_op_definition
class QuantizeOp(_AffineOp):
    """result = saturate(round_half_even(src / scale) + zero_point) (ONNX QuantizeLinear):
    f32 to the zero point's type, i8 or ui8."""

    name = "dnn.quantize"
    QUANTIZED: ClassVar[str] = "result"
    INTEGER_TYPES: ClassVar[tuple[DataType, ...]] = QUANTIZED_TYPES

    def __init__(
        self, src: SSAValue, scale: SSAValue, zero_point: SSAValue, axis: int | None = None
    ) -> None:
        result = _like(src, tensor_type(zero_point).get_element_type())
        super().__init__(
            operands=[src, scale, zero_point], result_types=[result], properties=_axis_attr(axis)
        )


@irdl_op_definition
class DequantizeOp(_AffineOp):
    """result = (src - zero_point) * scale (ONNX DequantizeLinear): i8, ui8 or i32 to f32."""

    name = "dnn.dequantize"
    QUANTIZED: ClassVar[str] = "src"
    INTEGER_TYPES: ClassVar[tuple[DataType, ...]] = (*QUANTIZED_TYPES, DataType.S32)

    def __init__(
        self, src: SSAValue, scale: SSAValue, zero_point: SSAValue, axis: int | None = None
    ) -> None:
        result = _like(src, tensor_type(scale).get_element_type())
        super().__init__(
            operands=[src, scale, zero_point], result_types=[result], properties=_axis_attr(axis)
        )


@irdl_op_definition
class DynamicQuantizeOp(DnnOp):
    """ONNX DynamicQuantizeLinear: with lo = min(0, min(src)), hi = max(0, max(src)),
    scale = (hi - lo) / 255, zero_point = saturate(round_half_even(-lo / scale)) and
    result = saturate(round_half_even(src / scale) + zero_point), all ui8 (scale and zero
    point of rank 0); scale = 1 where hi = lo (ONNX Runtime's choice; the formula divides by
    zero)."""

    name = "dnn.dynamic_quantize"
    RESULT_TYPES: ClassVar[dict[str, DataType]] = {
        "result": DataType.U8,
        "scale": DataType.F32,
        "zero_point": DataType.U8,
    }
    src = operand_def(TensorType)
    result = result_def(TensorType)
    scale = result_def(TensorType)
    zero_point = result_def(TensorType)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$src attr-dict `:` `(` type($src) `)` `->` "
        "`(` type($result) `,` type($scale) `,` type($zero_point) `)`"
    )

    def __init__(self, src: SSAValue) -> None:
        u8 = element_type_of(DataType.U8)
        super().__init__(
            operands=[src],
            result_types=[_like(src, u8), _like(src, f32, ()), _like(src, u8, ())],
        )

    def verify_op(self) -> None:
        if tensor_type(self.src).get_element_type() != f32:
            raise VerifyException("src must be f32")
        for name, value in (("scale", self.scale), ("zero_point", self.zero_point)):
            if shape_of(value) or not isinstance(tensor_type(value).encoding, NoneAttr):
                raise VerifyException(f"{name} must be a plain rank-0 tensor")
        self.expect_result_shape(self.result, shape_of(self.src))


QUANT_OPS: tuple[type[DnnOp], ...] = (QuantizeOp, DequantizeOp, DynamicQuantizeOp)
"""The ops of this module, in docs/dialect.md order."""
