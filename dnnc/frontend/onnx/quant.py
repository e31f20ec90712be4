"""Converters of ONNX's quantization ops into dnn.quantize / dnn.dequantize.

QuantizeLinear and DequantizeLinear map one to one (per-tensor: a scale of one element;
per-axis: a 1-D scale along ``axis``); DynamicQuantizeLinear is dnn.dynamic_quantize. The
operator forms compute in f32 between explicit transforms, which is what they mean:
- QLinearConv / QLinearMatMul: dequantize the inputs (the int32 bias with scale
  x_scale * w_scale and zero point 0), convolve or multiply in f32, quantize the result;
- ConvInteger / MatMulInteger: the inputs minus their zero points (a dequantize with scale
  1), convolve or multiply in f32, cast to int32. The f32 sums are the exact integers while
  every partial sum stays below 2^24 in magnitude.
A DequantizeLinear of constants is folded at import, except where it gives the weights of a
Conv, MatMul or Gemm (a QDQ model's): those stay int8 constants behind a dnn.dequantize, which
dnn-fold-constants folds where no int8 kernel takes them.

Refused with the reason: block-wise quantization (``block_size``), element types other than
int8 and uint8 (int32 too when dequantizing), scales other than f32, and the attributes of
newer versions at values other than their defaults. A DequantizeLinear of constants of those
kinds (weight-only quantization: 4-bit, float8, block-wise) never gets here: it folds to f32.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from onnx import TensorProto
from xdsl.ir import SSAValue

from dnnc.core.kinds import DataType
from dnnc.dialects.dnn import CastOp, DequantizeOp, DynamicQuantizeOp, QuantizeOp, shape_of
from dnnc.dialects.types import data_type_of, element_type_of
from dnnc.frontend.onnx import nn
from dnnc.frontend.onnx.graph import Node, dtype_name
from dnnc.frontend.onnx.importer import Importer, Value, element_of
from dnnc.frontend.onnx.sized import SizedArray

_INTEGERS = frozenset({DataType.S8, DataType.U8, DataType.S32})
"""The integer types of quantized values dnn holds (int32 only to dequantize)."""


def _data_type(imp: Importer, node: Node, value: SSAValue | np.ndarray, what: str) -> DataType:
    """The dnn data type of a value; a refusal naming ``what`` for types dnn has none of."""
    if isinstance(value, np.ndarray):
        try:
            return DataType.of_numpy(value.dtype)
        except ValueError:
            raise imp.error(node, f"{what} of type {value.dtype} is not supported") from None
    return data_type_of(element_of(value))


def _input(imp: Importer, node: Node, index: int, what: str) -> SSAValue | np.ndarray | None:
    """Input ``index`` as it is (an array or an SSA value; data computed from the input
    sizes of a traced import as the SSA value it is passed as), None when absent."""
    if not imp.has_input(node, index):
        return None
    value = imp.values.get(node.input(index))
    if value is None:
        raise imp.error(node, f"input {index} ({what}) is not defined")
    return imp.tensor(node, index) if isinstance(value, SizedArray) else value


def _as_tensor(
    imp: Importer, node: Node, value: SSAValue | np.ndarray, shape: Sequence[int], key: str
) -> SSAValue:
    """``value`` reshaped to ``shape`` as an SSA value (an array materialized under ``key``)."""
    if isinstance(value, np.ndarray):
        return imp.materialize(node, np.array(value.reshape(shape), order="C"), key)
    return imp.reshape(value, shape)


def affine(
    imp: Importer,
    node: Node,
    src_rank: int,
    indices: tuple[int, int],
    integer: DataType,
    axis: int,
) -> tuple[SSAValue, SSAValue, int | None]:
    """The scale and zero point of inputs ``indices`` as dnn operands, with the axis of a
    per-axis pair (None: per-tensor). An absent zero point is 0 of type ``integer``."""
    scale_index, zero_index = indices
    scale = _input(imp, node, scale_index, "scale")
    if scale is None:
        raise imp.error(node, f"input {scale_index} (scale) is required")
    if _data_type(imp, node, scale, "a scale") is not DataType.F32:
        kind = scale.dtype if isinstance(scale, np.ndarray) else element_of(scale)
        raise imp.error(node, f"a {kind} scale is not supported (float32 only)")
    shape = imp.shape(scale)
    size = int(np.prod(shape)) if shape else 1
    if len(shape) > 1:
        raise imp.error(
            node,
            f"a scale of shape {list(shape)} is block-wise quantization, which is not "
            "supported (per-tensor and per-axis are)",
        )
    per_axis = len(shape) == 1 and size != 1
    target: tuple[int, ...] = (size,) if per_axis else ()
    zero = _input(imp, node, zero_index, "zero point")
    if zero is None:
        zero = np.zeros(target, integer.numpy)
    zero_type = _data_type(imp, node, zero, "a zero point")
    if zero_type not in _INTEGERS:
        raise imp.error(
            node, f"zero point type {zero_type} is not supported (int8, uint8; int32 to dequantize)"
        )
    if imp.shape(zero) != shape and int(np.prod(imp.shape(zero))) != size:
        raise imp.error(
            node,
            f"zero point of shape {list(imp.shape(zero))} for a scale of shape {list(shape)}",
        )
    names = [node.input(i) or f"{node.label}.zero_point" for i in indices]
    scale_value = _as_tensor(imp, node, scale, target, names[0])
    zero_value = _as_tensor(imp, node, zero, target, names[1])
    return scale_value, zero_value, (axis % src_rank if per_axis else None)


def _refuse_block_size(imp: Importer, node: Node) -> None:
    """ModelError for block-wise quantization (QuantizeLinear/DequantizeLinear 21+)."""
    if node.int_attr("block_size", 0):
        raise imp.error(
            node,
            "block-wise quantization (block_size) is not supported: per-tensor and per-axis are",
        )


def _output_type(node: Node, attribute: str, default: int) -> int:
    """An ONNX element type attribute (0: ``default``)."""
    return node.int_attr(attribute, 0) or default


def quantized(
    imp: Importer, node: Node, src: SSAValue, indices: tuple[int, int], axis: int
) -> SSAValue:
    """dnn.quantize of ``src`` with the scale and zero point of inputs ``indices``."""
    to = _output_type(node, "output_dtype", TensorProto.UINT8)
    if to not in (TensorProto.UINT8, TensorProto.INT8):
        raise imp.error(node, f"quantizing to {dtype_name(to)} is not supported (int8, uint8)")
    integer = DataType.U8 if to == TensorProto.UINT8 else DataType.S8
    scale, zero, per_axis = affine(imp, node, len(shape_of(src)), indices, integer, axis)
    if data_type_of(element_of(zero)) not in (DataType.S8, DataType.U8):
        raise imp.error(node, "quantizing to int32 is not supported (int8, uint8)")
    return imp.emit(QuantizeOp(src, scale, zero, per_axis))


def dequantized(
    imp: Importer, node: Node, src: SSAValue, indices: tuple[int, int], axis: int
) -> SSAValue:
    """dnn.dequantize of ``src`` with the scale and zero point of inputs ``indices``."""
    integer = data_type_of(element_of(src))
    if integer not in _INTEGERS:
        raise imp.error(
            node, f"dequantizing {element_of(src)} is not supported (int8, uint8, int32)"
        )
    scale, zero, per_axis = affine(imp, node, len(shape_of(src)), indices, integer, axis)
    return imp.emit(DequantizeOp(src, scale, zero, per_axis))


def _float_input(imp: Importer, node: Node, index: int) -> SSAValue:
    src = imp.tensor(node, index)
    if data_type_of(element_of(src)) is not DataType.F32:
        raise imp.error(node, f"a {element_of(src)} input is not supported (float32)")
    return src


def convert_quantize_linear(imp: Importer, node: Node) -> Value:
    """QuantizeLinear (10-28, int8 and uint8 results) -> dnn.quantize."""
    _refuse_block_size(imp, node)
    if node.int_attr("precision", 0) not in (0, TensorProto.FLOAT):
        raise imp.error(node, "precision other than float32 is not supported")
    return quantized(imp, node, _float_input(imp, node, 0), (1, 2), node.int_attr("axis", 1))


def convert_dequantize_linear(imp: Importer, node: Node) -> Value:
    """DequantizeLinear (10-28, from int8, uint8 or int32) -> dnn.dequantize."""
    _refuse_block_size(imp, node)
    if _output_type(node, "output_dtype", TensorProto.FLOAT) != TensorProto.FLOAT:
        raise imp.error(node, "output_dtype other than float32 is not supported")
    return dequantized(imp, node, imp.tensor(node, 0), (1, 2), node.int_attr("axis", 1))


def convert_dynamic_quantize_linear(imp: Importer, node: Node) -> tuple[Value, ...]:
    """DynamicQuantizeLinear -> dnn.dynamic_quantize (all three outputs)."""
    op = DynamicQuantizeOp(_float_input(imp, node, 0))
    imp.emit(op)
    return tuple(op.results)


def _dequantized_operands(
    imp: Importer, node: Node, first: int, second: int, axis: int
) -> tuple[SSAValue, SSAValue]:
    """Inputs ``first`` and ``second`` (each followed by its scale and zero point)
    dequantized; the second per-axis along ``axis`` when its scale is a vector."""
    a = imp.tensor(node, first)
    b = imp.tensor(node, second)
    return (
        dequantized(imp, node, a, (first + 1, first + 2), 1),
        dequantized(imp, node, b, (second + 1, second + 2), axis),
    )


def convert_qlinear_conv(imp: Importer, node: Node) -> Value:
    """QLinearConv -> dequantize x and w (per output channel when w_scale is a vector), the
    int32 bias with scale x_scale * w_scale, dnn.conv2d in f32, quantize y."""
    src, wei = _dequantized_operands(imp, node, 0, 3, 0)
    bias = None
    if imp.has_input(node, 8):
        bias = _bias(imp, node, shape_of(wei)[0])
    return quantized(imp, node, nn.conv(imp, node, src, wei, bias), (6, 7), 1)


def _bias(imp: Importer, node: Node, channels: int) -> SSAValue:
    """QLinearConv's int32 bias (input 8) in f32: B * x_scale * w_scale."""
    x_scale, w_scale = (imp.const(node, i) for i in (1, 4))
    if x_scale is None or w_scale is None:
        raise imp.error(node, "x_scale and w_scale must be constants to scale the int32 bias")
    scale = (x_scale.astype(np.float32).reshape(()) * w_scale.astype(np.float32)).reshape(-1)
    bias = imp.tensor(node, 8)
    if data_type_of(element_of(bias)) is not DataType.S32:
        raise imp.error(node, f"a {element_of(bias)} bias is not supported (int32)")
    key = f"{node.label}.bias_scale"
    if scale.size == 1:
        scale_value = imp.materialize(node, scale.reshape(()), key)
        zero = imp.materialize(node, np.zeros((), np.int32), f"{key}.zero")
        return imp.emit(DequantizeOp(bias, scale_value, zero))
    if scale.size != channels:
        raise imp.error(node, f"{scale.size} weight scales for {channels} output channels")
    scale_value = imp.materialize(node, scale, key)
    zero = imp.materialize(node, np.zeros((channels,), np.int32), f"{key}.zero")
    return imp.emit(DequantizeOp(bias, scale_value, zero, 0))


