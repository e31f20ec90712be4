"""An execution context: what one run of an executable owns, so that runs never share bytes.

A context holds a uint8 arena of the plan's ``planned_bytes`` (64-byte aligned) in which every
arena value is a `Memory` at its offset, a scratchpad as large as the largest need of any
primitive, a stream, and the plan's steps with their memories bound (``BoundExecution``;
``onednn.reference`` steps run their numpy kernel on views of the context's arena after
waiting for the stream). The caller's arrays are bound per run (``bind``: zero copy, by
``Memory.set_data_handle``; an array that is not C-contiguous is copied to one that is, except
a past bound over its present, which no step reads: ``kv_append`` steps, ``_BoundAppendStep``,
then write only the new slots).

``execute`` runs the steps in segments (``Segment``) of primitive steps created under one
OpenMP thread count (``PrimitiveStep.threads``: one for a small step,
dnnc.runtime.step_threads), each under that count or the caller's if fewer, never more
than a primitive was created for (oneDNN's brgemm kernels divide their work at creation,
others, like the AVX2 matmul gemm:jit, when they run: on 3 threads instead of 2 it summed in
another order); the caller's count is read at the start of each run and set back at its
end. Reference steps join the segment before them (they use no OpenMP), so that the count
changes only where a primitive step needs another. OpenMP's count is the calling thread's
own: runs on other threads keep theirs.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from dnnc.core.diagnostics import InputError
from dnnc.dnnl.objects import Engine, Memory, Stream
from dnnc.dnnl.threads import set_thread_count, thread_count
from dnnc.runtime.constants import PackedConstants
from dnnc.runtime.io_binding import TensorSpec, call_signature
from dnnc.runtime.plan import (
    AppendStep,
    Binding,
    Plan,
    PrimitiveStep,
    ReferenceStep,
    Step,
    Storage,
    aligned_bytes,
    check_fits,
)
from dnnc.runtime.program import MemorySpec

POISON = 0xFF
"""The byte poison_freed writes: all-ones is a NaN in f32, bf16 and f16 (and -1 in ints)."""

_Slot = np.ndarray | tuple[Storage, MemorySpec]
"""A reference kernel's operand: a fixed array, or an argument's storage (bound per run)."""


class ExecutionContext:
    """What one run owns (module docstring): arena, scratchpad, stream, bound steps."""

    def __init__(
        self,
        plan: Plan,
        engine: Engine,
        constants: PackedConstants,
        arena: np.ndarray | None = None,
    ) -> None:
        signature = call_signature(plan.name, plan.inputs)
        check_fits(
            f"a run of {signature}",
            {
                "arena": plan.planned_bytes if arena is None else 0,
                "scratchpad": plan.scratchpad_bytes,
                "inputs": sum(spec.nbytes for spec in plan.inputs),
                "outputs": sum(spec.nbytes for spec in plan.outputs),
            },
        )
        self.engine = engine
        self.constants = constants
        """Where the Memories over constants come from (shared with other contexts)."""
        self.arena = aligned_bytes(plan.planned_bytes) if arena is None else arena
        self.scratchpad = aligned_bytes(plan.scratchpad_bytes)
        self.stream = Stream(self.engine)
        arguments = len(plan.inputs) + len(plan.outputs)
        self.bound: list[np.ndarray] = [np.empty(0, np.uint8)] * arguments
        self.aliased: frozenset[int] = frozenset()
        """The inputs of this run bound over the start of an output (``bind``)."""
        self.argument_memories: list[list[Memory]] = [[] for _ in range(arguments)]
        self._memories: dict[tuple[object, ...], Memory] = {}
        self._arena_memories: list[Memory] = []
        """The Memories over the arena (``rebase`` points them at another)."""
        self.steps: list[Callable[[], object]] = [self._step(step) for step in plan.steps]
        self.segments = _segments(plan.steps)
        self._plan = plan

    @functools.cached_property
    def poison(self) -> list[list[np.ndarray]]:
        """Per step, the views of the arena poison_freed fills after it (made on first use:
        most contexts never poison)."""
        return [[self.arena[lo:hi] for lo, hi in ranges] for ranges in self._plan.poison_ranges]

    def _step(self, step: Step) -> Callable[[], object]:
        if isinstance(step, AppendStep):
            return _BoundAppendStep(self, step)
        if isinstance(step, ReferenceStep):
            return _BoundReferenceStep(self, step)
        args = {b.arg: self._memory(b, s) for b, s in zip(step.bindings, step.storages)}
        if step.scratchpad_arg is not None:
            desc = step.primitive.desc.scratchpad_desc()
            assert desc is not None  # exec_args lists it only when there is one
            args[step.scratchpad_arg] = Memory(desc, self.scratchpad, engine=self.engine)
        return step.primitive.bind(args, self.stream)

    def _memory(self, binding: Binding, storage: Storage) -> Memory:
        """A Memory of the binding's descriptor over its bytes at ``storage`` (one per place
        and descriptor object: the plan's steps share theirs, and the Memory keeps it alive,
        so its id keys it without the descriptor's queries)."""
        desc = binding.desc
        key = (*storage.place, id(desc))
        if key not in self._memories:
            if storage.base == "argument":  # bound to the caller's array per run
                memory = Memory(desc, aligned_bytes(binding.nbytes), engine=self.engine)
                self.argument_memories[storage.index].append(memory)
            elif storage.base == "arena":
                memory = Memory(desc, self.arena, storage.offset, engine=self.engine)
                self._arena_memories.append(memory)
            else:
                assert storage.array is not None  # a constant's storage holds its array
                memory = self.constants.memory(desc, storage.array, storage.offset, self.engine)
            self._memories[key] = memory
        return self._memories[key]

    def rebase(self, arena: np.ndarray) -> None:
        """Run in ``arena`` (as large as the plan needs) from now on: the Memories over the
        old one point at the same offsets of it, the reference steps view it. Nothing may
        run in this context meanwhile."""
        self.arena = arena
        for memory in self._arena_memories:
            memory.set_data_handle(arena, memory.offset)
        for index, step in enumerate(self._plan.steps):
            if isinstance(step, ReferenceStep):
                self.steps[index] = self._step(step)  # its arrays are views of the arena
        self.__dict__.pop("poison", None)  # views of the old arena, made again on use

    def array_of(self, storage: Storage, memory: MemorySpec) -> np.ndarray:
        """The logical (plain) array of a memory, over its current bytes."""
        base = {"argument": None, "arena": self.arena}.get(storage.base, storage.array)
        if base is None:
            base = self.bound[storage.index]
            if storage.offset == 0 and base.shape == memory.shape:
                return base  # the caller's array itself (an aliased past is not contiguous)
        raw = base.reshape(-1).view(np.uint8)[storage.offset : storage.offset + memory.nbytes]
        return raw.view(memory.data_type.numpy).reshape(memory.shape)

    def bind(
        self,
        arrays: Sequence[np.ndarray],
        outputs: Sequence[TensorSpec],
        out: Sequence[np.ndarray] | None = None,
        aliased: frozenset[int] = frozenset(),
    ) -> list[np.ndarray]:
        """Bind the (checked) inputs and the outputs (the arrays ``out``, already checked,
        else new ones); return the outputs. The inputs ``aliased`` are caches bound over the
        start of the output their AppendStep writes (dnnc.runtime.io_binding.aliased_inputs):
        kept as they are (no step reads them: the append finds their values in place)."""
        results = list(out) if out is not None else [np.empty(s.shape, s.dtype) for s in outputs]
        self.aliased = aliased
        inputs = [a if i in aliased else np.ascontiguousarray(a) for i, a in enumerate(arrays)]
        for index, array in enumerate([*inputs, *results]):
            if array is self.bound[index]:
                continue  # bound by the run before: the same bytes (it holds them alive)
            self.bound[index] = array
            for memory in self.argument_memories[index]:
                memory.set_data_handle(array)
        return results

    def execute(self, poison_freed: bool) -> None:
        """Every step in order, each segment under its thread count (module docstring),
        then wait; with poison_freed, freed bytes get POISON."""
        if poison_freed:
            self.arena.fill(POISON)
        caller = thread_count()
        current = caller
        try:
            for segment in self.segments:
                wanted = min(segment.threads, caller)
                if wanted != current:
                    set_thread_count(wanted)
                    current = wanted
                self._run(segment.start, segment.stop, poison_freed)
        finally:
            if current != caller:
                set_thread_count(caller)
        self.stream.wait()

    def _run(self, start: int, stop: int, poison_freed: bool) -> None:
        """Steps ``start`` to ``stop``; with poison_freed, each one's freed bytes poisoned."""
        if poison_freed:
            for step, poison in zip(self.steps[start:stop], self.poison[start:stop], strict=True):
                step()
                self.stream.wait()
                for view in poison:
                    view.fill(POISON)
        else:
            steps = self.steps
            for index in range(start, stop):  # no copy of the list per segment and run
                steps[index]()

    def thread_counts(self, caller: int) -> list[int]:
        """The thread count each step runs under for a caller running with ``caller``."""
        return [
            min(segment.threads, caller)
            for segment in self.segments
            for _ in range(segment.start, segment.stop)
        ]


