"""ONNX's quantization ops through dnnc against ONNX Runtime: the reference kernels
(interpreted) and the compiled graph, each op per tensor and per axis, int8 and uint8, with
rounding ties and saturation in the data; the refusals name what is not supported."""

from __future__ import annotations

from collections.abc import Mapping

import ml_dtypes
import numpy as np
import pytest
from onnx import helper
from onnx.reference import ReferenceEvaluator
from onnx_helpers import function, model, op_names, run_compiled, run_dnnc
from onnx_helpers import run_onnxruntime as onnxruntime

import dnnc
from dnnc.core.diagnostics import ModelError
from dnnc.dialects.dnn import BinaryOp
from dnnc.frontend.onnx import import_onnx
from dnnc.target.kernel_table import Probe

RNG = np.random.default_rng(31)


def _same(
    made,
    inputs: Mapping[str, np.ndarray],
    steps: int = 0,
    fp_tolerance: float = 1e-6,
    compiled_steps: int | None = None,
) -> list[str]:
    """Every result of the interpreter (reference kernels) and of the compiled graph equals
    ONNX Runtime's: integers within ``steps`` quantization steps (compiled: within
    ``compiled_steps``, by default the same), floats within ``fp_tolerance``. The ops the
    import emitted."""
    module = import_onnx(made)
    theirs = onnxruntime(made, inputs)
    compiled = steps if compiled_steps is None else compiled_steps
    for ours, allowed in (
        (run_dnnc(module, inputs), steps),
        (run_compiled(module, inputs), compiled),
    ):
        assert len(ours) == len(theirs)
        for got, want in zip(ours, theirs, strict=True):
            assert got.dtype == want.dtype and got.shape == want.shape
            if want.dtype.kind in "iu":
                assert np.abs(got.astype(np.int64) - want.astype(np.int64)).max() <= allowed
            else:
                np.testing.assert_allclose(got, want, rtol=fp_tolerance, atol=fp_tolerance)
    return op_names(module)


def _ties(scale: float, size: int) -> np.ndarray:
    """Values on rounding ties (k + 0.5 steps) and far outside any 8-bit range."""
    halves = (np.arange(size, dtype=np.float32) - size / 2 + 0.5) * np.float32(scale)
    return np.concatenate([halves, np.float32([1e6, -1e6, 0.0]) * scale]).astype(np.float32)


@pytest.mark.parametrize("opset", [10, 13, 19, 21, 25])
@pytest.mark.parametrize("dtype", [np.uint8, np.int8])
def test_quantize_per_tensor_ties_and_saturation(opset: int, dtype: type) -> None:
    """Exactly, interpreted and compiled (a oneDNN binary division, rounding, then the odd
    zero point: dnnc.target.kernel_calls), ties to even and saturation at both ends."""
    x = _ties(0.25, 600).reshape(3, 201)
    zero = np.asarray(3 if dtype == np.uint8 else -3, dtype)
    node = helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"])
    made = model([node], {"x": x}, initializers={"s": np.float32(0.25), "z": zero}, opset=opset)
    ops = _same(made, {"x": x})
    assert ops == ["dnn.constant", "dnn.constant", "dnn.quantize"]


@pytest.mark.parametrize("zero", [128, 127, 0])
@pytest.mark.parametrize("dtype", [np.uint8, np.int8])
def test_compiled_quantize_is_exact_near_ties(zero: int, dtype: type) -> None:
    """Values one f32 ulp either side of a tie and on it, with an even, an odd and no zero
    point: the compiled quantize equals ONNX Runtime's bit for bit (a reorder multiplying by
    the reciprocal scale was off by one step on 159 of 600 such values); infinities
    saturate; NaN (undefined in ONNX) becomes what oneDNN's conversion makes of it, as
    with the reorder before: 0 in u8, 127 in s8 (the reference kernel gives 0)."""
    scale = np.float32(0.0371)
    ties = (np.arange(200, dtype=np.float32) - 100 + 0.5) * scale
    x = np.concatenate([np.nextafter(ties, -np.inf), ties, np.nextafter(ties, np.inf)])
    x = np.concatenate([x, np.float32([np.inf, -np.inf, -3.50595])]).astype(np.float32)
    point = np.asarray(zero - 128 if dtype == np.int8 else zero, dtype)
    node = helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"])
    made = model([node], {"x": x}, initializers={"s": scale, "z": point}, opset=13)
    _same(made, {"x": x})
    nan = {"x": np.where(np.arange(x.size) % 2 == 0, np.float32(np.nan), x)}
    (got,) = run_compiled(import_onnx(made), nan)
    np.testing.assert_array_equal(got[1::2], onnxruntime(made, nan)[0][1::2])
    assert np.all(got[::2] == (0 if dtype == np.uint8 else 127))


