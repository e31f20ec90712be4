"""dnn-fuse-quantized-matmul, differential: models quantized by ONNX Runtime's own tools,
compiled with and without the pass, both against ONNX Runtime on the same file.

* a small dense net (Linear 64->96, ReLU, Linear 96->32) quantized by ``quantize_static``
  (QDQ, per-channel weights): on [1, 16, 64] with u8 activations (ONNX Runtime's
  pre-processing makes each MatMul + Add a Gemm between reshapes, its weights transposed
  once) and on [16, 64] with s8 activations (Gemm with transB: the weights read through a
  transpose);
* one QLinearMatMul (the QOperator form: u8 activations, s8 weights scaled per column, a
  u8 result), which imports as dequantize, matmul, quantize and fuses the same way;
* the small BERT layer of test_quantized_models.py (its export, shared through the session
  cache) quantized statically (S8S8 and U8S8 QDQ, per channel) and dynamically
  (DynamicQuantizeLinear -> MatMulInteger -> Cast -> Mul -> Add).

With the pass every dense matmul is one int8 matmul (checked on the plan: run-time scales
bound, and never oneDNN's ``ref:`` implementation), on a CPU with VNNI, and so are the
static models' attention products of two activations (u8 ones shifted to s8, oneDNN's
weights type); without VNNI (dnnc.target.host.has_vnni) it fuses only u8 sources with
constant 7-bit weights (dnnc.passes.int8_exactness): none of these 8-bit models' matmuls (the
test checks that), the 6 dense ones of the BERT layer quantized with ``reduce_range``.

Tolerances. Dense net: in steps of the output's quantization grid, as the convolution
fusion's test: one step per quantized layer (2) and a mean under 0.05 (a value next to a
rounding tie may round the other way; ONNX Runtime accumulates in int32 and requantizes
once, as the fused matmul does). BERT static: the output is the f32 LayerNorm's, within 0.1
of ONNX Runtime's (test_quantized_models.py's bound), fused or not. Dynamic: the activations
are quantized by a formula both compute exactly and the product is exact in int32, so the
results agree to f32 rounding (1e-4).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx
import pytest
import torch
from conftest import Exported
from onnx import TensorProto, helper, numpy_helper
from test_quantized_models import SEQUENCE, _bert_layer
from torch import nn

import dnnc
from dnnc.driver.pipelines import OptimizePipeline
from dnnc.runtime.report import StepInfo
from dnnc.target.host import has_vnni
from dnnc_testing import quantized

DENSE = {"u8": (1, 16, 64), "s8": (16, 64)}
"""The dense net's input per activation type: Gemm without or with transB (module
docstring)."""
UNFUSED_STEP = "dnn-fuse-quantized-matmul"
UNFUSED = ",".join(s for s in OptimizePipeline.steps if s != UNFUSED_STEP)
BERT_DENSE_MATMULS = 6
"""Query, key, value, attention output, FFN in and out."""
BERT_ATTENTION_MATMULS = 2
"""Q K^T and the probabilities times V: of two activations (u8 weights shifted to s8)."""


def _dense(shape: tuple[int, ...]) -> Callable[[Path], None]:
    def export(path: Path) -> None:
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(64, 96), nn.ReLU(), nn.Linear(96, 32))
        torch.onnx.export(
            model.eval(), (torch.randn(shape),), str(path), dynamo=False, input_names=["input"]
        )

    return export


def _qlinear_matmul(path: Path) -> None:
    rng = np.random.default_rng(7)
    initializers = {
        "a_scale": np.float32(0.03),
        "a_zero": np.uint8(120),
        "b": rng.integers(-127, 128, (64, 48)).astype(np.int8),
        "b_scale": rng.uniform(0.002, 0.01, 48).astype(np.float32),
        "b_zero": np.zeros(48, np.int8),
        "y_scale": np.float32(0.05),
        "y_zero": np.uint8(128),
    }
    node = helper.make_node(
        "QLinearMatMul",
        ["input", "a_scale", "a_zero", "b", "b_scale", "b_zero", "y_scale", "y_zero"],
        ["output"],
    )
    graph = helper.make_graph(
        [node],
        "qlinear_matmul",
        [helper.make_tensor_value_info("input", TensorProto.UINT8, [16, 64])],
        [helper.make_tensor_value_info("output", TensorProto.UINT8, [16, 48])],
        [numpy_helper.from_array(np.asarray(v), k) for k, v in initializers.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)
    onnx.save(model, str(path))


TIES = (32, 48)
"""The ties net's input [M, K]; its weights are [K, K]."""


