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
  (ONNX DynamicQuantizeLinear), all three results;
* ``dnn.qconv2d``: dequantize, conv2d, eltwise post-ops (and the sum of a dequantized int8
  residual), quantize as one int8 convolution (what dnn-fuse-quantized makes of that chain;
  oneDNN runs it with run-time scales);
* ``dnn.qmatmul``: dequantize, matmul, bias, eltwise post-ops [, quantize] as one int8
  matmul, its result quantized or f32 (what dnn-fuse-quantized-matmul makes of that chain).

Like ``dnn.cast`` they keep the source's layout; results take their element type from the
zero point (quantize) or the scale (dequantize).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    I64,
    ArrayAttr,
    DenseArrayBase,
    IntegerAttr,
    NoneAttr,
    TensorType,
    f32,
    i32,
    i64,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from dnnc.core import shapes
from dnnc.core.kinds import DataType, EltwisePostOp, PostOp, SumPostOp
from dnnc.dialects.dnn.attributes import PostOpAttr
from dnnc.dialects.dnn.base import (
    ANCHOR_OPTIONS,
    NO_POST_OPS,
    POST_ARGS_FORMAT,
    DnnOp,
    PostOpAnchor,
    i64_array,
    int_of,
    post_ops_attr,
    post_ops_of,
    shape_of,
    tensor_type,
    window_of,
    window_properties,
)
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