def test_quantize_without_zero_point_is_uint8() -> None:
    x = _ties(0.5, 64)
    node = helper.make_node("QuantizeLinear", ["x", "s"], ["y"])
    _same(model([node], {"x": x}, initializers={"s": np.float32(0.5)}, opset=13), {"x": x})


@pytest.mark.parametrize("axis", [1, -1, 0])
def test_quantize_dequantize_per_axis(axis: int) -> None:
    x = (RNG.standard_normal((4, 6)) * 5).astype(np.float32)
    channels = x.shape[axis]
    scale = RNG.uniform(0.01, 0.1, channels).astype(np.float32)
    zero = RNG.integers(-20, 20, channels).astype(np.int8)
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], axis=axis),
        helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"], axis=axis),
    ]
    made = model(nodes, {"x": x}, ["q", "y"], initializers={"s": scale, "z": zero}, opset=13)
    assert "dnn.quantize" in _same(made, {"x": x})


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int32])
def test_dequantize_per_tensor(dtype: type) -> None:
    info = np.iinfo(dtype)
    low, high = max(info.min, -(2**20)), min(info.max, 2**20)
    q = RNG.integers(low, high, (5, 7), endpoint=True).astype(dtype)
    zero = np.asarray(0 if dtype == np.int32 else 7, dtype)
    node = helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"])
    made = model([node], {"q": q}, initializers={"s": np.float32(0.037), "z": zero}, opset=13)
    assert _same(made, {"q": q})[-1] == "dnn.dequantize"


@pytest.mark.parametrize(
    "x",
    [
        RNG.standard_normal((3, 17)).astype(np.float32),
        RNG.uniform(1.0, 4.0, (2, 9)).astype(np.float32),  # all positive: the range is [0, max]
        np.zeros((4,), np.float32),  # a range of one point
    ],
)
def test_dynamic_quantize(x: np.ndarray) -> None:
    node = helper.make_node("DynamicQuantizeLinear", ["x"], ["y", "s", "z"])
    made = model([node], {"x": x}, ["y", "s", "z"], opset=11)
    assert _same(made, {"x": x}, fp_tolerance=0.0) == ["dnn.dynamic_quantize"]


@pytest.mark.parametrize("reader", ["Conv", "Gemm", "Add"])
def test_dequantized_constant_weights_stay_int8(reader: str) -> None:
    """QDQ weights (a DequantizeLinear of int8 constants, per output channel) given to a
    Conv or Gemm stay int8 behind a dnn.dequantize (for an int8 kernel); any other reader
    gets them folded to f32 at import. Both agree with ONNX Runtime."""
    shapes = {"Conv": ((1, 4, 5, 5), (6, 4, 3, 3), 0), "Gemm": ((3, 4), (6, 4), 0)}
    x_shape, w_shape, axis = shapes.get(reader, ((6, 4), (6, 4), 0))
    x = RNG.standard_normal(x_shape).astype(np.float32)
    initializers = {
        "w": RNG.integers(-127, 128, w_shape).astype(np.int8),
        "ws": RNG.uniform(0.01, 0.02, w_shape[0]).astype(np.float32),
        "wz": np.zeros(w_shape[0], np.int8),
    }
    attributes = {"transB": 1} if reader == "Gemm" else {}
    nodes = [
        helper.make_node("DequantizeLinear", ["w", "ws", "wz"], ["wf"], axis=axis),
        helper.make_node(reader, ["x", "wf"], ["y"], **attributes),
    ]
    made = model(nodes, {"x": x}, initializers=initializers, opset=13)
    ops = _same(made, {"x": x}, fp_tolerance=1e-5)
    module = import_onnx(made)
    if reader == "Add":
        assert "dnn.dequantize" not in ops
        return
    dequantize = next(op for op in function(module).walk() if op.name == "dnn.dequantize")
    assert "i8" in str(dequantize.operands[0].type), dequantize


