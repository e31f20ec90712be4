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

from dnnc.core.kinds import DataType
from dnnc.core.layouts import parse_layout, plain_layout
from dnnc.dnnl.threads import running_on, set_thread_count, thread_count
from dnnc.runtime.cache import PrimitiveCache
from dnnc.runtime.executor import Executable
from dnnc.runtime.plan import PrimitiveStep
from dnnc.runtime.program import Call, MemorySpec, Operand, Place
from dnnc.runtime.step_threads import (
    SMALL_CONVOLUTION_MACS,
    SMALL_STEP_BYTES,
    SMALL_STEP_MACS,
    multiply_adds,
    runs_alone,
    transposes_innermost,
)
from dnnc.tools.run import run
from dnnc_testing.step_threads import compiled_at_two_threads

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
    """GRAPH compiled at 2 threads, with the rule or with every step on the caller's count."""
    return compiled_at_two_threads(GRAPH, rule=rule, cache=cache)


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


def _call(kind: str, params: dict[str, object] | None = None, **memories: str) -> Call:
    """A oneDNN call of ``kind`` whose operands are given by role as ``1x8xf32[,layout]``
    (``dst`` the output)."""

    def operand(role: str, text: str) -> Operand:
        spec, _, layout = text.partition(",")
        *dims, element = spec.split("x")
        shape = tuple(map(int, dims))
        data_type = {"f32": DataType.F32, "u8": DataType.U8, "s8": DataType.S8}[element]
        form = parse_layout(layout) if layout else plain_layout(len(shape))
        return Operand(role, MemorySpec(shape, data_type, form), Place("arena", 0, 0))

    ins = tuple(operand(r, m) for r, m in memories.items() if r != "dst")
    return Call("onednn", kind, ins, (operand("dst", memories["dst"]),), params or {})


def test_the_rule_sends_small_steps_to_one_thread() -> None:
    # attention of one token: 330 KB
    assert runs_alone(
        _call("matmul", src="1x8x1x64xf32", weights="1x8x64x161xf32", dst="1x8x1x161xf32")
    )
    vector = _call("inner_product", src="1x512xf32", weights="2048x512xf32", dst="1x2048xf32")
    assert not runs_alone(vector)  # 4 MiB of weights
    assert not runs_alone(_call("eltwise", src="262144xf32", dst="262144xf32"))  # 2 MiB
    # a convolution of a small image with many channels: few bytes, many multiply-adds
    conv = _call("convolution", src="1x256x7x7xs8", weights="256x256x3x3xs8", dst="1x256x7x7xs8")
    assert not runs_alone(conv)


def test_convolutions_join_the_team_from_fewer_multiply_adds() -> None:
    """A depthwise convolution of 0.29 M multiply-adds and 70 KB runs on the team, a matmul
    of as many (and as few bytes) on one thread; a depthwise one of 37 K on one thread."""
    depthwise = _call(
        "convolution", src="1x512x8x8xu8", weights="512x1x1x3x3xs8", dst="1x512x8x8xu8"
    )
    macs = multiply_adds("convolution", {"dst": (1, 512, 8, 8), "weights": (512, 1, 1, 3, 3)})
    assert SMALL_CONVOLUTION_MACS <= macs < SMALL_STEP_MACS
    assert not runs_alone(depthwise)
    assert runs_alone(_call("matmul", src="1x512xu8", weights="512x576xs8", dst="1x576xf32"))
    assert runs_alone(
        _call("convolution", src="1x64x8x8xu8", weights="64x1x1x3x3xs8", dst="1x64x8x8xu8")
    )


def test_a_reorder_transposing_its_innermost_dimension_counts_elements() -> None:
    """An int8 image reordered to channels-last (3 innermost: 300 KB, 300 K elements) runs
    on the team; the same bytes converted in place, or transposed with the innermost
    dimension kept, on one thread."""
    to_nhwc = _call("reorder", src="1x3x224x224xu8", dst="1x3x224x224xu8,nhwc")
    assert transposes_innermost(to_nhwc) and not runs_alone(to_nhwc)
    dequantize = _call("reorder", src="1x3x224x224xu8", dst="1x3x224x224xf32")
    assert not transposes_innermost(dequantize) and runs_alone(dequantize)
    heads = {"src": "1x128x16x64xu8", "dst": "1x16x128x64xu8"}
    assert runs_alone(_call("reorder", {"permutation": [0, 2, 1, 3]}, **heads))
    keys = {"src": "1x128x16x64xu8", "dst": "1x16x64x128xu8"}
    assert not runs_alone(_call("reorder", {"permutation": [0, 2, 3, 1]}, **keys))
    # dimensions of 1 move nothing: a pooled 1x1 image is the same bytes in either order
    assert not transposes_innermost(_call("reorder", src="1x1280x1x1xu8,nhwc", dst="1x1280x1x1xu8"))
    assert transposes_innermost(_call("reorder", src="1x32x8x8xf32,nChw16c", dst="1x32x8x8xf32"))


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
