"""The onnx package's own node tests (onnx.backend.test) on dnnc's ONNX backend, for the ops
the importer supports; every excluded test says why. The backend compiles the model
(``dnnc.compile(model)``); the cases where the other door, ``dnnc.compile(dnnc.import_onnx(
model))``, may take another route run through it too (``test_import_door``)."""

from __future__ import annotations

import re

import numpy as np
import onnx.backend.test
import onnx.backend.test.loader
import pytest
from onnx.backend.test.case.test_case import TestCase
from onnx.backend.test.runner import Runner

import dnnc
from dnnc.driver.onnx_shapes import value_inputs
from dnnc.onnx_backend import DnncBackend

INCLUDED_OPS = (
    "size",
    "einsum",
    "convtranspose",
    "resize",
    "upsample",
    "split",
    "tile",
    "constant_pad",
    "edge_pad",
    "reflect_pad",
    "wrap_pad",
    "depthtospace",
    "spacetodepth",
    "argmax",
    "argmin",
    "top_k",
    "cumsum",
    "instancenorm",
    "group_normalization",
    "prelu",
    "reciprocal",
    "erf",
    "sin",
    "cos",
    "abs",
    "add",
    "and",
    "equal",
    "expand",
    "gathernd",
    "greater",
    "greater_equal",
    "isinf",
    "isnan",
    "less",
    "less_equal",
    "not",
    "or",
    "where",
    "xor",
    "averagepool",
    "batchnorm",
    "cast",
    "castlike",
    "clip",
    "concat",
    "conv",
    "div",
    "dropout",
    "elu",
    "exp",
    "flatten",
    "gather",
    "gelu",
    "gemm",
    "globalaveragepool",
    "globalmaxpool",
    "hardsigmoid",
    "hardswish",
    "identity",
    "layer_normalization",
    "leakyrelu",
    "log",
    "logsoftmax",
    "lrn",
    "matmul",
    "max",
    "maxpool",
    "mean",
    "min",
    "mish",
    "mul",
    "neg",
    "pow",
    "reduce_max",
    "reduce_mean",
    "reduce_min",
    "reduce_sum",
    "relu",
    "reshape",
    "shape",
    "sigmoid",
    "slice",
    "softmax",
    "softplus",
    "softsign",
    "sqrt",
    "squeeze",
    "sub",
    "sum",
    "swish",
    "tanh",
    "transpose",
    "unsqueeze",
    "quantizelinear",
    "dequantizelinear",
    "dynamicquantizelinear",
    "qlinearconv",
    "qlinearmatmul",
    "convinteger",
    "matmulinteger",
)
"""Test-name stems (``test_<stem>...``) of the supported ops."""

