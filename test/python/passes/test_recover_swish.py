"""dnn-recover-swish on torch's SiLU as exported (Conv + Sigmoid + Mul): the recovered swish is
fused into the convolution and computes what the unrewritten graph and ONNX Runtime do; under
dnn-propagate-special-values nothing is recovered and +inf still comes out as +inf."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
import torch

import dnnc
from dnnc.core.diagnostics import InputError
from dnnc_testing.differential import optimize_without
from dnnc_testing.model_zoo import export

WITHOUT = optimize_without("dnn-recover-swish", "f32")


def _export(tmp_path: Path) -> Path:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(8, 16, 3, padding=1), torch.nn.SiLU())
    return export(model, (1, 8, 10, 10), tmp_path / "conv_silu.onnx")


def _onnxruntime(path: Path, x: np.ndarray) -> np.ndarray:
    return ort.InferenceSession(str(path)).run(None, {"x": x})[0]


def test_recovered_swish_is_fused_and_agrees_with_the_unrewritten_graph(tmp_path: Path) -> None:
    path = _export(tmp_path)
    x = np.random.default_rng(0).standard_normal((1, 8, 10, 10)).astype(np.float32) * 3
    recovered, unrewritten = dnnc.compile(path), dnnc.compile(path, WITHOUT)
    assert [s.kind for s in recovered.plan.step_infos].count("convolution") == 1
    assert {"eltwise", "binary"}.isdisjoint(s.kind for s in recovered.plan.step_infos)
    assert {"eltwise", "binary"} <= {s.kind for s in unrewritten.plan.step_infos}
    ours, theirs = recovered.run({"x": x})[0], unrewritten.run({"x": x})[0]
    oracle = _onnxruntime(path, x)
    for result in (ours, theirs):
        np.testing.assert_allclose(result, oracle, rtol=1e-5, atol=1e-5 * np.abs(oracle).max())


def test_under_propagate_special_values_infinity_stays_infinite(tmp_path: Path) -> None:
    path = _export(tmp_path)
    x = np.zeros((1, 8, 10, 10), np.float32)
    x[0, :, 4, 4] = np.inf  # every output channel of the pixels around sees +inf or -inf
    exe = dnnc.compile(path, "dnn-propagate-special-values,dnn-optimize")
    ours, oracle = exe.run({"x": x})[0], _onnxruntime(path, x)
    assert np.isinf(oracle).any()
    np.testing.assert_allclose(ours, oracle, rtol=1e-5)  # inf, NaN (inf - inf) where ORT's are
    with pytest.raises(InputError, match="dnn-propagate-special-values"):
        dnnc.compile(path).run({"x": x})  # the default pipeline's swish would give NaN for +inf
