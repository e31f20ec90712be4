"""dnnc.compile of functions with ``?`` dimensions: the same results as the static compile of
each shape, post-ops unfused when a new shape breaks them, constraint errors naming the op
and the dimension, the shared arena and constants, the plan cache's counters."""

from __future__ import annotations

import gc
from pathlib import Path

import numpy as np
import pytest

import dnnc
from dnnc.api import find_function, load_module
from dnnc.core.diagnostics import DnncError
from dnnc.core.symbols import is_tracing
from dnnc.driver.dynamic import DynamicExecutable, DynamicOptions, DynamicStats, _collector_paused
from dnnc.reference.interpreter import compare, interpret
from dnnc.runtime.executor import Executable
from dnnc.runtime.plan import Plan
from dnnc.runtime.program import CONSTANT
from dnnc_testing.dynamic_graphs import bert, conv, conv_add, write_weights

BERT_SHAPES = [(1, 4), (2, 7), (3, 16), (1, 1), (2, 7)]
CONV_SHAPES = [(1, 8, 8), (2, 10, 12), (3, 7, 9), (1, 2, 2), (2, 10, 12)]


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    write_weights(tmp_path)
    return tmp_path


def compile_text(directory: Path, text: str, **options: object) -> Executable | DynamicExecutable:
    """Compile IR text written to a file in ``directory`` (its weights are found there)."""
    path = directory / f"graph{len(list(directory.glob('*.mlir')))}.mlir"
    path.write_text(text)
    return dnnc.compile(path, **options)  # type: ignore[arg-type]


