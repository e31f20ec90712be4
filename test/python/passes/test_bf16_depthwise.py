"""A bf16 depthwise convolution reads its bias in bf16 (kernel_table.data_operands: oneDNN 3.2's
brdgmm depthwise kernel takes a bias only in the destination's type), and MobileNetV2's
inverted residual block (expand, depthwise, project, each with a bias once batch norm is
folded) computed so agrees with ONNX Runtime within bf16's tolerance; the other convolutions
keep an f32 bias."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
import torch
from torch import nn

import dnnc
from dnnc.core.kinds import DataType
from dnnc.driver.executables import AnyExecutable
from dnnc.target import computes_in
from dnnc_testing.model_zoo import export


def _inverted_residual(channels: int, wide: int) -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(channels, wide, 1),
        nn.ReLU6(),
        nn.Conv2d(wide, wide, 3, padding=1, groups=wide),
        nn.ReLU6(),
        nn.Conv2d(wide, channels, 1),
    )


def _bias_types(executable: AnyExecutable) -> dict[str, str]:
    """The bias element type of each convolution step, by its weights' shape."""
    types = {}
    for step in executable.plan.step_infos:
        operands = dict(o.split("=", 1) for o in step.operands)
        if step.kind == "convolution" and "bias" in operands:
            weights = "x".join(operands["weights"].split(",")[0].split("x")[:-1])
            types[weights] = operands["bias"].split(",")[0].split("x")[-1]
    return types


def test_bf16_depthwise_reads_its_bias_in_bf16(tmp_path: Path) -> None:
    if not computes_in(DataType.BF16):
        pytest.skip("this CPU has no native bf16 compute (dnn-assign-precision keeps f32)")
    shape = (1, 8, 14, 14)
    torch.manual_seed(0)
    path = export(_inverted_residual(8, 32), shape, tmp_path / "inverted_residual.onnx")
    executable = dnnc.compile(path, "dnn-optimize{precision=bf16}")
    assert _bias_types(executable) == {"32x8x1x1": "f32", "32x1x3x3": "bf16", "8x32x1x1": "f32"}
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    oracle = ort.InferenceSession(str(path)).run(None, {"x": x})[0]
    scale = np.abs(oracle).max()
    np.testing.assert_allclose(executable.run({"x": x})[0], oracle, rtol=2e-2, atol=2e-2 * scale)
