"""dnn-dense-as-inner-product: the dense layers of a BERT feed-forward block compiled as
inner products and as matmuls give the same results (up to the order of the sums), and the
default (``when=fallback``) converts exactly where oneDNN's matmul falls back on this CPU
(gemm on AVX2: `make test-avx2` runs this with oneDNN held to AVX2)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import dnnc
from dnnc.api import find_function, load_module
from dnnc.dialects.dnn import InnerProductOp, MatmulOp
from dnnc.driver.pipelines import OptimizePipeline, parse_pipeline, run_passes
from dnnc.ir.text import make_context
from dnnc.target.kernel_table import Probe, is_fallback
from dnnc_testing.graphs import bert_feed_forward, write

STEPS = ",".join(OptimizePipeline.steps)
"""dnn-optimize's steps, dnn-dense-as-inner-product among them."""


def pipeline(when: str) -> str:
    return STEPS.replace("dnn-dense-as-inner-product", f"dnn-dense-as-inner-product{{when={when}}}")


def test_inner_products_compute_what_matmuls_do(tmp_path: Path) -> None:
    case = bert_feed_forward(16, 32, 64)
    path = write(case, tmp_path)
    dense = dnnc.compile(path, pipeline("always"))
    matmul = dnnc.compile(path, pipeline("never"))
    assert [s.kind for s in dense.plan.step_infos].count("inner_product") == 2
    assert "inner_product" not in [s.kind for s in matmul.plan.step_infos]
    ours, theirs = dense.run(case.inputs)[0], matmul.run(case.inputs)[0]
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5 * np.abs(theirs).max())


def test_the_default_converts_where_the_matmul_falls_back(tmp_path: Path) -> None:
    case = bert_feed_forward(16, 32, 64)
    module, _ = load_module(write(case, tmp_path))
    run_passes(make_context(), module, parse_pipeline("dnn-fold-constants,dnn-fuse-post-ops"))
    probe = Probe()
    matmuls = [op for op in module.walk() if isinstance(op, MatmulOp)]
    falls_back = [is_fallback(probe.implementation(op, {"weights": None}) or "") for op in matmuls]
    run_passes(make_context(), module, parse_pipeline("dnn-dense-as-inner-product"))
    ops = list(find_function(module).walk())
    assert sum(isinstance(op, InnerProductOp) for op in ops) == sum(falls_back)
    assert sum(isinstance(op, MatmulOp) for op in ops) == len(matmuls) - sum(falls_back)