def draw(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def test_static_function_keeps_the_static_path(workdir: Path) -> None:
    assert type(compile_text(workdir, conv(1, 8, 8))) is Executable


def test_bert_matches_static_compiles(workdir: Path) -> None:
    dynamic = compile_text(workdir, bert(None, None))
    assert isinstance(dynamic, DynamicExecutable)
    rng = np.random.default_rng(1)
    for b, s in BERT_SHAPES:
        x, mask = draw(rng, b, s, 32), draw(rng, b, 1, s)
        static = compile_text(workdir, bert(b, s))
        got = dynamic.run({"x": x, "mask": mask})[0]
        np.testing.assert_array_equal(got, static.run([x, mask])[0])  # the same primitives
    stats = dynamic.stats()
    assert (stats.misses, stats.hits) == (4, 1)  # (2, 7) twice


def test_bert_dynamic_batch_only(workdir: Path) -> None:
    """A function with a static sequence and a dynamic batch."""
    dynamic = compile_text(workdir, bert(None, 5))
    rng = np.random.default_rng(2)
    for b in (1, 3):
        x, mask = draw(rng, b, 5, 32), draw(rng, b, 1, 5)
        static = compile_text(workdir, bert(b, 5))
        np.testing.assert_array_equal(dynamic.run([x, mask])[0], static.run([x, mask])[0])


def test_conv_matches_static_compiles_and_interpreter(workdir: Path) -> None:
    dynamic = compile_text(workdir, conv(None, None, None))
    module, _ = load_module(workdir / "graph0.mlir")
    rng = np.random.default_rng(3)
    for n, h, w in CONV_SHAPES:
        x = draw(rng, n, 3, h, w)
        static = compile_text(workdir, conv(n, h, w))
        got = dynamic.run([x])[0]
        np.testing.assert_array_equal(got, static.run([x])[0])
        expected = interpret(find_function(module), [x], weights_dir=workdir)[0]
        assert compare(got, expected).ok, (n, h, w)
    assert dynamic.stats().misses == 4


def test_plan_is_the_static_graph(workdir: Path) -> None:
    """Per signature the size-dependent decisions are made: the pool takes the per-channel
    multiply as a post-op once its sizes are known (not on the dynamic graph)."""
    dynamic = compile_text(workdir, conv(None, None, None))
    plan = dynamic.plan_for(((2, 3, 10, 12),))
    kinds = plan_kinds(dynamic, ((2, 3, 10, 12),))
    assert "binary" not in kinds and "pooling" in kinds
    assert plan.outputs[0].shape == (2, 4, 5, 6)


def plan_kinds(dynamic: DynamicExecutable, signature: tuple[tuple[int, ...], ...]) -> list[str]:
    """The oneDNN primitives of a signature's plan, in order."""
    calls = dynamic._plans[signature].remake().calls
    return [call.kind for call in calls if call.library == "onednn"]


@pytest.mark.parametrize("q_shape", [(2, 8, 1, 1), (1, 8, 6, 1)])
def test_unfuse_binary_post_op_that_stops_fitting(workdir: Path, q_shape: tuple[int, ...]) -> None:
    """The conv's fused addend is full-shape for one signature (stays fused) and a broadcast
    oneDNN has no fast post-op form for in another (split into conv + binary + relu), with
    the results of the static compile of the unfused graph."""
    dynamic = compile_text(workdir, conv_add(None, None, None, (None, 8, None, None), fused=True))
    rng = np.random.default_rng(4)
    n, h, w = 2, 6, 5
    x, full = draw(rng, n, 3, h, w), draw(rng, n, 8, h, w)
    static_fused = compile_text(workdir, conv_add(n, h, w, (n, 8, h, w), fused=True))
    np.testing.assert_array_equal(dynamic.run([x, full])[0], static_fused.run([x, full])[0])
    assert dynamic.stats().unfused == 0
    x = draw(rng, *(q_shape[0], 3, h, w))
    q = draw(rng, *q_shape)
    got = dynamic.run([x, q])[0]
    assert dynamic.stats().unfused == 1
    kinds = plan_kinds(dynamic, (x.shape, q.shape))
    assert kinds.count("binary") == 1 and kinds.count("convolution") == 1
    static = compile_text(workdir, conv_add(q_shape[0], h, w, q_shape, fused=False))
    np.testing.assert_array_equal(got, static.run([x, q])[0])


@pytest.mark.parametrize(
    ("text", "inputs", "expected"),
    [
        pytest.param(
            conv(None, None, None),
            [(2, 4, 8, 8)],
            ["'dnn.conv2d' op", "input 'x'", "dimension 1 is 4", "declares 3"],
            id="channels",
        ),
        pytest.param(
            conv(None, None, None),
            [(2, 3, 0, 8)],
            ["'dnn.conv2d' op", "dimension 2 is 0", ">= 1"],
            id="zero-sized",
        ),
        pytest.param(
            conv(None, None, None),
            [(2, 3, 1, 8)],
            ["'dnn.pool' op", "window height", "padded input height (1)"],
            id="window",
        ),
        pytest.param(
            bert(None, None),
            [(2, 5, 32), (2, 1, 6)],
            ["'dnn.binary' op", "2x5x5 and 2x1x6 do not broadcast"],
            id="broadcast",
        ),
        pytest.param(
            bert(None, None),
            [(2, 5, 32), (3, 1, 5)],
            ["'dnn.binary' op", "2x5x5 and 3x1x5"],
            id="batch",
        ),
        pytest.param(
            bert(None, None),
            [(2, 5, 16), (2, 1, 5)],
            ["'dnn.transpose' op", "dimension 2 is 16", "declares 32"],
            id="hidden",
        ),
    ],
)
def test_constraint_violation_names_op_and_dimension(
    workdir: Path, text: str, inputs: list[tuple[int, ...]], expected: list[str]
) -> None:
    dynamic = compile_text(workdir, text)
    arrays = [np.zeros(shape, np.float32) for shape in inputs]
    with pytest.raises(DnncError) as error:
        dynamic.run(arrays)
    message = str(error.value)
    assert "graph0.mlir:" in message  # the op's location
    for part in expected:
        assert part in message, message
    assert dynamic.stats().plans == 0


def test_dynamic_channels_checked_by_the_shape_function(workdir: Path) -> None:
    text = conv(None, None, None).replace("tensor<?x3x?x?xf32>", "tensor<?x?x?x?xf32>")
    dynamic = compile_text(workdir, text)
    with pytest.raises(DnncError, match=r"'dnn.conv2d' op input channels \(5\) must equal"):
        dynamic.run([np.zeros((1, 5, 8, 8), np.float32)])


def test_trace_pauses_the_garbage_collector(workdir: Path) -> None:
    """No collection runs while a trace allocates its IR (dynamic._collector_paused); the
    collector is on again after a trace, after one that fails, and stays off where the
    caller turned it off."""
    text = conv(None, None, None).replace("tensor<?x3x?x?xf32>", "tensor<?x?x?x?xf32>")
    dynamic = compile_text(workdir, text)
    assert isinstance(dynamic, DynamicExecutable)
    traced: list[bool] = []

    def collected(phase: str, info: dict[str, int]) -> None:
        traced.append(is_tracing())

    gc.callbacks.append(collected)
    try:
        dynamic.run([np.zeros((1, 3, 8, 8), np.float32)])
        assert gc.isenabled()
        with pytest.raises(DnncError, match="input channels"):
            dynamic.run([np.zeros((1, 5, 8, 8), np.float32)])
        assert gc.isenabled()
        gc.disable()
        try:
            dynamic.run([np.zeros((2, 3, 6, 6), np.float32)])
            assert not gc.isenabled()
        finally:
            gc.enable()
    finally:
        gc.callbacks.remove(collected)
    assert dynamic.stats().traces == 2
    assert not any(traced)


def test_overlapping_trace_pauses_keep_the_collector_off_until_the_last_ends() -> None:
    """Two traces on two threads overlap (the first ends while the second runs): the
    collector stays off until the second ends, then is on again."""
    first, second = _collector_paused(), _collector_paused()
    assert gc.isenabled()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)
    assert not gc.isenabled()
    second.__exit__(None, None, None)
    assert gc.isenabled()


