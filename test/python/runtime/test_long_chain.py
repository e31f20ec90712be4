"""A chain of 60 tiny ops (1x8x4x4 f32), one step each: every step runs, in order, with the
reference interpreter's result, and profiling times each step. The per-step dispatch overhead
itself is a measurement, not a test: bench/runtime_overhead.py prints it."""

from __future__ import annotations

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


def test_a_chain_of_small_ops_runs_every_step_in_order() -> None:
    source = chain_graph(STEPS)
    executable = dnnc.compile(source, pipeline="")  # no fusion: one step per op
    kinds = [info.kind for info in executable.plan.step_infos]
    assert kinds == ["binary" if i % 2 else "eltwise" for i in range(STEPS)]
    x = np.random.default_rng(0).uniform(-1, 1, (1, 8, 4, 4)).astype(np.float32)
    expected = interpret(find_function(load_module(source)[0]), [x])[0]
    for _ in range(3):  # the same context again: nothing left over from the previous run
        assert compare(executable.run([x])[0], expected).ok
    profile = executable.profile([x], repeats=3)
    assert [t.step for t in profile] == executable.plan.step_infos
    assert all(t.seconds > 0 for t in profile)
