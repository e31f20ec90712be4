"""dnn-hoist-strides on ResNet v1's stage boundary as dnnc_testing.model_zoo builds it (the
last bottleneck of a stage, then the next stage's first, downsampling with stride-2 1x1
convolutions on both paths; odd and even sizes): compiled with and without the pass, in f32
and, where the CPU computes in it, bf16, the blocks compute the same and agree with ONNX
Runtime; with the pass the full-resolution bottleneck runs on a quarter of the pixels (its
residual input copied by one 1x1 pool), without it nothing is pooled."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from torch import nn

import dnnc
from dnnc.core.kinds import DataType
from dnnc.driver.executables import AnyExecutable
from dnnc.target import computes_in
from dnnc_testing.differential import assert_agree, optimize_without
from dnnc_testing.model_zoo import Bottleneck, export


def _export(tmp_path: Path, shape: tuple[int, ...]) -> Path:
    torch.manual_seed(0)
    blocks = nn.Sequential(Bottleneck(shape[1], shape[1] // 4, 1), Bottleneck(shape[1], 8, 2))
    for module in blocks.modules():  # batch norms with statistics of their own
        if isinstance(module, nn.BatchNorm2d):
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 1.5)
    return export(blocks, shape, tmp_path / f"stage_{shape[2]}.onnx")


def _pools(executable: AnyExecutable) -> int:
    return sum(1 for step in executable.plan.step_infos if step.kind == "pooling")


@pytest.mark.parametrize("precision", ["f32", "bf16"])
@pytest.mark.parametrize("size", [14, 15])
def test_hoisted_strides_compute_what_the_stage_does(
    tmp_path: Path, precision: str, size: int
) -> None:
    if precision == "bf16" and not computes_in(DataType.BF16):
        pytest.skip("this CPU has no native bf16 compute (dnn-assign-precision keeps f32)")
    shape = (1, 32, size, size)
    path = _export(tmp_path, shape)
    hoisted = dnnc.compile(path, f"dnn-optimize{{precision={precision}}}")
    direct = dnnc.compile(path, optimize_without("dnn-hoist-strides", precision))
    assert (_pools(hoisted), _pools(direct)) == (1, 0)
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    assert_agree(path, hoisted, direct, {"x": x}, precision)


DYNAMIC_STAGE = """
func.func @stage(%x: tensor<?x4x?x?xf32>) -> tensor<?x8x?x?xf32> {
  %w = dnn.constant dense<0.5> : tensor<8x4x3x3xf32>
  %w2 = dnn.constant dense<0.25> : tensor<8x8x1x1xf32>
  %c = dnn.conv2d %x, %w {pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>} : (tensor<?x4x?x?xf32>, tensor<8x4x3x3xf32>) -> tensor<?x8x?x?xf32>
  %r = dnn.eltwise relu %c : tensor<?x8x?x?xf32>
  %p = dnn.conv2d %r, %w2 {strides = array<i64: 2, 2>} : (tensor<?x8x?x?xf32>, tensor<8x8x1x1xf32>) -> tensor<?x8x?x?xf32>
  func.return %p : tensor<?x8x?x?xf32>
}
"""
"""A 3x3 convolution read only by a stride-2 1x1 one, batch and image size dynamic."""


def test_hoisted_strides_of_a_traced_image_size_follow_it() -> None:
    """Traced with symbolic sizes, the hoisted convolution's rows and columns stay expressions
    of the image size (rounded up in integers, not math.ceil of a float, which kept the
    traced size: the next image size the template admitted had primitives of the first
    one's rows, which oneDNN refused). Each size agrees with a compile without the pass."""
    hoisted = dnnc.compile(DYNAMIC_STAGE)
    direct = dnnc.compile(DYNAMIC_STAGE, optimize_without("dnn-hoist-strides", "f32"))
    rng = np.random.default_rng(0)
    for shape in [(1, 4, 8, 8), (2, 4, 9, 7), (1, 4, 16, 12)]:
        x = rng.standard_normal(shape).astype(np.float32)
        rows, columns = (shape[2] + 1) // 2, (shape[3] + 1) // 2
        steps = hoisted.plan_for((shape,)).plan.step_infos
        first = next(step for step in steps if step.kind == "convolution")
        assert f"dst={shape[0]}x8x{rows}x{columns}xf32" in " ".join(first.operands)
        np.testing.assert_allclose(hoisted.run([x])[0], direct.run([x])[0], rtol=1e-5, atol=1e-5)
