"""In-place and buffer fusing change where values live, never what they are.

Each graph is compiled with constant folding and fusion alone and with dnn-buffer-fusing and dnn-inplace
after it (the lowering's buffer check runs on both), then run normally and with
poison_freed=True. Outputs must be bit-identical between the two compilations, except where
dnn-inplace turned a residual binary add into a sum post-op: oneDNN may add the sum in another
order than bias and binary post-ops, so there the tolerance of dnnc.reference.interpreter.compare
applies. A poisoned run must equal the normal run of the same executable bit for bit (a value
read after its bytes were released or overwritten would be NaN).
Graphs: the differential generator's seeded random graphs, and bench/memory.py's ResNet,
MobileNet, BERT and DenseNet builders at small sizes; the test also checks that the passes
did something on them (it could not fail otherwise).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import dnnc
from dnnc.api import find_function, load_module
from dnnc.driver.pipelines import parse_pipeline, run_passes
from dnnc.ir.text import make_context
from dnnc.reference.interpreter import compare
from dnnc_testing.graph_generator import WEIGHTS_FILE, generate
from dnnc_testing.graphs import (
    bert_layer,
    dense_block,
    inverted_residuals,
    residual_blocks,
    write,
)

BASE = "dnn-fold-constants,dnn-fuse-post-ops"
SHARED = f"{BASE},dnn-buffer-fusing,dnn-inplace"
SEEDS = 30


def optimized_text(path: Path) -> str:
    """The function after SHARED, as text (to see which decisions were made)."""
    module, _ = load_module(path)
    run_passes(make_context(), module, parse_pipeline(SHARED))
    return str(find_function(module))


def check_same(path: Path, inputs: list[np.ndarray]) -> str:
    """Compile and run both ways, compare as the module docstring says; the optimized text."""
    text = optimized_text(path)
    results = []
    for pipeline in (BASE, SHARED):
        executable = dnnc.compile(path, pipeline)
        outputs = executable.run(inputs)
        poisoned = executable.run(inputs, poison_freed=True)
        for index, (normal, again) in enumerate(zip(outputs, poisoned)):
            assert np.array_equal(normal, again, equal_nan=True), f"{pipeline}: output {index}"
        results.append(outputs)
    for index, (base, shared) in enumerate(zip(*results)):
        if "#dnn.sum" in text:
            assert compare(shared, base).ok, f"output {index}: {compare(shared, base)}"
        else:
            assert np.array_equal(base, shared, equal_nan=True), f"output {index}\n{text}"
    return text


def test_random_graphs_unchanged(tmp_path: Path) -> None:
    decisions = 0
    for seed in range(SEEDS):
        graph = generate(seed)
        directory = tmp_path / str(seed)
        directory.mkdir()
        np.savez(directory / WEIGHTS_FILE, **graph.weights)
        path = directory / "graph.mlir"
        path.write_text(graph.text)
        decisions += check_same(path, graph.inputs).count("dnn.inplace = array<i64: ")
    assert decisions > SEEDS  # in-place happened (the comparison is not vacuous)


@pytest.mark.parametrize(
    ("build", "expected"),
    [
        (lambda: residual_blocks(2, (1, 8, 6, 6)), "#dnn.sum<1.0>"),
        (lambda: inverted_residuals(2, (1, 8, 6, 6)), "#dnn.sum<1.0>"),
        (lambda: bert_layer(8, 16), "dnn.inplace = array<i64: 0>"),
        (lambda: dense_block(3, (1, 8, 5, 5), 8), "dnn.implicit_concat"),
    ],
    ids=["resnet", "mobilenet", "bert", "densenet"],
)
def test_model_blocks_unchanged(build, expected: str, tmp_path: Path) -> None:
    case = build()
    text = check_same(write(case, tmp_path), case.inputs)
    assert expected in text
