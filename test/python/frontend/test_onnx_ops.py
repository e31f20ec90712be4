"""Every ONNX op converter on tiny graphs: dnnc (reference interpreter) vs ONNX Runtime, and
the dnn op each one becomes."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import pytest
from onnx import TensorProto, helper
from onnx_helpers import (
    check,
    model,
    op_names,
    run_compiled,
    run_dnnc,
    run_onnxruntime,
    value_info,
)

import dnnc
from dnnc.core.diagnostics import DnncError
from dnnc.frontend.onnx import import_onnx

RNG = np.random.default_rng(0)


def rand(*shape: int, positive: bool = False) -> np.ndarray:
    values = RNG.standard_normal(shape).astype(np.float32)
    return np.abs(values) + 0.1 if positive else values


def ints(*values: int) -> np.ndarray:
    return np.asarray(values, dtype=np.int64)


@dataclass
class Case:
    """One graph: ``y = op(x, ...)``; ``emits`` must appear among the dnn ops."""

    id: str
    nodes: list
    inputs: dict
    emits: str
    initializers: dict = field(default_factory=dict)
    opset: int = 17


def node(op_type: str, inputs: list[str], **attrs) -> object:
    return helper.make_node(op_type, inputs, ["y"], name=f"{op_type.lower()}_0", **attrs)


X4 = {"x": rand(1, 4, 6, 6)}
X3 = {"x": rand(2, 3, 8)}

CASES = [
    # Conv
    Case(
        "conv",
        [node("Conv", ["x", "w", "b"], pads=[1, 1, 1, 1])],
        X4,
        "dnn.conv2d",
        {"w": rand(8, 4, 3, 3), "b": rand(8)},
    ),
    Case(
        "conv_1d",
        [node("Conv", ["x", "w", "b"], pads=[1, 2], strides=[2])],
        {"x": rand(2, 4, 11)},
        "dnn.conv2d",
        {"w": rand(6, 4, 3), "b": rand(6)},
    ),
    Case(
        "conv_3d",
        [node("Conv", ["x", "w", "b"], pads=[1, 1, 1, 1, 1, 1])],
        {"x": rand(1, 4, 5, 6, 7)},
        "dnn.conv2d",
        {"w": rand(8, 4, 3, 3, 3), "b": rand(8)},
    ),
    Case(
        "conv_3d_strided_dilated_grouped",
        [
            node(
                "Conv",
                ["x", "w"],
                group=2,
                strides=[2, 1, 2],
                dilations=[2, 1, 1],
                pads=[2, 0, 1, 0, 1, 1],
            )
        ],
        {"x": rand(2, 4, 9, 5, 6)},
        "dnn.conv2d",
        {"w": rand(6, 2, 3, 2, 3)},
    ),
    Case(
        "conv_grouped_stride_dilated",
        [node("Conv", ["x", "w"], group=2, strides=[2, 2], dilations=[2, 1])],
        X4,
        "dnn.conv2d",
        {"w": rand(6, 2, 2, 2)},
    ),
    Case(
        "conv_depthwise",
        [node("Conv", ["x", "w"], group=4, pads=[1, 1, 1, 1])],
        X4,
        "dnn.conv2d",
        {"w": rand(4, 1, 3, 3)},
    ),
    Case(
        "conv_asymmetric_pads",
        [node("Conv", ["x", "w"], pads=[0, 1, 2, 0])],
        X4,
        "dnn.conv2d",
        {"w": rand(3, 4, 3, 3)},
    ),
    Case(
        "conv_same_upper",
        [node("Conv", ["x", "w"], auto_pad="SAME_UPPER", strides=[2, 2])],
        {"x": rand(1, 4, 7, 7)},
        "dnn.conv2d",
        {"w": rand(3, 4, 4, 4)},
    ),
    Case(
        "conv_same_lower",
        [node("Conv", ["x", "w"], auto_pad="SAME_LOWER")],
        X4,
        "dnn.conv2d",
        {"w": rand(3, 4, 2, 2)},
    ),
    Case(
        "conv_valid",
        [node("Conv", ["x", "w"], auto_pad="VALID")],
        X4,
        "dnn.conv2d",
        {"w": rand(3, 4, 3, 3)},
    ),
    # ConvTranspose: oneDNN deconvolution; output_padding is a negative end pad
    Case(
        "conv_transpose_stride2_output_padding",
        [
            node(
                "ConvTranspose",
                ["x", "w", "b"],
                strides=[2, 2],
                pads=[1, 0, 1, 2],
                output_padding=[1, 0],
            )
        ],
        X4,
        "dnn.deconv2d",
        {"w": rand(4, 6, 3, 3), "b": rand(6)},
    ),
    Case(
        "conv_transpose_groups_dilated",
        [node("ConvTranspose", ["x", "w"], group=2, strides=[3, 2], dilations=[2, 1])],
        X4,
        "dnn.deconv2d",
        {"w": rand(4, 3, 3, 2)},
    ),
    Case(
        "conv_transpose_1d",
        [node("ConvTranspose", ["x", "w", "b"], strides=[3], pads=[1, 0], output_padding=[2])],
        X3,
        "dnn.deconv2d",
        {"w": rand(3, 5, 4), "b": rand(5)},
    ),
    Case(
        "conv_transpose_3d",
        [
            node(
                "ConvTranspose",
                ["x", "w", "b"],
                strides=[2, 2, 1],
                dilations=[2, 1, 1],
                pads=[1, 0, 1, 0, 2, 0],
                output_padding=[1, 1, 0],
                group=2,
            )
        ],
        {"x": rand(1, 4, 3, 4, 5)},
        "dnn.deconv2d",
        {"w": rand(4, 3, 3, 2, 3), "b": rand(6)},
    ),
    Case(
        "conv_transpose_3d_stride_1",
        [node("ConvTranspose", ["x", "w"])],
        {"x": rand(2, 3, 2, 3, 3)},
        "dnn.deconv2d",
        {"w": rand(3, 2, 2, 2, 2)},
    ),
    Case(
        "conv_transpose_output_shape",
        [node("ConvTranspose", ["x", "w"], strides=[2, 2], output_shape=[11, 12])],
        X4,
        "dnn.deconv2d",
        {"w": rand(4, 2, 3, 3)},
    ),
    Case(
        "conv_transpose_same_lower",
        [node("ConvTranspose", ["x", "w"], strides=[2, 2], auto_pad="SAME_LOWER")],
        X4,
        "dnn.deconv2d",
        {"w": rand(4, 2, 4, 4)},
    ),
    Case(
        "batch_norm",
        [node("BatchNormalization", ["x", "s", "b", "m", "v"], epsilon=1e-3)],
        X4,
        "dnn.batch_norm",
        {"s": rand(4), "b": rand(4), "m": rand(4), "v": rand(4, positive=True)},
    ),
    # activations
    *[
        Case(
            op.lower(),
            [node(op, ["x"], **attrs)],
            {"x": rand(2, 5, positive=positive)},
            "dnn.eltwise",
            opset=opset,
        )
        for op, attrs, positive, opset in [
            ("Relu", {}, False, 17),
            ("LeakyRelu", {"alpha": 0.2}, False, 17),
            ("Sigmoid", {}, False, 17),
            ("Tanh", {}, False, 17),
            ("Elu", {"alpha": 0.5}, False, 17),
            ("Sqrt", {}, True, 17),
            ("Exp", {}, False, 17),
            ("Log", {}, True, 17),
            ("Abs", {}, False, 17),
            ("Neg", {}, False, 17),
            ("HardSwish", {}, False, 17),
            ("HardSigmoid", {"alpha": 0.3, "beta": 0.4}, False, 17),
            ("Softplus", {}, False, 17),
            ("Mish", {}, False, 18),
            ("Gelu", {}, False, 20),
            ("Gelu", {"approximate": "tanh"}, False, 20),
        ]
    ],
    Case(
        "clip_both",
        [node("Clip", ["x", "lo", "hi"])],
        {"x": rand(3, 4)},
        "dnn.eltwise",
        {"lo": np.float32(-0.5), "hi": np.float32(0.5)},
    ),
    Case(
        "clip_min_only",
        [node("Clip", ["x", "lo"])],
        {"x": rand(3, 4)},
        "dnn.eltwise",
        {"lo": np.float32(0.1)},
    ),
    Case(
        "clip_max_only",
        [node("Clip", ["x", "", "hi"])],
        {"x": rand(3, 4)},
        "dnn.eltwise",
        {"hi": np.float32(0.1)},
    ),
    Case(
        "slice_negative_steps",
        [node("Slice", ["x", "s", "e", "a", "st"])],
        X3,
        "dnn.gather",
        {"s": ints(-1, 6), "e": ints(-(2**63), 0), "a": ints(0, 2), "st": ints(-1, -2)},
    ),
    Case(
        "div_int32_truncates_toward_zero",
        [node("Div", ["x", "d"])],
        {
            "x": np.array([[-7, 7, -8, 9], [2**30, -(2**30), 5, -1]], np.int32),
            "d": np.array([[2, -2, 3, 4], [3, 7, -5, 2]], np.int32),
        },
        "dnn.binary",
    ),
    Case(
        "div_int8_broadcast",
        [node("Div", ["x", "d"])],
        {"x": np.array([[-128, 127, -3], [100, -100, 1]], np.int8)},
        "dnn.binary",
        {"d": np.array([-3], np.int8)},
    ),
    Case(
        "clip_bounds_at_run_time",
        [node("Clip", ["x", "lo", "hi"])],
        {"x": rand(3, 4), "lo": np.array(-0.3, np.float32), "hi": np.array(0.4, np.float32)},
        "dnn.binary",
    ),
    Case(
        "clip_computed_max",
        [helper.make_node("ReduceMax", ["x"], ["m"], keepdims=0), node("Clip", ["x", "", "m"])],
        {"x": rand(3, 4)},
        "dnn.binary",
    ),
    # binary with broadcasting
    *[
        Case(
            f"{op.lower()}_broadcast",
            [node(op, ["x", "z"])],
            {"x": rand(2, 3, 4), "z": rand(3, 1)},
            "dnn.binary",
        )
        for op in ("Add", "Sub", "Mul", "Div", "Max", "Min")
    ],
    Case(
        "add_scalar_constant", [node("Add", ["x", "c"])], X3, "dnn.binary", {"c": np.float32(2.0)}
    ),
    Case(
        "max_three_inputs",
        [node("Max", ["x", "z", "c"])],
        {"x": rand(2, 3), "z": rand(3)},
        "dnn.binary",
        {"c": rand(2, 1)},
    ),
    Case("pow_square", [node("Pow", ["x", "e"])], X3, "dnn.eltwise", {"e": np.float32(2.0)}),
    Case(
        "pow_sqrt",
        [node("Pow", ["x", "e"])],
        {"x": rand(3, 4, positive=True)},
        "dnn.eltwise",
        {"e": np.float32(0.5)},
    ),
    Case("pow_cube", [node("Pow", ["x", "e"])], X3, "dnn.eltwise", {"e": np.float32(3.0)}),
    Case(
        "pow_tensor_exponent",
        [node("Pow", ["x", "e"])],
        {"x": rand(3, 8, positive=True)},
        "dnn.binary",
        {"e": rand(8)},
    ),
    # pooling
    Case(
        "max_pool",
        [node("MaxPool", ["x"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])],
        X4,
        "dnn.pool",
    ),
    Case(
        "max_pool_ceil_dilated",
        [
            node(
                "MaxPool", ["x"], kernel_shape=[2, 2], strides=[2, 2], dilations=[1, 2], ceil_mode=1
            )
        ],
        {"x": rand(1, 2, 7, 8)},
        "dnn.pool",
    ),
    Case(
        "avg_pool_exclude_pad",
        [node("AveragePool", ["x"], kernel_shape=[3, 3], pads=[1, 1, 1, 1])],
        X4,
        "dnn.pool",
    ),
    Case(
        "avg_pool_include_pad",
        [node("AveragePool", ["x"], kernel_shape=[3, 3], pads=[1, 0, 1, 0], count_include_pad=1)],
        X4,
        "dnn.pool",
    ),
    Case(
        "avg_pool_ceil",
        [node("AveragePool", ["x"], kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1)],
        {"x": rand(1, 2, 7, 7)},
        "dnn.pool",
    ),
    Case(
        "avg_pool_same_upper",
        [node("AveragePool", ["x"], kernel_shape=[2, 2], auto_pad="SAME_UPPER")],
        {"x": rand(1, 2, 5, 5)},
        "dnn.pool",
    ),
    Case("global_average_pool", [node("GlobalAveragePool", ["x"])], X4, "dnn.pool"),
    Case("global_average_pool_1d", [node("GlobalAveragePool", ["x"])], X3, "dnn.reduce"),
    Case("global_max_pool", [node("GlobalMaxPool", ["x"])], X4, "dnn.pool"),
    # shapes
    Case("flatten", [node("Flatten", ["x"], axis=2)], X4, "dnn.reshape"),
    Case("flatten_axis0", [node("Flatten", ["x"], axis=0)], X4, "dnn.reshape"),
    Case(
        "reshape_zero_and_minus_one",
        [node("Reshape", ["x", "s"])],
        X3,
        "dnn.reshape",
        {"s": ints(0, -1)},
    ),
    Case(
        "reshape_allowzero",
        [node("Reshape", ["x", "s"], allowzero=1)],
        X3,
        "dnn.reshape",
        {"s": ints(6, 4, 2)},
    ),
    Case(
        "squeeze_axes_input",
        [node("Squeeze", ["x", "a"])],
        {"x": rand(1, 3, 1, 2)},
        "dnn.reshape",
        {"a": ints(0, -2)},
    ),
    Case("squeeze_all_units", [node("Squeeze", ["x"])], {"x": rand(1, 3, 1, 2)}, "dnn.reshape"),
    Case(
        "squeeze_attribute",
        [node("Squeeze", ["x"], axes=[2])],
        {"x": rand(1, 3, 1, 2)},
        "dnn.reshape",
        opset=11,
    ),
    Case(
        "unsqueeze_axes_input",
        [node("Unsqueeze", ["x", "a"])],
        X3,
        "dnn.reshape",
        {"a": ints(0, -1)},
    ),
    Case("unsqueeze_attribute", [node("Unsqueeze", ["x"], axes=[1])], X3, "dnn.reshape", opset=12),
    Case("transpose_default", [node("Transpose", ["x"])], X3, "dnn.transpose"),
    Case("transpose_perm", [node("Transpose", ["x"], perm=[1, 0, 2])], X3, "dnn.transpose"),
    Case(
        "concat",
        [node("Concat", ["x", "z", "c"], axis=-1)],
        {"x": rand(2, 3), "z": rand(2, 1)},
        "dnn.concat",
        {"c": rand(2, 2)},
    ),
    Case(
        "slice_negative_clamped_steps",
        [node("Slice", ["x", "st", "en", "ax", "sp"])],
        X3,
        "dnn.slice",
        {"st": ints(-2, 1), "en": ints(100, -1), "ax": ints(2, 1), "sp": ints(1, 1)},
    ),
    Case(
        "slice_stepped_default_axes",
        [node("Slice", ["x", "st", "en"])],
        X3,
        "dnn.slice",
        {"st": ints(0, 0, -7), "en": ints(1, 3, 8)},
    ),
    Case(
        "slice_step_two",
        [node("Slice", ["x", "st", "en", "ax", "sp"])],
        X3,
        "dnn.slice",
        {"st": ints(1), "en": ints(8), "ax": ints(-1), "sp": ints(2)},
    ),
    # matrix products
    Case(
        "gemm_linear",
        [node("Gemm", ["x", "w", "b"], transB=1)],
        {"x": rand(2, 5)},
        "dnn.inner_product",
        {"w": rand(3, 5), "b": rand(3)},
    ),
    Case(
        "gemm_alpha_beta_untransposed",
        [node("Gemm", ["x", "w", "b"], alpha=0.5, beta=2.0)],
        {"x": rand(2, 5)},
        "dnn.inner_product",
        {"w": rand(5, 3), "b": rand(1, 3)},
    ),
    Case(
        "gemm_trans_a_matrix_bias",
        [node("Gemm", ["x", "w", "b"], transA=1, alpha=0.5, beta=2.0)],
        {"x": rand(5, 2)},
        "dnn.matmul",
        {"w": rand(5, 3), "b": rand(2, 3)},
    ),
    Case(
        "gemm_run_time_b",
        [node("Gemm", ["x", "z"], transB=1)],
        {"x": rand(2, 5), "z": rand(3, 5)},
        "dnn.matmul",
    ),
    Case("matmul_batched", [node("MatMul", ["x", "w"])], X3, "dnn.matmul", {"w": rand(8, 5)}),
    Case(
        "matmul_vector_lhs",
        [node("MatMul", ["v", "x"])],
        {"x": rand(2, 4, 3), "v": rand(4)},
        "dnn.matmul",
    ),
    Case(
        "matmul_vector_rhs",
        [node("MatMul", ["x", "v"])],
        {"x": rand(2, 3, 4), "v": rand(4)},
        "dnn.matmul",
    ),
    Case(
        "matmul_vectors_to_a_scalar",
        [node("MatMul", ["v", "x"])],
        {"x": rand(4), "v": rand(4)},
        "dnn.matmul",
    ),
    # normalization and softmax
    Case("softmax_last", [node("Softmax", ["x"])], X3, "dnn.softmax"),
    Case("softmax_axis1_opset13", [node("Softmax", ["x"], axis=1)], X3, "dnn.softmax"),
    Case("softmax_coerced_2d_opset11", [node("Softmax", ["x"])], X3, "dnn.softmax", opset=11),
    Case(
        "log_softmax_coerced_axis0_opset12",
        [node("LogSoftmax", ["x"], axis=0)],
        X3,
        "dnn.log_softmax",
        opset=12,
    ),
    Case("log_softmax", [node("LogSoftmax", ["x"], axis=-2)], X3, "dnn.log_softmax"),
    Case(
        "layer_norm",
        [node("LayerNormalization", ["x", "s", "b"], epsilon=1e-3)],
        X3,
        "dnn.layer_norm",
        {"s": rand(8), "b": rand(8)},
    ),
    Case(
        "layer_norm_two_axes_no_bias",
        [node("LayerNormalization", ["x", "s"], axis=1)],
        X3,
        "dnn.layer_norm",
        {"s": rand(3, 8)},
    ),
    # reductions
    Case("reduce_mean_attribute", [node("ReduceMean", ["x"], axes=[1, -1])], X3, "dnn.reduce"),
    Case(
        "reduce_mean_input_opset18",
        [node("ReduceMean", ["x", "a"], keepdims=0)],
        X3,
        "dnn.reduce",
        {"a": ints(1)},
        opset=18,
    ),
    Case("reduce_sum_input", [node("ReduceSum", ["x", "a"])], X3, "dnn.reduce", {"a": ints(0, 2)}),
    Case("reduce_max_all", [node("ReduceMax", ["x"])], X3, "dnn.reduce"),
    Case("reduce_min", [node("ReduceMin", ["x"], axes=[0])], X3, "dnn.reduce"),
    Case("reduce_mean_to_a_scalar", [node("ReduceMean", ["x"], keepdims=0)], X3, "dnn.reduce"),
    Case(
        "scalar_mean_subtracted",
        [helper.make_node("ReduceMean", ["x"], ["m"], keepdims=0), node("Sub", ["x", "m"])],
        X3,
        "dnn.binary",
    ),
    # Gather
    Case(
        "gather_embedding",
        [node("Gather", ["w", "ids"])],
        {"ids": np.array([[1, 0, 7], [-1, 3, 3]], np.int64)},
        "dnn.gather",
        {"w": rand(8, 5)},
    ),
    Case(  # one constant index: a slice (and a reshape dropping the axis), not a lookup
        "gather_scalar_index_axis1",
        [node("Gather", ["x", "i"], axis=1)],
        X3,
        "dnn.slice",
        {"i": np.array(0, np.int64)},
    ),
    Case(
        "gather_negative_scalar_index_last_axis",
        [node("Gather", ["x", "i"], axis=-1)],
        X3,
        "dnn.slice",
        {"i": np.array(-3, np.int64)},
    ),
    Case(  # a constant index vector stays a lookup
        "gather_constant_indices_axis1",
        [node("Gather", ["x", "i"], axis=1)],
        X3,
        "dnn.gather",
        {"i": np.array([2, 0], np.int64)},
    ),
    Case(
        "gather_elements_run_time_indices",
        [node("GatherElements", ["x", "i"], axis=2)],
        {"x": rand(2, 3, 5), "i": np.array([[[4, -1], [0, 2]], [[-5, 3], [1, 1]]], np.int64)},
        "dnn.gather_elements",
    ),
    Case(
        "gather_elements_axis0",
        [node("GatherElements", ["x", "i"])],
        {"x": rand(3, 4)},
        "dnn.gather_elements",
        {"i": np.array([[2, 0, 1, -1], [0, 0, 2, 1]], np.int64)},
    ),
    Case(  # a boolean mask's rows picked by constant indices, as the dynamo exporter writes
        "gather_nd_constant_indices",
        [node("GatherND", ["x", "i"])],
        {"x": rand(3, 4, 2)},
        "dnn.gather_nd",
        {"i": np.array([[[2, -1]], [[0, 1]]], np.int64)},
    ),
    Case(
        "gather_nd_batch_dims_run_time_indices",
        [node("GatherND", ["x", "i"], batch_dims=1)],
        {"x": rand(2, 3, 4), "i": np.array([[[2, 3], [0, -4]], [[1, 1], [-1, 0]]], np.int64)},
        "dnn.gather_nd",
    ),
    # LRN, Sum, Mean
    Case("lrn", [node("LRN", ["x"], size=5, alpha=2e-4, beta=0.6, bias=1.5)], X4, "dnn.lrn"),
    Case(
        "sum_of_three_broadcast",
        [node("Sum", ["x", "b", "c"])],
        X3,
        "dnn.binary",
        {"b": rand(8), "c": rand(3, 1)},
    ),
    Case(
        "sum_of_one_then_relu",
        [helper.make_node("Sum", ["x"], ["s"]), node("Relu", ["s"])],
        X3,
        "dnn.eltwise",
    ),
    Case("mean_of_two", [node("Mean", ["x", "b"])], X3, "dnn.eltwise", {"b": rand(3, 8)}),
    # casts and no-ops
    Case("cast_f16", [node("Cast", ["x"], to=TensorProto.FLOAT16)], X3, "dnn.cast"),
    Case(
        "cast_to_int64_and_bool",
        [
            helper.make_node("Cast", ["x"], ["i"], to=TensorProto.INT64),
            helper.make_node("Cast", ["i"], ["b"], to=TensorProto.BOOL),
            helper.make_node("Cast", ["b"], ["f"], to=TensorProto.FLOAT),
            node("Add", ["f", "x"]),
        ],
        {"x": np.round(rand(2, 3, 8) * 3)},
        "dnn.cast",
    ),
    Case(
        "int64_input_cast_and_added",
        [helper.make_node("Cast", ["ids"], ["f"], to=TensorProto.FLOAT), node("Add", ["f", "x"])],
        {"ids": np.arange(-12, 12, dtype=np.int64).reshape(3, 8), "x": rand(3, 8)},
        "dnn.cast",
    ),
    Case(
        "dropout_then_identity",
        [
            helper.make_node("Dropout", ["x"], ["d"]),
            helper.make_node("Identity", ["d"], ["i"]),
            node("Relu", ["i"]),
        ],
        X3,
        "dnn.eltwise",
    ),
    # CumSum: every exclusive / reverse combination on floats; RoBERTa's position ids
    # (cumsum of a padding mask, int32, then int64 arithmetic)
    *(
        Case(
            f"cumsum_axis{axis}_exclusive{exclusive}_reverse{reverse}",
            [node("CumSum", ["x", "a"], exclusive=exclusive, reverse=reverse)],
            X3,
            "dnn.cumsum",
            {"a": ints(axis)},
        )
        for axis in (1, -1)
        for exclusive in (0, 1)
        for reverse in (0, 1)
    ),
    Case(
        "cumsum_of_a_padding_mask",
        [
            helper.make_node("Not", ["pad"], ["keep"]),
            helper.make_node("Cast", ["keep"], ["m"], to=TensorProto.INT32),
            helper.make_node("CumSum", ["m", "a"], ["c"]),
            helper.make_node("Mul", ["c", "m"], ["p"]),
            helper.make_node("Cast", ["p"], ["y"], to=TensorProto.INT64),
        ],
        {"pad": np.array([[False] * 5 + [True] * 3, [False] * 8])},
        "dnn.cumsum",
        {"a": np.array(1, np.int32)},
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_converter_matches_onnxruntime(case: Case) -> None:
    made = model(case.nodes, case.inputs, initializers=case.initializers, opset=case.opset)
    module = check(made, case.inputs)
    assert case.emits in op_names(module)


def test_shape_subgraph_is_folded_into_a_constant_reshape() -> None:
    """Shape -> Gather -> Unsqueeze -> Concat -> Reshape (what exporters make of x.view(n, -1))."""
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "zero"], ["n"], axis=0),
        helper.make_node("Unsqueeze", ["n", "axes"], ["n1"]),
        helper.make_node("Concat", ["n1", "minus_one"], ["target"], axis=0),
        helper.make_node("Reshape", ["x", "target"], ["y"]),
    ]
    inits = {"zero": ints(0).reshape(()), "axes": ints(0), "minus_one": ints(-1)}
    module = check(model(nodes, X4, initializers=inits), X4)
    assert op_names(module) == ["dnn.reshape"]


@pytest.mark.parametrize("perm", [[1, 0, 2], [2, 1, 0], None], ids=["unit-dim", "swap", "default"])
def test_transpose_matches_onnxruntime(perm: list[int] | None) -> None:
    """[1, 5, 6]: moving the unit dim only is a reshape after dnn-canonicalize."""
    inputs = {"x": rand(1, 5, 6)}
    attributes = {} if perm is None else {"perm": perm}
    module = check(model([node("Transpose", ["x"], **attributes)], inputs), inputs)
    assert op_names(module) == ["dnn.transpose"]


def test_constant_node_feeding_a_binary_is_inline() -> None:
    nodes = [
        helper.make_node("Constant", [], ["c"], value_float=3.0),
        helper.make_node("Mul", ["x", "c"], ["y"]),
    ]
    module = check(model(nodes, X3), X3)
    assert op_names(module) == ["dnn.constant", "dnn.binary"]


def test_reduction_to_a_scalar_imports_with_rank_zero() -> None:
    made = model([node("ReduceMax", ["x"], keepdims=0)], X3)
    module = import_onnx(made)
    assert "-> tensor<f32>" in str(module)
    (ours,), (theirs,) = run_dnnc(module, X3), run_onnxruntime(made, X3)
    np.testing.assert_array_equal(ours, theirs)


def test_reduction_to_a_scalar_compiles() -> None:
    """A rank-0 result lowers as a 1-element memory (oneDNN has no rank 0)."""
    made = model([node("ReduceMax", ["x"], keepdims=0)], X3)
    (ours,) = run_compiled(import_onnx(made), X3)
    (theirs,) = run_onnxruntime(made, X3)
    assert ours.shape == ()
    np.testing.assert_array_equal(ours, theirs)


@dataclass
class Refusal:
    """One graph a converter must refuse, and the error it must name."""

    id: str
    nodes: list
    inputs: dict
    message: str
    initializers: dict = field(default_factory=dict)


REFUSALS = [
    Refusal(
        "gather_constant_index_out_of_range",
        [node("Gather", ["x", "i"], axis=1)],
        X3,
        "index 3 is out of range for axis 1 of size 3",
        {"i": np.array(3, np.int64)},
    ),
    Refusal(
        "conv_transpose_output_padding_beyond_stride",
        [node("ConvTranspose", ["x", "w"], dilations=[2, 2], output_padding=[1, 1])],
        X4,
        "supported are pads_begin >= 0 and pads_end > -strides [1, 1]",
        {"w": rand(4, 2, 3, 3)},
    ),
    Refusal(
        "maxpool_storage_order",
        [node("MaxPool", ["x"], kernel_shape=[2, 2], storage_order=1)],
        X4,
        "storage_order 1 (column-major indices) is not supported",
    ),
    Refusal(
        "avgpool_ceil_mode_counting_pad",
        [
            node(
                "AveragePool",
                ["x"],
                kernel_shape=[3, 3],
                strides=[2, 2],
                ceil_mode=1,
                count_include_pad=1,
            )
        ],
        X4,
        "ceil_mode with count_include_pad",
    ),
    Refusal(
        "batch_norm_training",
        [
            helper.make_node(
                "BatchNormalization",
                ["x", "s", "b", "m", "v"],
                ["y", "mean", "var"],
                training_mode=1,
            )
        ],
        X4,
        "training_mode 1 is not supported",
        {"s": rand(4), "b": rand(4), "m": rand(4), "v": rand(4, positive=True)},
    ),
    Refusal(
        "lrn_even_size", [node("LRN", ["x"], size=4)], X4, "size 4: only odd sizes are supported"
    ),
    Refusal(
        "cast_to_int16",
        [node("Cast", ["x"], to=TensorProto.INT16)],
        X3,
        "cast to TensorProto.INT16 of a run-time tensor",
    ),
    Refusal(
        "slice_zero_step",
        [node("Slice", ["x", "s", "e", "a", "st"])],
        X3,
        "'step' cannot be 0 for Slice",  # ONNX shape inference's words
        {"s": ints(7), "e": ints(0), "a": ints(2), "st": ints(0)},
    ),
    Refusal(
        "cumsum_axis_out_of_range",
        [node("CumSum", ["x", "a"])],
        X3,
        "axis 3 is out of range",
        {"a": ints(3)},
    ),
]


@pytest.mark.parametrize("refusal", REFUSALS, ids=[r.id for r in REFUSALS])
def test_converter_refuses(refusal: Refusal) -> None:
    made = model(refusal.nodes, refusal.inputs, initializers=refusal.initializers)
    with pytest.raises(DnncError, match=re.escape(refusal.message)):
        import_onnx(made)


def test_an_integer_division_by_zero_is_an_input_error() -> None:
    made = model([node("Div", ["x", "d"])], {"x": ints(7, 8), "d": ints(2, 0)})
    with pytest.raises(DnncError, match="integer division by zero"):
        run_compiled(import_onnx(made), {"x": ints(7, 8), "d": ints(2, 0)})


def test_a_gather_elements_index_out_of_range_is_an_input_error() -> None:
    made = model([node("GatherElements", ["x", "i"], axis=1)], {"x": rand(2, 3), "i": ints(0, 1)})
    made.graph.input[1].CopyFrom(value_info("i", np.zeros((2, 1), np.int64)))
    with pytest.raises(DnncError, match="index 3 is out of range for axis 1 of size 3"):
        run_compiled(import_onnx(made), {"x": rand(2, 3), "i": np.array([[1], [3]], np.int64)})


def test_a_gather_nd_index_out_of_range_is_an_input_error() -> None:
    made = model([node("GatherND", ["x", "i"])], {"x": rand(2, 3), "i": ints(0, 1)})
    made.graph.input[1].CopyFrom(value_info("i", np.zeros((1, 2), np.int64)))
    with pytest.raises(DnncError, match="index 3 is out of range for axis 1 of size 3"):
        run_compiled(import_onnx(made), {"x": rand(2, 3), "i": np.array([[1, 3]], np.int64)})


def test_a_gather_index_out_of_range_is_an_input_error() -> None:
    made = model(
        [node("Gather", ["w", "ids"])],
        {"ids": np.array([0, 8], np.int64)},
        initializers={"w": rand(8, 5)},
    )
    executable = dnnc.compile(import_onnx(made))
    with pytest.raises(
        dnnc.InputError,
        match="gather: index 8 is out of range for axis 0 of "
        r"size 8 \(valid: -8 to 7\)",
    ):
        executable.run([np.array([0, 8], np.int64)])


def test_a_float16_model_agrees_with_onnx_runtime() -> None:
    """A model stored in float16 (weights, biases, normalization parameters, the input), as
    converters write them: oneDNN computes it in f32 where it has no f16 kernel, and then
    reads every operand in f32, biases and layer-norm parameters included (an f16 bias on an
    f32 convolution had no oneDNN implementation: the compile failed). Within float16's
    precision of ONNX Runtime's result."""

    def half(*shape: int) -> np.ndarray:
        return (rand(*shape) / 2).astype(np.float16)

    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"]),
        helper.make_node("BatchNormalization", ["r", "s", "t", "m", "v"], ["n"]),
        helper.make_node("GlobalAveragePool", ["n"], ["p"]),
        helper.make_node("Flatten", ["p"], ["f"]),
        helper.make_node("Gemm", ["f", "fc_w", "fc_b"], ["g"]),
        helper.make_node("MatMul", ["g", "mm_w"], ["h"]),
        helper.make_node("Add", ["h", "mm_b"], ["a"]),
        helper.make_node("LayerNormalization", ["a", "ln_s", "ln_b"], ["y"]),
    ]
    initializers = {
        "w": half(8, 4, 3, 3),
        "b": half(8),
        "s": half(8),
        "t": half(8),
        "m": half(8),
        "v": (np.abs(rand(8)) + 0.5).astype(np.float16),
        "fc_w": half(8, 16),
        "fc_b": half(16),
        "mm_w": half(16, 12),
        "mm_b": half(12),
        "ln_s": half(12),
        "ln_b": half(12),
    }
    inputs = {"x": rand(2, 4, 6, 6).astype(np.float16)}
    made = model(nodes, inputs, initializers=initializers)
    (want,) = run_onnxruntime(made, inputs)
    (got,) = run_compiled(import_onnx(made), inputs)
    assert got.dtype == np.float16 and want.std() > 0.1
    np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), atol=2e-2)


