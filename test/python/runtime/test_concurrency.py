"""One executable, many threads: every result right, no crash.

An Executable is compiled once and shared read-only (primitives, packed constants, the plan);
each run takes an execution context (arena, scratchpad, stream, bound memories) from the
executable's pool, so concurrent runs never share bytes. The test calls one static and one
dynamic executable from 4 threads, 100 runs each with distinct inputs (different shapes on
the dynamic one), and compares every output with the same input's single-threaded result.
The graph mixes oneDNN primitives (convolution with post-ops, pooling, matmul) and a
reference kernel (top_k), which runs numpy on the context's arena.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import dnnc
from dnnc.core.diagnostics import DnncError
from dnnc.reference.interpreter import compare

THREADS, RUNS = 4, 100

GRAPH = """
func.func @f(%x: tensor<BATCHx8x10x10xf32>) -> (tensor<BATCHx16x5x5xf32>, tensor<BATCHx16x3xf32>) {
  %w = dnn.constant dense<0.05> : tensor<16x8x3x3xf32>
  %b = dnn.constant dense<0.1> : tensor<16xf32>
  %c = dnn.conv2d %x, %w, %b {pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>} : (tensor<BATCHx8x10x10xf32>, tensor<16x8x3x3xf32>, tensor<16xf32>) -> tensor<BATCHx16x10x10xf32>
  %r = dnn.eltwise tanh %c : tensor<BATCHx16x10x10xf32>
  %p = dnn.pool max %r {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<BATCHx16x10x10xf32>) -> tensor<BATCHx16x5x5xf32>
  %f = dnn.reshape %p : (tensor<BATCHx16x5x5xf32>) -> tensor<BATCHx16x25xf32>
  %v, %i = dnn.top_k %f {k = 3 : i64} : (tensor<BATCHx16x25xf32>) -> (tensor<BATCHx16x3xf32>, tensor<BATCHx16x3xi64>)
  func.return %p, %v : tensor<BATCHx16x5x5xf32>, tensor<BATCHx16x3xf32>
}
"""


def inputs_for(run: int, batch: int) -> list[np.ndarray]:
    rng = np.random.default_rng(run)
    return [rng.uniform(-2, 2, (batch, 8, 10, 10)).astype(np.float32)]


def hammer(executable: dnnc.Executable | dnnc.DynamicExecutable, batch_of) -> None:
    """THREADS threads x RUNS runs on `executable`; each output against the sequential one."""
    cases = [(run, inputs_for(run, batch_of(run))) for run in range(THREADS * RUNS)]
    expected = {run: executable.run(inputs) for run, inputs in cases}
    start = threading.Barrier(THREADS)

    def worker(part: int) -> list[str]:
        start.wait()  # all threads run at once
        wrong = []
        for run, inputs in cases[part::THREADS]:
            for index, (got, want) in enumerate(zip(executable.run(inputs), expected[run])):
                if got.shape != want.shape or not compare(got, want).ok:
                    wrong.append(f"run {run} output {index}")
        return wrong

    with ThreadPoolExecutor(THREADS) as pool:
        wrong = [w for part in pool.map(worker, range(THREADS)) for w in part]
    assert wrong == [], f"{len(wrong)} of {len(cases) * 2} outputs wrong: {wrong[:5]}"


def test_static_executable_from_four_threads() -> None:
    executable = dnnc.compile(GRAPH.replace("BATCH", "2"))
    hammer(executable, lambda run: 2)
    assert executable.contexts >= 1


def test_dynamic_executable_from_four_threads() -> None:
    executable = dnnc.compile(GRAPH.replace("BATCH", "?"))
    assert isinstance(executable, dnnc.DynamicExecutable)
    hammer(executable, lambda run: 1 + run % 3)


def test_the_expected_results_are_distinct() -> None:
    """The comparison could not pass with another run's outputs (guards the test itself)."""
    executable = dnnc.compile(GRAPH.replace("BATCH", "2"))
    first, second = (executable.run(inputs_for(run, 2))[0] for run in (0, 1))
    assert not compare(first, second).ok


@pytest.mark.parametrize("poison", [False, True])
def test_contexts_are_reused_not_piled_up(poison: bool) -> None:
    """Sequential runs keep using one context; the pool holds no more than ran at once."""
    executable = dnnc.compile(GRAPH.replace("BATCH", "1"))
    for run in range(5):
        executable.run(inputs_for(run, 1), poison_freed=poison)
    assert executable.contexts == 1


def test_streams_map_keeps_the_order_and_the_results() -> None:
    """dnnc.Streams (throughput mode): N workers over one executable, outputs in input order."""
    executable = dnnc.compile(GRAPH.replace("BATCH", "2"))
    cases = [inputs_for(run, 2) for run in range(40)]
    expected = [executable.run(inputs) for inputs in cases]
    with dnnc.Streams(executable, streams=3, threads_per_stream=1) as streams:
        got = list(streams.map(cases))
        assert streams.run(cases[0])[0].shape == (2, 16, 5, 5)
    assert len(got) == len(expected)
    for outputs, wanted in zip(got, expected):
        for actual, want in zip(outputs, wanted):
            assert compare(actual, want).ok
    assert executable.contexts <= 4  # one per stream, plus the one the test ran in


def test_streams_refuse_bad_counts_and_closed_use() -> None:
    executable = dnnc.compile(GRAPH.replace("BATCH", "1"))
    with pytest.raises(DnncError, match="streams must be >= 1"):
        dnnc.Streams(executable, streams=0)
    streams = dnnc.Streams(executable, streams=1)
    streams.close()
    with pytest.raises(DnncError, match="closed"):
        streams.run(inputs_for(0, 1))


def test_dynamic_executable_profiles_the_plan_of_its_inputs() -> None:
    executable = dnnc.compile(GRAPH.replace("BATCH", "?"))
    times = executable.profile(inputs_for(0, 3), repeats=2)
    plan = executable.plan_for(((3, 8, 10, 10),))
    assert [t.step for t in times] == plan.plan.step_infos
    assert {"convolution", "pooling", "top_k"} <= {t.step.kind for t in times}
    assert all(t.seconds > 0 for t in times)


def test_a_dynamic_run_does_not_wait_for_the_shared_arena() -> None:
    """While the shared arena is leased (another run is in it), a run takes a context with an
    arena of its own instead of waiting, and gives the same result."""
    executable = dnnc.compile(GRAPH.replace("BATCH", "?"))
    assert isinstance(executable, dnnc.DynamicExecutable)
    inputs = inputs_for(0, 2)
    expected = executable.run(inputs)
    plan = executable.plan_for(((2, 8, 10, 10),))
    assert plan.contexts == 1
    assert executable._arena_lock.acquire(blocking=False)  # another run holds the arena
    try:
        got = executable.run(inputs)
    finally:
        executable._arena_lock.release()
    assert plan.contexts == 2  # a context of its own, not a wait (which would deadlock here)
    for a, b in zip(got, expected, strict=True):
        np.testing.assert_array_equal(a, b)
    executable.run(inputs)  # the shared arena is free again: no third context
    assert plan.contexts == 2