EXCLUDED: dict[str, tuple[str, ...]] = {
    "element types dnn has no tensors of (16-bit ints, unsigned 32/64-bit)": (
        "top_k_uint64",
        "pow_types_float32_uint32",
        "pow_types_float32_uint64",
        "equal_int16",
        "equal_uint16",
        "equal_uint32",
        "equal_uint64",
        "greater_equal_int16",
        "greater_equal_int16_expanded",
        "greater_equal_uint16",
        "greater_equal_uint16_expanded",
        "greater_equal_uint32",
        "greater_equal_uint32_expanded",
        "greater_equal_uint64",
        "greater_equal_uint64_expanded",
        "greater_int16",
        "greater_uint16",
        "greater_uint32",
        "greater_uint64",
        "less_equal_int16",
        "less_equal_int16_expanded",
        "less_equal_uint16",
        "less_equal_uint16_expanded",
        "less_equal_uint32",
        "less_equal_uint32_expanded",
        "less_equal_uint64",
        "less_equal_uint64_expanded",
        "less_int16",
        "less_uint16",
        "less_uint32",
        "less_uint64",
        "add_int16",
        "add_uint16",
        "add_uint32",
        "add_uint64",
        "div_int16",
        "div_uint16",
        "div_uint32",
        "div_uint64",
        "max_int16",
        "max_uint16",
        "max_uint32",
        "max_uint64",
        "min_int16",
        "min_uint16",
        "min_uint32",
        "min_uint64",
        "mul_int16",
        "mul_uint16",
        "mul_uint32",
        "mul_uint64",
        "sub_int16",
        "sub_uint16",
        "sub_uint32",
        "sub_uint64",
    ),
    "element types dnn has no tensors of (f64, 2-, 4-, 8-bit floats, sub-byte ints)": (
        "einsum_batch_diagonal",
        "einsum_batch_matmul",
        "einsum_inner_prod",
        "einsum_scalar",
        "einsum_sum",
        "einsum_transpose",
        "max_float64",
        "min_float64",
        "cumsum_1d",
        "cumsum_1d_exclusive",
        "cumsum_1d_reverse",
        "cumsum_1d_reverse_exclusive",
        "cumsum_2d_axis_0",
        "cumsum_2d_axis_1",
        "cumsum_2d_negative_axis",
        "cast_DOUBLE_to_FLOAT16",
        "cast_DOUBLE_to_FLOAT",
        "cast_FLOAT16_to_DOUBLE",
        "cast_FLOAT16_to_FLOAT4E2M1",
        "cast_FLOAT16_to_FLOAT8E4M3FNUZ",
        "cast_FLOAT16_to_FLOAT8E4M3FN",
        "cast_FLOAT16_to_FLOAT8E5M2FNUZ",
        "cast_FLOAT16_to_FLOAT8E5M2",
        "cast_FLOAT16_to_INT2",
        "cast_FLOAT16_to_INT4",
        "cast_FLOAT16_to_UINT2",
        "cast_FLOAT16_to_UINT4",
        "cast_FLOAT4E2M1_to_FLOAT16",
        "cast_FLOAT4E2M1_to_FLOAT",
        "cast_FLOAT8E4M3FNUZ_to_FLOAT16",
        "cast_FLOAT8E4M3FNUZ_to_FLOAT",
        "cast_FLOAT8E4M3FN_to_FLOAT16",
        "cast_FLOAT8E4M3FN_to_FLOAT",
        "cast_FLOAT8E5M2FNUZ_to_FLOAT16",
        "cast_FLOAT8E5M2FNUZ_to_FLOAT",
        "cast_FLOAT8E5M2_to_FLOAT16",
        "cast_FLOAT8E5M2_to_FLOAT",
        "cast_FLOAT_to_DOUBLE",
        "cast_FLOAT_to_FLOAT4E2M1",
        "cast_FLOAT_to_FLOAT8E4M3FNUZ",
        "cast_FLOAT_to_FLOAT8E4M3FN",
        "cast_FLOAT_to_FLOAT8E5M2FNUZ",
        "cast_FLOAT_to_FLOAT8E5M2",
        "cast_FLOAT_to_INT2",
        "cast_FLOAT_to_INT4",
        "cast_FLOAT_to_UINT2",
        "cast_FLOAT_to_UINT4",
        "cast_INT2_to_FLOAT16",
        "cast_INT2_to_FLOAT",
        "cast_INT2_to_INT8",
        "cast_INT4_to_FLOAT16",
        "cast_INT4_to_FLOAT",
        "cast_INT4_to_INT8",
        "cast_UINT2_to_FLOAT16",
        "cast_UINT2_to_FLOAT",
        "cast_UINT2_to_UINT8",
        "cast_UINT4_to_FLOAT16",
        "cast_UINT4_to_FLOAT",
        "cast_UINT4_to_UINT8",
        "cast_e8m0_FLOAT16_to_FLOAT8E8M0",
        "cast_e8m0_FLOAT8E8M0_to_FLOAT16",
        "cast_e8m0_FLOAT8E8M0_to_FLOAT",
        "cast_e8m0_FLOAT_to_FLOAT8E8M0",
        "cast_no_saturate_FLOAT16_to_FLOAT8E4M3FNUZ",
        "cast_no_saturate_FLOAT16_to_FLOAT8E4M3FN",
        "cast_no_saturate_FLOAT16_to_FLOAT8E5M2FNUZ",
        "cast_no_saturate_FLOAT16_to_FLOAT8E5M2",
        "cast_no_saturate_FLOAT_to_FLOAT8E4M3FNUZ",
        "cast_no_saturate_FLOAT_to_FLOAT8E4M3FN",
        "cast_no_saturate_FLOAT_to_FLOAT8E5M2FNUZ",
        "cast_no_saturate_FLOAT_to_FLOAT8E5M2",
    ),
    "BatchNormalization's training mode (running statistics): dnn computes inference": (
        "batchnorm_epsilon_training_mode",
        "batchnorm_example_training_mode",
    ),
    "strings (numbers only)": (
        "equal_string_broadcast",
        "equal_string",
    ),
    "optional and sequence types (tensors only)": (
        "identity_opt",
        "identity_sequence",
    ),
    "ceil_mode with count_include_pad: ONNX leaves the extra end padding out of the divisor, "
    "which oneDNN's avg_include_pad counts; the importer refuses it": (
        "averagepool_3d_dilations_large_count_include_pad_is_1_ceil_mode_is_True",
    ),
    "sequence types are out of scope (SplitToSequence shares Split's test-name stem)": (
        "split_to_sequence_1",
        "split_to_sequence_2",
        "split_to_sequence_nokeepdims",
    ),
    "Resize with antialias or tf_crop_and_resize (roi) is not implemented (refused by name)": (
        "resize_downsample_scales_cubic_antialias",
        "resize_downsample_scales_linear_antialias",
        "resize_downsample_sizes_cubic_antialias",
        "resize_downsample_sizes_linear_antialias",
        "resize_tf_crop_and_resize",
        "resize_tf_crop_and_resize_axes_2_3",
        "resize_tf_crop_and_resize_axes_3_2",
        "resize_tf_crop_and_resize_extrapolation_value",
    ),
    "second outputs: Dropout's mask, MaxPool's indices": (
        "dropout_default_mask",
        "dropout_default_mask_ratio",
        "maxpool_with_argmax_2d_precomputed_pads",
        "maxpool_with_argmax_2d_precomputed_strides",
    ),
    "oneDNN's soft_relu loses relative precision below x = -8 (1.3% at mish's -4.5e-4)": (
        "mish_expanded",
    ),
    "quantization to or from types other than int8 and uint8 (int32 dequantizes), float "
    "scales other than float32, and block-wise quantization: refused by name": (
        "dequantizelinear_blocked",
        "dequantizelinear_e4m3fn",
        "dequantizelinear_e4m3fn_float16",
        "dequantizelinear_e4m3fn_zero_point",
        "dequantizelinear_e5m2",
        "dequantizelinear_float4e2m1",
        "dequantizelinear_int16",
        "dequantizelinear_int2",
        "dequantizelinear_int4",
        "dequantizelinear_uint16",
        "dequantizelinear_uint2",
        "dequantizelinear_uint4",
        "quantizelinear_blocked_asymmetric",
        "quantizelinear_blocked_symmetric",
        "quantizelinear_e4m3fn",
        "quantizelinear_e5m2",
        "quantizelinear_float4e2m1",
        "quantizelinear_int16",
        "quantizelinear_int2",
        "quantizelinear_int4",
        "quantizelinear_uint16",
        "quantizelinear_uint2",
        "quantizelinear_uint4",
        "qlinearmatmul_2D_int8_float16",
        "qlinearmatmul_2D_uint8_float16",
        "qlinearmatmul_3D_int8_float16",
        "qlinearmatmul_3D_uint8_float16",
    ),
    "the expanded DynamicQuantizeLinear needs Round, which the importer does not convert": (
        "dynamicquantizelinear_expanded",
        "dynamicquantizelinear_max_adjusted_expanded",
        "dynamicquantizelinear_min_adjusted_expanded",
    ),
}
"""Why dnnc does not pass them -> the excluded tests (``test_<name>_cpu``)."""
EXCLUDED["CastLike between the element types of an excluded Cast case (the same reason)"] = tuple(
    f"castlike{name.removeprefix('cast')}{suffix}"
    for names in list(EXCLUDED.values())
    for name in names
    if name.startswith("cast_") and not name.startswith("cast_e8m0")  # CastLike's e8m0 pass
    for suffix in ("", "_expanded")
)