@dataclass(frozen=True)
class Segment:
    """Steps ``start`` to ``stop`` (excluded), run under at most ``threads`` OpenMP threads
    (the caller's count if fewer)."""

    start: int
    stop: int
    threads: int


def _segments(steps: Sequence[Step]) -> tuple[Segment, ...]:
    """The plan's steps cut where a primitive step needs another thread count than the one
    before (module docstring)."""
    segments: list[Segment] = []
    start, threads = 0, 0  # 0: no primitive step yet
    for index, step in enumerate(steps):
        if not isinstance(step, PrimitiveStep):
            continue  # no OpenMP: any count will do
        if threads and step.threads != threads:
            segments.append(Segment(start, index, threads))
            start = index
        threads = step.threads
    segments.append(Segment(start, len(steps), threads or 1))
    return tuple(segments)


class _BoundReferenceStep:
    """One onednn.reference call: the numpy kernel on views of a context's memories."""

    def __init__(self, context: ExecutionContext, step: ReferenceStep) -> None:
        self.context = context
        self.kernel = step.kernel
        self.params = step.params
        positional, variadic = self._arrange(step.kernel, step.ins)
        # tuples: an empty one is no new object (most steps have no variadic operands)
        self.positional = tuple(None if s is None else self._slot(*s) for s in positional)
        self.variadic = tuple(self._slot(*s) for s in variadic)
        self.outs = tuple(self._slot(*s) for s in step.outs)

    def _slot(self, storage: Storage, memory: MemorySpec) -> _Slot:
        """The array itself when its bytes are fixed, else what finds it in a run."""
        if storage.base != "argument":
            return self.context.array_of(storage, memory)
        return storage, memory

    def _array(self, slot: _Slot) -> np.ndarray:
        return slot if isinstance(slot, np.ndarray) else self.context.array_of(*slot)

    @staticmethod
    def _arrange(
        kernel: Callable[..., object], ins: Sequence[tuple[str, Storage, MemorySpec]]
    ) -> tuple[list[tuple[Storage, MemorySpec] | None], list[tuple[Storage, MemorySpec]]]:
        """Roles named like a positional parameter go there (an absent one is None, passed
        as such when ``*args`` follow: a matmul without bias but with post-op arguments);
        the others, in order, fill the kernel's ``*args`` (post_args, inputs)."""
        by_role = {role: (storage, memory) for role, storage, memory in ins}
        positional: list[tuple[Storage, MemorySpec] | None] = []
        for name in _positional_names(kernel):
            positional.append(by_role.pop(name, None))
        variadic = list(by_role.values())
        while positional and positional[-1] is None and not variadic:
            positional.pop()
        return positional, variadic

    def __call__(self) -> None:
        self.context.stream.wait()  # the primitives before have written what we read
        args = [None if s is None else self._array(s) for s in self.positional]
        args += [self._array(s) for s in self.variadic]
        try:
            results = self.kernel(*args, **self.params)
        except ValueError as error:  # what the inputs' values make impossible (an index)
            raise InputError(f"{self.kernel.__name__}: {error}") from None
        results = results if isinstance(results, tuple) else (results,)
        for slot, result in zip(self.outs, results, strict=True):
            np.copyto(self._array(slot), result)


