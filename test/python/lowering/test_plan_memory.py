"""dnn-plan-memory on generated graphs: values live at the same time never share bytes, the
arena stays within 10% of the lower bound, and the lowered form passes onednn-verify-buffers."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from dnnc.core.arena import align
from dnnc.core.diagnostics import DnncError, collect_remarks
from dnnc.dialects.dnn.base import i64_array, ints
from dnnc.driver.pipelines import parse_pipeline, run_passes
from dnnc.ir.text import make_context, parse_module
from dnnc.passes.buffer_classes import memory_type


@dataclass
class GraphWriter:
    """IR text of one function, built value by value (all values 1xCxHxW f32)."""

    rng: random.Random
    args: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    shapes: dict[str, tuple[int, int, int]] = field(default_factory=dict)

    @staticmethod
    def type_of(shape: tuple[int, int, int]) -> str:
        c, h, w = shape
        return f"tensor<1x{c}x{h}x{w}xf32>"

    def argument(self, shape: tuple[int, ...], name: str) -> str:
        dims = "x".join(map(str, shape))
        self.args.append(f"%{name}: tensor<{dims}xf32>")
        return f"%{name}"

    def emit(self, shape: tuple[int, int, int], text: str) -> str:
        name = f"%v{len(self.shapes)}"
        self.lines.append(f"  {name} = {text}")
        self.shapes[name] = shape
        return name

    def eltwise(self, src: str) -> str:
        alg = self.rng.choice(["relu", "tanh", "exp"])
        return self.emit(
            self.shapes[src], f"dnn.eltwise {alg} {src} : {self.type_of(self.shapes[src])}"
        )

    def conv(self, src: str) -> str:
        c, h, w = self.shapes[src]
        out = self.rng.choice([8, 16, 32, 64])
        wei = self.argument((out, c, 1, 1), f"w{len(self.args)}")
        t_in, t_out = self.type_of((c, h, w)), self.type_of((out, h, w))
        return self.emit(
            (out, h, w),
            f"dnn.conv2d {src}, {wei} : ({t_in}, tensor<{out}x{c}x1x1xf32>) -> {t_out}",
        )

    def pool(self, src: str) -> str:
        c, h, w = self.shapes[src]
        t_in, t_out = self.type_of((c, h, w)), self.type_of((c, h // 2, w // 2))
        return self.emit(
            (c, h // 2, w // 2),
            f"dnn.pool max {src} {{kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}} : "
            f"({t_in}) -> {t_out}",
        )

    def add(self, lhs: str, rhs: str) -> str:
        t = self.type_of(self.shapes[lhs])
        return self.emit(self.shapes[lhs], f"dnn.binary add {lhs}, {rhs} : ({t}, {t}) -> {t}")

    def concat(self, a: str, b: str) -> str:
        (ca, h, w), (cb, _, _) = self.shapes[a], self.shapes[b]
        ta, tb, t = (
            self.type_of((ca, h, w)),
            self.type_of((cb, h, w)),
            self.type_of((ca + cb, h, w)),
        )
        return self.emit(
            (ca + cb, h, w), f"dnn.concat {a}, {b} {{axis = 1 : i64}} : ({ta}, {tb}) -> {t}"
        )

    def function(self, results: list[str]) -> str:
        types = ", ".join(self.type_of(self.shapes[r]) for r in results)
        values = ", ".join(results)
        return (
            f"func.func @graph({', '.join(self.args)}) -> ({types}) {{\n"
            + "\n".join(self.lines)
            + f"\n  func.return {values} : {types}\n}}\n"
        )


def generate(seed: int, branchy: bool) -> str:
    """A CNN-like graph: convs, pools and eltwise ops; if branchy, also reads of older values
    (skip connections through add and concat), so values stay live across branches."""
    rng = random.Random(seed)
    graph = GraphWriter(rng)
    x = graph.argument((1, 16, 32, 32), "x")
    graph.shapes[x] = (16, 32, 32)
    values = [graph.eltwise(x)]
    for _ in range(rng.randrange(8, 30)):
        src = values[-1]
        older = [v for v in values[-6:-1] if graph.shapes[v][1:] == graph.shapes[src][1:]]
        choice = rng.random()
        if branchy and older and choice < 0.25:
            other = rng.choice(older)
            same = graph.shapes[other] == graph.shapes[src]
            values.append(graph.add(src, other) if same else graph.concat(src, other))
        elif choice < 0.5:
            values.append(graph.conv(src))
        elif choice < 0.6 and graph.shapes[src][1] >= 4:
            values.append(graph.pool(src))
        else:
            values.append(graph.eltwise(src))
    return graph.function([values[-1]])


def planned(text: str, passes: str) -> ModuleOp:
    module = parse_module(text, "generated.mlir")
    run_passes(make_context(), module, parse_pipeline(passes))
    return module


def arena_values(function: func.FuncOp) -> list[tuple[int, int, int, int]]:
    """(offset, size, definition, last use) of every arena value, by schedule position."""
    ops = list(function.body.block.ops)
    position = {op: i for i, op in enumerate(ops)}
    values = []
    for op in ops:
        offsets = ints(op.attributes.get("dnn.arena_offsets"))  # type: ignore[arg-type]
        for result, offset in zip(op.results, offsets or ()):
            if offset >= 0:
                last = max((position[use.operation] for use in result.uses), default=position[op])
                size = memory_type(op, result).nbytes
                values.append((offset, size, position[op], last))
    return values


def check_no_overlap(values: list[tuple[int, int, int, int]]) -> None:
    """Aligned offsets; values live at the same position have disjoint bytes."""
    for i, (offset_a, size_a, start_a, end_a) in enumerate(values):
        assert offset_a % 64 == 0
        for offset_b, size_b, start_b, end_b in values[i + 1 :]:
            if start_a <= end_b and start_b <= end_a:
                assert offset_a + size_a <= offset_b or offset_b + size_b <= offset_a


CASES = [(seed, branchy) for seed in range(12) for branchy in (False, True)]


def planned_function(seed: int, branchy: bool) -> func.FuncOp:
    module = planned(generate(seed, branchy), "dnn-plan-memory")
    return next(op for op in module.walk() if isinstance(op, func.FuncOp))


def plan_numbers(function: func.FuncOp) -> tuple[int, int]:
    """(planned bytes, lower bound) as the pass wrote them."""
    attributes = function.attributes
    return (
        attributes["dnn.arena_bytes"].value.data,  # type: ignore[union-attr]
        attributes["dnn.lower_bound_bytes"].value.data,  # type: ignore[union-attr]
    )


@pytest.mark.parametrize(("seed", "branchy"), CASES)
def test_generated_plans_never_overlap_live_values(seed: int, branchy: bool) -> None:
    with collect_remarks() as remarks:
        function = planned_function(seed, branchy)
    values = arena_values(function)
    check_no_overlap(values)
    planned_bytes, bound = plan_numbers(function)
    assert bound <= planned_bytes
    assert bound >= max((align(size) for _, size, _, _ in values), default=0)
    assert remarks[-1].message.startswith(f"planned {planned_bytes} bytes, lower bound {bound}")


@pytest.mark.parametrize(("seed", "branchy"), CASES)
def test_generated_plans_are_within_ten_percent_of_the_bound(seed: int, branchy: bool) -> None:
    planned_bytes, bound = plan_numbers(planned_function(seed, branchy))
    assert planned_bytes <= 1.10 * bound


@pytest.mark.parametrize(("seed", "branchy"), CASES[:6])
def test_generated_graphs_lower_and_pass_the_buffer_check(seed: int, branchy: bool) -> None:
    module = planned(generate(seed, branchy), "dnn-to-onednn")
    function = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    assert "onednn.arena_bytes" in function.attributes


def test_checker_catches_overlapping_live_values() -> None:
    """The overlap check above fails on a plan that puts two live values at one offset."""
    text = generate(0, True)
    module = planned(text, "dnn-plan-memory")
    function = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    for op in function.body.block.ops:
        offsets = ints(op.attributes.get("dnn.arena_offsets"))  # type: ignore[arg-type]
        if offsets:
            op.attributes["dnn.arena_offsets"] = i64_array(*(min(o, 0) for o in offsets))
    with pytest.raises(AssertionError):
        check_no_overlap(arena_values(function))
    with pytest.raises(DnncError, match="were overwritten by"):
        run_passes(
            make_context(),
            module,
            parse_pipeline("dnn-guard-special-values,convert-dnn-to-onednn,onednn-verify-buffers"),
        )
