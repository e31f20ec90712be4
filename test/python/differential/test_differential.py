"""Differential test: random valid dnn graphs (graph_generator.py), compiled with
dnnc.compile and run, against the reference interpreter.

Tolerance: dnnc.reference.interpreter.compare (f32: rtol 1e-4, atol 1e-4 x max(1, max |expected|);
integers, e.g. top_k indices, exactly). Every graph also runs with poison_freed=True, which
must give bit-identical outputs (a value read after its bytes were released would be NaN).
CI runs DEFAULT_SEEDS graphs; ``DNNC_DIFFERENTIAL_SEEDS=500 pytest test/python/differential``
runs more.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

import dnnc
from dnnc.api import find_function, load_module
from dnnc.reference.interpreter import compare, interpret
from dnnc_testing.graph_generator import OP_KINDS, WEIGHTS_FILE, Graph, generate

DEFAULT_SEEDS = 30
SEEDS = int(os.environ.get("DNNC_DIFFERENTIAL_SEEDS", DEFAULT_SEEDS))


def write_graph(graph: Graph, directory: Path) -> Path:
    """The graph's IR file, with its weights beside it."""
    np.savez(directory / WEIGHTS_FILE, **graph.weights)
    path = directory / "graph.mlir"
    path.write_text(graph.text)
    return path


@pytest.mark.parametrize("seed", range(SEEDS))
def test_random_graph_matches_interpreter(seed: int, tmp_path: Path) -> None:
    graph = generate(seed)
    path = write_graph(graph, tmp_path)
    executable = dnnc.compile(path)
    outputs = executable.run(graph.inputs)
    module, weights_dir = load_module(path)
    expected = interpret(find_function(module), graph.inputs, weights_dir=weights_dir)
    assert len(outputs) == len(expected)
    for index, (actual, wanted) in enumerate(zip(outputs, expected)):
        comparison = compare(actual, wanted)
        assert comparison.ok, f"seed {seed}, output {index}: {comparison}\n{graph.text}"
    poisoned = executable.run(graph.inputs, poison_freed=True)
    for index, (actual, again) in enumerate(zip(outputs, poisoned)):
        assert np.array_equal(actual, again, equal_nan=True), f"seed {seed}, output {index}"


def test_seed_budget_covers_every_op() -> None:
    """Consecutive seeds force every op kind in turn, so the CI budget covers them all."""
    assert SEEDS >= len(OP_KINDS)
    covered = set().union(*(generate(seed).kinds for seed in range(SEEDS)))
    assert covered == set(OP_KINDS)


def test_generator_is_deterministic() -> None:
    first, again = generate(7), generate(7)
    assert first.text == again.text
    assert all(np.array_equal(a, b) for a, b in zip(first.inputs, again.inputs))


def test_comparison_can_fail(tmp_path: Path) -> None:
    """The check above is not vacuous: a perturbed output is caught."""
    graph = generate(0)
    executable = dnnc.compile(write_graph(graph, tmp_path))
    output = executable.run(graph.inputs)[0]
    perturbed = output.copy()
    perturbed.flat[0] += np.float32(0.01) * max(1.0, float(np.abs(output).max()))
    assert not compare(perturbed, output).ok
