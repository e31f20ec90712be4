"""A program template: a lowered Program whose sizes are expressions of the input dimensions,
made concrete for one input signature in plain Python (no IR, no pass, no hashing).

dnnc.driver.dynamic traces a dynamic function once with its ``?`` input dimensions as
symbols (dnnc.core.symbols): the Program it lowers to has ``SymbolicInt`` sizes wherever a
size depends on them, and the trace's guards say for which signatures its decisions hold.
``ProgramTemplate.instantiate(signature)`` then gives that signature's Program:
* the symbol values from the signature (``symbols``: symbol k is dimension d of input i);
* every memory's shape (and a call parameter that is a SymbolicInt) evaluated; plain ints
  are the same for every signature;
* the arena planned again (dnnc.core.arena.plan_arena): each arena root's bytes are those
  of its memory, live from the first call that reads or writes it to the last; a view keeps
  its byte offset within its root;
* the inputs' and outputs' shapes evaluated.

What the template trusts: memory shapes and root memories (the lowering builds them by
arithmetic on the traced sizes). A view's byte offset inside its root is read from a packed
attribute, so it is the traced signature's: ``ProgramTemplate.of`` adds a guard pinning the
symbols of such a root to their traced values (the template then serves only those sizes
of them; another value traces again).
"""

from __future__ import annotations

import dataclasses
import functools
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from dnnc.core.arena import Conflicts, Lifetime, conflicts, plan_arena
from dnnc.core.symbols import Guard, SymbolicInt, Values, evaluate
from dnnc.runtime.io_binding import TensorSpec
from dnnc.runtime.plan import PlanMemo
from dnnc.runtime.program import ARENA, CONSTANT, Call, MemorySpec, Operand, Place, Program

Signature = tuple[tuple[int, ...], ...]
"""The shapes of a run's inputs, in order."""

Symbol = tuple[int, int]
"""(input index, dimension index) of a symbol."""

Sized = Callable[[Values], np.ndarray]
"""How to compute an input of the Program after the declared ones from the symbol values
(dnnc.frontend.onnx.sized)."""


def _symbolic(shape: Sequence[int]) -> bool:
    return any(isinstance(d, SymbolicInt) for d in shape)


def _symbols_of(values: Sequence[int]) -> set[int]:
    """The symbol indices the expressions of ``values`` read."""
    found: set[int] = set()
    for value in values:
        if isinstance(value, SymbolicInt):
            found.update(int(part[1:]) for part in _tokens(value.text) if part.startswith("s"))
    return found


def _tokens(text: str) -> list[str]:
    for mark in "()+-*/%":
        text = text.replace(mark, " ")
    return text.split()


def _pin(symbol: int, value: int) -> Guard:
    return Guard(f"s{symbol} == {value}", lambda v: v[symbol] == value, True)