def _ties(path: Path, *, quantized_too: bool = False) -> None:
    """A QDQ MatMul whose requantized values are whole or half numbers: u8 source in [0, 3]
    (scale 0.5), constant weights in [-3, 3] (scale 1 per column), result scale 1 and zero
    point 3 (odd). Half the values are ties; ONNX rounds them half to even before adding the
    zero point. The output is the dequantized result; ``quantized_too`` returns the 8-bit
    result as a second output (then it stays a step of its own: no rule 7)."""
    rng = np.random.default_rng(0)
    columns = TIES[1]
    initializers = {
        "xs": np.float32(0.5),
        "xz": np.uint8(0),
        "w": rng.integers(-3, 4, (columns, columns)).astype(np.int8),
        "ws": np.ones(columns, np.float32),
        "ys": np.float32(1.0),
        "yz": np.uint8(3),
    }
    nodes = [
        helper.make_node("DequantizeLinear", ["x", "xs", "xz"], ["xf"]),
        helper.make_node("DequantizeLinear", ["w", "ws"], ["wf"], axis=1),
        helper.make_node("MatMul", ["xf", "wf"], ["m"]),
        helper.make_node("QuantizeLinear", ["m", "ys", "yz"], ["yq"]),
        helper.make_node("DequantizeLinear", ["yq", "ys", "yz"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "matmul_ties",
        [helper.make_tensor_value_info("x", TensorProto.UINT8, TIES)],
        [
            helper.make_tensor_value_info("y", TensorProto.FLOAT, TIES),
            *([helper.make_tensor_value_info("yq", TensorProto.UINT8, TIES)] * quantized_too),
        ],
        [numpy_helper.from_array(np.asarray(v), k) for k, v in initializers.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.save(model, str(path))


def _int8_matmuls(executable: dnnc.Executable) -> list[StepInfo]:
    return [
        s
        for s in executable.plan.step_infos
        if s.kind == "matmul" and any(o.startswith("src_scale=") for o in s.operands)
    ]


def _check_fused(fused: dnnc.Executable, unfused: dnnc.Executable, count: int) -> None:
    """``count`` int8 matmuls with the pass (none without VNNI: 8-bit weights), on real
    kernels; none without the pass."""
    assert not _int8_matmuls(unfused)
    assert len(_int8_matmuls(fused)) == (count if has_vnni() else 0)
    for matmul in _int8_matmuls(fused):
        assert not matmul.implementation.startswith("ref"), matmul.implementation


@pytest.mark.parametrize("activations", ["s8", "u8"])
def test_dense_int8_matmuls_agree_with_onnxruntime(exported: Exported, activations: str) -> None:
    shape = DENSE[activations]
    f32 = exported.get(f"qdense_base_{len(shape)}d", _dense(shape))
    path = exported.get(
        f"qdense_{activations}s8",
        lambda p: quantized.static(f32, p, "input", shape, activations=activations),
    )
    gemms = [n for n in onnx.load(str(path)).graph.node if n.op_type == "Gemm"]
    trans_b = {a.i for g in gemms for a in g.attribute if a.name == "transB"}
    assert len(gemms) == 2 and trans_b == {int(len(shape) == 2)}
    x = np.random.default_rng(3).standard_normal(shape).astype(np.float32)
    theirs, step = quantized.onnxruntime_output(path, x), quantized.output_step(path)
    assert np.unique(np.rint(theirs / step)).size > 32  # values spread over the grid
    fused, unfused = dnnc.compile(str(path)), dnnc.compile(str(path), UNFUSED)
    _check_fused(fused, unfused, 2)
    for executable in (fused, unfused):
        steps = np.abs(executable.run([x])[0] - theirs) / step
        assert steps.max() <= 2.01 and steps.mean() < 0.05, (steps.max(), steps.mean())


def test_qlinear_matmul_is_one_int8_matmul(exported: Exported, tmp_path: Path) -> None:
    """Also saved and loaded: the loaded plan packs the int8 weights again (as qconv2d's)."""
    path = exported.get("qlinear_matmul", _qlinear_matmul)
    x = np.random.default_rng(4).integers(0, 256, (16, 64)).astype(np.uint8)
    theirs = quantized.onnxruntime_output(path, x).astype(np.int64)
    assert np.unique(theirs).size > 32  # values spread over the grid
    fused = dnnc.compile(str(path), save_to=tmp_path / "model")
    unfused = dnnc.compile(str(path), UNFUSED)
    _check_fused(fused, unfused, 1)
    for executable in (fused, unfused):
        steps = np.abs(executable.run([x])[0].astype(np.int64) - theirs)
        assert steps.max() <= 1, steps.max()  # one rounding: a tie may round either way
    loaded = dnnc.load(tmp_path / "model")
    np.testing.assert_array_equal(loaded.run([x])[0], fused.run([x])[0])


def test_zero_point_added_after_rounding_agrees_with_onnxruntime(exported: Exported) -> None:
    """dnn-fuse-quantized-matmul's zero-point rule (dnnc.passes.requantization): at exact ties
    with an odd zero point the int8 matmul rounds as ONNX does (half to even, then the zero
    point), equal to ONNX Runtime (exact here) on every output; without the rule oneDNN adds
    the zero point first and rounds many ties the other way (one step). Fused on every CPU (a
    u8 source, 2-bit weights: exact without VNNI too), on a real kernel. The 8-bit result is
    an output too, so that it is the qmatmul's (rule 7 would dequantize it in the post-ops,
    after the rounding whatever the zero point)."""
    path = exported.get("qmatmul_ties_both", lambda p: _ties(p, quantized_too=True))
    x = np.random.default_rng(1).integers(0, 4, TIES).astype(np.uint8)
    theirs = quantized.onnxruntime_output(path, x, "x")
    rule = "dnn-fuse-quantized-matmul{round-first=false}"
    without = ",".join(rule if s == UNFUSED_STEP else s for s in OptimizePipeline.steps)
    ours, unruled = dnnc.compile(str(path)), dnnc.compile(str(path), without)
    for executable in (ours, unruled):
        (matmul,) = _int8_matmuls(executable)
        assert not matmul.implementation.startswith("ref"), matmul.implementation
        assert "binary" not in [s.kind for s in executable.plan.step_infos]  # no quantize step
    np.testing.assert_array_equal(ours.run([x])[0], theirs)
    steps = np.abs(unruled.run([x])[0] - theirs)
    assert steps.max() == 1 and np.mean(steps > 0) > 0.2, np.mean(steps > 0)


def test_dequantized_result_fused_agrees_with_onnxruntime(exported: Exported) -> None:
    """Rule 7: the ties net's Q -> DQ output is dequantized in the int8 matmul's post-ops (one
    step writing f32: no dequantize reorder), equal to ONNX Runtime (exact here) on every
    output, ties included, and to the same net compiled without the rule (its 8-bit result
    also returned, so kept: a qmatmul into u8 and a dequantize step), on every CPU."""
    x = np.random.default_rng(1).integers(0, 4, TIES).astype(np.uint8)
    fused = dnnc.compile(str(exported.get("qmatmul_ties", _ties)))
    both = exported.get("qmatmul_ties_both", lambda p: _ties(p, quantized_too=True))
    unfused = dnnc.compile(str(both))
    assert [s.kind for s in fused.plan.step_infos] == ["matmul"]
    assert [s.kind for s in unfused.plan.step_infos] == ["matmul", "reorder"]
    (matmul,) = _int8_matmuls(fused)
    assert not matmul.implementation.startswith("ref"), matmul.implementation
    theirs = quantized.onnxruntime_output(both, x, "x")
    np.testing.assert_array_equal(fused.run([x])[0], theirs)
    np.testing.assert_array_equal(unfused.run([x])[0], theirs)


@pytest.mark.parametrize("activations", ["s8", "u8"])
def test_bert_static_int8_matmuls_agree_with_onnxruntime(
    exported: Exported, activations: str
) -> None:
    f32 = exported.get("bert_small_int8_base", _bert_layer)
    path = exported.get(
        f"bert_small_qdq_{activations}s8",
        lambda p: quantized.static(f32, p, "input", SEQUENCE, activations=activations),
    )
    x = np.random.default_rng(5).standard_normal(SEQUENCE).astype(np.float32)
    theirs = quantized.onnxruntime_output(path, x)
    fused, unfused = dnnc.compile(str(path)), dnnc.compile(str(path), UNFUSED)
    _check_fused(fused, unfused, BERT_DENSE_MATMULS + BERT_ATTENTION_MATMULS)
    ours, before = fused.run([x])[0], unfused.run([x])[0]
    assert np.abs(ours - theirs).max() <= 0.1, np.abs(ours - theirs).max()
    assert np.abs(before - theirs).max() <= 0.1, np.abs(before - theirs).max()


def test_bert_dynamic_int8_matmuls_agree_with_onnxruntime(exported: Exported) -> None:
    f32 = exported.get("bert_small_int8_base", _bert_layer)
    path = exported.get("bert_small_dynamic", lambda p: quantized.dynamic(f32, p))
    x = np.random.default_rng(5).standard_normal(SEQUENCE).astype(np.float32)
    theirs = quantized.onnxruntime_output(path, x)
    fused, unfused = dnnc.compile(str(path)), dnnc.compile(str(path), UNFUSED)
    _check_fused(fused, unfused, BERT_DENSE_MATMULS)
    for executable in (fused, unfused):
        np.testing.assert_allclose(executable.run([x])[0], theirs, rtol=1e-4, atol=1e-4)


def test_bert_seven_bit_weights_fuse_on_every_cpu(exported: Exported) -> None:
    """With ``reduce_range`` (weights in [-64, 64]) and u8 sources (the S8S8 model's s8 ones
    after dnn-shift-to-u8) oneDNN's int8 matmul is exact without VNNI too (vpmaddubsw's pair
    sums stay below 2**15, dnnc.passes.int8_exactness): the 6 dense matmuls fuse on every
    CPU, the 2 attention products (weights that are an activation, of unknown range) only
    with VNNI; with and without the pass within the BERT bound of ONNX Runtime, on native
    kernels."""
    f32 = exported.get("bert_small_int8_base", _bert_layer)
    path = exported.get(
        "bert_small_qdq_s8s8_7bit",
        lambda p: quantized.static(f32, p, "input", SEQUENCE, reduce_range=True),
    )
    x = np.random.default_rng(5).standard_normal(SEQUENCE).astype(np.float32)
    theirs = quantized.onnxruntime_output(path, x)
    fused, unfused = dnnc.compile(str(path)), dnnc.compile(str(path), UNFUSED)
    assert not _int8_matmuls(unfused)
    attention = BERT_ATTENTION_MATMULS if has_vnni() else 0
    assert len(_int8_matmuls(fused)) == BERT_DENSE_MATMULS + attention
    for matmul in _int8_matmuls(fused):
        assert not matmul.implementation.startswith("ref"), matmul.implementation
    for executable in (fused, unfused):
        difference = np.abs(executable.run([x])[0] - theirs).max()
        assert difference <= 0.1, difference
