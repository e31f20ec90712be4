"""The onnx package's own node tests (onnx.backend.test) on dnnc's ONNX backend, for the ops
the importer supports; every excluded test says why."""

from __future__ import annotations

import onnx.backend.test
from dnnc.onnx_backend import DnncBackend

INCLUDED_OPS = (
    "abs", "add", "and", "equal", "expand", "greater", "greater_equal", "isinf", "isnan",
    "less", "less_equal", "not", "or", "where", "xor", "averagepool", "batchnorm", "cast", "clip", "concat", "conv", "div", "dropout",
    "elu", "exp", "flatten", "gather", "gelu", "gemm", "globalaveragepool", "globalmaxpool", "hardsigmoid",
    "hardswish", "identity", "layer_normalization", "leakyrelu", "log", "logsoftmax", "lrn",
    "matmul", "max", "maxpool", "mean", "min", "mish", "mul", "neg", "pow", "reduce_max", "reduce_mean",
    "reduce_min", "reduce_sum", "relu", "reshape", "shape", "sigmoid", "slice", "softmax",
    "softplus", "sqrt", "squeeze", "sub", "sum", "tanh", "transpose", "unsqueeze",
)
"""Test-name stems (``test_<stem>...``) of the supported ops."""

EXCLUDED: dict[str, tuple[str, ...]] = {
    "function-body expansions use ops outside the importer (Reciprocal, CastLike, Less, Where)": (
        "clip_default_int8_max_expanded", "clip_default_int8_min_expanded",
        "clip_default_max_expanded", "clip_default_min_expanded", "clip_example_expanded",
        "clip_expanded", "clip_inbounds_expanded", "clip_min_greater_than_max_expanded",
        "clip_outbounds_expanded", "clip_splitbounds_expanded", "elu_default_expanded_ver18",
        "elu_example_expanded_ver18", "elu_expanded_ver18", "gelu_default_1_expanded",
        "gelu_default_2_expanded", "gelu_tanh_1_expanded", "gelu_tanh_2_expanded",
        "hardsigmoid_default_expanded_ver18", "hardsigmoid_example_expanded_ver18",
        "hardsigmoid_expanded_ver18", "layer_normalization_2d_axis0_expanded",
        "layer_normalization_2d_axis0_expanded_ver18", "layer_normalization_2d_axis1_expanded",
        "layer_normalization_2d_axis1_expanded_ver18",
        "layer_normalization_2d_axis_negative_1_expanded",
        "layer_normalization_2d_axis_negative_1_expanded_ver18",
        "layer_normalization_2d_axis_negative_2_expanded",
        "layer_normalization_2d_axis_negative_2_expanded_ver18",
        "layer_normalization_3d_axis0_epsilon_expanded",
        "layer_normalization_3d_axis0_epsilon_expanded_ver18",
        "layer_normalization_3d_axis1_epsilon_expanded",
        "layer_normalization_3d_axis1_epsilon_expanded_ver18",
        "layer_normalization_3d_axis2_epsilon_expanded",
        "layer_normalization_3d_axis2_epsilon_expanded_ver18",
        "layer_normalization_3d_axis_negative_1_epsilon_expanded",
        "layer_normalization_3d_axis_negative_1_epsilon_expanded_ver18",
        "layer_normalization_3d_axis_negative_2_epsilon_expanded",
        "layer_normalization_3d_axis_negative_2_epsilon_expanded_ver18",
        "layer_normalization_3d_axis_negative_3_epsilon_expanded",
        "layer_normalization_3d_axis_negative_3_epsilon_expanded_ver18",
        "layer_normalization_4d_axis0_expanded", "layer_normalization_4d_axis0_expanded_ver18",
        "layer_normalization_4d_axis1_expanded", "layer_normalization_4d_axis1_expanded_ver18",
        "layer_normalization_4d_axis2_expanded", "layer_normalization_4d_axis2_expanded_ver18",
        "layer_normalization_4d_axis3_expanded", "layer_normalization_4d_axis3_expanded_ver18",
        "layer_normalization_4d_axis_negative_1_expanded",
        "layer_normalization_4d_axis_negative_1_expanded_ver18",
        "layer_normalization_4d_axis_negative_2_expanded",
        "layer_normalization_4d_axis_negative_2_expanded_ver18",
        "layer_normalization_4d_axis_negative_3_expanded",
        "layer_normalization_4d_axis_negative_3_expanded_ver18",
        "layer_normalization_4d_axis_negative_4_expanded",
        "layer_normalization_4d_axis_negative_4_expanded_ver18",
        "layer_normalization_default_axis_expanded",
        "layer_normalization_default_axis_expanded_ver18", "leakyrelu_default_expanded",
        "leakyrelu_example_expanded", "leakyrelu_expanded", "relu_expanded_ver18",
        "softplus_example_expanded_ver18", "softplus_expanded_ver18",
    ),
    "element types dnn has no tensors of (16-bit ints, unsigned 32/64-bit)": (
        "equal_int16", "equal_uint16", "equal_uint32", "equal_uint64", "greater_equal_int16",
        "greater_equal_int16_expanded", "greater_equal_uint16", "greater_equal_uint16_expanded",
        "greater_equal_uint32", "greater_equal_uint32_expanded", "greater_equal_uint64",
        "greater_equal_uint64_expanded", "greater_int16", "greater_uint16", "greater_uint32",
        "greater_uint64", "less_equal_int16", "less_equal_int16_expanded", "less_equal_uint16",
        "less_equal_uint16_expanded", "less_equal_uint32", "less_equal_uint32_expanded",
        "less_equal_uint64", "less_equal_uint64_expanded", "less_int16", "less_uint16",
        "less_uint32", "less_uint64",
        "add_int16", "add_uint16", "add_uint32", "add_uint64", "div_int16", "div_uint16",
        "div_uint32", "div_uint64", "max_int16", "max_int64", "max_uint16", "max_uint32",
        "max_uint64", "min_int16", "min_int64", "min_uint16", "min_uint32", "min_uint64",
        "mul_int16", "mul_uint16", "mul_uint32", "mul_uint64", "pow_types_int64_float32",
        "pow_types_int64_int64", "sub_int16", "sub_uint16", "sub_uint32", "sub_uint64",
    ),
    "integer Div truncates (ONNX) but oneDNN rounds: the importer refuses it": (
        "div_int32_trunc", "div_int8", "div_uint8",
    ),
    "oneDNN 3.2 has no f16 binary max/min on this CPU": (
        "max_float16", "min_float16",
    ),
    "element types dnn has no tensors of (f64, 2-, 4-, 8-bit floats, sub-byte ints)": (
        "max_float64", "min_float64", "cast_DOUBLE_to_FLOAT16", "cast_DOUBLE_to_FLOAT",
        "cast_FLOAT16_to_DOUBLE", "cast_FLOAT16_to_FLOAT4E2M1", "cast_FLOAT16_to_FLOAT8E4M3FNUZ",
        "cast_FLOAT16_to_FLOAT8E4M3FN", "cast_FLOAT16_to_FLOAT8E5M2FNUZ",
        "cast_FLOAT16_to_FLOAT8E5M2", "cast_FLOAT16_to_INT2", "cast_FLOAT16_to_INT4",
        "cast_FLOAT16_to_UINT2", "cast_FLOAT16_to_UINT4", "cast_FLOAT4E2M1_to_FLOAT16",
        "cast_FLOAT4E2M1_to_FLOAT", "cast_FLOAT8E4M3FNUZ_to_FLOAT16",
        "cast_FLOAT8E4M3FNUZ_to_FLOAT", "cast_FLOAT8E4M3FN_to_FLOAT16",
        "cast_FLOAT8E4M3FN_to_FLOAT", "cast_FLOAT8E5M2FNUZ_to_FLOAT16",
        "cast_FLOAT8E5M2FNUZ_to_FLOAT", "cast_FLOAT8E5M2_to_FLOAT16", "cast_FLOAT8E5M2_to_FLOAT",
        "cast_FLOAT_to_DOUBLE", "cast_FLOAT_to_FLOAT4E2M1", "cast_FLOAT_to_FLOAT8E4M3FNUZ",
        "cast_FLOAT_to_FLOAT8E4M3FN", "cast_FLOAT_to_FLOAT8E5M2FNUZ", "cast_FLOAT_to_FLOAT8E5M2",
        "cast_FLOAT_to_INT2", "cast_FLOAT_to_INT4", "cast_FLOAT_to_UINT2", "cast_FLOAT_to_UINT4",
        "cast_INT2_to_FLOAT16", "cast_INT2_to_FLOAT", "cast_INT2_to_INT8", "cast_INT4_to_FLOAT16",
        "cast_INT4_to_FLOAT", "cast_INT4_to_INT8", "cast_UINT2_to_FLOAT16", "cast_UINT2_to_FLOAT",
        "cast_UINT2_to_UINT8", "cast_UINT4_to_FLOAT16", "cast_UINT4_to_FLOAT",
        "cast_UINT4_to_UINT8", "cast_e8m0_FLOAT16_to_FLOAT8E8M0",
        "cast_e8m0_FLOAT8E8M0_to_FLOAT16", "cast_e8m0_FLOAT8E8M0_to_FLOAT",
        "cast_e8m0_FLOAT_to_FLOAT8E8M0", "cast_no_saturate_FLOAT16_to_FLOAT8E4M3FNUZ",
        "cast_no_saturate_FLOAT16_to_FLOAT8E4M3FN", "cast_no_saturate_FLOAT16_to_FLOAT8E5M2FNUZ",
        "cast_no_saturate_FLOAT16_to_FLOAT8E5M2", "cast_no_saturate_FLOAT_to_FLOAT8E4M3FNUZ",
        "cast_no_saturate_FLOAT_to_FLOAT8E4M3FN", "cast_no_saturate_FLOAT_to_FLOAT8E5M2FNUZ",
        "cast_no_saturate_FLOAT_to_FLOAT8E5M2",
    ),
    "oneDNN's eltwise clip takes no int8 source": (
        "clip_default_int8_inbounds", "clip_default_int8_max", "clip_default_int8_min",
    ),
    "a run-time (tensor) exponent: Pow needs a constant scalar": (
        "pow_bcast_array", "pow", "pow_example", "pow_types_float32_int32",
        "pow_types_float32_int64", "pow_types_float32_uint32", "pow_types_float32_uint64",
        "pow_types_int32_float32", "pow_types_int32_int32",
    ),
    "BatchNormalization's training mode (running statistics): dnn computes inference": (
        "batchnorm_epsilon_training_mode", "batchnorm_example_training_mode",
    ),
    "bool inputs, reductions over a zero-sized axis, ReduceSumSquare": (
        "reduce_max_bool_inputs", "reduce_max_empty_set_bool", "reduce_max_empty_set",
        "reduce_min_bool_inputs", "reduce_min_empty_set",
        "reduce_sum_square_default_axes_keepdims_example",
        "reduce_sum_square_default_axes_keepdims_random",
        "reduce_sum_square_do_not_keepdims_example", "reduce_sum_square_do_not_keepdims_random",
        "reduce_sum_square_empty_set", "reduce_sum_square_keepdims_example",
        "reduce_sum_square_keepdims_random", "reduce_sum_square_negative_axes_keepdims_example",
        "reduce_sum_square_negative_axes_keepdims_random",
    ),
    "negative Slice steps (dnn.slice steps are >= 1)": (
        "slice_neg_steps",
    ),
    "a rank-0 result: the lowering has no rank-0 memories": (
        "matmul_1d_1d",
    ),
    "strings (numbers only)": (
        "equal_string_broadcast", "equal_string",
    ),
    "optional and sequence types (tensors only)": (
        "identity_opt", "identity_sequence",
    ),
    "1-D and 3-D pooling (rank-3 and rank-5 inputs): dnn.pool is 2-D": (
        "averagepool_1d_default", "averagepool_3d_default",
        "averagepool_3d_dilations_large_count_include_pad_is_0_ceil_mode_is_False",
        "averagepool_3d_dilations_large_count_include_pad_is_0_ceil_mode_is_True",
        "averagepool_3d_dilations_large_count_include_pad_is_1_ceil_mode_is_False",
        "averagepool_3d_dilations_large_count_include_pad_is_1_ceil_mode_is_True",
        "averagepool_3d_dilations_small", "maxpool_1d_default", "maxpool_3d_default",
        "maxpool_3d_dilations", "maxpool_3d_dilations_use_ref_impl",
        "maxpool_3d_dilations_use_ref_impl_large",
    ),
    "GatherElements on run-time tensors (the 'gather' stem's neighbour; folded when constant)": (
        "gather_elements_0", "gather_elements_1", "gather_elements_negative_indices",
    ),
    "second outputs: Dropout's mask, MaxPool's indices": (
        "dropout_default_mask", "dropout_default_mask_ratio",
        "maxpool_with_argmax_2d_precomputed_pads", "maxpool_with_argmax_2d_precomputed_strides",
    ),
    "oneDNN's soft_relu loses relative precision below x = -8 (1.3% at mish's -4.5e-4)": (
        "mish_expanded",
    ),
}
"""Why dnnc does not pass them -> the excluded tests (``test_<name>_cpu``)."""


backend_test = onnx.backend.test.BackendTest(DnncBackend, __name__)
backend_test.include(rf"^test_({'|'.join(INCLUDED_OPS)})(_.*)?_cpu$")
excluded = [f"test_{name}" for names in EXCLUDED.values() for name in names]
for name in excluded:
    backend_test.exclude(rf"^{name}_cpu$")
globals().update(backend_test.test_cases)
