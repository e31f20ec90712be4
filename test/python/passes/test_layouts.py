"""Layout passes end to end: transformed graphs against the reference, the DP against brute force.

- Pure layout changes are exact: a graph of layout-agnostic ops run with hand-chosen blocked
  layouts (dnn.operand_layouts, materialized by dnn-insert-data-transforms) gives the same bits
  as the plain graph; greedy and global assignments (same convolution layouts) agree bit for bit.
- Every strategy matches the interpreter within the f32 tolerance, bf16 within bf16's.
- dnn-assign-layouts{strategy=global} finds the cheapest assignment of a chain and a tree
  (checked against every combination of candidates) and is never worse than greedy.
"""

from __future__ import annotations

import itertools
import warnings
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
from onnx import helper, numpy_helper

import dnnc
from dnnc.api import find_function, load_module
from dnnc.core.diagnostics import DnncWarning
from dnnc.core.kinds import DataType
from dnnc.dialects.dnn import Conv2DOp, QuantizeOp, ReorderOp
from dnnc.driver.pipelines import parse_pipeline, run_passes
from dnnc.frontend.onnx import import_onnx
from dnnc.ir.text import make_context, parse_module
from dnnc.passes.assign_layouts import _Graph
from dnnc.reference.interpreter import compare, interpret
from dnnc.runtime.report import StepInfo
from dnnc.target import computes_in, weights_layout
from dnnc.target.kernel_table import Probe
from dnnc_testing.graphs import inverted_residuals, residual_blocks, write

pytest.importorskip("dnnc.dnnl.capi", reason="needs libdnnl")

LAYOUT_PASSES = (
    "dnn-assign-layouts{{strategy={}}},dnn-insert-data-transforms,dnn-remove-redundant-reorders"
)


def pipeline(strategy: str, precision: str = "") -> str:
    return f"dnn-select-kernels,{precision}" + LAYOUT_PASSES.format(strategy)


AGNOSTIC = """
func.func @agnostic(%x: tensor<1x32x8x8xf32>, %y: tensor<1x32x8x8xf32>) -> tensor<1x32x4x4xf32> {
  %r = dnn.eltwise gelu_erf %x {dnn.operand_layouts = [#dnn.layout<LAYOUT>]} : tensor<1x32x8x8xf32>
  %s = dnn.binary mul %r, %y {dnn.operand_layouts = [#dnn.layout<LAYOUT>, #dnn.layout<LAYOUT>]} : (tensor<1x32x8x8xf32>, tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  %p = dnn.pool avg_exclude_pad %s {dnn.operand_layouts = [#dnn.layout<LAYOUT>], kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads_begin = array<i64: 1, 1>, pads_end = array<i64: 0, 0>} : (tensor<1x32x8x8xf32>) -> tensor<1x32x4x4xf32>
  func.return %p : tensor<1x32x4x4xf32>
}
"""


@pytest.mark.parametrize("layout", ["nChw16c", "nChw8c", "nhwc"])
def test_pure_layout_change_is_exact(layout: str) -> None:
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal((1, 32, 8, 8)).astype(np.float32) for _ in range(2)]
    plain = dnnc.compile(AGNOSTIC.replace("LAYOUT", "nchw"), "dnn-insert-data-transforms")
    blocked = AGNOSTIC.replace("LAYOUT", layout)
    moved = dnnc.compile(blocked, "dnn-insert-data-transforms,dnn-remove-redundant-reorders")
    assert any(layout in ",".join(s.operands) for s in moved.plan.step_infos)  # really blocked
    np.testing.assert_array_equal(moved.run(inputs)[0], plain.run(inputs)[0])