def test_qlinear_conv_per_channel_with_bias() -> None:
    """Within one step: ONNX Runtime accumulates in int32 and requantizes once, dnnc
    dequantizes, convolves in f32 and quantizes, so a value next to a rounding tie may
    round the other way."""
    x = RNG.integers(0, 256, (1, 8, 9, 9)).astype(np.uint8)
    w = RNG.integers(-127, 128, (16, 8, 3, 3)).astype(np.int8)
    initializers = {
        "xs": np.float32(0.02),
        "xz": np.uint8(128),
        "w": w,
        "ws": RNG.uniform(0.001, 0.01, 16).astype(np.float32),
        "wz": np.zeros(16, np.int8),
        "ys": np.float32(0.05),
        "yz": np.uint8(100),
        "b": RNG.integers(-5000, 5000, 16).astype(np.int32),
    }
    node = helper.make_node(
        "QLinearConv",
        ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"],
        ["y"],
        pads=[1, 1, 1, 1],
        strides=[2, 2],
    )
    made = model([node], {"x": x}, initializers=initializers, opset=13)
    ops = _same(made, {"x": x}, steps=1)
    assert ops.count("dnn.dequantize") == 3  # x, w and the bias
    assert "dnn.conv2d" in ops and ops[-1] == "dnn.quantize"


def test_qlinear_matmul_per_column() -> None:
    a = RNG.integers(-128, 128, (2, 5, 32)).astype(np.int8)
    initializers = {
        "as": np.float32(0.03),
        "az": np.int8(-4),
        "b": RNG.integers(-128, 128, (32, 12)).astype(np.int8),
        "bs": RNG.uniform(0.001, 0.01, 12).astype(np.float32),
        "bz": np.zeros(12, np.int8),
        "ys": np.float32(0.1),
        "yz": np.int8(5),
    }
    node = helper.make_node("QLinearMatMul", ["a", "as", "az", "b", "bs", "bz", "ys", "yz"], ["y"])
    _same(model([node], {"a": a}, initializers=initializers, opset=13), {"a": a}, steps=1)


def _same_as_onnx_reference(made, inputs: Mapping[str, np.ndarray]) -> None:
    """The interpreter and the compiled graph give exactly ONNX's reference evaluator's
    results (for the per-axis zero points ONNX Runtime refuses)."""
    module = import_onnx(made)
    theirs = ReferenceEvaluator(made).run(None, dict(inputs))
    for ours in (run_dnnc(module, inputs), run_compiled(module, inputs)):
        for got, want in zip(ours, theirs, strict=True):
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("per_axis", [False, True])
def test_matmul_integer(per_axis: bool) -> None:
    """Exact int32: the f32 sums stay below 2^24 here."""
    a = RNG.integers(0, 256, (6, 40)).astype(np.uint8)
    b = RNG.integers(-128, 128, (40, 7)).astype(np.int8)
    az = RNG.integers(0, 256, 6 if per_axis else ()).astype(np.uint8)
    bz = RNG.integers(-10, 10, 7 if per_axis else ()).astype(np.int8)
    inputs = {"a": a, "b": b, "az": az}
    node = helper.make_node("MatMulInteger", ["a", "b", "az", "bz"], ["y"])
    made = model([node], inputs, initializers={"bz": bz}, opset=10)
    if per_axis:  # per row of a and column of b: ONNX Runtime and ONNX's evaluator refuse
        want = (a.astype(np.int64) - az[:, None]) @ (b.astype(np.int64) - bz)
        module = import_onnx(made)
        for got in (run_dnnc(module, inputs)[0], run_compiled(module, inputs)[0]):
            np.testing.assert_array_equal(got, want.astype(np.int32))
    else:
        assert _same(made, inputs)[-1] == "dnn.cast"


