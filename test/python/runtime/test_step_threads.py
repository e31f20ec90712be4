"""Small primitive steps on one OpenMP thread (dnnc.runtime.step_threads): the rule, the counts
the steps run under, the caller's count given back, concurrent callers, and the outputs with
and without the rule."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

import dnnc
import dnnc.runtime.plan as plan_module
from dnnc.dnnl.threads import running_on, set_thread_count, thread_count
from dnnc.runtime.cache import PrimitiveCache
from dnnc.runtime.executor import Executable
from dnnc.runtime.plan import PrimitiveStep
from dnnc.runtime.step_threads import (
    SMALL_STEP_BYTES,
    SMALL_STEP_MACS,
    multiply_adds,
    runs_alone,
)
from dnnc.tools.run import run

GRAPH = """
func.func @f(%x: tensor<1x512xf32>, %w: tensor<512x1024xf32>) -> (tensor<1x1024xf32>, tensor<1x3xf32>) {
  %h = dnn.eltwise tanh %x : tensor<1x512xf32>
  %y = dnn.matmul %h, %w : (tensor<1x512xf32>, tensor<512x1024xf32>) -> tensor<1x1024xf32>
  %v, %i = dnn.top_k %y {k = 3 : i64} : (tensor<1x1024xf32>) -> (tensor<1x3xf32>, tensor<1x3xi64>)
  %z = dnn.softmax %y {axis = 1 : i64} : tensor<1x1024xf32>
  func.return %z, %v : tensor<1x1024xf32>, tensor<1x3xf32>
}
"""
"""A tanh and a softmax of a few KB (one thread each) around a 2 MiB matrix-vector product
(the caller's count), a reference top_k between them."""

KINDS = ["eltwise", "matmul", "top_k", "softmax"]
THREADS = {"eltwise": 1, "matmul": 2, "softmax": 1}
"""The count each primitive step of GRAPH compiled at 2 threads is created under."""


def inputs(seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [
        rng.standard_normal((1, 512), np.float32),
        rng.standard_normal((512, 1024), np.float32) / 16,
    ]


def compiled(*, rule: bool = True, cache: PrimitiveCache | None = None) -> Executable:
    """GRAPH compiled at 2 threads, with the rule or with every step on the caller's count,
    its primitives in a cache of its own (none shared with the other variant)."""
    original = plan_module.runs_alone
    if not rule:
        plan_module.runs_alone = lambda *_: False
    try:
        with running_on(2):
            executable = dnnc.compile(GRAPH, cache=cache or PrimitiveCache())
    finally:
        plan_module.runs_alone = original
    assert isinstance(executable, Executable)
    return executable


@pytest.fixture(scope="module")
def executable() -> Executable:
    return compiled()


@pytest.fixture
def counts_seen(executable: Executable) -> Iterator[dict[str, list[int]]]:
    """The OpenMP count of the calling thread as each step of the first context starts."""
    context = executable._first
    seen: dict[str, list[int]] = {kind: [] for kind in KINDS}
    original = list(context.steps)

    def watched(kind: str, step: Callable[[], object]) -> Callable[[], object]:
        def run() -> object:
            seen[kind].append(thread_count())
            return step()

        return run

    kinds = [info.kind for info in executable.plan.step_infos]
    assert kinds == KINDS
    context.steps = [watched(k, s) for k, s in zip(kinds, original, strict=True)]
    yield seen
    context.steps = original


def test_the_rule_sends_small_steps_to_one_thread() -> None:
    small = {"src": (1, 8, 1, 64), "weights": (1, 8, 64, 161), "dst": (1, 8, 1, 161)}
    assert runs_alone("matmul", small, [2048, 329_728, 5152])  # attention of one token
    vector = {"src": (1, 512), "weights": (2048, 512), "dst": (1, 2048)}
    assert not runs_alone("inner_product", vector, [2048, 4 << 20, 8192])  # 4 MiB of weights
    assert not runs_alone("eltwise", {"src": (1 << 18,), "dst": (1 << 18,)}, [1 << 20, 1 << 20])
    # a convolution of a small image with many channels: few bytes, many multiply-adds
    conv = {"src": (1, 256, 7, 7), "weights": (256, 256, 3, 3), "dst": (1, 256, 7, 7)}
    assert multiply_adds("convolution", conv) == 256 * 49 * 256 * 9 > SMALL_STEP_MACS
    assert not runs_alone("convolution", conv, [50_176, 2_359_296 // 4, 50_176])


def test_multiply_adds_of_each_compute_kind() -> None:
    assert multiply_adds("matmul", {"src": (2, 3, 5), "weights": (5, 4), "dst": (2, 3, 4)}) == 120
    ip = {"src": (2, 3, 4, 4), "weights": (8, 3, 4, 4), "dst": (2, 8)}
    assert multiply_adds("inner_product", ip) == 2 * 8 * 48
    grouped = {"src": (1, 8, 5, 5), "weights": (8, 2, 3, 3), "dst": (1, 8, 5, 5)}  # 4 groups
    assert multiply_adds("convolution", grouped) == 8 * 25 * 2 * 9  # 2 input channels a group
    deconv = {"src": (1, 4, 3, 3), "weights": (6, 4, 2, 2), "dst": (1, 6, 6, 6)}
    assert multiply_adds("deconvolution", deconv) == 36 * 6 * 4
    assert multiply_adds("softmax", {"src": (1, 1 << 20), "dst": (1, 1 << 20)}) == 0


def test_a_plan_gives_its_small_primitive_steps_one_thread(executable: Executable) -> None:
    infos = executable.plan.step_infos
    assert {info.kind: info.threads for info in infos} == {**THREADS, "top_k": None}
    assert infos[1].bytes >= SMALL_STEP_BYTES
    # the reference top_k joins the matmul's segment: the count changes twice per run
    assert [(s.start, s.stop, s.threads) for s in executable._first.segments] == [
        (0, 1, 1),
        (1, 3, 2),
        (3, 4, 1),
    ]


def test_each_step_runs_under_its_count_and_the_caller_gets_its_own_back(
    executable: Executable, counts_seen: dict[str, list[int]]
) -> None:
    """At most the count a step's primitive was created under (the matmul's: 2), the
    caller's if fewer."""
    for caller in (3, 2, 1):
        with running_on(caller):
            executable.run(inputs())
            assert thread_count() == caller
    assert counts_seen == {
        "eltwise": [1, 1, 1],
        "matmul": [2, 2, 1],
        "top_k": [2, 2, 1],
        "softmax": [1, 1, 1],
    }


def test_the_count_comes_back_when_a_step_fails(executable: Executable) -> None:
    context = executable._first
    original = context.steps[3]

    def fail() -> None:
        raise RuntimeError("a failing softmax")

    context.steps[3] = fail
    try:
        with running_on(2), pytest.raises(RuntimeError, match="a failing softmax"):
            executable.run(inputs())
        with running_on(2):
            assert thread_count() == 2
    finally:
        context.steps[3] = original


def test_small_primitives_are_created_under_one_thread() -> None:
    """The cache keys a primitive on the count it was created under: the small steps' are
    one thread's, the matmul's the compiling thread's (2)."""
    cache = PrimitiveCache()
    executable = compiled(cache=cache)
    created = {id(primitive): key[1] for key, (primitive, _) in cache._entries.items()}
    counts = {
        info.kind: created[id(step.primitive)]
        for info, step in zip(executable.plan.step_infos, executable.plan.steps, strict=True)
        if isinstance(step, PrimitiveStep)
    }
    assert counts == THREADS


def test_outputs_with_and_without_the_rule_agree() -> None:
    with_rule, without = compiled(), compiled(rule=False)
    assert {info.threads for info in without.plan.step_infos} == {2, None}
    for seed in range(3):
        with running_on(2):
            got, want = with_rule.run(inputs(seed)), without.run(inputs(seed))
        for actual, expected in zip(got, want, strict=True):
            np.testing.assert_allclose(actual, expected, rtol=1e-6, atol=1e-7)


def test_two_threads_with_their_own_counts_run_one_executable(executable: Executable) -> None:
    """Each keeps its count and gets the outputs a lone caller gets (the matmul runs on at
    most the 2 threads it was created for: on 3, oneDNN's AVX2 matmul, gemm:jit, summed in
    another order, 1e-6 off)."""
    cases = [inputs(seed) for seed in range(8)]
    expected = [executable.run(case) for case in cases]
    start = threading.Barrier(2)

    def worker(count: int) -> tuple[int, int]:
        set_thread_count(count)  # a pool thread's own count
        start.wait()
        wrong = 0
        for _ in range(25):
            for case, want in zip(cases, expected, strict=True):
                got = executable.run(case)
                wrong += not all(np.allclose(g, w, rtol=1e-6) for g, w in zip(got, want))
        return wrong, thread_count()

    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(worker, (1, 3)))
    assert results == [(0, 1), (0, 3)]


def test_the_profile_names_the_steps_on_one_thread(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "f.mlir"
    path.write_text(GRAPH)
    with running_on(2):
        assert run([str(path), "--profile", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["profile"]["steps"]
    assert {row["kind"]: row["threads"] for row in rows} == {**THREADS, "top_k": None}