def test_wrong_rank_or_element_type(workdir: Path) -> None:
    dynamic = compile_text(workdir, conv(None, None, None))
    with pytest.raises(
        DnncError,
        match=r"input 'x' is float32\[3, 8, 8\]; expected @conv\(x: float32\[\?, 3, \?, \?\]\)",
    ):
        dynamic.run([np.zeros((3, 8, 8), np.float32)])
    with pytest.raises(DnncError, match="input 'x' is float64"):
        dynamic.run([np.zeros((1, 3, 8, 8))])


def test_arena_grows_only_when_needed_and_never_shrinks(workdir: Path) -> None:
    dynamic = compile_text(workdir, conv(None, None, None))
    needs = {}
    for shape in [(1, 3, 8, 8), (4, 3, 16, 16), (1, 3, 4, 4), (2, 3, 8, 8)]:
        dynamic.run([np.ones(shape, np.float32)])
        needs[shape] = dynamic.plan_for((shape,)).plan.planned_bytes
    largest = max(needs.values())
    assert largest <= dynamic.stats().arena_bytes <= 2 * largest  # doubled when it grows
    arena = dynamic.plan_for(((1, 3, 8, 8),)).arena
    assert all(dynamic.plan_for((s,)).arena is arena for s in needs)  # one buffer shared
    assert dynamic.stats().rebinds == 1  # (1, 3, 8, 8) was bound to the first, smaller arena


def test_arena_cap(workdir: Path) -> None:
    dynamic = compile_text(
        workdir, conv(None, None, None), dynamic=DynamicOptions(max_arena_bytes=4096)
    )
    dynamic.run([np.ones((1, 3, 4, 4), np.float32)])
    with pytest.raises(
        DnncError,
        match=r"needs an arena of \d+ bytes for these input shapes, more than max_arena_bytes=4096",
    ):
        dynamic.run([np.ones((2, 3, 32, 32), np.float32)])
    assert dynamic.stats().arena_bytes <= 4096


def test_constants_packed_once_per_descriptor(workdir: Path) -> None:
    """Each (weight, memory descriptor) the plans read is packed exactly once."""
    dynamic = compile_text(workdir, conv(None, None, None))
    distinct = set()
    for n, h, w in CONV_SHAPES:
        dynamic.run([np.ones((n, 3, h, w), np.float32)])
        program = dynamic._plans[((n, 3, h, w),)].remake()
        for call in program.calls:
            for operand in (*call.ins, *call.outs):
                if operand.place.base == CONSTANT:
                    source = program.constants[operand.place.index].key
                    distinct.add((source, operand.memory))
    stats = dynamic.stats()
    assert stats.constant_packs == stats.constant_entries == len(distinct)


