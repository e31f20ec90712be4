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
