"""examples/ray_batch_inference.py: Ray Data's map_batches with a dnnc executable per actor
(shipped pickled, compiled again in each worker) on a local ray.init with 2 CPUs gives
exactly the outputs of one process."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray", reason="Ray is an optional extra: pip install -e '.[ray]'")

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "ray_batch_inference.py"


def test_ray_data_batch_inference_equals_one_process() -> None:
    spec = importlib.util.spec_from_file_location("ray_batch_inference", EXAMPLE)
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    outputs, rate = example.run_with_ray(count=48, actors=2, batch_size=8)
    assert outputs.shape == (48, 16, 16, 16)
    np.testing.assert_array_equal(outputs, example.run_in_process(48))
    assert rate > 0