@pytest.mark.parametrize("per_axis", [False, True])
def test_conv_integer_with_padding(per_axis: bool) -> None:
    """Padding reads the zero point, so that x - x_zero_point is 0 there."""
    x = RNG.integers(0, 256, (2, 3, 6, 6)).astype(np.uint8)
    w = RNG.integers(0, 256, (4, 3, 3, 3)).astype(np.uint8)
    inputs = {"x": x, "w": w}
    wz = RNG.integers(0, 256, 4 if per_axis else ()).astype(np.uint8)
    initializers = {"xz": np.uint8(17), "wz": wz}
    node = helper.make_node("ConvInteger", ["x", "w", "xz", "wz"], ["y"], pads=[1, 1, 1, 1])
    made = model([node], inputs, initializers=initializers, opset=10)
    if per_axis:  # per output channel: ONNX Runtime takes a scalar only
        _same_as_onnx_reference(made, inputs)
    else:
        _same(made, inputs)


@pytest.mark.parametrize(
    ("attributes", "initializers", "message"),
    [
        (
            {"axis": 1, "block_size": 2},
            {"s": np.ones((2, 2), np.float32), "z": np.zeros((2, 2), np.uint8)},
            "block-wise quantization (block_size) is not supported",
        ),
        (
            {},
            {"s": np.float16(0.5), "z": np.uint8(0)},
            "a float16 scale is not supported (float32 only)",
        ),
        (
            {},
            {"s": np.float32(0.5), "z": np.int16(0)},
            "a zero point of type int16 is not supported",
        ),
    ],
)
def test_refusals(attributes: dict, initializers: dict, message: str) -> None:
    x = np.zeros((2, 4), np.float32)
    node = helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"], **attributes)
    with pytest.raises(ModelError, match=message.replace("(", r"\(").replace(")", r"\)")):
        import_onnx(model([node], {"x": x}, initializers=initializers, opset=21))


def test_dynamic_scale_times_weight_scale() -> None:
    """quantize_dynamic's rescaling: the run-time scale (rank 0) times the weights' scale,
    times the int32 product, plus the bias (a post-op of that binary); and oneDNN answers
    about that binary with its rank-0 operand as a 1-element tensor (the layout choice asks
    it so in BERT, where it failed with 'dims (): a tensor has 1 to 12 dimensions')."""
    x = RNG.standard_normal((4, 8)).astype(np.float32)
    nodes = [
        helper.make_node("DynamicQuantizeLinear", ["x"], ["q", "s", "z"]),
        helper.make_node("Mul", ["s", "ws"], ["scale"]),
        helper.make_node("Cast", ["q"], ["qf"], to=1),
        helper.make_node("Mul", ["qf", "scale"], ["scaled"]),
        helper.make_node("Add", ["scaled", "b"], ["y"]),
    ]
    initializers = {"ws": np.float32(0.5), "b": RNG.standard_normal(8).astype(np.float32)}
    made = model(nodes, {"x": x}, initializers=initializers)
    _same(made, {"x": x})
    binaries = [op for op in function(import_onnx(made)).body.block.ops if isinstance(op, BinaryOp)]
    assert binaries and all(Probe().primitive(op, {}) is not None for op in binaries)


@pytest.mark.parametrize("zero", [0, 17])
def test_per_tensor_quantization_runs_on_onednn(zero: int) -> None:
    """Compiled, a per-tensor QuantizeLinear -> DequantizeLinear pair runs as a oneDNN binary
    (division, rounding, zero point) and a reorder with run-time scale and zero point, both
    bit-exact against the reference kernels."""
    x = (RNG.standard_normal((2, 16, 12, 12)) * 3).astype(np.float32)
    initializers = {"s": np.float32(0.0371), "z": np.uint8(zero)}
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"]),
        helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"]),
    ]
    module = import_onnx(model(nodes, {"x": x}, ["q", "y"], initializers=initializers))
    executable = dnnc.compile(module)
    kinds = {(s.step.library, s.step.kind) for s in executable.profile({"x": x}, repeats=1)}
    assert {("onednn", "binary"), ("onednn", "reorder")} <= kinds
    assert ("reference", "quantize") not in kinds
    q, y = executable.run([x])
    want_q, _ = run_dnnc(module, {"x": x})
    np.testing.assert_array_equal(q, want_q)
    np.testing.assert_array_equal(y, (q.astype(np.float32) - np.float32(zero)) * np.float32(0.0371))


