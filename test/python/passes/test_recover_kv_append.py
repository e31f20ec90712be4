"""dnn-recover-kv-append on the exported tiny decoders (dnnc_testing/decoders.py): compiled
with and without the pass, a step with a cached past computes what ONNX Runtime computes, and
the pass finds the cache's concats (one per key and value of each layer)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest

import dnnc
from dnnc.core.diagnostics import collect_remarks
from dnnc.driver.pipelines import OptimizePipeline
from dnnc_testing import decoders

PAST = 5


@pytest.fixture(scope="module", params=decoders.FAMILIES)
def exported(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[decoders.Family, Path]:
    family: decoders.Family = request.param
    path = tmp_path_factory.mktemp(family) / "d.onnx"
    return family, decoders.export_decoder(decoders.decoder(family), family, path)


def _step(family: decoders.Family) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(3)
    past = {
        name: rng.standard_normal((*a.shape[:2], PAST, *a.shape[3:])).astype(np.float32)
        for name, a in decoders.empty_cache(family).items()
    }
    ids = rng.integers(0, decoders.VOCABULARY, (1, 1))
    return {
        "input_ids": ids,
        "attention_mask": np.ones((1, PAST + 1), np.int64),
        "position_ids": np.array([[PAST]]),
        **past,
    }


def test_kv_append_computes_what_onnxruntime_does(
    exported: tuple[decoders.Family, Path],
) -> None:
    family, path = exported
    inputs = _step(family)
    expected = ort.InferenceSession(str(path)).run(None, inputs)
    pipeline = ",".join(("dnn-recover-kv-append", *OptimizePipeline.steps))
    with collect_remarks({"dnn-recover-kv-append"}) as remarks:
        appended = dnnc.compile(path, pipeline).run(inputs)
    plain = dnnc.compile(path).run(inputs)
    assert sum(r.message == "cache append" for r in remarks) == 2 * decoders.LAYERS
    for ours, theirs, want in zip(appended, plain, expected, strict=True):
        np.testing.assert_allclose(ours, want, rtol=0, atol=1e-4 * np.abs(want).max())
        np.testing.assert_allclose(theirs, want, rtol=0, atol=1e-4 * np.abs(want).max())