def test_cumsum_of_int64_is_exact() -> None:
    """Integer running sums past 2^53, where float64 would round them: equal to ONNX
    Runtime's, compiled and interpreted."""
    inputs = {"x": np.array([[2**53, 1, 1, -3, 5]], np.int64)}
    made = model([node("CumSum", ["x", "a"], reverse=1)], inputs, initializers={"a": ints(1)})
    (want,) = run_onnxruntime(made, inputs)
    module = import_onnx(made)
    for (got,) in (run_dnnc(module, inputs), run_compiled(module, inputs)):
        np.testing.assert_array_equal(got, want)


def test_conv_transpose_of_dynamic_batch_and_image_sizes() -> None:
    """dnn.deconv2d infers ? dimensions: one executable serves each input shape."""
    made = model(
        [
            node(
                "ConvTranspose",
                ["x", "w"],
                strides=[2, 2],
                pads=[1, 1, 1, 1],
                output_padding=[1, 1],
            )
        ],
        X4,
        initializers={"w": rand(4, 3, 3, 3)},
    )
    made.graph.input[0].CopyFrom(value_info("x", ["n", 4, "h", "w"]))
    executable = dnnc.compile(made)
    for shape in [(1, 4, 5, 6), (3, 4, 7, 4)]:
        x = {"x": rand(*shape)}
        (ours,) = executable.run(x)
        (theirs,) = run_onnxruntime(made, x)
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("target", [[0, 0, 4, -1], [0, -1, 4, 3], [0, 0, 12]])
def test_reshape_copying_dynamic_dimensions(target: list[int]) -> None:
    """A 0 that copies a ? dimension is no second -1 (the heads split of an attention
    export): the result keeps ? where the copies and the inferred size are, and one
    executable serves each batch and sequence."""
    made = model(
        [node("Reshape", ["x", "t"])], {"x": rand(2, 5, 12)}, initializers={"t": ints(*target)}
    )
    made.graph.input[0].CopyFrom(value_info("x", ["batch", "seq", 12]))
    executable = dnnc.compile(made)
    for shape in [(1, 3, 12), (2, 7, 12)]:
        x = {"x": rand(*shape)}
        (ours,) = executable.run(x)
        (theirs,) = run_onnxruntime(made, x)
        np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("op", ["Conv", "ConvTranspose"])