def test_strategies_match_reference_and_each_other(tmp_path: Path) -> None:
    case = residual_blocks(2, (1, 16, 8, 8))
    path = write(case, tmp_path)
    module, _ = load_module(path)
    expected = interpret(find_function(module), case.inputs, weights_dir=str(tmp_path))
    outputs = {}
    for strategy in ("plain", "greedy", "global"):
        outputs[strategy] = dnnc.compile(path, pipeline(strategy)).run(case.inputs)
        for actual, wanted in zip(outputs[strategy], expected, strict=True):
            assert compare(actual, wanted).ok, strategy
    np.testing.assert_array_equal(outputs["greedy"][0], outputs["global"][0])


def test_bf16_within_tolerance(tmp_path: Path) -> None:
    """Asked for bf16, a graph computes in bf16 where the target has native bf16 kernels
    (within bf16's tolerance); elsewhere it stays f32, with one warning, exactly as f32."""
    case = residual_blocks(1, (1, 16, 8, 8))
    path = write(case, tmp_path)
    module, _ = load_module(path)
    expected = interpret(find_function(module), case.inputs, weights_dir=str(tmp_path))[0]
    bf16 = computes_in(DataType.BF16)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        executable = dnnc.compile(path, pipeline("global", "dnn-assign-precision,"))
    warned = [w for w in caught if issubclass(w.category, DnncWarning)]
    assert len(warned) == (0 if bf16 else 1), [str(w.message) for w in warned]
    steps_in_bf16 = any("bf16" in ",".join(s.operands) for s in executable.plan.step_infos)
    assert steps_in_bf16 == bf16
    actual = executable.run(case.inputs)[0]
    if bf16:
        scale = max(1.0, float(np.abs(expected).max()))
        np.testing.assert_allclose(actual, expected, rtol=3e-2, atol=3e-2 * scale)
    else:
        f32 = dnnc.compile(path, pipeline("global")).run(case.inputs)[0]
        np.testing.assert_array_equal(actual, f32)


def test_bf16_weights_are_cast_once_not_at_every_run(tmp_path: Path) -> None:
    """Weights read from a file (dnn.weight, as dnnc-import writes them) and assigned bf16 are
    cast when the executable is built: no step of a run reads a convolution's weights in f32
    (MobileNetV2's spent 1.4 ms of 3.8 so; biases but depthwise ones are read in f32 by design), and the result
    is bf16's."""
    if not computes_in(DataType.BF16):
        pytest.skip("no native bf16 here: dnn-assign-precision keeps f32")
    case = inverted_residuals(1, (1, 16, 8, 8))
    path = write(case, tmp_path)
    module, _ = load_module(path)
    expected = interpret(find_function(module), case.inputs, weights_dir=str(tmp_path))[0]
    executable = dnnc.compile(path, "dnn-optimize{precision=bf16}")
    weights = {"x".join(map(str, w.shape)) + "xf32" for w in case.weights.values() if w.ndim > 1}
    read = [
        o.split("=", 1)[1].split(",")[0] for s in executable.plan.step_infos for o in s.operands
    ]
    assert not weights & set(read), weights & set(read)
    assert any("bf16" in o for s in executable.plan.step_infos for o in s.operands)
    actual = executable.run(case.inputs)[0]
    scale = max(1.0, float(np.abs(expected).max()))
    np.testing.assert_allclose(actual, expected, rtol=3e-2, atol=3e-2 * scale)


