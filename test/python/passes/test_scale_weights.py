"""dnn-scale-weights on squeeze-and-excitation blocks as torchvision builds them (EfficientNet's
MBConv: expand, depthwise, SE, project): compiled with and without the pass, in f32 and, where
the CPU computes in it, bf16, the block computes the same and agrees with ONNX Runtime; with
it the SE factor multiplies the projection's weights (no binary step reads the activation),
and a block whose activation is smaller than the weights keeps its multiply."""

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
from dnnc_testing.differential import assert_agree, optimize_without
from dnnc_testing.model_zoo import export


class SqueezeExcitation(nn.Module):
    """torchvision's (and EfficientNet's): x times sigmoid(fc(silu(fc(mean of x))))."""

    def __init__(self, channels: int, squeezed: int) -> None:
        super().__init__()
        self.fc1, self.fc2 = nn.Conv2d(channels, squeezed, 1), nn.Conv2d(squeezed, channels, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        scale = nn.functional.adaptive_avg_pool2d(x, 1)
        return x * torch.sigmoid(self.fc2(nn.functional.silu(self.fc1(scale))))


def _block(channels: int, projected: int) -> nn.Module:
    wide = 4 * channels
    return nn.Sequential(
        nn.Conv2d(channels, wide, 1),
        nn.SiLU(),
        nn.Conv2d(wide, wide, 3, padding=1, groups=wide),
        nn.SiLU(),
        SqueezeExcitation(wide, channels // 2),
        nn.Conv2d(wide, projected, 1),
    ).eval()


def _export(tmp_path: Path, shape: tuple[int, ...], projected: int) -> Path:
    torch.manual_seed(0)
    return export(_block(shape[1], projected), shape, tmp_path / f"se_{shape[2]}.onnx")


def _activation_binaries(executable: AnyExecutable, shape: tuple[int, ...]) -> int:
    """Binary steps whose first source has the wide activation's shape."""
    wide = "x".join(map(str, (shape[0], 4 * shape[1], *shape[2:])))
    return sum(
        1
        for step in executable.plan.step_infos
        if step.kind == "binary" and step.operands[0].startswith(f"src_0={wide}x")
    )


PRECISIONS = ["f32", "bf16"]


@pytest.mark.parametrize("precision", PRECISIONS)
def test_scaled_weights_compute_what_the_block_does(tmp_path: Path, precision: str) -> None:
    if precision == "bf16" and not computes_in(DataType.BF16):
        pytest.skip("this CPU has no native bf16 compute (dnn-assign-precision keeps f32)")
    shape = (1, 8, 28, 28)
    path = _export(tmp_path, shape, projected=8)
    optimize = f"dnn-optimize{{precision={precision}}}"
    scaled = dnnc.compile(path, optimize)
    unscaled = dnnc.compile(path, optimize_without("dnn-scale-weights", precision))
    assert _activation_binaries(scaled, shape) == 0
    assert _activation_binaries(unscaled, shape) == 1
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    assert_agree(path, scaled, unscaled, {"x": x}, precision)


def test_small_activation_keeps_its_multiply(tmp_path: Path) -> None:
    shape = (1, 8, 4, 4)  # 32 x 16 activation elements, 64 x 32 weights
    path = _export(tmp_path, shape, projected=64)
    executable = dnnc.compile(path)
    assert _activation_binaries(executable, shape) == 1
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    oracle = ort.InferenceSession(str(path)).run(None, {"x": x})[0]
    np.testing.assert_allclose(
        executable.run({"x": x})[0], oracle, rtol=1e-5, atol=1e-5 * np.abs(oracle).max()
    )