def test_a_3d_window_over_a_dynamic_volume_is_refused(op: str) -> None:
    made = model(
        [node(op, ["x", "w"])], {"x": rand(1, 2, 3, 4, 4)}, initializers={"w": rand(2, 2, 2, 2, 2)}
    )
    made.graph.input[0].CopyFrom(value_info("x", ["n", 2, 3, 4, 4]))
    with pytest.raises(DnncError, match=f"3-D {op} needs a static input, got \\?x2x3x4x4"):
        import_onnx(made)


def test_slice_of_a_dynamic_axis_is_refused() -> None:
    made = model(
        [node("Slice", ["x", "s", "e", "a"])],
        X4,
        initializers={"s": ints(0), "e": ints(1), "a": ints(0)},
    )
    made.graph.input[0].CopyFrom(value_info("x", ["n", 4, 6, 6]))
    with pytest.raises(DnncError, match="slicing the dynamic axis 0 is not supported"):
        import_onnx(made)


def test_ceil_mode_of_a_dynamic_image_is_refused() -> None:
    made = model([node("MaxPool", ["x"], kernel_shape=[2, 2], ceil_mode=1)], X4)
    made.graph.input[0].CopyFrom(value_info("x", [1, 4, "h", "w"]))
    with pytest.raises(DnncError, match="ceil_mode needs static spatial dimensions"):
        import_onnx(made)


