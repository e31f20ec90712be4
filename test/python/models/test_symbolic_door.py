"""The real architectures with dynamic axes through the other door: ``dnnc.compile(
dnnc.import_onnx(path))``. The plain import cannot give their Shape arithmetic a value, so
import_onnx imports them once with the sizes as expressions (docs/dialect.md, "Symbolic
dimensions") and compile makes a DynamicExecutable of that module; each case runs at three
sizes against ONNX Runtime (LLaMA with its rotary positions: data computed from the
sequence through Cos and Sin, ordinary ops on a shape function's range). The exports are
test_real_architectures' (the session cache)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import Exported
from test_real_architectures import ARCHITECTURES, DEFAULT_EXPORTER, Architecture, export

import dnnc
from dnnc.driver.dynamic import DynamicExecutable

ort = pytest.importorskip("onnxruntime")

BY_NAME = {a.name: a for a in ARCHITECTURES}

CASES = [
    pytest.param("bert", 17, [(1, 16), (3, 16), (2, 16)], id="bert-opset17-dynamic-batch"),
    pytest.param(
        "bert", DEFAULT_EXPORTER, [(2, 9), (2, 23), (2, 16)], id="bert-dynamo-dynamic-sequence"
    ),
    pytest.param(
        "distilbert",
        DEFAULT_EXPORTER,
        [(2, 9), (2, 23), (2, 16)],
        id="distilbert-dynamo-dynamic-sequence",
        marks=pytest.mark.slow,
    ),
    pytest.param(
        "llama", DEFAULT_EXPORTER, [(2, 9), (2, 23), (2, 16)], id="llama-dynamo-dynamic-sequence"
    ),
    pytest.param(
        "roberta",
        DEFAULT_EXPORTER,
        [(2, 9), (2, 23), (2, 16)],
        id="roberta-dynamo-dynamic-sequence",
        marks=pytest.mark.slow,
    ),
]


def _path(architecture: Architecture, opset: int | None, exported: Exported) -> Path:
    exporter = "dynamo" if opset is DEFAULT_EXPORTER else opset
    return exported.get(
        f"{architecture.name}-{exporter}-dynamic", export(architecture, opset, True)
    )


@pytest.mark.parametrize(("name", "opset", "sizes"), CASES)
def test_the_symbolic_module_agrees_with_onnx_runtime(
    name: str, opset: int | None, sizes: list[tuple[int, int]], exported: Exported
) -> None:
    architecture = BY_NAME[name]
    path = _path(architecture, opset, exported)
    executable = dnnc.compile(dnnc.import_onnx(path))
    assert isinstance(executable, DynamicExecutable)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    for batch, length in sizes:
        feeds = architecture.inputs(batch, length)
        (want,) = session.run(list(architecture.outputs[:1]), feeds)
        (got,) = executable.run(feeds, output_names=architecture.outputs[:1])
        scale = float(np.abs(want).max())
        np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-4 * scale)
    if opset is DEFAULT_EXPORTER:  # three sequence lengths, one pipeline run
        assert executable.stats().traces == 1
