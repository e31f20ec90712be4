"""dnnc.runtime.step_threads on an int8 image net, differential: a MobileNetV2-like stem
quantized by ONNX Runtime's ``quantize_static`` (s8 activations, per-channel weights) run
at 2 threads with the rule and with every step on the caller's count, both against ONNX
Runtime on the same file.

A 3-channel 224x224 input (quantized in NCHW, then reordered to the NHWC the convolutions
read: 3 channels innermost, a transposing reorder of 300 K elements) feeds a strided 3x3
convolution to 8 channels (0.68 M multiply-adds) and a depthwise 3x3 one (0.23 M, between
SMALL_CONVOLUTION_MACS and SMALL_STEP_MACS). Under the rule the reorder and both
convolutions run on the team, the quantizes (the input's: 750 KB) and the output's reorders
(50-100 KB) on one thread: the thread counts change the split of the work,
never a value, so both runs give the same output, within one output step of ONNX Runtime's
per quantized layer (its int32 accumulation rounds as oneDNN's; test_quantized_fusion)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from conftest import Exported
from torch import nn

from dnnc.dnnl.threads import running_on
from dnnc_testing import quantized
from dnnc_testing.step_threads import compiled_at_two_threads

SHAPE = (1, 3, 224, 224)
LAYERS = 2


def _stem(path: Path) -> None:
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(3, 8, 3, stride=4, padding=1),
        nn.ReLU6(),
        nn.Conv2d(8, 8, 3, padding=1, groups=8),
    )
    torch.onnx.export(
        model.eval(), (torch.randn(SHAPE),), str(path), dynamo=False, input_names=["input"]
    )


@pytest.mark.slow
def test_int8_stem_with_and_without_the_rule_agrees_with_onnxruntime(exported: Exported) -> None:
    f32 = exported.get("qstem_base", _stem)
    path = exported.get("qstem_s8s8", lambda p: quantized.static(f32, p, "input", SHAPE))
    with_rule, without = compiled_at_two_threads(path), compiled_at_two_threads(path, rule=False)
    infos = with_rule.plan.step_infos
    assert [i.threads for i in infos if i.kind == "convolution"] == [2] * LAYERS
    reorders = {i.operands[0]: i.threads for i in infos if i.kind == "reorder"}
    assert reorders.pop("src=1x3x224x224xui8") == 2  # the input to channels-last
    assert set(reorders.values()) == {1}  # the output back to NCHW and dequantized
    assert {i.threads for i in infos if i.kind == "binary"} == {1}  # the quantizes
    x = np.random.default_rng(5).standard_normal(SHAPE).astype(np.float32)
    theirs = quantized.onnxruntime_output(path, x)
    step = quantized.output_step(path)
    assert np.unique(np.rint(theirs / step)).size > 32  # values spread over the grid
    with running_on(2):
        ours, unruled = with_rule.run([x])[0], without.run([x])[0]
    np.testing.assert_array_equal(ours, unruled)
    steps = np.abs(ours - theirs) / step
    assert steps.max() <= LAYERS + 0.01 and steps.mean() < 0.05, (steps.max(), steps.mean())