@pytest.mark.parametrize("fused", [False, True], ids=["plain", "with-fused-add"])
def test_matmul_over_an_empty_reduction_gives_zeros(fused: bool) -> None:
    """K = 0: ONNX (and ONNX Runtime) give zeros (plus what follows); oneDNN 3.2 writes no
    output at all, so dnnc runs the reference kernel. The output buffers are first filled
    with garbage by freeing arrays of 7s, which an unwritten output would show."""
    nodes = [helper.make_node("MatMul", ["a", "b"], ["m" if fused else "y"])]
    inputs = {"a": np.zeros((3, 0), np.float32), "b": np.zeros((0, 4), np.float32)}
    if fused:
        nodes.append(helper.make_node("Add", ["m", "c"], ["y"]))
        inputs["c"] = np.arange(12, dtype=np.float32).reshape(3, 4)
    made = model(nodes, inputs)
    check(made, inputs)
    executable = dnnc.compile(import_onnx(made))
    for _ in range(3):
        garbage = np.full((3, 4), 7.0, np.float32)
        del garbage
        assert np.array_equal(
            executable.run(list(inputs.values()))[0], inputs.get("c", np.zeros((3, 4), np.float32))
        )


@pytest.mark.parametrize(
    "to",
    [TensorProto.INT32, TensorProto.INT8, TensorProto.UINT8, TensorProto.INT64, TensorProto.BOOL],
)
@pytest.mark.parametrize("source", [np.float32, np.int32])
def test_casts_to_integers_are_onnx_runtime_s(to: int, source: type) -> None:
    """ONNX truncates toward zero (-2.7 -> -2; oneDNN's reorder would round to -3), and
    ONNX Runtime wraps narrower integers and gives NaN and out-of-range values the minimum
    of 32 (64) bits, as x86-64 C conversions do: dnnc, compiled, gives the same bits."""
    values = [-2.7, 2.7, -0.5, 0.5, 300.0, -300.0, 1e10, -1e10, 127.5, -128.5]
    if source is np.float32:
        values += [np.nan, np.inf, -np.inf]
    x = np.array(values).astype(source)
    made = model([node("Cast", ["x"], to=to)], {"x": x})
    (want,) = run_onnxruntime(made, {"x": x})
    (got,) = dnnc.compile(import_onnx(made)).run([x])
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("outputs", [("y",), ("y", "mean", "inv_std_dev")])
def test_layer_norm_statistics_are_computed_only_when_read(outputs: tuple[str, ...]) -> None:
    """Mean and InvStdDev come from a reduce chain beside dnn.layer_norm, emitted only when a
    node or the graph reads them (else nothing but the layer norm runs)."""
    ln = helper.make_node("LayerNormalization", ["x", "s", "b"], list(outputs), axis=-1)
    made = model([ln], X3, outputs=outputs, initializers={"s": rand(8), "b": rand(8)})
    module = check(made, X3)
    assert ("dnn.reduce" in op_names(module)) == (len(outputs) == 3)


