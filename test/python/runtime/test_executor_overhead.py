"""Per-step overhead of Executable.run on a chain of 60 tiny ops (1x8x4x4 f32), where the
work of each primitive is negligible, so the run time is almost all dispatch: printed (run
with -s to see it), not asserted, since timings depend on the machine."""

from __future__ import annotations

import statistics
import time

import numpy as np

import dnnc
from dnnc.api import find_function, load_module
from dnnc.reference.interpreter import compare, interpret

STEPS = 60
T = "tensor<1x8x4x4xf32>"
ALGS = ("relu", "tanh", "abs", "sigmoid")


def chain_graph(steps: int) -> str:
    """x -> eltwise / binary-with-x alternating, ``steps`` ops; x is used by every binary."""
    lines = [f"func.func @chain(%x: {T}) -> {T} {{"]
    previous = "%x"
    for index in range(steps):
        if index % 2:
            lines.append(f"  %v{index} = dnn.binary add {previous}, %x : ({T}, {T}) -> {T}")
        else:
            alg = ALGS[index // 2 % len(ALGS)]
            lines.append(f"  %v{index} = dnn.eltwise {alg} {previous} : {T}")
        previous = f"%v{index}"
    lines += [f"  func.return {previous} : {T}", "}"]
    return "\n".join(lines)


def test_per_step_overhead_of_a_chain_of_small_ops() -> None:
    source = chain_graph(STEPS)
    executable = dnnc.compile(source, pipeline="")  # no fusion: one step per op
    assert len(executable.plan.step_infos) >= 50
    x = np.random.default_rng(0).uniform(-1, 1, (1, 8, 4, 4)).astype(np.float32)
    expected = interpret(find_function(load_module(source)[0]), [x])[0]
    assert compare(executable.run([x])[0], expected).ok
    for _ in range(20):
        executable.run([x])
    runs = []
    for _ in range(200):
        start = time.perf_counter()
        executable.run([x])
        runs.append(time.perf_counter() - start)
    run_time = statistics.median(runs)
    profile = executable.profile([x], repeats=50)
    step_sum = sum(t.seconds for t in profile)
    steps = len(executable.plan.step_infos)
    print(
        f"\n{steps} steps: run() median {run_time * 1e6:.1f} us = {run_time / steps * 1e6:.2f} us "
        f"per step; profiled steps (each waited for) sum to {step_sum * 1e6:.1f} us, "
        f"median step {statistics.median(t.seconds for t in profile) * 1e6:.2f} us"
    )
