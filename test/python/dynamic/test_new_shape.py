"""What a new input length costs a dynamic executable, counted: with
``DynamicOptions.runtime_rows`` the matmuls whose rows vary run on one primitive for every
length until a length repeats ``fixed_rows_after`` times, identical calls share one step kind,
the plans of one template share its memo, and every length agrees with ONNX Runtime with and without run-time rows; what a new length
leaves for the garbage collector is bounded, and its plan keeps no Program."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import helper, numpy_helper

import dnnc
import dnnc.dnnl.objects
import dnnc.runtime.executor
import dnnc.runtime.plan
from dnnc.driver.dynamic import DynamicExecutable, DynamicOptions
from dnnc.runtime.cache import PrimitiveCache
from dnnc.runtime.plan import PrimitiveStep
from dnnc.runtime.program import Program
from dnnc.runtime.template import ProgramTemplate, Signature

HIDDEN, FFN, LAYERS = 16, 32, 2
LENGTHS = [3, 8, 13, 21, 40]


def mlp_model() -> onnx.ModelProto:
    """Two residual MLP layers over [1, seq, 16]: relu(x @ w1 + b1) @ w2 + b2 + x. The first
    matmul of a layer (bias and relu) can take its rows at run time; the second cannot (its
    residual is a post-op argument of the rows' size, which oneDNN 3.2 refuses)."""
    rng = np.random.default_rng(0)
    nodes, weights, x = [], [], "x"
    for i in range(LAYERS):
        arrays = {
            f"w1_{i}": rng.standard_normal((HIDDEN, FFN)) * 0.3,
            f"b1_{i}": rng.standard_normal(FFN) * 0.3,
            f"w2_{i}": rng.standard_normal((FFN, HIDDEN)) * 0.3,
            f"b2_{i}": rng.standard_normal(HIDDEN) * 0.3,
        }
        weights += [numpy_helper.from_array(a.astype(np.float32), n) for n, a in arrays.items()]
        nodes += [
            helper.make_node("MatMul", [x, f"w1_{i}"], [f"h_{i}"]),
            helper.make_node("Add", [f"h_{i}", f"b1_{i}"], [f"hb_{i}"]),
            helper.make_node("Relu", [f"hb_{i}"], [f"a_{i}"]),
            helper.make_node("MatMul", [f"a_{i}", f"w2_{i}"], [f"o_{i}"]),
            helper.make_node("Add", [f"o_{i}", f"b2_{i}"], [f"ob_{i}"]),
            helper.make_node("Add", [f"ob_{i}", x], [f"y_{i}"]),
        ]
        x = f"y_{i}"
    graph = helper.make_graph(
        nodes,
        "mlp",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1, "seq", HIDDEN])],
        [helper.make_tensor_value_info(x, onnx.TensorProto.FLOAT, [1, "seq", HIDDEN])],
        weights,
    )
    made = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    made.ir_version = 8
    return made


@pytest.fixture(scope="module")
def mlp_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("mlp") / "mlp.onnx"
    onnx.save(mlp_model(), path)
    return path


def compiled(path: Path, **options: object) -> tuple[DynamicExecutable, PrimitiveCache]:
    """The model compiled with ``options`` and a primitive cache of its own (counted)."""
    cache = PrimitiveCache()
    executable = dnnc.compile(path, dynamic=DynamicOptions(**options), cache=cache)  # type: ignore[arg-type]
    assert isinstance(executable, DynamicExecutable)
    return executable, cache


def matmul_primitives(executable: DynamicExecutable, length: int) -> list[int]:
    """The ids of the primitives of the plan's matmul steps, in order."""
    plan = executable.plan_for(((1, length, HIDDEN),)).plan
    return [
        id(step.primitive)
        for call, step in zip(plan.calls, plan.steps, strict=True)
        if call.kind == "matmul" and isinstance(step, PrimitiveStep)
    ]


