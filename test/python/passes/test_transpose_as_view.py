"""dnn-transpose-as-view: the BERT layer (multi-head attention as PyTorch exports it: q, k, v
and the attention output transposed around the matmuls) compiled with and without the pass
computes the same, in f32 and, where this CPU computes bf16 natively, in bf16; with the pass
its transposes run no reorder (oneDNN's matmul takes the strides on every ISA tried: brgemm
on AVX-512 and AMX, gemm on AVX2, the latter under `make test-avx2`)."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

import dnnc
from dnnc.driver.executables import AnyExecutable
from dnnc.driver.pipelines import OptimizePipeline, parse_pipeline, run_passes
from dnnc.ir.text import make_context, parse_module
from dnnc.passes import transpose_as_view
from dnnc.target import target_info
from dnnc_testing.model_zoo import MODELS, build


def without_views(precision: str) -> str:
    """dnn-optimize{precision=...}'s steps but the pass under test."""
    steps = [s for s in OptimizePipeline.steps if s != "dnn-transpose-as-view"]
    if precision != "f32":
        steps.insert(
            steps.index("dnn-select-kernels") + 1, f"dnn-assign-precision{{dtype={precision}}}"
        )
    return ",".join(steps)


@pytest.fixture(scope="module")
def bert_layer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the TorchScript exporter's deprecation notice
        return build("bert_layer", tmp_path_factory.mktemp("zoo"))


def _reorders(executable: AnyExecutable) -> int:
    return [step.kind for step in executable.plan.step_infos].count("reorder")


@pytest.mark.parametrize("precision", ["f32", "bf16"])
def test_views_compute_what_transposing_reorders_do(bert_layer: Path, precision: str) -> None:
    if precision == "bf16" and not target_info().bf16_compute:
        pytest.skip("no native bf16 here: dnn-assign-precision keeps f32")
    with_views = dnnc.compile(bert_layer, f"dnn-optimize{{precision={precision}}}")
    with_reorders = dnnc.compile(bert_layer, without_views(precision))
    x = np.random.default_rng(0).standard_normal(MODELS["bert_layer"].input_shape)
    ours = with_views.run([x.astype(np.float32)])[0]
    theirs = with_reorders.run([x.astype(np.float32)])[0]
    tolerance = 1e-5 if precision == "f32" else 2e-2  # bf16: rounding order may differ
    np.testing.assert_allclose(ours, theirs, rtol=tolerance, atol=tolerance * np.abs(theirs).max())
    assert _reorders(with_views) + 4 <= _reorders(with_reorders)  # q, k, v, attention output


ATTENTION = """
func.func @f(%xq: tensor<1x8x4x16xf32>, %k: tensor<1x4x16x8xf32>, %p: tensor<1x4x8x8xf32>, %v: tensor<1x4x8x16xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x8x4x16xf32>) {
  %q = dnn.transpose %xq {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x8x4x16xf32>) -> tensor<1x4x8x16xf32>
  %s = dnn.matmul %q, %k : (tensor<1x4x8x16xf32>, tensor<1x4x16x8xf32>) -> tensor<1x4x8x8xf32>
  %o = dnn.matmul %p, %v : (tensor<1x4x8x8xf32>, tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32>
  %t = dnn.transpose %o {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x8x16xf32>) -> tensor<1x8x4x16xf32>
  func.return %s, %t : tensor<1x4x8x8xf32>, tensor<1x8x4x16xf32>
}
"""


def test_nothing_changes_where_onednn_would_run_the_matmul_worse(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Both rules ask oneDNN; told "worse", the pass leaves the IR as it is (and ends)."""
    monkeypatch.setattr(transpose_as_view, "_runs_no_worse", lambda *args: False)
    module = parse_module(ATTENTION, "<test>", make_context())
    before = str(module)
    run_passes(make_context(), module, parse_pipeline("dnn-transpose-as-view"))
    assert str(module) == before
