"""Models quantized by ONNX Runtime's own tools run by dnnc and by ONNX Runtime from the same
file: a torchvision ResNet-18 (weights=None, BatchNorm statistics from a batch) quantized
statically in QDQ format (S8S8, ORT's default, and U8S8; per-channel weights; MinMax
calibration on 8 random inputs), and a small BERT layer quantized statically (S8S8 QDQ, its
GELU rounded inside) and dynamically (DynamicQuantizeLinear -> MatMulInteger).

Tolerances. Static: every quantized layer rounds to its own grid, and a value next to a
rounding tie may round the other way in another engine (ONNX Runtime accumulates in int32
and requantizes once, as dnnc's fused int8 convolutions do on a VNNI CPU; elsewhere dnnc
dequantizes and computes in f32, and its adds and pooling are f32 either way), one step of
that layer; ResNet-18's 21 quantized layers carry such flips to the logits. So dnnc's logits
must be within 5 steps of the output's quantization grid of ONNX Runtime's everywhere and
within one step on average, and no further from the f32 model's logits (RMS) than ONNX
Runtime's are, give or take 10%. (ONNX Runtime's optimized and unoptimized runs of this file
differ by up to 3 steps themselves.) Dynamic: there is no output grid, the activations are
quantized by a formula both compute exactly, so the results agree to f32 rounding.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch
from conftest import Exported
from onnx import numpy_helper
from torch import nn

import dnnc
from dnnc.frontend.onnx import import_onnx
from dnnc_testing import quantized
from dnnc_testing.model_zoo import BertLayer
from dnnc_testing.torchvision_models import models as torchvision_models

IMAGE = (1, 3, 64, 64)
SEQUENCE = (1, 16, 64)


def _resnet18(path: Path) -> None:
    torch.manual_seed(0)
    model = torchvision_models().resnet18(weights=None)
    for module in model.modules():
        if isinstance(module, nn.BatchNorm2d):
            module.momentum = 1.0  # statistics of the batch below
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, std=module.in_features**-0.5)  # O(1) logits
    model.train()
    model(torch.randn(8, *IMAGE[1:]))
    torch.onnx.export(
        model.eval(), (torch.randn(IMAGE),), str(path), dynamo=False, input_names=["input"]
    )


def _bert(path: Path) -> None:
    """Opset 17 and no constant folding, as bench/models.py exports it: the GELU is the
    decomposed erf form (opset 20 has a Gelu node), which quantize_static rounds inside."""
    torch.manual_seed(0)
    torch.onnx.export(
        BertLayer(hidden=64, heads=4, ffn=256).eval(),
        (torch.randn(SEQUENCE),),
        str(path),
        dynamo=False,
        input_names=["input"],
        opset_version=17,
        do_constant_folding=False,
    )


def _ort(path: Path, x: np.ndarray) -> np.ndarray:
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(None, {"input": x})[0]


def _rms(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.sqrt(np.mean((a.astype(np.float64) - b) ** 2)))


def _output_step(path: Path) -> float:
    """The scale of the DequantizeLinear that gives the model's output."""
    graph = onnx.load(str(path)).graph
    last = next(n for n in graph.node if n.output[0] == graph.output[0].name)
    assert last.op_type == "DequantizeLinear"
    scale = next(i for i in graph.initializer if i.name == last.input[1])
    return float(numpy_helper.to_array(scale))


@pytest.mark.parametrize("activations", ["s8", "u8"])
def test_resnet18_static_qdq_agrees_with_onnxruntime(exported: Exported, activations: str) -> None:
    f32 = exported.get("resnet18_int8_base", _resnet18)
    path = exported.get(
        f"resnet18_qdq_{activations}s8",
        lambda p: quantized.static(f32, p, "input", IMAGE, activations=activations),
    )
    x = np.random.default_rng(5).standard_normal(IMAGE).astype(np.float32)
    ours, theirs, reference = dnnc.compile(str(path)).run([x])[0], _ort(path, x), _ort(f32, x)
    assert np.abs(reference).max() > 1.0  # O(1) logits: the tolerance means something
    steps = np.abs(ours - theirs) / _output_step(path)
    assert steps.max() <= 5.5 and steps.mean() <= 1.0, (steps.max(), steps.mean())
    assert _rms(ours, reference) <= 1.1 * _rms(theirs, reference)


def test_bert_static_qdq_gelu_recovered_agrees_with_onnxruntime(exported: Exported) -> None:
    f32 = exported.get("bert_small_int8_base", _bert)
    path = exported.get(
        "bert_small_qdq_s8s8", lambda p: quantized.static(f32, p, "input", SEQUENCE)
    )
    assert "Erf" in {n.op_type for n in onnx.load(str(path)).graph.node}
    text = str(import_onnx(onnx.load(str(path))))
    assert "gelu_erf" in text and "dnn.eltwise erf" not in text  # oneDNN runs the GELU
    x = np.random.default_rng(5).standard_normal(SEQUENCE).astype(np.float32)
    ours, theirs, reference = dnnc.compile(str(path)).run([x])[0], _ort(path, x), _ort(f32, x)
    assert _rms(reference, np.zeros_like(reference)) == pytest.approx(1.0, rel=0.01)
    # The output is the f32 LayerNorm's (no grid): within 0.1 of ONNX Runtime's (measured
    # 0.053; 0.053 too with the GELU's inner roundings kept) and as close to f32.
    assert np.abs(ours - theirs).max() <= 0.1
    assert _rms(ours, reference) <= 1.1 * _rms(theirs, reference)


def test_bert_dynamic_agrees_with_onnxruntime(exported: Exported) -> None:
    f32 = exported.get("bert_small_int8_base", _bert)
    path = exported.get("bert_small_dynamic", lambda p: quantized.dynamic(f32, p))
    types = {n.op_type for n in onnx.load(str(path)).graph.node}
    assert {"DynamicQuantizeLinear", "MatMulInteger"} <= types
    x = np.random.default_rng(5).standard_normal(SEQUENCE).astype(np.float32)
    ours, theirs, reference = dnnc.compile(str(path)).run([x])[0], _ort(path, x), _ort(f32, x)
    np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-4)
    assert _rms(ours, reference) <= 1.1 * _rms(theirs, reference)
