"""The model zoo (dnnc_testing/model_zoo.py) imports, verifies, compiles through the default
pipeline and matches ONNX Runtime in fp32; composite recovery fires on exported graphs."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import onnx
import pytest
import torch
from onnx_helpers import function, run_compiled, run_onnxruntime

from dnnc.driver.pipelines import parse_pipeline, run_passes
from dnnc.frontend.onnx import import_onnx
from dnnc.ir.text import make_context
from dnnc_testing.model_zoo import INPUT_NAME, MODELS, build

RTOL = 1e-4
"""Relative tolerance against ONNX Runtime; atol is ATOL_OF_MAX * max |ONNX Runtime result|
(accumulation order differs between oneDNN and ONNX Runtime over up to 53 layers)."""
ATOL_OF_MAX = 1e-5


@pytest.fixture(scope="module")
def zoo(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    directory = tmp_path_factory.mktemp("zoo")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the TorchScript exporter's deprecation notice
        return {name: build(name, directory) for name in MODELS}


def _op_counts(module: object) -> dict[str, int]:
    counts: dict[str, int] = {}
    for op in function(module).body.block.ops:
        counts[op.name] = counts.get(op.name, 0) + 1
    return counts


EXPECTED_OPS = {
    "resnet50": {"dnn.conv2d": 53, "dnn.pool": 2, "dnn.inner_product": 1},  # max, global avg
    "mobilenet_v2": {"dnn.conv2d": 52, "dnn.eltwise": 35, "dnn.inner_product": 1},
    "bert_layer": {"dnn.matmul": 8, "dnn.layer_norm": 2, "dnn.softmax": 1, "dnn.eltwise": 1},
    "residual_chain": {"dnn.conv2d": 5, "dnn.batch_norm": 5, "dnn.inner_product": 1},
    "efficientnet_b0": {"dnn.conv2d": 81, "dnn.pool": 17, "dnn.inner_product": 1},
    "vit_b_16": {"dnn.conv2d": 1, "dnn.layer_norm": 25, "dnn.softmax": 12, "dnn.matmul": 60},
}


@pytest.mark.parametrize("name", list(MODELS))
def test_model_imports_and_matches_onnxruntime(zoo: dict[str, Path], name: str) -> None:
    module = import_onnx(zoo[name])  # verified by import_onnx
    counts = _op_counts(module)
    assert {op: counts.get(op, 0) for op in EXPECTED_OPS[name]} == EXPECTED_OPS[name]
    x = np.random.default_rng(0).standard_normal(MODELS[name].input_shape).astype(np.float32)
    inputs = {INPUT_NAME: x}
    (ours,) = run_compiled(module, inputs)
    (theirs,) = run_onnxruntime(onnx.load(zoo[name]), inputs)
    np.testing.assert_allclose(ours, theirs, rtol=RTOL, atol=ATOL_OF_MAX * np.abs(theirs).max())


def test_bert_layer_before_opset_17_recovers_layer_norm_and_gelu(tmp_path: Path) -> None:
    """Opset 14 has no LayerNormalization: torch writes it out, dnn-recover-layer-norm puts it
    back; the erf GELU is one gelu_erf from the importer."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        path = build("bert_layer", tmp_path, opset=14)
    module = import_onnx(path)
    assert "dnn.layer_norm" not in _op_counts(module)
    x = (
        np.random.default_rng(1)
        .standard_normal(MODELS["bert_layer"].input_shape)
        .astype(np.float32)
    )
    (ours,) = run_compiled(module, {INPUT_NAME: x})
    run_passes(make_context(), module, parse_pipeline("dnn-recover-gelu,dnn-recover-layer-norm"))
    counts = _op_counts(module)
    assert counts["dnn.layer_norm"] == 2 and "dnn.reduce" not in counts
    (theirs,) = run_onnxruntime(onnx.load(path), {INPUT_NAME: x})
    np.testing.assert_allclose(ours, theirs, rtol=RTOL, atol=ATOL_OF_MAX * np.abs(theirs).max())


def test_tanh_gelu_export_is_recovered(tmp_path: Path) -> None:
    path = tmp_path / "gelu.onnx"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            torch.nn.GELU(approximate="tanh"),
            (torch.randn(2, 8),),
            str(path),
            dynamo=False,
            opset_version=17,
            input_names=[INPUT_NAME],
        )
    module = import_onnx(path)
    run_passes(make_context(), module, parse_pipeline("dnn-recover-gelu"))
    assert list(_op_counts(module)) == ["dnn.eltwise", "func.return"]
    assert "gelu_tanh" in str(module)
