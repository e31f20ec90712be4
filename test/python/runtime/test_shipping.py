"""Executables ship to other processes: they pickle as the recipe that compiled them and
compile again on arrival (dnnc.api.CompileRecipe); the results equal the sender's."""

from __future__ import annotations

import multiprocessing
import pickle
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pytest

import dnnc
from dnnc.api import load_module
from dnnc.core.diagnostics import DnncError

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "residual_block.mlir"
DYNAMIC = """
func.func @f(%x: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %r = dnn.eltwise tanh %x : tensor<?x16xf32>
  func.return %r : tensor<?x16xf32>
}
"""


def run_shipped(
    executable: dnnc.Executable | dnnc.DynamicExecutable, inputs: list[np.ndarray]
) -> list[np.ndarray]:
    """Runs in a worker process: the executable arrived pickled."""
    return executable.run(inputs)  # type: ignore[return-value]


def batches(shapes: list[tuple[int, ...]]) -> list[list[np.ndarray]]:
    rng = np.random.default_rng(0)
    return [[rng.uniform(-1, 1, s).astype(np.float32)] for s in shapes]


@pytest.mark.parametrize("source", ["path", "text"])
def test_a_static_executable_runs_the_same_in_worker_processes(source: str) -> None:
    executable = dnnc.compile(
        EXAMPLE if source == "path" else EXAMPLE.read_text(),
        weights_dir=None if source == "path" else EXAMPLE.parent,
    )
    inputs = batches([(1, 16, 32, 32)] * 4)
    expected = [executable.run(x)[0] for x in inputs]
    spawn = multiprocessing.get_context("spawn")  # a fresh interpreter, as Ray's workers
    with ProcessPoolExecutor(2, mp_context=spawn) as pool:
        got = list(pool.map(run_shipped, [executable] * len(inputs), inputs))
    for (actual,), wanted in zip(got, expected):
        np.testing.assert_array_equal(actual, wanted)


def test_a_dynamic_executable_ships_too() -> None:
    executable = dnnc.compile(DYNAMIC)
    shipped = pickle.loads(pickle.dumps(executable))
    assert isinstance(shipped, dnnc.DynamicExecutable)
    for (x,) in batches([(1, 16), (5, 16)]):
        np.testing.assert_array_equal(shipped.run([x])[0], executable.run([x])[0])


def test_an_executable_of_a_module_object_refuses_to_pickle() -> None:
    module, _ = load_module(DYNAMIC)
    executable = dnnc.compile(module)
    with pytest.raises(DnncError, match=r"compiled from a ModuleOp or an onnx.ModelProto"):
        pickle.dumps(executable)