@pytest.mark.parametrize(
    ("weights", "scale", "attributes"),
    [
        pytest.param(
            RNG.integers(-8, 8, (8, 6)).astype(ml_dtypes.int4),
            RNG.uniform(0.05, 0.1, 6).astype(np.float32),
            {"axis": 1},
            id="int4-per-axis",
        ),
        pytest.param(
            RNG.integers(0, 16, (8, 6)).astype(ml_dtypes.uint4),
            np.float32(0.07),
            {},
            id="uint4",
        ),
        pytest.param(
            RNG.standard_normal((8, 6)).astype(ml_dtypes.float8_e4m3fn),
            np.float32(0.5),
            {},
            id="float8e4m3fn",
        ),
        pytest.param(
            RNG.integers(-127, 128, (8, 6)).astype(np.int8),
            RNG.uniform(0.01, 0.02, (2, 6)).astype(np.float32),
            {"axis": 0, "block_size": 4},
            id="int8-block-wise",
        ),
    ],
)
def test_weight_only_quantized_constants_fold_to_f32(
    weights: np.ndarray, scale: np.ndarray, attributes: dict
) -> None:
    """Weights no int8 kernel takes (4-bit, float8, block-wise: opset 21's weight-only
    quantization) are dequantized at import like any constant node, and the model runs in f32
    as ONNX Runtime runs it. (They were kept as a dnn.dequantize of an int4 or float8 constant
    and refused as 'a int4 tensor computed at run time'.)"""
    x = RNG.standard_normal((3, 8)).astype(np.float32)
    nodes = [
        helper.make_node("DequantizeLinear", ["w", "ws"], ["wf"], name="weights", **attributes),
        helper.make_node("MatMul", ["x", "wf"], ["y"]),
    ]
    made = model(nodes, {"x": x}, initializers={"w": weights, "ws": scale}, opset=21)
    made.ir_version = 10  # 4-bit and float8 tensors
    ops = _same(made, {"x": x}, fp_tolerance=1e-5)
    assert "dnn.dequantize" not in ops and "dnn.matmul" in ops


@pytest.mark.parametrize(
    ("zero", "message"),
    [
        (np.zeros((), ml_dtypes.int4), "a zero point of type int4 is not supported"),
        (np.zeros((), ml_dtypes.uint4), "a zero point of type uint4 is not supported"),
        (
            np.zeros((), ml_dtypes.float8_e4m3fn),
            "a zero point of type float8_e4m3fn is not supported",
        ),
    ],
)
def test_quantizing_to_other_types_is_refused_by_node(zero: np.ndarray, message: str) -> None:
    """A run-time tensor quantized to a type dnn has no tensors of: a ModelError naming the
    node, not a traceback."""
    x = RNG.standard_normal((2, 4)).astype(np.float32)
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], name="to_4bit"),
        helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"]),
    ]
    made = model(nodes, {"x": x}, initializers={"s": np.float32(0.5), "z": zero}, opset=21)
    made.ir_version = 10
    with pytest.raises(ModelError, match=rf"QuantizeLinear \(node 'to_4bit'.*{message}"):
        dnnc.compile(made)


def test_block_wise_dequantize_of_a_run_time_tensor_is_refused_by_node() -> None:
    q = RNG.integers(-128, 128, (4, 8)).astype(np.int8)
    node = helper.make_node(
        "DequantizeLinear", ["q", "s"], ["y"], name="blocked", axis=1, block_size=4
    )
    made = model([node], {"q": q}, initializers={"s": np.ones((4, 2), np.float32)}, opset=21)
    message = r"DequantizeLinear \(node 'blocked'.*block-wise quantization \(block_size\)"
    with pytest.raises(ModelError, match=message):
        dnnc.compile(made)