INCLUDED = re.compile(rf"^test_({'|'.join(INCLUDED_OPS)})(_.*)?$")
"""The names (``test_<stem>...``, without the device suffix) of the included node tests."""
excluded = [f"test_{name}" for names in EXCLUDED.values() for name in names]


def node_test_cases() -> list[TestCase]:
    """The onnx package's node test cases this suite runs (included, not excluded)."""
    return [
        case
        for case in onnx.backend.test.loader.load_model_tests(kind="node")
        if INCLUDED.match(case.name) and case.name not in excluded
    ]


backend_test = onnx.backend.test.BackendTest(DnncBackend, __name__)
backend_test.include(INCLUDED.pattern.removesuffix("$") + "_cpu$")
for name in excluded:
    backend_test.exclude(rf"^{name}_cpu$")
globals().update(backend_test.test_cases)


def doors_may_differ(model: onnx.ModelProto) -> bool:
    """Whether ``dnnc.compile(model)`` and ``dnnc.compile(dnnc.import_onnx(model))`` may take
    different routes: a graph input's values reach an operand the import needs (dnn.deferred,
    or the per-value fallback of dnnc.driver.onnx_shapes), or an input has a ``?`` dimension
    (traced per shape, or imported symbolically). Any other model's ``compile`` is the
    compile of its plain import, which is what ``import_onnx`` gives it."""
    dims = (d for v in model.graph.input for d in v.type.tensor_type.shape.dim)
    return bool(value_inputs(model)) or any(not d.HasField("dim_value") for d in dims)


IMPORT_DOOR_CASES = [case for case in node_test_cases() if doors_may_differ(case.model)]


@pytest.mark.parametrize("case", IMPORT_DOOR_CASES, ids=[c.name for c in IMPORT_DOOR_CASES])
def test_import_door(case: TestCase) -> None:
    """The case through ``dnnc.compile(dnnc.import_onnx(model))``, checked as the backend's
    run is (onnx's Runner, the case's tolerances)."""
    assert case.model is not None and case.data_sets is not None  # generated in memory
    inputs, expected = case.data_sets[0]
    executable = dnnc.compile(dnnc.import_onnx(case.model))
    got = executable.run([np.asarray(a) for a in inputs])
    Runner.assert_similar_outputs(list(expected), list(got), case.rtol, case.atol)