def test_new_lengths_create_no_primitive_for_runtime_row_matmuls(mlp_path: Path) -> None:
    """With run-time rows a new length creates primitives only for the residual matmuls, and
    every length runs the bias-and-relu matmuls (both layers') on one primitive; without, it
    creates that one too. Both agree with ONNX Runtime."""
    session = ort.InferenceSession(str(mlp_path), providers=["CPUExecutionProvider"])
    runtime, runtime_cache = compiled(mlp_path, runtime_rows=True)
    fixed, fixed_cache = compiled(mlp_path)
    rng = np.random.default_rng(1)
    created: dict[str, list[int]] = {"runtime": [], "fixed": []}
    primitives: dict[str, list[list[int]]] = {"runtime": [], "fixed": []}
    for length in LENGTHS:
        x = rng.standard_normal((1, length, HIDDEN)).astype(np.float32)
        want = session.run(None, {"x": x})[0]
        for name, executable, cache in (
            ("runtime", runtime, runtime_cache),
            ("fixed", fixed, fixed_cache),
        ):
            before = cache.misses
            got = executable.run({"x": x})[0]
            created[name].append(cache.misses - before)
            primitives[name].append(matmul_primitives(executable, length))
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4, err_msg=f"{name} {length}")
    # after the first length (which creates the run-time-rows primitive once): the one kind
    # of bias-and-relu matmul (both layers') is not created again; the residual ones are
    saved = [f - r for f, r in zip(created["fixed"][1:], created["runtime"][1:], strict=True)]
    assert saved == [1] * (len(LENGTHS) - 1) and min(created["runtime"][1:]) >= 1
    firsts = {p[0] for p in primitives["runtime"]}  # layer 1's bias-and-relu matmul
    assert len(firsts) == 1 and {p[2] for p in primitives["runtime"]} == firsts
    assert len({p[0] for p in primitives["fixed"]}) == len(LENGTHS)
    for executable, steps in ((runtime, LAYERS), (fixed, 0)):
        plans = [executable.plan_for(((1, n, HIDDEN),)).plan for n in LENGTHS]
        assert [plan.runtime_rows_steps for plan in plans] == [steps] * len(LENGTHS)


def test_a_repeated_length_gets_primitives_of_its_rows(mlp_path: Path) -> None:
    """The ``fixed_rows_after``-th repeat of a length rebuilds its plan on primitives of its
    rows: from then on it computes bit for bit what a plan without run-time rows does."""
    runtime, _ = compiled(mlp_path, runtime_rows=True, fixed_rows_after=2)
    fixed, _ = compiled(mlp_path)
    x = np.random.default_rng(2).standard_normal((1, 9, HIDDEN)).astype(np.float32)
    want = fixed.run({"x": x})[0]
    steps = []
    for _ in range(4):
        got = runtime.run({"x": x})[0]
        stats = runtime.stats()
        steps.append((stats.runtime_rows_steps, stats.fixed_rows))
    assert steps == [(LAYERS, 0), (LAYERS, 0), (0, 1), (0, 1)]
    np.testing.assert_array_equal(got, want)