CONV = (
    "dnn.conv2d {}, {} {{pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>}} : "
    "(tensor<1x{}x8x8xf32>, tensor<{}x{}x3x3xf32>) -> tensor<1x{}x8x8xf32>"
)
CHAIN = f"""
func.func @chain(%x: tensor<1x3x8x8xf32>, %w1: tensor<16x3x3x3xf32>, %w2: tensor<16x16x3x3xf32>) -> tensor<1x16x4x4xf32> {{
  %r = dnn.eltwise relu %x : tensor<1x3x8x8xf32>
  %c1 = {CONV.format("%r", "%w1", 3, 16, 3, 16)}
  %t = dnn.eltwise tanh %c1 : tensor<1x16x8x8xf32>
  %c2 = {CONV.format("%t", "%w2", 16, 16, 16, 16)}
  %p = dnn.pool max %c2 {{kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}} : (tensor<1x16x8x8xf32>) -> tensor<1x16x4x4xf32>
  func.return %p : tensor<1x16x4x4xf32>
}}
"""
TREE = f"""
func.func @tree(%x: tensor<1x16x8x8xf32>, %y: tensor<1x16x8x8xf32>, %w1: tensor<16x16x3x3xf32>, %w2: tensor<16x16x3x3xf32>) -> tensor<1x16x8x8xf32> {{
  %a = {CONV.format("%x", "%w1", 16, 16, 16, 16)}
  %ra = dnn.eltwise relu %a : tensor<1x16x8x8xf32>
  %ty = dnn.eltwise tanh %y : tensor<1x16x8x8xf32>
  %b = {CONV.format("%ty", "%w2", 16, 16, 16, 16)}
  %s = dnn.binary add %ra, %b : (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %e = dnn.eltwise sigmoid %s : tensor<1x16x8x8xf32>
  func.return %e : tensor<1x16x8x8xf32>
}}
"""


@pytest.mark.parametrize("text", [CHAIN, TREE], ids=["chain", "tree"])
def test_global_is_optimal_on_chains_and_trees(text: str) -> None:
    module = parse_module(text, "<string>", make_context())
    run_passes(make_context(), module, parse_pipeline("dnn-select-kernels"))
    graph = _Graph(find_function(module), Probe())
    ops = list(graph.nodes)
    best = min(
        graph.cost(dict(zip(ops, combination)))[1]
        for combination in itertools.product(*(graph.nodes[op].candidates for op in ops))
    )
    assert graph.cost(graph.optimal())[1] == best
    assert best <= graph.cost(graph.greedy())[1]
    assert any(len(node.candidates) > 1 for node in graph.nodes.values())  # a real choice


GROUPED_CONV = """
func.func @grouped(%x: tensor<1x32x14x14xf32>) -> tensor<1x32x14x14xf32> {{
  %w = dnn.weight "weights.npz", "wei" : tensor<32x{per_group}x3x3xf32>
  %b = dnn.weight "weights.npz", "bias" : tensor<32xf32>
  %y = dnn.conv2d %x, %w, %b {{pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>, groups = {groups} : i64}} : (tensor<1x32x14x14xf32>, tensor<32x{per_group}x3x3xf32>, tensor<32xf32>) -> tensor<1x32x14x14xf32>
  func.return %y : tensor<1x32x14x14xf32>
}}
"""

MATMUL_3D_2D = """
func.func @matmul(%x: tensor<1x32x256xf32>) -> tensor<1x32x512xf32> {
  %w = dnn.weight "weights.npz", "wei" : tensor<256x512xf32>
  %b = dnn.weight "weights.npz", "bias" : tensor<1x1x512xf32>
  %y = dnn.matmul %x, %w, %b : (tensor<1x32x256xf32>, tensor<256x512xf32>, tensor<1x1x512xf32>) -> tensor<1x32x512xf32>
  func.return %y : tensor<1x32x512xf32>
}
"""


def optimized_step(
    text: str, shapes: dict[str, tuple[int, ...]], kind: str, tmp_path: Path
) -> StepInfo:
    """Compile `text` (random weights and input of ``shapes``; ``x`` is the input) with
    dnn-optimize, check it against the interpreter, and return its one step of `kind`."""
    rng = np.random.default_rng(0)
    arrays = {name: rng.standard_normal(shape).astype(np.float32) for name, shape in shapes.items()}
    np.savez(tmp_path / "weights.npz", wei=arrays["wei"], bias=arrays["bias"])
    path = tmp_path / "graph.mlir"
    path.write_text(text)
    module, _ = load_module(path)
    expected = interpret(find_function(module), [arrays["x"]], weights_dir=str(tmp_path))[0]
    executable = dnnc.compile(path, "dnn-optimize")
    assert compare(executable.run([arrays["x"]])[0], expected).ok
    (step,) = [s for s in executable.plan.step_infos if s.kind == kind]
    return step