def test_plan_cache_lru_counters(workdir: Path) -> None:
    dynamic = compile_text(workdir, conv(None, None, None), dynamic=DynamicOptions(max_plans=2))
    order = [(1, 4, 4), (1, 6, 6), (1, 4, 4), (1, 8, 8), (1, 6, 6), (1, 4, 4)]
    for n, h, w in order:
        dynamic.run([np.ones((n, 3, h, w), np.float32)])
    stats = dynamic.stats()
    # 4x4 miss, 6x6 miss, 4x4 hit, 8x8 miss (evicts 6x6), 6x6 miss (evicts 4x4), 4x4 miss
    assert (stats.hits, stats.misses, stats.evictions, stats.plans) == (1, 5, 3, 2)


def test_twenty_shapes_served_twice_without_eviction(workdir: Path) -> None:
    """The default plan cache is bounded by bytes, not by a small count: 20 signatures served
    twice miss 20 times, then hit (with a count of 16 the second round missed every time)."""
    dynamic = compile_text(workdir, conv(None, None, None))
    sizes = [(1, 2 * h, 2 * h) for h in range(2, 22)]
    for _ in range(2):
        for n, h, w in sizes:
            dynamic.run([np.ones((n, 3, h, w), np.float32)])
    stats = dynamic.stats()
    assert (stats.misses, stats.hits, stats.evictions, stats.plans) == (20, 20, 0, 20)
    assert stats.plan_bytes > 0  # each plan's primitives are counted


def test_plan_bytes_bound(workdir: Path) -> None:
    dynamic = compile_text(
        workdir, conv(None, None, None), dynamic=DynamicOptions(max_plan_bytes=0)
    )
    for _ in range(2):
        dynamic.run([np.ones((1, 3, 8, 8), np.float32)])
    stats = dynamic.stats()
    assert stats.plans == 0 and stats.misses == 2 and stats.evictions == 2


def test_bad_options() -> None:
    with pytest.raises(DnncError, match="max_plans and max_templates must be >= 1"):
        DynamicOptions(max_plans=0)


def test_inplace_decided_on_dynamic_types_is_rechecked(workdir: Path) -> None:
    """dnn-inplace on the dynamic graph sees equal types (?x?) for the lhs and the result of
    a broadcasting add; per signature the lhs may be the smaller operand, and the plan must
    not write the result over it."""
    text = """
func.func @add(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %e = dnn.eltwise exp %a : tensor<?x?xf32>
  %s = dnn.binary add %e, %b : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %y = dnn.eltwise tanh %s : tensor<?x?xf32>
  func.return %y : tensor<?x?xf32>
}"""
    dynamic = compile_text(workdir, text)
    rng = np.random.default_rng(5)
    for a_shape, b_shape in [((3, 4), (3, 4)), ((1, 4), (3, 4)), ((3, 1), (3, 4))]:
        a, b = draw(rng, *a_shape), draw(rng, *b_shape)
        got = dynamic.run([a, b], poison_freed=True)[0]
        np.testing.assert_allclose(got, np.tanh(np.exp(a) + b), rtol=1e-5)


def test_a_plan_on_a_reference_kernel_its_trace_did_not_have_is_traced_again(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """oneDNN's reference implementation standing in (at 8x8 images) for the kernel of the
    template's own trace: each such signature served by a template traced at another size
    is traced again, once; a template whose own trace had the reference step keeps it."""
    sizes = [(1, 4, 4), (2, 6, 6), (1, 8, 8), (2, 10, 10), (1, 8, 8), (3, 8, 8), (1, 8, 8)]
    rng = np.random.default_rng(0)

    def serve() -> DynamicStats:
        dynamic = compile_text(workdir, conv(None, None, None))
        for n, h, w in sizes:
            x = draw(rng, n, 3, h, w)
            (got,) = dynamic.run([x])
            (want,) = compile_text(workdir, conv(n, h, w)).run([x])
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
        return dynamic.stats()

    kernels = serve()
    eights = frozenset({0})
    monkeypatch.setattr(
        Plan,
        "reference_steps",
        lambda plan: eights if plan.inputs[0].shape[2] == 8 else frozenset(),
    )
    fallen = serve()
    assert kernels.kernel_traces == 0 and fallen.kernel_traces == 2  # (1, 8, 8), (3, 8, 8)
    assert fallen.traces == kernels.traces + 2
    assert (fallen.misses, fallen.hits) == (kernels.misses, kernels.hits) == (5, 2)