def convert_qlinear_matmul(imp: Importer, node: Node) -> Value:
    """QLinearMatMul -> dequantize a and b (per column when b_scale is a vector), matmul in
    f32, quantize y."""
    lhs, rhs = _dequantized_operands(imp, node, 0, 3, -1)
    return quantized(imp, node, nn.matmul_nd(imp, node, lhs, rhs), (6, 7), 1)


def _centered(imp: Importer, node: Node, index: int, axis: int) -> SSAValue:
    """Input ``index`` minus its zero point (input ``index + 2``, scalar or along ``axis``)
    in f32: a dequantize with scale 1."""
    src = imp.tensor(node, index)
    integer = data_type_of(element_of(src))
    if integer not in (DataType.S8, DataType.U8):
        raise imp.error(node, f"a {element_of(src)} input is not supported (int8, uint8)")
    zero = _input(imp, node, index + 2, "zero point")
    rank = len(shape_of(src))
    size = 1 if zero is None else int(np.prod(imp.shape(zero)))
    ones = np.ones((size,) if size != 1 else (), np.float32)
    zero_array = np.zeros(ones.shape, integer.numpy) if zero is None else zero
    scale = imp.materialize(node, ones, f"{node.label}.unit_scale.{size}")
    key = node.input(index + 2) or f"{node.label}.zero_point.{index}"
    zero_value = _as_tensor(imp, node, zero_array, ones.shape, key)
    return imp.emit(DequantizeOp(src, scale, zero_value, axis % rank if size != 1 else None))


def _to_int32(imp: Importer, value: SSAValue) -> SSAValue:
    """An f32 value of whole numbers as int32 (dnn.cast truncates, exact on them)."""
    i32 = element_type_of(DataType.S32)
    return imp.emit(CastOp(value, i32))


def convert_conv_integer(imp: Importer, node: Node) -> Value:
    """ConvInteger -> (x - x_zero_point) conv (w - w_zero_point, per output channel) in f32,
    cast to int32."""
    src = _centered(imp, node, 0, 1)
    wei = _centered(imp, node, 1, 0)
    return _to_int32(imp, nn.conv(imp, node, src, wei, None))


def convert_matmul_integer(imp: Importer, node: Node) -> Value:
    """MatMulInteger -> (a - a_zero_point, per row) @ (b - b_zero_point, per column) in f32,
    cast to int32."""
    lhs = _centered(imp, node, 0, -2)
    rhs = _centered(imp, node, 1, -1)
    return _to_int32(imp, nn.matmul_nd(imp, node, lhs, rhs))