@dataclass(frozen=True)
class ProgramTemplate:
    """A Program with symbolic sizes and the guards of its trace (module docstring)."""

    program: Program
    symbols: tuple[Symbol, ...]
    guards: tuple[Guard, ...]
    lifetimes: tuple[tuple[int, int, int], ...]
    """Per arena root that a call uses: (root, first call, last call)."""
    sized: tuple[Sized, ...] = ()
    """How to compute each input after the declared ones, in order."""
    checked: bool = False
    """Whether its reuse needs no check trace (dnnc.driver.onnx_shapes): a trace of another
    signature agreed with it, or it is a trace of a function the symbolic import checked."""
    reference_steps: frozenset[int] | None = None
    """The steps its first plan (of its traced signature) runs on oneDNN's reference
    implementation (``Plan.reference_steps``; None before that plan): a later signature
    whose plan has another one is traced again (dnnc.driver.dynamic)."""
    memo: PlanMemo = dataclasses.field(default_factory=PlanMemo, compare=False, repr=False)
    """What the plans of its instances share (dnnc.runtime.plan.PlanMemo)."""

    @staticmethod
    def of(
        program: Program,
        symbols: Sequence[Symbol],
        guards: Sequence[Guard],
        sized: Sequence[Sized] = (),
    ) -> ProgramTemplate:
        """The template of a traced Program (module docstring)."""
        first: dict[int, int] = {}
        last: dict[int, int] = {}
        pinned: set[int] = set()
        roots = program.arena_roots
        for index, call in enumerate(program.calls):
            for operand in (*call.ins, *call.outs):
                place = operand.place
                if place.base != ARENA:
                    continue
                first.setdefault(place.root, index)
                last[place.root] = index
                if place.offset != roots[place.root][0]:
                    pinned |= _symbols_of(program.root_memories[place.root].shape)
        hints = _hints(program, symbols)
        return ProgramTemplate(
            program,
            tuple(symbols),
            (*guards, *(_pin(s, hints[s]) for s in sorted(pinned))),
            tuple((root, first[root], last[root]) for root in first),
            tuple(sized),
        )

    def pinned(self) -> ProgramTemplate:
        """This template admitting only its traced sizes."""
        hints = _hints(self.program, self.symbols)
        pins = tuple(_pin(s, hint) for s, hint in enumerate(hints))
        return dataclasses.replace(self, guards=(*self.guards, *pins))

    def values(self, signature: Signature) -> list[int]:
        """Each symbol's value in ``signature``."""
        return [signature[i][d] for i, d in self.symbols]

    def admits(self, signature: Signature) -> bool:
        """Whether every guard of the trace holds for ``signature``."""
        values = self.values(signature)
        return all(guard.admits(values) for guard in self.guards)

    @functools.cached_property
    def _clashes(self) -> Conflicts:
        """The arena roots whose lifetimes intersect (the same for every signature)."""
        return conflicts([Lifetime(root, 0, start, end) for root, start, end in self.lifetimes])

    @functools.cached_property
    def _shapes(self) -> _Shapes:
        """How to compute the shape of each of the Program's memories whose shape is an
        expression (the others are the same in every instance): each distinct expression
        evaluated once per signature, then every shape read from those values."""
        program = self.program
        operands = (o.memory for c in program.calls for o in (*c.ins, *c.outs))
        symbolic = {id(m): m for m in (*operands, *program.root_memories) if _symbolic(m.shape)}
        positions: dict[object, int] = {}  # a plain size, or an expression's text -> its place
        sizes: list[int | Callable[[Values], int]] = []
        readers = {}
        for key, memory in symbolic.items():
            indices = []
            for dim in memory.shape:
                size = dim.evaluate if isinstance(dim, SymbolicInt) else int(dim)
                name = dim.text if isinstance(dim, SymbolicInt) else size
                index = positions.get(name)
                if index is None:
                    index = positions[name] = len(sizes)
                    sizes.append(size)
                indices.append(index)
            readers[key] = (memory, _reader(indices))
        return _Shapes(tuple(sizes), readers)

    @functools.cached_property
    def _variable_rows(self) -> tuple[bool, ...]:
        """Per call, whether it is a matmul whose rows (src's and dst's next-to-last
        dimension) are an expression (``Call.variable_rows``)."""
        rows = []
        for c in self.program.calls:
            src = [o.memory.shape for o in c.ins if o.role == "src"]
            rows.append(
                c.kind == "matmul"
                and len(src) == 1
                and len(src[0]) >= 2
                and isinstance(src[0][-2], SymbolicInt)
            )
        return tuple(rows)

    @functools.cached_property
    def _symbolic_params(self) -> tuple[tuple[str, ...], ...]:
        """Per call, the names of its parameters that hold a SymbolicInt."""
        return tuple(
            tuple(name for name, value in c.params.items() if _holds_symbol(value))
            for c in self.program.calls
        )

    def instantiate(self, signature: Signature) -> Program:
        """The Program of ``signature`` (module docstring); ``admits`` must hold."""
        values = self.values(signature)
        program = self.program
        memories = self._shapes.memories(values)

        def concrete(memory: MemorySpec) -> MemorySpec:
            return memories.get(id(memory), memory)

        roots = program.arena_roots
        plan = plan_arena(
            [
                Lifetime(root, concrete(program.root_memories[root]).nbytes, start, end)
                for root, start, end in self.lifetimes
            ],
            clashes=self._clashes,
        )
        sizes = {
            root: concrete(program.root_memories[root]).nbytes for root, _, _ in self.lifetimes
        }

        def operand(o: Operand) -> Operand:
            place, memory = o.place, concrete(o.memory)
            if place.base == ARENA:
                offset = plan.offsets[place.root] + place.offset - roots[place.root][0]
                if (offset, place.index) != (place.offset, 0):
                    place = Place(ARENA, 0, offset, place.root)
            if place is o.place and memory is o.memory:
                return o  # the same in this instance: no new object
            return Operand(o.role, memory, place)

        def call(c: Call, evaluated: tuple[str, ...], rows: bool) -> Call:
            ins, outs = tuple(map(operand, c.ins)), tuple(map(operand, c.outs))
            same = all(map(operator.is_, (*ins, *outs), (*c.ins, *c.outs)))
            if same and not evaluated and rows == c.variable_rows:
                return c
            params = c.params
            if evaluated:
                params = {**params, **{k: _evaluated(params[k], values) for k in evaluated}}
            return _replaced(c, ins=ins, outs=outs, params=params, variable_rows=rows)

        return dataclasses.replace(
            program,
            inputs=tuple(_spec(s, values) for s in program.inputs),
            outputs=tuple(_spec(s, values) for s in program.outputs),
            arena_bytes=plan.peak_bytes,
            calls=tuple(map(call, program.calls, self._symbolic_params, self._variable_rows)),
            arena_roots=tuple(
                (plan.offsets[r], plan.offsets[r] + sizes[r]) if r in sizes else (0, 0)
                for r in range(len(roots))
            ),
            root_memories=tuple(map(concrete, program.root_memories)),
        )