def _first_arguments(monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> list[object]:
    """The first argument of each call of ``module.name`` from now on (in the test)."""
    calls: list[object] = []
    original = getattr(module, name)

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(args[0])
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


def test_identical_calls_share_one_step_kind(
    mlp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The two layers' equal calls build one handler per distinct primitive per plan
    (plan._StepKind), not one per step."""
    executable, _ = compiled(mlp_path)
    executable.plan_for(((1, 5, HIDDEN),))  # the weights are packed (reorders) once
    built = _first_arguments(monkeypatch, dnnc.runtime.plan, "handler_for")
    plan = executable.plan_for(((1, 6, HIDDEN),)).plan
    keys = {step.primitive.desc.handle for step in plan.steps if isinstance(step, PrimitiveStep)}
    assert built == ["matmul"] * len(keys) and len(plan.steps) == 2 * LAYERS > len(keys)


@pytest.mark.parametrize("runtime_rows", [False, True])
def test_a_new_length_reuses_its_template_memo_and_runs_as_a_plan_without_it(
    mlp_path: Path, monkeypatch: pytest.MonkeyPatch, runtime_rows: bool
) -> None:
    """The plans of a template's instances share what does not change with the length
    (PlanMemo): a new length's plan finds the calls' hashable parameters, every weight's
    Storage (the same objects) and, with run-time rows, the matmul kind of every row count
    that the lengths before made, adds no entry to the memo, records the same constant
    sizes, and gives the same outputs bit for bit as a plan of that length built without
    the memo. Its context validates the arguments of one step per step kind (the second
    layer's steps bind memories of the first's descriptors)."""
    executable, cache = compiled(mlp_path, runtime_rows=runtime_rows)
    executable.plan_for(((1, 5, HIDDEN),))
    template = executable._templates[0]
    memo = template.memo
    first = executable.plan_for(((1, 6, HIDDEN),)).plan
    reused, sizes = memo.reused, (len(memo.params), len(memo.constants), len(memo.rows))
    checks = _first_arguments(monkeypatch, dnnc.dnnl.objects.Primitive, "_check")
    with_memo = executable.plan_for(((1, 7, HIDDEN),))
    plan = with_memo.plan
    steps = [s for s in plan.steps if isinstance(s, PrimitiveStep)]
    weights = {id(s.storages[1]) for s in steps}  # a matmul's storages: src, weights, ...
    assert weights <= {id(s.storages[1]) for s in first.steps if isinstance(s, PrimitiveStep)}
    constants = sum(o.place.base == "constant" for c in plan.calls for o in (*c.ins, *c.outs))
    rows_kinds = 1 if runtime_rows else 0  # both layers' bias-and-relu matmuls: one kind
    assert memo.reused - reused == constants + len(steps) + rows_kinds
    assert (len(memo.params), len(memo.constants), len(memo.rows)) == sizes
    assert plan.runtime_rows_steps == 2 * rows_kinds
    assert len(checks) == len({id(s.bindings) for s in steps}) < len(steps)
    without = dnnc.runtime.executor.Executable(
        template.instantiate(((1, 7, HIDDEN),)),
        cache=cache,
        constants=with_memo.constants,
        runtime_rows=runtime_rows,
    )
    assert without.plan.constant_sizes == plan.constant_sizes
    x = np.random.default_rng(2).standard_normal((1, 7, HIDDEN)).astype(np.float32)
    np.testing.assert_array_equal(with_memo.run([x])[0], without.run([x])[0])


def test_a_new_length_leaves_few_objects_for_the_garbage_collector(mlp_path: Path) -> None:
    """What a new length's plan (kept in the plan cache) leaves for the garbage collector to
    track: a full collection walks every such object, and Python starts one when those that
    survived since the last exceed a quarter of the rest, so each new length's share of the
    full collections grows with what it adds. At most 50 per step (this model's four: ~40);
    owned oneDNN handles each with a weakref.finalize and plans keeping their Program left
    ~130."""
    executable, _ = compiled(mlp_path)
    for length in LENGTHS[:2]:  # the trace, the weights packed, the caches warm
        executable.run([np.ones((1, length, HIDDEN), np.float32)])
    lengths = range(50, 60)
    gc.collect()
    before = len(gc.get_objects())
    for length in lengths:
        executable.run([np.ones((1, length, HIDDEN), np.float32)])
    gc.collect()
    added = (len(gc.get_objects()) - before) / len(lengths)
    steps = len(executable.plan_for(((1, lengths[0], HIDDEN),)).plan.steps)
    assert executable.stats().plans == len(lengths) + 2 and added <= 50 * steps, added


def test_a_plan_keeps_no_program_and_recalls_its_calls(
    mlp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new length's Program is dropped once its plan is built; the plan makes its calls
    again from the template when asked (profiles, poison_freed): the same calls."""
    executable, _ = compiled(mlp_path)
    executable.plan_for(((1, 5, HIDDEN),))  # the trace
    made: list[weakref.ref[Program]] = []
    instantiate = ProgramTemplate.instantiate

    def kept(template: ProgramTemplate, signature: Signature) -> Program:
        program = instantiate(template, signature)
        made.append(weakref.ref(program))
        return program

    monkeypatch.setattr(ProgramTemplate, "instantiate", kept)
    plan = executable.plan_for(((1, 7, HIDDEN),)).plan
    gc.collect()
    assert len(made) == 1 and made[0]() is None
    again = instantiate(executable._templates[0], ((1, 7, HIDDEN),))
    assert plan.calls == again.calls and len(made) == 2


def test_fixed_rows_after_must_be_positive() -> None:
    with pytest.raises(dnnc.DnncError, match="fixed_rows_after must be >= 1"):
        DynamicOptions(fixed_rows_after=0)


def softsign_model() -> onnx.ModelProto:
    """x @ w1, then Softsign (a numpy reference step, on views of the arena), then @ w2."""
    rng = np.random.default_rng(3)
    weights = [
        numpy_helper.from_array((rng.standard_normal(shape) * 0.3).astype(np.float32), name)
        for name, shape in (("w1", (HIDDEN, FFN)), ("w2", (FFN, HIDDEN)))
    ]
    graph = helper.make_graph(
        [
            helper.make_node("MatMul", ["x", "w1"], ["h"]),
            helper.make_node("Softsign", ["h"], ["s"]),
            helper.make_node("MatMul", ["s", "w2"], ["y"]),
        ],
        "softsign",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1, "seq", HIDDEN])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [1, "seq", HIDDEN])],
        weights,
    )
    made = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    made.ir_version = 8
    return made


def test_a_plan_made_before_the_arena_grew_is_pointed_at_the_new_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After the shared arena grows, a kept plan runs in the new one without being built
    again (``rebinds`` counts it; no plan is built): its memories and its reference step's
    views follow, and its results still agree with ONNX Runtime, poisoned freed bytes too."""
    path = tmp_path / "softsign.onnx"
    onnx.save(softsign_model(), path)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    executable, _ = compiled(path)
    built = _first_arguments(monkeypatch, dnnc.runtime.executor, "build_plan")
    rng = np.random.default_rng(4)
    small, large = (rng.standard_normal((1, n, HIDDEN)).astype(np.float32) for n in (2, 300))
    for x in (small, large):
        executable.run({"x": x})
    arena = executable.stats().arena_bytes
    for poison in (False, True):
        got = executable.run({"x": small}, poison_freed=poison)[0]
        np.testing.assert_allclose(got, session.run(None, {"x": small})[0], rtol=1e-4, atol=1e-5)
    stats = executable.stats()
    assert (len(built), stats.rebinds, stats.misses, stats.arena_bytes) == (2, 1, 2, arena)
    assert (
        executable.plan_for(((1, 2, HIDDEN),)).arena
        is executable.plan_for(((1, 300, HIDDEN),)).arena
    )
