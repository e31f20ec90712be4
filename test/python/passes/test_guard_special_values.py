"""dnn-guard-special-values end to end: ONNX models that clean their inputs (or do not) run
in the default pipeline with NaN and infinities in their input, each either refused with an
InputError naming the exact pipeline or agreeing with ONNX Runtime; which of the two is pinned
per model and kind, and the exact pipeline agrees on every one. And the table the analysis
reads (dnnc.target.special_values: the kinds each oneDNN kernel mishandles) holds on this CPU:
a one-kernel function refuses the kinds listed and agrees with the reference interpreter on
the others.

The analysis itself (which flows stop where, the remarks) is pinned by
test/Passes/dnn-guard-special-values.mlir.
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

import dnnc
from dnnc.api import find_function
from dnnc.core.diagnostics import InputError
from dnnc.ir.text import parse_module
from dnnc.reference.interpreter import interpret
from dnnc.runtime.executor import Executable
from dnnc.runtime.io_binding import SPECIAL_VALUES_PIPELINE, TensorSpec, check_special

KINDS = {"nan": np.nan, "+inf": np.inf, "-inf": -np.inf}

_CLEAN_NAN = [
    helper.make_node("IsNaN", ["x"], ["is_nan"]),
    helper.make_node("Where", ["is_nan", "zero", "x"], ["clean"]),
]
_HEAD = [
    helper.make_node("MatMul", ["clean", "w"], ["m"]),
    helper.make_node("Relu", ["m"], ["y"]),
]
MODELS: dict[str, tuple[list[onnx.NodeProto], set[str]]] = {
    # the issue's model: no NaN reaches the relu, an infinity can (inf - inf in the matmul)
    "nan_cleaned": (_CLEAN_NAN + _HEAD, {"+inf", "-inf"}),
    "nan_and_inf_cleaned": (
        [
            helper.make_node("IsNaN", ["x"], ["is_nan"]),
            helper.make_node("IsInf", ["x"], ["is_inf"]),
            helper.make_node("Or", ["is_nan", "is_inf"], ["missing"]),
            helper.make_node("Where", ["missing", "zero", "x"], ["clean"]),
            *_HEAD,
        ],
        set(),
    ),
    "nan_cleaned_then_clipped": (
        [
            *_CLEAN_NAN[:1],
            helper.make_node("Where", ["is_nan", "zero", "x"], ["kept"]),
            helper.make_node("Clip", ["kept", "low", "high"], ["clean"]),
            *_HEAD,
        ],
        set(),
    ),
    # refused today and still: nothing cleans the NaN the relu drops
    "not_cleaned": ([helper.make_node("Identity", ["x"], ["clean"]), *_HEAD], set(KINDS)),
    # Where(IsNaN(x), x, 0) keeps x only where it is NaN: its infinities never reach the relu
    "where_keeps_the_nan": (
        [*_CLEAN_NAN[:1], helper.make_node("Where", ["is_nan", "x", "zero"], ["clean"]), *_HEAD],
        {"nan"},
    ),
    "inf_cleaned_relu": (
        [
            helper.make_node("IsInf", ["x"], ["is_inf"]),
            helper.make_node("Where", ["is_inf", "zero", "x"], ["clean"]),
            helper.make_node("Relu", ["clean"], ["y"]),
        ],
        {"nan"},
    ),
}
"""Each model and the kinds of special value in ``x`` the default executable refuses."""


def build(nodes: list[onnx.NodeProto]) -> onnx.ModelProto:
    rng = np.random.default_rng(0)
    constants = {
        "w": rng.standard_normal((8, 4)).astype(np.float32),
        "zero": np.zeros((), np.float32),
        "low": np.array(-10.0, np.float32),
        "high": np.array(10.0, np.float32),
    }
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(a, n) for n, a in constants.items()],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def holding(kind: str) -> np.ndarray:
    x = np.random.default_rng(1).standard_normal((3, 8)).astype(np.float32)
    x[0, 2] = x[0, 5] = x[1, 5] = x[2, 0] = KINDS[kind]  # two in a row: inf - inf in a matmul
    return x


@pytest.mark.parametrize("name", sorted(MODELS))
def test_refused_exactly_where_a_special_value_reaches_a_dropping_kernel(name: str) -> None:
    nodes, refused = MODELS[name]
    model = build(nodes)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    default = dnnc.compile(model)
    exact = dnnc.compile(model, SPECIAL_VALUES_PIPELINE)
    for kind in KINDS:
        x = holding(kind)
        (expected,) = session.run(None, {"x": x})
        np.testing.assert_allclose(exact.run({"x": x})[0], expected, rtol=1e-5, atol=1e-5)
        if kind in refused:
            with pytest.raises(InputError, match=f"input 'x' holds {x[0, 2]} at index \\[0, 2\\]"):
                default.run({"x": x})
        else:
            got = default.run({"x": x})[0]
            np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5, err_msg=kind)
    assert any(np.isnan(session.run(None, {"x": holding(k)})[0]).any() for k in refused) or (
        not refused
    ), "a refused kind must make ONNX Runtime's answer hold NaN, or the refusal tests nothing"


def test_the_refusal_names_the_kernel_and_the_exact_pipeline() -> None:
    """The NaN-cleaning model refuses an infinity, saying where the NaN it becomes is dropped."""
    executable = dnnc.compile(build(MODELS["nan_cleaned"][0]))
    with pytest.raises(InputError) as caught:
        executable.run({"x": holding("+inf")})
    message = str(caught.value)
    assert "nan reaches dnn." in message and "relu(NaN) = 0" in message
    assert SPECIAL_VALUES_PIPELINE in message


KERNELS = {
    **{
        alg: f"dnn.eltwise {alg} %x {{alpha = {alpha} : f32, beta = {beta} : f32}} : T"
        for alg, alpha, beta in (
            ("relu", 0.0, 0.0),
            ("clip", -1.0, 2.0),
            ("relu6", 0.0, 0.0),
            ("hardsigmoid", 0.2, 0.5),
            ("exp", 0.0, 0.0),
            ("log", 0.0, 0.0),
            ("gelu_erf", 0.0, 0.0),
            ("gelu_tanh", 0.0, 0.0),
            ("swish", 1.0, 0.0),
        )
    },
    "softmax": "dnn.softmax %x {axis = 3 : i64} : T",
    "log_softmax": "dnn.log_softmax %x {axis = 3 : i64} : T",
    "lrn": "dnn.lrn across_channels %x {size = 3 : i64} : T",
    "max_pool": (
        "dnn.pool max %x {kernel = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (T) -> T"
    ),
    "max": "dnn.binary max %x, %x2 : (T, T) -> T",
    "min": "dnn.binary min %x2, %x : (T, T) -> T",
}
"""A function of each kernel dnnc.target.special_values lists (``T`` its tensor type)."""
SPECIALS = {**KINDS, "subnormal": 1e-40}


@pytest.mark.parametrize("kernel", sorted(KERNELS))
def test_a_kernel_is_guarded_only_against_the_kinds_it_mishandles(kernel: str) -> None:
    """What special_values says a oneDNN kernel keeps, it keeps on this CPU: per kind, the
    default executable of the one-op function refuses the kind or agrees with the reference
    interpreter (and refuses at least one kind, or the kernel is not listed right)."""
    tensor = "tensor<1x4x2x8xf32>"
    text = (
        f"func.func @f(%x: {tensor}, %x2: {tensor}) -> {tensor} {{\n"
        f"  %y = {KERNELS[kernel].replace('T', tensor)}\n  func.return %y : {tensor}\n}}"
    )
    executable = dnnc.compile(text)
    finite = np.linspace(-3, 3, 64, dtype=np.float32).reshape(1, 4, 2, 8)
    refused = set()
    for kind, value in SPECIALS.items():
        x = finite.copy()
        x.reshape(-1)[[3, 9, 10, 40]] = value
        inputs = [x, finite[..., ::-1].copy()]
        try:
            (got,) = executable.run(inputs)
        except InputError:
            refused.add(kind)
            continue
        (expected,) = interpret(find_function(parse_module(text, "f.mlir")), inputs)
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-6, err_msg=kind)
    assert refused


def test_inputs_made_once_are_not_scanned_per_run() -> None:
    """run_checked(made=n) leaves the last n arrays unscanned (a DynamicExecutable's inputs
    computed from the sizes, checked once when made); the others are still refused."""
    executable = dnnc.compile(build(MODELS["nan_cleaned"][0]))
    assert isinstance(executable, Executable)
    x = holding("+inf")
    with pytest.raises(InputError, match="input 'x' holds inf"):
        executable.run_checked([x])
    (got,) = executable.run_checked([x], made=1)
    assert got.shape == executable.outputs[0].shape


@pytest.mark.parametrize(
    "guarded", [{"nan"}, {"+inf"}, {"-inf"}, {"nan", "+inf"}, {"nan", "-inf"}, set(KINDS)]
)
def test_the_run_time_scan_finds_each_guarded_kind_and_only_those(guarded: set[str]) -> None:
    """check_special scans only the ends (minimum, maximum) the guarded kinds show in: each
    guarded kind is still found, alone or beside the others (the first of nan, +inf, -inf
    named), and the unguarded ones pass."""
    spec = TensorSpec("x", (3, 8), np.dtype(np.float32))
    for planted in ([], *([k] for k in KINDS), ["+inf", "-inf"], ["-inf", "nan"]):
        x = np.random.default_rng(2).standard_normal((3, 8)).astype(np.float32)
        positions = dict(zip(planted, (5, 17), strict=False))
        for kind, position in positions.items():
            x.reshape(-1)[position] = KINDS[kind]
        found = [kind for kind in KINDS if kind in guarded and kind in planted]
        if not found:
            check_special([spec], [x], [dict.fromkeys(guarded, "why")])
            continue
        row, column = divmod(positions[found[0]], 8)
        expected = f"holds {KINDS[found[0]]} at index \\[{row}, {column}\\]"
        with pytest.raises(InputError, match=expected):
            check_special([spec], [x], [dict.fromkeys(guarded, "why")])