@functools.cache
def _positional_names(kernel: Callable[..., object]) -> tuple[str, ...]:
    """The names of a reference kernel's leading positional parameters, read once per kernel
    (not by inspect.signature per reference step of every new shape's plan)."""
    names = []
    for parameter in inspect.signature(kernel).parameters.values():
        if parameter.kind is not inspect.Parameter.POSITIONAL_OR_KEYWORD:
            break
        names.append(parameter.name)
    return tuple(names)


class _BoundAppendStep:
    """One kv_append: ``new`` written after the past in the output, and the past copied to
    the output's start unless this run bound the output over it (``ExecutionContext.aliased``),
    where the past already is: then only ``new``'s slots are written."""

    def __init__(self, context: ExecutionContext, step: AppendStep) -> None:
        self.context = context
        operands = {role: (storage, memory) for role, storage, memory in step.ins}
        self.past, self.new = operands["past"], operands["new"]
        self.out = step.outs[0]
        length = self.past[1].shape[step.axis]
        before = (slice(None),) * step.axis
        self.head = (*before, slice(0, length))
        self.tail = (*before, slice(length, None))
        self.new_view = None if self.new[0].base == "argument" else context.array_of(*self.new)
        """``new``'s array when its bytes are fixed (the arena's or a constant's: ``rebase``
        makes the step again), else None: found per run, as the arguments are."""

    def __call__(self) -> None:
        context = self.context
        context.stream.wait()  # the primitives before have written what we read
        out = context.array_of(*self.out)
        past_storage = self.past[0]
        if past_storage.base != "argument" or past_storage.index not in context.aliased:
            np.copyto(out[self.head], context.array_of(*self.past))
        new = self.new_view if self.new_view is not None else context.array_of(*self.new)
        np.copyto(out[self.tail], new)