@dataclass(frozen=True)
class _Shapes:
    """The shapes of a template's symbolic memories (``ProgramTemplate._shapes``)."""

    sizes: tuple[int | Callable[[Values], int], ...]
    """The table of sizes ``memories`` reads: each distinct plain size, and each distinct
    expression (evaluated per signature)."""
    readers: dict[int, tuple[MemorySpec, Callable[[Sequence[int]], tuple[int, ...]]]]
    """Per memory (by id): the memory and what reads its shape from the table."""

    def memories(self, values: Values) -> dict[int, MemorySpec]:
        """Each symbolic memory's instance for ``values`` (the symbol values), by the id of
        the template's; equal instances are one object (their comparisons are then
        identities: a plan's step kinds compare memories)."""
        table = [size if isinstance(size, int) else size(values) for size in self.sizes]
        made: dict[tuple[object, ...], MemorySpec] = {}
        found = {}
        for key, (memory, read) in self.readers.items():
            shape = read(table)
            # the layout by identity (the template's memories hold it): no dataclass hash
            same = (shape, memory.data_type, id(memory.layout))
            instance = made.get(same)
            if instance is None:
                instance = made[same] = MemorySpec(shape, memory.data_type, memory.layout)
            found[key] = instance
        return found


def _reader(indices: Sequence[int]) -> Callable[[Sequence[int]], tuple[int, ...]]:
    """What reads the sizes at ``indices`` of a table as a shape (a tuple, for one too)."""
    if len(indices) == 1:
        index = indices[0]
        return lambda table: (table[index],)
    return operator.itemgetter(*indices)


def same_program(instance: Program, traced: Program) -> bool:
    """Whether a template's instance and a trace of the same signature run the same calls:
    kinds, parameters, operands' roles, memories and bases, constants' sources (arena
    offsets aside: the two plans place the same buffers differently)."""

    def operands(program: Program, call: Call) -> list[tuple[object, ...]]:
        return [
            (
                o.role,
                o.memory,
                o.place.base,
                program.constants[o.place.index].key if o.place.base == CONSTANT else None,
            )
            for o in (*call.ins, *call.outs)
        ]

    return (
        instance.inputs == traced.inputs
        and instance.outputs == traced.outputs
        and len(instance.calls) == len(traced.calls)
        and all(
            (a.library, a.kind, a.params, operands(instance, a))
            == (b.library, b.kind, b.params, operands(traced, b))
            for a, b in zip(instance.calls, traced.calls)
        )
    )


def _replaced(call: Call, **changes: object) -> Call:
    """``dataclasses.replace(call, **changes)`` without its per-field introspection (a new
    signature's template instance replaces most calls): the fields copied, the changed ones
    set, nothing else run (a Call's __init__ only assigns)."""
    new = object.__new__(Call)
    new.__dict__.update(call.__dict__, **changes)
    return new


def _hints(program: Program, symbols: Sequence[Symbol]) -> list[int]:
    """Each symbol's traced value, read from the inputs' shapes."""
    return [int(program.inputs[i].shape[d]) for i, d in symbols]


def _spec(spec: TensorSpec, values: Values) -> TensorSpec:
    if not _symbolic(spec.shape):
        return spec
    return TensorSpec(spec.name, tuple(evaluate(d, values) for d in spec.shape), spec.dtype)


def _holds_symbol(value: object) -> bool:
    """Whether a call parameter is or holds (in lists and tuples) a SymbolicInt."""
    if isinstance(value, SymbolicInt):
        return True
    return isinstance(value, list | tuple) and any(map(_holds_symbol, value))


def _evaluated(value: object, values: Values) -> object:
    """A call parameter with its SymbolicInts evaluated (lists and tuples looked into)."""
    if isinstance(value, SymbolicInt):
        return value.evaluate(values)
    if isinstance(value, list | tuple):
        return type(value)(_evaluated(v, values) for v in value)
    return value


__all__ = ["ProgramTemplate", "Signature", "Sized", "same_program"]