@irdl_op_definition
class QConv2DOp(PostOpAnchor):
    """An int8 convolution: ``quantize(post_ops(conv2d(dequantize(src), dequantize(wei),
    bias)), dst_scale, dst_zero_point)`` in one op, as oneDNN's int8 convolution computes it
    (s32 accumulation, then f32 scales, bias and post-ops, one rounding to the result type).

    src is i8 or ui8 with a per-tensor scale and zero point; wei is i8, symmetric (no zero
    point) with a per-tensor scale (rank 0) or one per output channel (rank 1, [O]); the bias
    is f32 in real units; the result is i8 or ui8 (its type, given explicitly: zero points
    may be i32, as oneDNN takes them) with a per-tensor scale and zero point. Post-ops are
    eltwise, and at most one ``#dnn.sum<scale, zero_point>`` whose argument (``post_args``)
    is an int8 residual of the result's type: the post-ops add ``scale * (residual -
    zero_point)`` in real units before the result is quantized (oneDNN's sum post-op, which
    reads the residual from the result's buffer: dnn-inplace puts it there). The window
    properties are conv2d's.

    A post-op anchor (its eltwise post-ops come from dnn-fuse-quantized, which reads the f32
    ops between the convolution and the quantize; dnnc.target.post_op_rules lets no f32
    fusion add any: an eltwise on the int8 result would see integers).

    A separate op rather than quantization operands on ``dnn.conv2d``: the f32 passes that
    rebuild, fold or rescale a conv2d (fold-constants, scale-weights, hoist-strides,
    fuse-post-ops, assign-precision) would each have to keep or refuse such operands, and
    one that forgot would silently compute in the wrong units; they leave an op they do not
    know alone."""

    name = "dnn.qconv2d"
    src = operand_def(TensorType)
    wei = operand_def(TensorType)
    src_scale = operand_def(TensorType)
    src_zero_point = operand_def(TensorType)
    wei_scale = operand_def(TensorType)
    dst_scale = operand_def(TensorType)
    dst_zero_point = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    post_args = var_operand_def(TensorType)
    result = result_def(TensorType)
    strides = prop_def(DenseArrayBase[I64], i64_array(1, 1))
    pads_begin = prop_def(DenseArrayBase[I64], i64_array(0, 0))
    pads_end = prop_def(DenseArrayBase[I64], i64_array(0, 0))
    dilations = prop_def(DenseArrayBase[I64], i64_array(1, 1))
    groups = prop_def(IntegerAttr[I64], IntegerAttr(1, i64))
    traits = traits_def(Pure())
    irdl_options = ANCHOR_OPTIONS
    assembly_format = (
        "$src `,` $wei `,` $src_scale `,` $src_zero_point `,` $wei_scale `,` $dst_scale `,` "
        f"$dst_zero_point (`,` $bias^)? {POST_ARGS_FORMAT} attr-dict `:` `(` type($src) `,` "
        "type($wei) `,` "
        "type($src_scale) `,` type($src_zero_point) `,` type($wei_scale) `,` type($dst_scale) "
        "`,` type($dst_zero_point) (`,` type($bias)^)? `)` `->` type($result)"
    )

    def __init__(
        self,
        src: SSAValue,
        wei: SSAValue,
        scales: tuple[SSAValue, SSAValue, SSAValue, SSAValue, SSAValue],
        bias: SSAValue | None,
        result_type: TensorType,
        *,
        strides: Sequence[int] = (1, 1),
        pads_begin: Sequence[int] = (0, 0),
        pads_end: Sequence[int] = (0, 0),
        dilations: Sequence[int] = (1, 1),
        groups: int = 1,
        post_ops: Sequence[PostOp] = (),
        post_args: Sequence[SSAValue] = (),
    ) -> None:
        """``scales``: src_scale, src_zero_point, wei_scale, dst_scale, dst_zero_point."""
        super().__init__(
            operands=[src, wei, *scales, [] if bias is None else [bias], post_args],
            result_types=[result_type],
            properties=window_properties(
                strides=strides,
                pads_begin=pads_begin,
                pads_end=pads_end,
                dilations=dilations,
                groups=groups,
                post_ops=post_ops,
            ),
        )

    def verify_op(self) -> None:
        src, wei, result = (
            DATA_TYPES[tensor_type(v).get_element_type()] for v in (self.src, self.wei, self.result)
        )
        if src not in QUANTIZED_TYPES or result not in QUANTIZED_TYPES or wei != DataType.S8:
            raise VerifyException(
                f"src and result must be i8 or ui8 and wei i8, got {element_type_of(src)}, "
                f"{element_type_of(result)} and {element_type_of(wei)}"
            )
        out_channels = shape_of(self.wei)[0]
        for name in ("src_scale", "wei_scale", "dst_scale"):
            value = getattr(self, name)
            per_channel = name == "wei_scale"
            allowed = ((), (out_channels,)) if per_channel else ((),)
            if tensor_type(value).get_element_type() != f32 or shape_of(value) not in allowed:
                channels = f" or [{out_channels}] (one per output channel)" if per_channel else ""
                raise VerifyException(f"{name} must be f32 of rank 0 (per tensor){channels}")
        for name, side in (("src_zero_point", src), ("dst_zero_point", result)):
            value = getattr(self, name)
            element = tensor_type(value).get_element_type()
            if shape_of(value) or element not in (element_type_of(side), i32):
                raise VerifyException(
                    f"{name} must be a rank-0 {element_type_of(side)} (or i32) tensor"
                )
        if self.bias is not None and tensor_type(self.bias).get_element_type() != f32:
            raise VerifyException("bias must be f32 (in real units)")
        chain = self.post_op_chain
        sums = sum(isinstance(p, SumPostOp) for p in chain)
        if sums > 1 or not all(isinstance(p, EltwisePostOp | SumPostOp) for p in chain):
            raise VerifyException("post-ops must be eltwise and at most one sum")
        self.expect_result_shape(self.result, self.infer_result_shape())
        self.verify_post_ops()

    def infer_result_shape(self) -> shapes.Shape:
        return shapes.conv2d(
            shape_of(self.src),
            shape_of(self.wei),
            None if self.bias is None else shape_of(self.bias),
            **window_of(self),
        )

    def with_post_ops(self, post_ops: Sequence[PostOp], post_args: Sequence[SSAValue]) -> QConv2DOp:
        return self.requantized(
            self.dst_scale, self.dst_zero_point, tensor_type(self.result), post_ops, post_args
        )

    def requantized(
        self,
        dst_scale: SSAValue,
        dst_zero_point: SSAValue,
        result_type: TensorType,
        post_ops: Sequence[PostOp],
        post_args: Sequence[SSAValue],
    ) -> QConv2DOp:
        """A new op (not inserted) like this one with another quantization of its result and
        other post-ops."""
        scales = (self.src_scale, self.src_zero_point, self.wei_scale, dst_scale, dst_zero_point)
        return QConv2DOp(
            self.src,
            self.wei,
            scales,
            self.bias,
            result_type,
            **window_of(self),
            post_ops=post_ops,
            post_args=post_args,
        )

    def verify_result_types(self) -> None:
        """The result keeps src's layout; its element type is checked by verify_op."""
        self.expect_layout("result", self.result, self.src)


