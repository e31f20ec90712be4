"""A pass's differential test on an ONNX model: compiled with ``dnn-optimize`` and with
``dnn-optimize`` less that pass, it computes the same, and what ONNX Runtime computes."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import numpy as np

from dnnc.driver.executables import AnyExecutable
from dnnc.driver.pipelines import OptimizePipeline

TOLERANCE = {"f32": 1e-5, "bf16": 2e-2}
"""Relative tolerance per precision, also of the largest output magnitude (near zero)."""


def optimize_without(pass_name: str, precision: Literal["f32", "bf16"]) -> str:
    """``dnn-optimize{precision=...}``'s steps, `pass_name` left out."""
    steps = OptimizePipeline(precision=precision).expand()
    return ",".join(str(p.pipeline_pass_spec()) for p in steps if p.name != pass_name)


def _first(outputs: list[np.ndarray] | dict[str, np.ndarray]) -> np.ndarray:
    assert isinstance(outputs, list)  # run without as_dict: the outputs in order
    return outputs[0]


def assert_agree(
    path: Path,
    with_pass: AnyExecutable,
    without_pass: AnyExecutable,
    inputs: dict[str, np.ndarray],
    precision: str,
) -> None:
    """The first outputs of both executables and of ONNX Runtime on `path` agree within the
    tolerance of `precision`."""
    import onnxruntime as ort

    ours, theirs = _first(with_pass.run(inputs)), _first(without_pass.run(inputs))
    oracle = ort.InferenceSession(str(path)).run(None, inputs)[0]
    tolerance = TOLERANCE[precision]
    scale = np.abs(oracle).max()
    np.testing.assert_allclose(ours, theirs, rtol=tolerance, atol=tolerance * scale)
    np.testing.assert_allclose(ours, oracle, rtol=tolerance, atol=tolerance * scale)
