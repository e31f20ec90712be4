"""dnn-canonicalize on attention as PyTorch exports it (nn.MultiheadAttention: sequence-first
transposes, heads split by reshapes, q and k scaled apart): compiled with and without the
pass it computes the same, and with it the transposes reach the matmuls (none is left for a
reorder but the split of the packed q/k/v projection) and the scales become post-ops."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import onnx
import pytest
import torch
from torch import nn

import dnnc
from dnnc.driver.executables import AnyExecutable
from dnnc.driver.pipelines import OptimizePipeline
from dnnc_testing.model_zoo import INPUT_NAME

SHAPE = (1, 10, 32)
"""Batch, sequence, embedding (4 heads of 8)."""


class Attention(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.attention = nn.MultiheadAttention(SHAPE[2], 4, batch_first=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.attention(x, x, x, need_weights=False)[0]


@pytest.fixture(scope="module")
def attention(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("attention") / "attention.onnx"
    torch.manual_seed(0)
    torch.backends.mha.set_fastpath_enabled(False)  # its fused kernel has no ONNX export
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")  # the TorchScript exporter's deprecation notice
        torch.onnx.export(
            Attention().eval(),
            (torch.randn(SHAPE),),
            str(path),
            dynamo=False,
            opset_version=17,
            input_names=[INPUT_NAME],
        )
    return path


def _kinds(executable: AnyExecutable) -> list[str]:
    return [step.kind for step in executable.plan.step_infos]


def test_canonical_attention_computes_the_same(attention: Path) -> None:
    without = ",".join(s for s in OptimizePipeline.steps if s != "dnn-canonicalize")
    canonical, exported = dnnc.compile(attention), dnnc.compile(attention, without)
    x = np.random.default_rng(0).standard_normal(SHAPE).astype(np.float32)
    ours, theirs = canonical.run([x])[0], exported.run([x])[0]
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5 * np.abs(theirs).max())
    ops = {node.op_type for node in onnx.load(attention).graph.node}
    assert {"Transpose", "Mul", "MatMul"} <= ops  # what the pass is about is in the graph
    assert _kinds(canonical).count("reorder") == 1  # the packed q/k/v split only
    assert _kinds(canonical).count("reorder") < _kinds(exported).count("reorder")
    assert "binary" not in _kinds(canonical)  # the scales are post-ops of the matmul