def packed_weights(step: StepInfo) -> str:
    """The layout of a step's weights ('' when plain)."""
    weights = next(o for o in step.operands if o.startswith("weights="))
    return weights.partition(",")[2]


@pytest.mark.parametrize("groups", [32, 4], ids=["depthwise", "grouped"])
def test_grouped_conv_runs_packed_weights_in_a_fast_implementation(
    groups: int, tmp_path: Path
) -> None:
    """oneDNN packs grouped weights 5-D: depthwise ones ``decbA16a`` (4-D ``cdbA16a``, which
    only a 5-D format tag names), 8 outputs per group ``gOIhw8i8o`` (4-D ``OIhw8i8o``, which
    oneDNN's reshape cannot split): kept, a jit kernel runs; left plain, ``ref:any``."""
    shapes = {"x": (1, 32, 14, 14), "wei": (32, 32 // groups, 3, 3), "bias": (32,)}
    text = GROUPED_CONV.format(per_group=32 // groups, groups=groups)
    step = optimized_step(text, shapes, "convolution", tmp_path)
    assert packed_weights(step), f"weights left plain: {step.operands}"
    assert not step.implementation.startswith("ref"), step.implementation


def test_matmul_of_3d_by_packed_2d_weights_is_not_ref(tmp_path: Path) -> None:
    """2-D weights packed ``BA16a64b`` seen 3-D by the handler: created in the 3-D layout
    (``aCB16b64c``), not by oneDNN's reshape, whose unit-dim stride sends oneDNN to
    ``ref:any`` (13 s instead of ms on a BERT feed-forward layer). Whether oneDNN packs
    them at all is the target's answer (on AVX2 oneDNN 3.2 keeps them plain, ``gemm:jit``)."""
    shapes = {"x": (1, 32, 256), "wei": (256, 512), "bias": (1, 1, 512)}
    packed = weights_layout(
        "matmul", {"src": (32, 256), "weights": (256, 512), "dst": (32, 512)}, DataType.F32
    )
    step = optimized_step(MATMUL_3D_2D, shapes, "matmul", tmp_path)
    assert bool(packed_weights(step)) == bool(packed), (packed, step.operands)
    assert not step.implementation.startswith("ref"), step.implementation


def test_casts_folded_into_constants_round_as_onednn_does() -> None:
    """FoldCastIntoConstant casts a constant once at compile time; the run-time casts it
    replaces (oneDNN's reorders f32 -> bf16 -> f32) give bit-identical results."""
    rng = np.random.default_rng(0)
    values = rng.standard_normal((2, 300)).astype(np.float32)
    rows = ", ".join("[" + ", ".join(repr(float(v)) for v in row) + "]" for row in values)
    text = f"""
func.func @f(%x: tensor<2x300xf32>) -> tensor<2x300xf32> {{
  %c = dnn.constant dense<[{rows}]> : tensor<2x300xf32>
  %b = dnn.cast %c : (tensor<2x300xf32>) -> tensor<2x300xbf16>
  %f = dnn.cast %b : (tensor<2x300xbf16>) -> tensor<2x300xf32>
  %y = dnn.binary add %x, %f : (tensor<2x300xf32>, tensor<2x300xf32>) -> tensor<2x300xf32>
  func.return %y : tensor<2x300xf32>
}}"""
    folded = dnnc.compile(text, "dnn-remove-redundant-reorders")
    at_run_time = dnnc.compile(text, "")
    assert [s.kind for s in folded.plan.step_infos] == ["binary"]
    assert [s.kind for s in at_run_time.plan.step_infos] == ["reorder", "reorder", "binary"]
    x = rng.standard_normal((2, 300)).astype(np.float32)
    np.testing.assert_array_equal(folded.run([x])[0], at_run_time.run([x])[0])


def test_casts_sunk_below_reshapes_compute_the_same() -> None:
    """SinkCastBelowReshape moves a rounding cast after a reshape, where its cast back does not
    cancel it (f32 -> bf16 is lossy): the values are those of the casts where they were."""
    text = """
func.func @f(%x: tensor<2x300xf32>) -> tensor<600xf32> {
  %c = dnn.cast %x : (tensor<2x300xf32>) -> tensor<2x300xbf16>
  %r = dnn.reshape %c : (tensor<2x300xbf16>) -> tensor<600xbf16>
  %f = dnn.cast %r : (tensor<600xbf16>) -> tensor<600xf32>
  func.return %f : tensor<600xf32>
}"""
    module = parse_module(text, "<string>", make_context())
    run_passes(make_context(), module, parse_pipeline("dnn-remove-redundant-reorders"))
    names = [op.name for op in find_function(module).body.block.ops]
    assert names == ["dnn.reshape", "dnn.cast", "dnn.cast", "func.return"]
    x = np.random.default_rng(1).standard_normal((2, 300)).astype(np.float32)
    moved = dnnc.compile(text, "dnn-remove-redundant-reorders").run([x])[0]
    np.testing.assert_array_equal(moved, dnnc.compile(text, "").run([x])[0])
    assert not np.array_equal(moved, x.reshape(-1))  # the cast to bf16 did round


def test_quantize_between_convolutions_runs_in_their_layout() -> None:
    """A Q/DQ pair between two convolutions (a QDQ model's activations) runs in the layout
    they run in: the probe asks oneDNN for a quantize's destination in its integer type (in
    f32, oneDNN has no reorder with a destination zero point, so the quantize stayed plain,
    at the cost of two reorders per pair). Same results as ONNX Runtime within what one
    rounding step of the quantized activation moves the second convolution."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 32, 28, 28)).astype(np.float32)
    w1, w2 = (rng.standard_normal((32, 32, 3, 3)).astype(np.float32) * 0.1 for _ in range(2))
    step = np.float32(0.05)
    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"]),
        helper.make_node("QuantizeLinear", ["r", "s", "z"], ["q"]),
        helper.make_node("DequantizeLinear", ["q", "s", "z"], ["d"]),
        helper.make_node("Conv", ["d", "w2"], ["y"], pads=[1, 1, 1, 1]),
    ]
    initializers = {"w1": w1, "w2": w2, "s": step, "z": np.uint8(0)}
    graph = helper.make_graph(
        nodes,
        "qdq",
        [helper.make_tensor_value_info("x", 1, x.shape)],
        [helper.make_tensor_value_info("y", 1, None)],
        [numpy_helper.from_array(np.asarray(a), n) for n, a in initializers.items()],
    )
    made = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    made.ir_version = 8
    module = import_onnx(made)
    run_passes(make_context(), module, parse_pipeline("dnn-optimize"))
    ops = list(module.walk())
    conv = next(op for op in ops if isinstance(op, Conv2DOp))
    quantize = next(op for op in ops if isinstance(op, QuantizeOp))
    conv_layout = conv.result.type.encoding
    if "nchw" in str(conv_layout) or str(conv_layout) == "none":
        pytest.skip(f"oneDNN runs this convolution in plain nchw here ({conv_layout})")
    assert quantize.src.type.encoding == conv_layout
    assert sum(isinstance(op, ReorderOp) for op in ops) == 2  # the argument's and the result's
    ours = dnnc.compile(made).run([x])[0]
    session = ort.InferenceSession(made.SerializeToString(), providers=["CPUExecutionProvider"])
    theirs = session.run(None, {"x": x})[0]
    bound = float(step * np.abs(w2).sum(axis=(1, 2, 3)).max())
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=bound)