def test_a_gather_of_one_index_of_a_dynamic_batch_stays_a_gather() -> None:
    """Slice + reshape needs every size at import: with a dynamic batch the constant index
    is looked up by dnn.gather, and each batch size gives ONNX Runtime's answer."""
    made = model([node("Gather", ["x", "i"], axis=1)], X3, initializers={"i": np.array(-1)})
    made.graph.input[0].CopyFrom(value_info("x", ["n", 3, 8]))
    module = import_onnx(made)
    assert "dnn.gather" in op_names(module) and "dnn.slice" not in op_names(module)
    executable = dnnc.compile(module)
    for batch in (1, 4):
        x = {"x": rand(batch, 3, 8)}
        (ours,) = executable.run(x)
        (theirs,) = run_onnxruntime(made, x)
        np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("op", ["GlobalAveragePool", "GlobalMaxPool"])
def test_global_pool_of_a_1x1_image_with_a_dynamic_batch(op: str) -> None:
    """A global pooling of a static image under a dynamic batch is a dnn.pool with the image
    as its window, as for a static batch: ResNet-18 on 32x32 images ends in a 1x1 feature
    map, where the dnn.reduce it imported as before failed for every batch (oneDNN's
    reduction refuses to reduce nothing: dnnl_invalid_arguments). Equal to ONNX Runtime at
    batches 1 and 3."""
    made = model([node(op, ["x"])], {"x": rand(1, 4, 1, 1)})
    made.graph.input[0].type.tensor_type.shape.dim[0].dim_param = "n"
    exe = dnnc.compile(made)
    for batch in (1, 3):
        inputs = {"x": rand(batch, 4, 1, 1)}
        (want,) = run_onnxruntime(made, inputs)
        (got,) = exe.run(inputs)
        np.testing.assert_allclose(got, want, rtol=1e-6)
