"""The dnn ops that compute: one oneDNN primitive each (see docs/dialect.md).

Assembly: enum properties print bare after the op name (``dnn.eltwise relu``), other
properties in the attribute dictionary, left out at their default value. Post-op anchors
take their post-op arguments as ``post_args(%p : type)`` after the main operands.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Self

from xdsl.dialects.builtin import (
    I64,
    BoolAttr,
    DenseArrayBase,
    Float32Type,
    FloatAttr,
    IntegerAttr,
    TensorType,
    f32,
    i64,
)
from xdsl.ir import SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    ParsePropInAttrDict,
    VarConstraint,
    base,
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

from dnnc.core import shapes
from dnnc.core.kinds import BinaryAlg, EltwiseAlg, LrnKind, PoolKind, PostOp, ReduceKind
from dnnc.core.layouts import Layout
from dnnc.dialects.dnn.attributes import (
    BinaryAlgAttr,
    EltwiseAlgAttr,
    LrnKindAttr,
    PoolKindAttr,
    ReduceKindAttr,
)
from dnnc.dialects.dnn.base import (
    ANCHOR_OPTIONS,
    FALSE,
    POST_ARGS_FORMAT,
    TRUE,
    DnnOp,
    PostOpAnchor,
    f32_attr,
    i64_array,
    int_of,
    ints,
    layout_of,
    post_ops_attr,
    result_like,
    shape_of,
    tensor_type,
    window_of,
    window_properties,
)

ONES = i64_array(1, 1)
ZEROS = i64_array(0, 0)


def _opt_shape(value: SSAValue | None) -> shapes.Shape | None:
    return None if value is None else shape_of(value)


def _optional(value: SSAValue | None) -> list[SSAValue]:
    """The operand list of an optional operand."""
    return [] if value is None else [value]


class _WindowedProduct(PostOpAnchor):
    """The operands, properties and verifier conv2d and deconv2d share; ``INFER_SHAPE`` is
    the shape function of the one or the other."""

    INFER_SHAPE: ClassVar[shapes.ConvShape]
    src = operand_def(TensorType)
    wei = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    post_args = var_operand_def(TensorType)
    result = result_def(TensorType)
    strides = prop_def(DenseArrayBase[I64], ONES)
    pads_begin = prop_def(DenseArrayBase[I64], ZEROS)
    pads_end = prop_def(DenseArrayBase[I64], ZEROS)
    dilations = prop_def(DenseArrayBase[I64], ONES)
    groups = prop_def(IntegerAttr[I64], IntegerAttr(1, i64))
    traits = traits_def(Pure())
    irdl_options = ANCHOR_OPTIONS
    assembly_format = (
        f"$src `,` $wei (`,` $bias^)? {POST_ARGS_FORMAT} attr-dict `:` "
        "`(` type($src) `,` type($wei) (`,` type($bias)^)? `)` `->` type($result)"
    )

    def __init__(
        self,
        src: SSAValue,
        wei: SSAValue,
        bias: SSAValue | None = None,
        *,
        strides: Sequence[int] = (1, 1),
        pads_begin: Sequence[int] = (0, 0),
        pads_end: Sequence[int] = (0, 0),
        dilations: Sequence[int] = (1, 1),
        groups: int = 1,
        post_ops: Sequence[PostOp] = (),
        post_args: Sequence[SSAValue] = (),
        result_type: TensorType | None = None,
    ):
        if result_type is None:
            shape = type(self).INFER_SHAPE(
                shape_of(src),
                shape_of(wei),
                _opt_shape(bias),
                strides=strides,
                pads_begin=pads_begin,
                pads_end=pads_end,
                dilations=dilations,
                groups=groups,
            )
            result_type = result_like(src, shape)
        super().__init__(
            operands=[src, wei, _optional(bias), post_args],
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

    def rebuilt(
        self,
        src: SSAValue,
        wei: SSAValue,
        bias: SSAValue | None,
        *,
        post_ops: Sequence[PostOp],
        post_args: Sequence[SSAValue],
        strides: Sequence[int] | None = None,
        result_type: TensorType | None = None,
    ) -> Self:
        """A new op of this class on other operands and post-ops, with this op's window and
        result type unless other `strides` and `result_type` are given."""
        window = window_of(self)
        if strides is not None:
            window["strides"] = strides
        return type(self)(
            src,
            wei,
            bias,
            **window,
            post_ops=post_ops,
            post_args=post_args,
            result_type=tensor_type(self.result) if result_type is None else result_type,
        )

    def with_post_ops(self, post_ops: Sequence[PostOp], post_args: Sequence[SSAValue]) -> Self:
        return self.rebuilt(self.src, self.wei, self.bias, post_ops=post_ops, post_args=post_args)

    def infer_result_shape(self) -> shapes.Shape:
        return type(self).INFER_SHAPE(
            shape_of(self.src),
            shape_of(self.wei),
            _opt_shape(self.bias),
            **window_of(self),
        )


@irdl_op_definition
class Conv2DOp(_WindowedProduct):
    """2-D convolution (oneDNN ``convolution_forward``, direct algorithm), then post-ops.

    dst[n, o, y, x] = bias[o] + sum over c in o's group, (ky, kx) of
        src[n, c, y*sh - pt + ky*dh, x*sw - pl + kx*dw] * wei[o, c mod C/groups, ky, kx]
    with zero padding. ``dilations`` count like PyTorch (1 = dense; oneDNN's value is one less).
    """

    name = "dnn.conv2d"
    INFER_SHAPE = staticmethod(shapes.conv2d)


@irdl_op_definition
class Deconv2DOp(_WindowedProduct):
    """2-D transposed convolution (oneDNN ``deconvolution_forward``, direct algorithm), then
    post-ops: the transpose of conv2d with the same weights.

    dst[n, o, y sh - pt + ky dh, x sw - pl + kx dw] += src[n, c, y, x] * wei[o, c mod C/groups,
    ky, kx] for c in o's group, plus bias[o]; positions outside [0, OH) x [0, OW) are dropped.
    ``pads_end`` may be negative down to 1 - stride: output rows no input reaches (ONNX's
    ``output_padding``), which hold the bias.
    """

    name = "dnn.deconv2d"
    INFER_SHAPE = staticmethod(shapes.deconv2d)


@irdl_op_definition
class MatmulOp(PostOpAnchor):
    """Batched matrix product (oneDNN ``matmul``), then bias and post-ops.

    dst[..., m, n] = sum_k lhs[..., m, k] * rhs[..., k, n] + bias (broadcast numpy-style);
    the batch dimensions broadcast numpy-style. The result is in lhs's layout or in any
    unblocked one (oneDNN writes dst through its strides: dnn-transpose-as-view).
    """

    name = "dnn.matmul"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    post_args = var_operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    irdl_options = ANCHOR_OPTIONS
    assembly_format = (
        f"$lhs `,` $rhs (`,` $bias^)? {POST_ARGS_FORMAT} attr-dict `:` "
        "`(` type($lhs) `,` type($rhs) (`,` type($bias)^)? `)` `->` type($result)"
    )

    RESULT_LAYOUT_EXCEPTION: ClassVar[str] = ", or be unblocked (a strided write)"

    def __init__(
        self,
        lhs: SSAValue,
        rhs: SSAValue,
        bias: SSAValue | None = None,
        *,
        post_ops: Sequence[PostOp] = (),
        post_args: Sequence[SSAValue] = (),
        result_type: TensorType | None = None,
    ):
        if result_type is None:
            shape = shapes.matmul(shape_of(lhs), shape_of(rhs), _opt_shape(bias))
            result_type = result_like(lhs, shape)
        super().__init__(
            operands=[lhs, rhs, _optional(bias), post_args],
            result_types=[result_type],
            properties={"post_ops": post_ops_attr(post_ops)},
        )

    def with_post_ops(self, post_ops: Sequence[PostOp], post_args: Sequence[SSAValue]) -> MatmulOp:
        return MatmulOp(
            self.lhs,
            self.rhs,
            self.bias,
            post_ops=post_ops,
            post_args=post_args,
            result_type=tensor_type(self.result),
        )

    def allows_result_layout(self, layout: Layout, src: TensorType) -> bool:
        return layout == layout_of(src) or not layout.is_blocked

    def infer_result_shape(self) -> shapes.Shape:
        return shapes.matmul(shape_of(self.lhs), shape_of(self.rhs), _opt_shape(self.bias))


@irdl_op_definition
class InnerProductOp(PostOpAnchor):
    """Fully connected layer (oneDNN ``inner_product_forward``), then bias and post-ops.

    dst[n, o] = bias[o] + sum over every index i of src[n, i...] * wei[o, i...].
    """

    name = "dnn.inner_product"
    src = operand_def(TensorType)
    wei = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    post_args = var_operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    irdl_options = ANCHOR_OPTIONS
    assembly_format = (
        f"$src `,` $wei (`,` $bias^)? {POST_ARGS_FORMAT} attr-dict `:` "
        "`(` type($src) `,` type($wei) (`,` type($bias)^)? `)` `->` type($result)"
    )

    def __init__(
        self,
        src: SSAValue,
        wei: SSAValue,
        bias: SSAValue | None = None,
        *,
        post_ops: Sequence[PostOp] = (),
        post_args: Sequence[SSAValue] = (),
        result_type: TensorType | None = None,
    ):
        if result_type is None:
            shape = shapes.inner_product(shape_of(src), shape_of(wei), _opt_shape(bias))
            result_type = result_like(src, shape)
        super().__init__(
            operands=[src, wei, _optional(bias), post_args],
            result_types=[result_type],
            properties={"post_ops": post_ops_attr(post_ops)},
        )

    def with_post_ops(
        self, post_ops: Sequence[PostOp], post_args: Sequence[SSAValue]
    ) -> InnerProductOp:
        return InnerProductOp(
            self.src,
            self.wei,
            self.bias,
            post_ops=post_ops,
            post_args=post_args,
            result_type=tensor_type(self.result),
        )

    def infer_result_shape(self) -> shapes.Shape:
        return shapes.inner_product(shape_of(self.src), shape_of(self.wei), _opt_shape(self.bias))


@irdl_op_definition
class PoolOp(PostOpAnchor):
    """2-D pooling (oneDNN ``pooling_forward``: ``pooling_max``, ``pooling_avg_include_padding``,
    ``pooling_avg_exclude_padding``), then post-ops.

    dst[n, c, y, x] = max or mean of src[n, c, y*sh - pt + ky*dh, x*sw - pl + kx*dw] over the
    kernel window; padding never wins a max and counts in the mean only for avg_include_pad.
    """

    name = "dnn.pool"
    src = operand_def(TensorType)
    post_args = var_operand_def(TensorType)
    result = result_def(TensorType)
    kind = prop_def(PoolKindAttr)
    kernel = prop_def(DenseArrayBase[I64])
    strides = prop_def(DenseArrayBase[I64], ONES)
    pads_begin = prop_def(DenseArrayBase[I64], ZEROS)
    pads_end = prop_def(DenseArrayBase[I64], ZEROS)
    dilations = prop_def(DenseArrayBase[I64], ONES)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        f"$kind $src {POST_ARGS_FORMAT} attr-dict `:` `(` type($src) `)` `->` type($result)"
    )

    def __init__(
        self,
        kind: PoolKind,
        src: SSAValue,
        *,
        kernel: Sequence[int],
        strides: Sequence[int] = (1, 1),
        pads_begin: Sequence[int] = (0, 0),
        pads_end: Sequence[int] = (0, 0),
        dilations: Sequence[int] = (1, 1),
        post_ops: Sequence[PostOp] = (),
        post_args: Sequence[SSAValue] = (),
        result_type: TensorType | None = None,
    ):
        if result_type is None:
            shape = shapes.pool(
                shape_of(src),
                kernel=kernel,
                strides=strides,
                pads_begin=pads_begin,
                pads_end=pads_end,
                dilations=dilations,
            )
            result_type = result_like(src, shape)
        super().__init__(
            operands=[src, post_args],
            result_types=[result_type],
            properties={
                "kind": PoolKindAttr(kind),
                "kernel": i64_array(*kernel),
                "strides": i64_array(*strides),
                "pads_begin": i64_array(*pads_begin),
                "pads_end": i64_array(*pads_end),
                "dilations": i64_array(*dilations),
                "post_ops": post_ops_attr(post_ops),
            },
        )

    def with_post_ops(self, post_ops: Sequence[PostOp], post_args: Sequence[SSAValue]) -> PoolOp:
        return PoolOp(
            self.kind.data,
            self.src,
            kernel=ints(self.kernel),
            strides=ints(self.strides),
            pads_begin=ints(self.pads_begin),
            pads_end=ints(self.pads_end),
            dilations=ints(self.dilations),
            post_ops=post_ops,
            post_args=post_args,
            result_type=tensor_type(self.result),
        )

    def infer_result_shape(self) -> shapes.Shape:
        return shapes.pool(
            shape_of(self.src),
            kernel=ints(self.kernel),
            strides=ints(self.strides),
            pads_begin=ints(self.pads_begin),
            pads_end=ints(self.pads_end),
            dilations=ints(self.dilations),
        )


@irdl_op_definition
class BatchNormOp(DnnOp):
    """Inference batch normalization with given statistics (oneDNN
    ``batch_normalization_forward`` with ``use_global_stats | use_scale | use_shift``).

    dst[n, c, ...] = scale[c] * (src[n, c, ...] - mean[c]) / sqrt(variance[c] + epsilon) + shift[c]
    """

    name = "dnn.batch_norm"
    src = operand_def(TensorType)
    scale = operand_def(TensorType)
    shift = operand_def(TensorType)
    mean = operand_def(TensorType)
    variance = operand_def(TensorType)
    result = result_def(TensorType)
    epsilon = prop_def(FloatAttr[Float32Type], f32_attr(1e-5))
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$src `,` $scale `,` $shift `,` $mean `,` $variance attr-dict `:` "
        "functional-type(operands, results)"
    )

    def __init__(
        self,
        src: SSAValue,
        scale: SSAValue,
        shift: SSAValue,
        mean: SSAValue,
        variance: SSAValue,
        *,
        epsilon: float = 1e-5,
        result_type: TensorType | None = None,
    ):
        if result_type is None:
            stats = (scale, shift, mean, variance)
            result_type = result_like(src, shapes.batch_norm(*map(shape_of, (src, *stats))))
        super().__init__(
            operands=[src, scale, shift, mean, variance],
            result_types=[result_type],
            properties={"epsilon": f32_attr(epsilon)},
        )

    def verify_op(self) -> None:
        inferred = shapes.batch_norm(
            shape_of(self.src),
            shape_of(self.scale),
            shape_of(self.shift),
            shape_of(self.mean),
            shape_of(self.variance),
        )
        self.expect_result_shape(self.result, inferred)


@irdl_op_definition
class LayerNormOp(DnnOp):
    """Layer normalization over the last axis (oneDNN ``layer_normalization_forward``,
    inference, statistics computed; ``use_scale`` / ``use_shift`` when present).

    dst[..., c] = scale[c] * (src[..., c] - mu) / sqrt(sigma^2 + epsilon) + shift[c], with mu and
    sigma^2 the mean and variance of src[..., :]; scale defaults to 1 and shift to 0.
    """

    name = "dnn.layer_norm"
    T: ClassVar = VarConstraint("T", base(TensorType))
    src = operand_def(T)
    scale = opt_operand_def(TensorType)
    shift = opt_operand_def(TensorType)
    result = result_def(T)
    epsilon = prop_def(FloatAttr[Float32Type], f32_attr(1e-5))
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(), AttrSizedOperandSegments(as_property=True))
    assembly_format = (
        "$src (`scale` `(` $scale^ `:` type($scale) `)`)? "
        "(`shift` `(` $shift^ `:` type($shift) `)`)? attr-dict `:` type($src)"
    )

    def __init__(
        self,
        src: SSAValue,
        scale: SSAValue | None = None,
        shift: SSAValue | None = None,
        *,
        epsilon: float = 1e-5,
    ):
        super().__init__(
            operands=[src, _optional(scale), _optional(shift)],
            result_types=[src.type],
            properties={"epsilon": f32_attr(epsilon)},
        )

    def verify_op(self) -> None:
        inferred = shapes.layer_norm(
            shape_of(self.src), _opt_shape(self.scale), _opt_shape(self.shift)
        )
        self.expect_result_shape(self.result, inferred)


@irdl_op_definition
class LrnOp(DnnOp):
    """Local response normalization (oneDNN ``lrn_forward``: ``lrn_across_channels``,
    ``lrn_within_channel``).

    dst = src / (k + alpha / size * sum of src^2 over the size-wide window) ^ beta, the window
    spanning channels (across_channels) or a size x size spatial patch (within_channel).
    """

    name = "dnn.lrn"
    T: ClassVar = VarConstraint("T", base(TensorType))
    src = operand_def(T)
    result = result_def(T)
    kind = prop_def(LrnKindAttr)
    size = prop_def(IntegerAttr[I64])
    alpha = prop_def(FloatAttr[Float32Type], f32_attr(1e-4))
    beta = prop_def(FloatAttr[Float32Type], f32_attr(0.75))
    k = prop_def(FloatAttr[Float32Type], f32_attr(1.0))
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$kind $src attr-dict `:` type($src)"

    def __init__(
        self,
        kind: LrnKind,
        src: SSAValue,
        *,
        size: int,
        alpha: float = 1e-4,
        beta: float = 0.75,
        k: float = 1.0,
    ):
        super().__init__(
            operands=[src],
            result_types=[src.type],
            properties={
                "kind": LrnKindAttr(kind),
                "size": IntegerAttr(size, i64),
                "alpha": f32_attr(alpha),
                "beta": f32_attr(beta),
                "k": f32_attr(k),
            },
        )

    def verify_op(self) -> None:
        self.expect_result_shape(
            self.result, shapes.lrn(shape_of(self.src), size=int_of(self.size))
        )


class _AxisOp(DnnOp):
    """Softmax and log-softmax: one op on one axis, the shape unchanged."""

    T: ClassVar = VarConstraint("T", base(TensorType))
    src = operand_def(T)
    result = result_def(T)
    axis = prop_def(IntegerAttr[I64])
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$src attr-dict `:` type($src)"

    def __init__(self, src: SSAValue, *, axis: int):
        super().__init__(
            operands=[src], result_types=[src.type], properties={"axis": IntegerAttr(axis, i64)}
        )

    def verify_op(self) -> None:
        inferred = shapes.softmax(shape_of(self.src), axis=int_of(self.axis))
        self.expect_result_shape(self.result, inferred)


@irdl_op_definition
class SoftmaxOp(_AxisOp):
    """Softmax along ``axis`` (oneDNN ``softmax_forward``, ``softmax_accurate``).

    dst = exp(src - max) / sum(exp(src - max)), max and sum taken along the axis.
    """

    name = "dnn.softmax"


@irdl_op_definition
class LogSoftmaxOp(_AxisOp):
    """Log-softmax along ``axis`` (oneDNN ``softmax_forward``, ``softmax_log``).

    dst = src - max - log(sum(exp(src - max))), max and sum taken along the axis.
    """

    name = "dnn.log_softmax"


@irdl_op_definition
class ReduceOp(DnnOp):
    """Reduction over ``axes`` (oneDNN ``reduction``: ``reduction_sum``, ``_mean``, ``_max``,
    ``_min``, ``_mul``).

    Each reduced axis becomes 1 (keep_dims) or is dropped; the values are combined by kind.
    """

    name = "dnn.reduce"
    src = operand_def(TensorType)
    result = result_def(TensorType)
    kind = prop_def(ReduceKindAttr)
    axes = prop_def(DenseArrayBase[I64])
    keep_dims = prop_def(BoolAttr, TRUE)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$kind $src attr-dict `:` functional-type($src, $result)"

    def __init__(
        self,
        kind: ReduceKind,
        src: SSAValue,
        *,
        axes: Sequence[int],
        keep_dims: bool = True,
        result_type: TensorType | None = None,
    ):
        if result_type is None:
            shape = shapes.reduce(shape_of(src), axes=axes, keep_dims=keep_dims)
            result_type = result_like(src, shape)
        super().__init__(
            operands=[src],
            result_types=[result_type],
            properties={
                "kind": ReduceKindAttr(kind),
                "axes": i64_array(*axes),
                "keep_dims": IntegerAttr.from_bool(keep_dims),
            },
        )

    def verify_op(self) -> None:
        inferred = shapes.reduce(
            shape_of(self.src), axes=ints(self.axes), keep_dims=bool(int_of(self.keep_dims))
        )
        self.expect_result_shape(self.result, inferred)


@irdl_op_definition
class CumSumOp(DnnOp):
    """Running sums along ``axis`` (ONNX CumSum): result[i] = src[0] + ... + src[i] on that
    axis; ``exclusive`` leaves src[i] out (result[0] = 0), ``reverse`` sums from the end.
    Integers wrap on overflow, floats accumulate in order (no oneDNN primitive: reference
    kernel only)."""

    name = "dnn.cumsum"
    src = operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr[I64])
    exclusive = prop_def(BoolAttr, FALSE)
    reverse = prop_def(BoolAttr, FALSE)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$src attr-dict `:` functional-type($src, $result)"

    def __init__(self, src: SSAValue, *, axis: int, exclusive: bool = False, reverse: bool = False):
        super().__init__(
            operands=[src],
            result_types=[result_like(src, shapes.cumsum(shape_of(src), axis=axis))],
            properties={
                "axis": IntegerAttr(axis, i64),
                "exclusive": IntegerAttr.from_bool(exclusive),
                "reverse": IntegerAttr.from_bool(reverse),
            },
        )

    def verify_op(self) -> None:
        inferred = shapes.cumsum(shape_of(self.src), axis=int_of(self.axis))
        self.expect_result_shape(self.result, inferred)


@irdl_op_definition
class EltwiseOp(DnnOp):
    """Element-wise function (oneDNN ``eltwise_forward``; algorithms and the meaning of
    ``alpha`` / ``beta`` as in docs/dialect.md): dst[i] = alg(src[i]; alpha, beta).
    """

    name = "dnn.eltwise"
    T: ClassVar = VarConstraint("T", base(TensorType))
    src = operand_def(T)
    result = result_def(T)
    alg = prop_def(EltwiseAlgAttr)
    alpha = prop_def(FloatAttr[Float32Type], f32_attr(0.0))
    beta = prop_def(FloatAttr[Float32Type], f32_attr(0.0))
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$alg $src attr-dict `:` type($src)"

    def __init__(self, alg: EltwiseAlg, src: SSAValue, *, alpha: float = 0.0, beta: float = 0.0):
        super().__init__(
            operands=[src],
            result_types=[src.type],
            properties={
                "alg": EltwiseAlgAttr(alg),
                "alpha": f32_attr(alpha),
                "beta": f32_attr(beta),
            },
        )

    def verify_op(self) -> None:
        self.expect_result_shape(self.result, shapes.eltwise(shape_of(self.src)))


@irdl_op_definition
class BinaryOp(PostOpAnchor):
    """Element-wise binary op with numpy broadcasting (oneDNN ``binary``: ``binary_add``,
    ``_sub``, ``_mul``, ``_div``, ``_max``, ``_min``), then post-ops.

    dst[i] = lhs[i] <alg> rhs[i], both broadcast to the result shape.
    """

    name = "dnn.binary"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    post_args = var_operand_def(TensorType)
    result = result_def(TensorType)
    alg = prop_def(BinaryAlgAttr)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        f"$alg $lhs `,` $rhs {POST_ARGS_FORMAT} attr-dict `:` "
        "`(` type($lhs) `,` type($rhs) `)` `->` type($result)"
    )

    def __init__(
        self,
        alg: BinaryAlg,
        lhs: SSAValue,
        rhs: SSAValue,
        *,
        post_ops: Sequence[PostOp] = (),
        post_args: Sequence[SSAValue] = (),
        result_type: TensorType | None = None,
    ):
        if result_type is None:
            result_type = result_like(lhs, shapes.binary(shape_of(lhs), shape_of(rhs)))
        super().__init__(
            operands=[lhs, rhs, post_args],
            result_types=[result_type],
            properties={"alg": BinaryAlgAttr(alg), "post_ops": post_ops_attr(post_ops)},
        )

    def with_post_ops(self, post_ops: Sequence[PostOp], post_args: Sequence[SSAValue]) -> BinaryOp:
        return BinaryOp(
            self.alg.data,
            self.lhs,
            self.rhs,
            post_ops=post_ops,
            post_args=post_args,
            result_type=tensor_type(self.result),
        )

    def infer_result_shape(self) -> shapes.Shape:
        return shapes.binary(shape_of(self.lhs), shape_of(self.rhs))


@irdl_op_definition
class SumOp(DnnOp):
    """Scaled sum of same-typed tensors (oneDNN ``sum``): dst = sum_i scales[i] * inputs[i].

    ``scales`` absent means every scale is 1.0.
    """

    name = "dnn.sum"
    T: ClassVar = VarConstraint("T", base(TensorType))
    inputs = var_operand_def(T)
    result = result_def(T)
    scales = opt_prop_def(DenseArrayBase[Float32Type])
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$inputs attr-dict `:` type($result)"

    def __init__(self, inputs: Sequence[SSAValue], *, scales: Sequence[float] | None = None):
        super().__init__(
            operands=[inputs],
            result_types=[inputs[0].type],
            properties={
                "scales": None if scales is None else DenseArrayBase.from_list(f32, scales)
            },
        )

    def verify_op(self) -> None:
        scales = None if self.scales is None else list(self.scales.get_values())
        inferred = shapes.sum([shape_of(v) for v in self.inputs], scales=scales)
        self.expect_result_shape(self.result, inferred)


COMPUTE_OPS: tuple[type[DnnOp], ...] = (
    Conv2DOp,
    Deconv2DOp,
    MatmulOp,
    InnerProductOp,
    PoolOp,
    BatchNormOp,
    LayerNormOp,
    LrnOp,
    SoftmaxOp,
    LogSoftmaxOp,
    ReduceOp,
    CumSumOp,
    EltwiseOp,
    BinaryOp,
    SumOp,
)
"""The compute ops, in docs/dialect.md order."""