@irdl_op_definition
class QMatmulOp(DnnOp):
    """An int8 matmul: ``post_ops(matmul(dequantize(src), dequantize(wei)) + bias)``, then
    quantized with ``dst_scale`` and ``dst_zero_point`` when they are given (the result i8
    or ui8), else the f32 value itself, in one op as oneDNN's int8 matmul computes it (s32
    accumulation, then f32 scales, bias and post-ops, one rounding to an 8-bit result).

    src [..., M, K] is i8 or ui8 with a per-tensor scale and zero point (run-time values:
    a dynamic quantization's are computed by the graph); wei [..., K, N] is i8 with a
    per-tensor scale (rank 0) or one per column (rank 1, [N]), symmetric unless a per-tensor
    ``wei_zero_point`` is given (weights that are an activation); the bias is f32 in real
    units, broadcast like matmul's (a row [N] or [1, N]). Post-ops are eltwise only. The
    batch dims broadcast as matmul's. A separate op rather than operands on ``dnn.matmul``
    for qconv2d's reason: the f32 passes leave an op they do not know alone."""

    name = "dnn.qmatmul"
    src = operand_def(TensorType)
    wei = operand_def(TensorType)
    src_scale = operand_def(TensorType)
    src_zero_point = operand_def(TensorType)
    wei_scale = operand_def(TensorType)
    wei_zero_point = opt_operand_def(TensorType)
    dst_scale = opt_operand_def(TensorType)
    dst_zero_point = opt_operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    result = result_def(TensorType)
    post_ops = prop_def(ArrayAttr[PostOpAttr], NO_POST_OPS)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(), AttrSizedOperandSegments(as_property=True))
    assembly_format = (
        "$src `,` $wei `,` $src_scale `,` $src_zero_point `,` $wei_scale "
        "(`wei_zero_point` `(` $wei_zero_point^ `:` type($wei_zero_point) `)`)? "
        "(`dst` `(` $dst_scale^ `,` $dst_zero_point `:` type($dst_scale) `,` "
        "type($dst_zero_point) `)`)? (`bias` `(` $bias^ `:` type($bias) `)`)? attr-dict `:` "
        "`(` type($src) `,` type($wei) `,` type($src_scale) `,` type($src_zero_point) `,` "
        "type($wei_scale) `)` `->` type($result)"
    )

    def __init__(
        self,
        src: SSAValue,
        wei: SSAValue,
        scales: tuple[SSAValue, SSAValue, SSAValue],
        *,
        wei_zero_point: SSAValue | None = None,
        dst: tuple[SSAValue, SSAValue] | None = None,
        bias: SSAValue | None = None,
        post_ops: Sequence[PostOp] = (),
    ) -> None:
        """``scales``: src_scale, src_zero_point, wei_scale; ``dst``: the result's scale
        and zero point (its type the zero point's), None for an f32 result."""
        if dst is None:
            element: Attribute = f32
        else:
            element = tensor_type(dst[1]).get_element_type()
        shape = shapes.matmul(
            shape_of(src), shape_of(wei), None if bias is None else shape_of(bias)
        )
        super().__init__(
            operands=[
                src,
                wei,
                *scales,
                [] if wei_zero_point is None else [wei_zero_point],
                *([[d] for d in dst] if dst else [[], []]),
                [] if bias is None else [bias],
            ],
            result_types=[_like(src, element, shape)],
            properties={"post_ops": post_ops_attr(post_ops)},
        )

    def verify_op(self) -> None:
        src, wei, result = (
            DATA_TYPES[tensor_type(v).get_element_type()] for v in (self.src, self.wei, self.result)
        )
        quantized = self.dst_scale is not None
        if (self.dst_zero_point is not None) != quantized:
            raise VerifyException("dst_scale and dst_zero_point are given together or not at all")
        wanted = QUANTIZED_TYPES if quantized else (DataType.F32,)
        if src not in QUANTIZED_TYPES or wei != DataType.S8 or result not in wanted:
            out = "i8 or ui8 (quantized)" if quantized else "f32 (no dst scale)"
            raise VerifyException(
                f"src must be i8 or ui8, wei i8 and the result {out}, got "
                f"{element_type_of(src)}, {element_type_of(wei)} and {element_type_of(result)}"
            )
        columns = shape_of(self.wei)[-1]
        for name in ("src_scale", "wei_scale", "dst_scale"):
            value = getattr(self, name)
            if value is None:
                continue
            per_column = name == "wei_scale"
            allowed = ((), (columns,)) if per_column else ((),)
            if tensor_type(value).get_element_type() != f32 or shape_of(value) not in allowed:
                extra = f" or [{columns}] (one per column)" if per_column else ""
                raise VerifyException(f"{name} must be f32 of rank 0 (per tensor){extra}")
        zero_points = (("src_zero_point", src), ("wei_zero_point", wei), ("dst_zero_point", result))
        for name, side in zero_points:
            value = getattr(self, name)
            if value is None:
                continue
            element = tensor_type(value).get_element_type()
            if shape_of(value) or element not in (element_type_of(side), i32):
                raise VerifyException(
                    f"{name} must be a rank-0 {element_type_of(side)} (or i32) tensor"
                )
        if self.bias is not None and tensor_type(self.bias).get_element_type() != f32:
            raise VerifyException("bias must be f32 (in real units)")
        if not all(isinstance(p, EltwisePostOp) for p in post_ops_of(self.post_ops)):
            raise VerifyException("post-ops must be eltwise")
        self.expect_result_shape(
            self.result,
            shapes.matmul(
                shape_of(self.src),
                shape_of(self.wei),
                None if self.bias is None else shape_of(self.bias),
            ),
        )

    def verify_result_types(self) -> None:
        """The result keeps src's layout; its element type is checked by verify_op."""
        self.expect_layout("result", self.result, self.src)


QUANT_OPS: tuple[type[DnnOp], ...] = (
    QuantizeOp,
    DequantizeOp,
    DynamicQuantizeOp,
    QConv2DOp,
    QMatmulOp,
)
"""The ops of this module, in docs/dialect.md order."""
