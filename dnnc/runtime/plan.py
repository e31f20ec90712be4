"""The plan of a lowered function: what every run of it shares, built once and read-only.

`build_plan` reads a `Program` (dnnc.runtime.program: the lowered function as plain data) once:
* every constant loaded once and, when its memory is not plain, reordered once into that
  layout by the reorder primitive (dnnc.runtime.constants keeps it);
* each step's primitive from the primitive cache (or its numpy reference kernel) with, per
  argument, its descriptor and where its bytes are (`Storage`: an offset of the arena, an
  argument, a constant), and the OpenMP thread count its primitive is created under and
  runs under at most (``threads``): one for a step too small to gain from more
  (dnnc.runtime.step_threads), else the count of the thread building the plan;
* what the reports need: each step's `StepInfo`, the scratchpad size, the arena's lower
  bound, and the arena ranges `poison_freed` fills after each step;

Neither the plan nor this module touches the IR: a saved model builds its plan without xDSL.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np

from dnnc.core.arena import ALIGNMENT, Lifetime, lower_bound
from dnnc.core.diagnostics import DnncError
from dnnc.core.kinds import DataType, SumPostOp
from dnnc.core.layouts import Layout
from dnnc.dnnl.objects import RUNTIME, DnnlError, Engine, Memory, MemoryDesc, Primitive, Stream
from dnnc.dnnl.primitives import PrimitiveHandler, handler_for
from dnnc.dnnl.threads import running_on, thread_count
from dnnc.runtime.cache import PrimitiveCache
from dnnc.runtime.constants import PackedConstants, packed_buffer
from dnnc.runtime.io_binding import TensorSpec
from dnnc.runtime.program import ARENA, ARGUMENT, CONSTANT, Call, MemorySpec, Operand, Program
from dnnc.runtime.report import StepInfo
from dnnc.runtime.step_threads import runs_alone
from dnnc.target.host import memory_bytes


def check_fits(what: str, parts: Mapping[str, int]) -> None:
    """A DnncError, before anything is allocated, when the bytes of ``parts`` (arena,
    scratchpad, inputs, outputs) add up to more than the host's physical memory: the
    run-time counterpart of the verifiers' refusal of a tensor no CPU can address (numpy
    would otherwise fail in the middle of a run with its own MemoryError)."""
    total, available = sum(parts.values()), memory_bytes()
    if total > available:
        listed = ", ".join(f"{name} {_gib(size)}" for name, size in parts.items() if size)
        raise DnncError(
            f"{what} needs {_gib(total)} ({listed}), more than the {_gib(available)} of "
            "physical memory this machine has"
        )


def _gib(size: int) -> str:
    return f"{size / 2**30:.1f} GiB"


def aligned_bytes(size: int) -> np.ndarray:
    """A new uint8 buffer of ``size`` bytes starting on a 64-byte boundary."""
    raw = np.empty(size + ALIGNMENT, dtype=np.uint8)
    start = -raw.ctypes.data % ALIGNMENT
    return raw[start : start + size]


@dataclass(frozen=True)
class Storage:
    """Where a memory's bytes are: the arena at an offset, an argument, or a constant."""

    base: str  # "arena", "argument" or "constant"
    index: int  # argument index; 0 otherwise
    offset: int
    array: np.ndarray | None = None
    """The bytes of a constant (None for the arena and arguments: a context's, a run's)."""

    @property
    def place(self) -> tuple[str, int, int, int]:
        """Where the bytes start: (base, argument index, offset, constant)."""
        return self.base, self.index, self.offset, 0 if self.array is None else id(self.array)


@dataclass(frozen=True)
class Binding:
    """One exec argument of a primitive step: its id, descriptor and size; the steps of one
    step kind share theirs (where the bytes are is the step's own: its ``storages``)."""

    arg: int
    desc: MemoryDesc
    nbytes: int
    """The size of the memory the argument is over (its descriptor may view part of it)."""


@dataclass(frozen=True)
class PrimitiveStep:
    """A primitive step: the primitive and its arguments (the scratchpad included)."""

    primitive: Primitive
    bindings: tuple[Binding, ...]
    storages: tuple[Storage, ...]
    """Where the bytes of each binding are."""
    scratchpad_arg: int | None
    threads: int
    """The OpenMP count its primitive was created under: it runs under this many threads or
    the caller's count if fewer (dnnc.runtime.context), never more than it was created for.
    1 for a small step (dnnc.runtime.step_threads)."""


@dataclass(frozen=True)
class _StepKind:
    """What the primitive steps of equal calls share (``_PlanBuilder.kinds``)."""

    primitive: Primitive
    ids: dict[str, int]
    """Role -> exec argument (``PrimitiveHandler.exec_args``)."""
    descs: dict[str, MemoryDesc]
    """Role -> the descriptor its memory is bound in."""
    owner: PrimitiveHandler | None
    """The handler of an int8 primitive that packs its own weights (``_bound_storage``)."""
    threads: int
    """``PrimitiveStep.threads``."""
    plain_weights: bool = False
    """Whether it binds its constant weights in their logical (plain) layout, not their
    memory's: a matmul with run-time rows (``_PlanBuilder._runtime_rows_kind``)."""


class _KindKey:
    """A step kind's key (``_kind_key``) with its hash computed once: a step looks its kind
    up with it, and a tuple hashes every memory, layout and post-op again at each look-up."""

    __slots__ = ("_hash", "value")

    def __init__(self, value: tuple[object, ...]) -> None:
        self.value = value
        self._hash = hash(value)  # TypeError for a parameter that is no hashable value

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, _KindKey)
            and self._hash == other._hash
            and (self.value == other.value)
        )


def _kind_key(call: Call, params: object) -> _KindKey | None:
    """What a primitive step depends on besides where its bytes are: the kind, each
    operand's role and memory, whether it packs its own weights, and the parameters
    (``params``: ``_hashable(call.params)``); None when a parameter is no hashable value
    (the step is then built alone)."""
    try:
        return _KindKey(
            (
                call.kind,
                tuple((o.role, o.memory) for o in (*call.ins, *call.outs)),
                call.packs_own_weights(),
                params,
            )
        )
    except TypeError:
        return None


_Entry = TypeVar("_Entry")

ROWS_KINDS = 64
"""The most run-time-rows step kinds a PlanMemo keeps."""

MEMO_ENTRIES = 4096
"""The most entries a PlanMemo keeps of each other sort (then emptied): an instance makes
new parameters for a call with a size among them, which no later plan finds."""


class PlanMemo:
    """What the plans of one program template's instances (dnnc.runtime.template) share
    besides the primitive cache and the constants: the work a new signature's plan would
    do again for the template's objects that every instance shares (an instance keeps the
    calls' parameters and the constants' operands of its template: their sizes do not
    change). Each entry holds its object, so that an id names it as long as it is kept."""

    def __init__(self) -> None:
        self.params: dict[int, tuple[dict[str, object], object]] = {}
        """id(call.params) -> the parameters and ``_hashable`` of them."""
        self.constants: dict[int, tuple[Operand, Storage, dict[object, int]]] = {}
        """id(operand) of a constant -> the operand, its Storage, and the entries of
        ``Plan.constant_sizes`` it made."""
        self.rows: dict[
            tuple[object, ...], tuple[Primitive, dict[str, int], dict[str, MemoryDesc]] | None
        ] = {}
        """A matmul's step kind on a primitive that takes its rows when it runs
        (``_PlanBuilder._runtime_rows_kind``), by what it depends on besides its rows: its
        primitive, exec arguments and bound descriptors but src's and dst's (None: oneDNN
        has no such primitive but its reference one). At most ``ROWS_KINDS`` (then
        emptied: each holds a primitive the cache may have let go)."""
        self.plain: dict[int, tuple[Operand, Operand]] = {}
        """id(operand) -> the operand and its memory in the plain layout (``_in_plain``)."""
        self.reused = 0
        """Look-ups that found an entry (parameters, constants, run-time-rows kinds)."""

    def hashable_params(self, call: Call) -> object:
        """``_hashable(call.params)``, made once per parameters' dict."""
        found = self.params.get(id(call.params))
        if found is not None and found[0] is call.params:
            self.reused += 1
            return found[1]
        value = _hashable(call.params)
        _bounded(self.params)[id(call.params)] = (call.params, value)
        return value


def _bound_descs(
    ids: Mapping[str, int], descs: Mapping[str, MemoryDesc], exec_descs: Mapping[str, MemoryDesc]
) -> dict[str, MemoryDesc]:
    """Role -> the descriptor its memory is bound in: the one the primitive expects
    (``exec_descs``), or the operand's own (``desc_of``) when equal to it. The operand's is
    one object per memory for every step and plan (``desc_of``), so that a context makes one
    Memory for a place that several steps bind alike (a step's destination, the next one's
    source), not one per primitive that was asked."""
    bound = {}
    for role in ids:
        if role in descs:
            given, expected = descs[role], exec_descs.get(role)
            bound[role] = given if expected is None or expected == given else expected
    return bound


def _rows_at_run_time(call: Call) -> bool:
    """Whether a call may run on a primitive that takes its rows when it runs
    (``_PlanBuilder._runtime_rows_kind``): a matmul whose rows vary (``Call.variable_rows``)
    and are not one, of plain f32 src and dst, constant 2-D f32 weights, no post-op argument
    with rows (oneDNN 3.2 refuses run-time dimensions in a binary post-op's argument: a bias
    [1, N] fits, a residual [M, N] does not; a sum's argument is the destination)."""
    if not (call.variable_rows and call.kind == "matmul" and call.library == "onednn"):
        return False
    operands = {o.role: o for o in (*call.ins, *call.outs)}
    extra = {r for r in operands if not r.startswith("post_arg_")} - {"src", "weights", "dst"}
    if extra - {"bias"}:
        return False  # scales or zero points: an int8 matmul
    post_ops = call.params.get("post_ops", ())
    if isinstance(post_ops, list | tuple) and any(isinstance(p, SumPostOp) for p in post_ops):
        return False  # its argument is the destination, rows included
    src, weights, dst = operands["src"].memory, operands["weights"], operands["dst"].memory
    return (
        src.shape[-2] != 1  # a decoding step's one row: its primitive serves every step
        and weights.place.base == CONSTANT
        and len(weights.memory.shape) == 2
        and all(m.data_type == DataType.F32 for m in (src, weights.memory, dst))
        and src.layout.is_plain
        and dst.layout.is_plain
        and all(
            o.memory.shape[-2:-1] in ((), (1,))
            for role, o in operands.items()
            if role.startswith("post_arg_") or role == "bias"
        )
    )


def _any_rows(desc: MemoryDesc) -> MemoryDesc:
    """A plain descriptor of ``desc``'s dims with ``RUNTIME`` rows (next-to-last dim): the
    strides of the dims before them are ``RUNTIME`` too."""
    dims = (*desc.dims[:-2], RUNTIME, desc.dims[-1])
    strides = (*(RUNTIME,) * (len(dims) - 2), desc.dims[-1], 1)
    return MemoryDesc.of_strides(dims, desc.data_type, strides)


def _bounded(entries: dict[int, _Entry]) -> dict[int, _Entry]:
    """``entries``, emptied first if it holds ``MEMO_ENTRIES``."""
    if len(entries) >= MEMO_ENTRIES:
        entries.clear()
    return entries


def _rowless(memory: MemorySpec) -> tuple[object, ...]:
    """A memory but its rows (next-to-last dimension)."""
    return memory.shape[:-2], memory.shape[-1], memory.data_type, memory.layout


def _in_plain(operand: Operand) -> Operand:
    """The operand with its memory in the plain layout of its shape."""
    memory = operand.memory
    plain = MemorySpec(memory.shape, memory.data_type, Layout(tuple(range(len(memory.shape)))))
    return dataclasses.replace(operand, memory=plain)


def _hashable(value: object) -> object:
    """A parameter value with its lists as tuples and dicts as sorted items."""
    if isinstance(value, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return tuple(map(_hashable, value))
    return value


@dataclass(frozen=True)
class ReferenceStep:
    """An onednn.reference step: the numpy kernel, its operands and parameters."""

    kernel: Callable[..., object]
    ins: tuple[tuple[str, Storage, MemorySpec], ...]
    outs: tuple[tuple[Storage, MemorySpec], ...]
    params: dict[str, object]


@dataclass(frozen=True)
class AppendStep(ReferenceStep):
    """A ``kv_append`` call (dnn.kv_append): the copy of its reference kernel, which writes
    only ``new`` when a run binds the output over the past (``Plan.appends``)."""

    @property
    def axis(self) -> int:
        axis = self.params["axis"]
        assert isinstance(axis, int)  # the op's property, an integer
        return axis


Step = PrimitiveStep | ReferenceStep


@dataclass
class Plan:
    """What every run of one lowered function shares (module docstring)."""

    name: str
    inputs: tuple[TensorSpec, ...]
    outputs: tuple[TensorSpec, ...]
    planned_bytes: int
    """The arena size the lowering planned (``onednn.arena_bytes``)."""
    recall: Callable[[], tuple[Call, ...]] | None = None
    """Gives the Program's kernel calls (``calls``; None: the plan has none). A plan of a new
    input shape does not keep them: they would be ~600 more objects that the garbage
    collector walks at each full collection, for the few runs that profile or poison
    (dnnc.driver.dynamic makes them again from the template: ``build_plan``'s ``remake``)."""
    steps: list[Step] = field(default_factory=list)
    arena_roots: tuple[tuple[int, int], ...] = ()
    """The Program's (start, end) bytes of each arena root."""
    scratchpad_bytes: int = 0
    constant_sizes: dict[object, int] = field(default_factory=dict)
    """Bytes of each constant array the plan holds, by id (an array it binds) or source key
    (a loaded array, for a reordered constant): a shared one counts once."""
    runtime_rows_steps: int = 0
    """Steps whose primitive takes its rows when it runs (``build_plan``'s
    ``runtime_rows``), shared by every row count."""
    appends: dict[int, int] = field(default_factory=dict)
    """Output index -> input index of each cache a run may append to in place: an
    AppendStep writes that output directly from that input, which no other step reads, so
    a caller may bind the output over the input (dnnc.runtime.io_binding.aliased_inputs)."""

    @functools.cached_property
    def calls(self) -> tuple[Call, ...]:
        """The Program's kernel calls, one per step (made on first use: ``recall``)."""
        return () if self.recall is None else self.recall()

    @functools.cached_property
    def _lifetimes(self) -> dict[int, tuple[int, int]]:
        """Each arena root's first and last step."""
        lifetimes: dict[int, tuple[int, int]] = {}
        for index, call in enumerate(self.calls):
            for operand in (*call.ins, *call.outs):
                if operand.place.base == ARENA:
                    first, _ = lifetimes.get(operand.place.root, (index, index))
                    lifetimes[operand.place.root] = (first, index)
        return lifetimes

    @functools.cached_property
    def poison_ranges(self) -> list[list[tuple[int, int]]]:
        """Per step, the arena byte ranges poison_freed fills after it (made on first use,
        as ``step_infos``)."""
        ranges, lifetimes = self.arena_roots, self._lifetimes
        poison = []
        for index in range(len(self.calls)):
            live = [ranges[r] for r, (first, last) in lifetimes.items() if first <= index < last]
            freed = [ranges[r] for r, (_, last) in lifetimes.items() if last == index]
            poison.append(_subtract(freed, live))
        return poison

    @functools.cached_property
    def lower_bound_bytes(self) -> int:
        """No arena can hold the plan's buffers in fewer bytes (the memory report's)."""
        ranges = self.arena_roots
        return lower_bound(
            [
                Lifetime(root, ranges[root][1] - ranges[root][0], first, last)
                for root, (first, last) in self._lifetimes.items()
            ]
        )

    def reference_steps(self) -> frozenset[int]:
        """The indices of the steps whose primitive is oneDNN's reference implementation
        (``ref:*``, orders of magnitude slower than its kernels): asked once per primitive,
        which equal steps share."""
        reference: dict[int, bool] = {}
        for step in self.steps:
            if isinstance(step, PrimitiveStep) and id(step.primitive) not in reference:
                implementation = step.primitive.desc.impl_info
                reference[id(step.primitive)] = implementation.startswith("ref")
        return frozenset(
            index
            for index, step in enumerate(self.steps)
            if isinstance(step, PrimitiveStep) and reference[id(step.primitive)]
        )

    @functools.cached_property
    def step_infos(self) -> list[StepInfo]:
        """What each step runs, for profiles and reports: made on first use, so a plan built
        for a new input signature does not pay for queries no run needs."""
        return [
            _step_info(call, s if isinstance(s, PrimitiveStep) else None)
            for call, s in zip(self.calls, self.steps, strict=True)
        ]


def desc_of(memory: MemorySpec) -> MemoryDesc:
    """oneDNN's descriptor of a memory; rank 0 (a scalar) is a 1-element 1-D memory, as
    oneDNN has no rank 0. One per memory (descriptors are immutable): the plans of other
    input signatures share those whose sizes do not change, and their cache keys."""
    if not memory.shape:
        return _desc((1,), memory.data_type, None)
    # plain ints: a traced size compared in the cache's lookup would be recorded as a guard
    return _desc(tuple(map(int, memory.shape)), memory.data_type, memory.layout)


@functools.lru_cache(maxsize=4096)
def _desc(shape: tuple[int, ...], data_type: DataType, layout: Layout | None) -> MemoryDesc:
    return MemoryDesc.of_layout(shape, data_type, layout)


def build_plan(
    program: Program,
    *,
    engine: Engine,
    cache: PrimitiveCache,
    constants: PackedConstants,
    runtime_rows: bool = False,
    remake: Callable[[], Program] | None = None,
    memo: PlanMemo | None = None,
) -> Plan:
    """The plan of a lowered function (module docstring); errors name the op at fault.
    ``runtime_rows``: run each matmul whose rows vary (``Call.variable_rows``) on one
    primitive for every row count where oneDNN can (``_PlanBuilder._runtime_rows_kind``),
    unless the cache holds one of its own rows already. ``remake``: gives ``program`` again
    when a report needs its calls (``Plan.recall``; None: the plan keeps the calls, not the
    rest of ``program``, whose constants' loaders may hold the IR). ``memo``: what the
    plans of the instances of ``program``'s template share (``PlanMemo``)."""
    plan = _PlanBuilder(program, engine, cache, constants, runtime_rows, memo).build()
    calls = program.calls
    plan.recall = (lambda: calls) if remake is None else (lambda: remake().calls)
    return plan


class _PlanBuilder:
    """Builds one Program's Plan."""

    def __init__(
        self,
        program: Program,
        engine: Engine,
        cache: PrimitiveCache,
        constants: PackedConstants,
        runtime_rows: bool = False,
        memo: PlanMemo | None = None,
    ) -> None:
        self.program = program
        self.runtime_rows = runtime_rows
        self.engine = engine
        self.cache = cache
        self.constants = constants
        self.plan = Plan(
            program.name,
            program.inputs,
            program.outputs,
            program.arena_bytes,
            arena_roots=program.arena_roots,
        )
        self.kinds: dict[_KindKey, tuple[_StepKind, tuple[Binding, ...]]] = {}
        """The steps built so far by what they run (``_kind_key``): a call like one before
        (the same layer again, with its own bytes) reuses its primitive, descriptors and
        bindings."""
        self.storages: dict[tuple[str, int, int], Storage] = {}
        """One Storage per place, the steps that read or write it share (a constant's keyed
        by its array's id): fewer objects for the garbage collector to walk."""
        self.memo = memo

    def build(self) -> Plan:
        for call in self.program.calls:
            step = self._primitive_step(call) if call.library == "onednn" else None
            self.plan.steps.append(step or self._reference_step(call))
        self.plan.scratchpad_bytes = max(
            (_scratchpad_bytes(s) for s in self.plan.steps if isinstance(s, PrimitiveStep)),
            default=0,
        )
        self.plan.appends = self._appends()
        return self.plan

    def _appends(self) -> dict[int, int]:
        """``Plan.appends``: the AppendSteps from an input to an output (argument indices:
        the inputs, then the outputs) whose input no other step reads."""
        given = len(self.plan.inputs)
        readers: dict[int, int] = {}
        for step in self.plan.steps:
            if isinstance(step, PrimitiveStep):
                storages = list(step.storages)
            else:
                storages = [storage for _, storage, _ in step.ins]
            for storage in storages:
                if storage.base == ARGUMENT:
                    readers[storage.index] = readers.get(storage.index, 0) + 1
        appends = {}
        for step in self.plan.steps:
            if not isinstance(step, AppendStep):
                continue
            past = next(storage for role, storage, _ in step.ins if role == "past")
            out = step.outs[0][0]
            if (
                past.base == out.base == ARGUMENT
                and past.index < given <= out.index
                and out.offset == past.offset == 0
                and readers[past.index] == 1
            ):
                appends[out.index - given] = past.index
        return appends

    def _storage(self, call: Call, operand: Operand) -> Storage:
        place = operand.place
        memo = self.memo
        if memo is not None and place.base == CONSTANT:
            found = memo.constants.get(id(operand))
            if found is not None and found[0] is operand:
                memo.reused += 1
                self.plan.constant_sizes.update(found[2])
                return found[1]
            sizes = self.plan.constant_sizes
            made: dict[object, int] = {}
            self.plan.constant_sizes = made  # what this constant adds, recorded
            try:
                storage = self._placed(call, operand)
            finally:
                self.plan.constant_sizes = sizes
            sizes.update(made)
            _bounded(memo.constants)[id(operand)] = (operand, storage, made)
            return storage
        return self._placed(call, operand)

    def _placed(self, call: Call, operand: Operand) -> Storage:
        """``_storage`` without the memo."""
        place = operand.place
        array = None if place.base != CONSTANT else self._constant(call, operand)
        key = (place.base, place.index, place.offset) if array is None else (CONSTANT, id(array), 0)
        found = self.storages.get(key)
        if found is None:
            found = self.storages[key] = (
                Storage(place.base, place.index, place.offset)
                if array is None
                else Storage(CONSTANT, 0, 0, array)
            )
        return found

    def _constant(self, call: Call, operand: Operand) -> np.ndarray:
        """A constant's array as the operand's memory lays it out (reordered if not plain)."""
        source, memory = self.program.constants[operand.place.index], operand.memory

        def make() -> np.ndarray:
            if source.load is None:
                raise call.error(f"has no data for its constant {operand.role} in {memory}")
            data = np.ascontiguousarray(source.load())
            return data if memory.layout.is_plain else self._reordered(call, data, desc_of(memory))

        data = self.constants.get((*source.key, memory), make)
        sizes = self.plan.constant_sizes
        sizes[id(data)] = data.nbytes  # kept alive by the plan's storages: ids are stable
        if not memory.layout.is_plain and source.load is not None:
            sizes[source.key] = math.prod(memory.shape) * memory.data_type.itemsize
        return data

    def _packed_weights(
        self, call: Call, operand: Operand, packed: MemoryDesc, owner: PrimitiveHandler
    ) -> Storage:
        """int8 weights in the descriptor their primitive (``owner``) chose, given format
        ``any``: oneDNN keeps its compensation for s8 sources and zero points there, which
        no layout name expresses (plain s8 weights send a convolution to ``ref``). Neither
        MemoryDesc.key nor any oneDNN 3.2 query sees those compensation flags, so the packed
        array is keyed by the owner's key and its reorder is not cached."""
        if operand.place.base != CONSTANT:
            raise call.error(f"its int8 {operand.role} must be a constant (packed once)")
        source = self.program.constants[operand.place.index]

        def make() -> np.ndarray:
            if source.load is None:
                raise call.error(f"has no data for its constant {operand.role}")
            data = np.ascontiguousarray(source.load()).reshape(packed.dims)  # grouped: 5-D
            return self._reordered(call, data, packed, cached=False)

        data = self.constants.get((*source.key, owner.key()), make)
        self.plan.constant_sizes[id(data)] = data.nbytes
        return Storage(CONSTANT, 0, 0, data)

    def _reordered(
        self, call: Call, data: np.ndarray, packed: MemoryDesc, *, cached: bool = True
    ) -> np.ndarray:
        """The logical array ``data`` in the descriptor ``packed``, by one reorder primitive
        (from the primitive cache unless ``cached`` is false), into a ``packed_buffer`` of
        its own. Most of a first pack's time is the page faults of that new memory, not the
        reorder (BERT-base, 72 weights, 324 MB: ~25 ms of reorders). One buffer for all of
        a plan's packed weights in 2 MB pages (~1,700 faults against np.empty's ~40,000)
        measured worse than np.empty on a VM: a median first call of 0.50 against 0.32 s
        of CPU beyond the trace over 10 alternate runs, the runs 1% apart."""
        plain = MemoryDesc.of_layout(packed.dims, packed.data_type)
        handler = handler_for("reorder", {"src": plain, "dst": packed}, {})
        primitive = (
            self._acquire(call, handler) if cached else Primitive(handler.create(self.engine))
        )
        buffer = packed_buffer(packed.size_bytes)
        ids = handler.exec_args(primitive.desc)
        args = {
            ids["src"]: Memory(plain, data, engine=self.engine),
            ids["dst"]: Memory(packed, buffer, engine=self.engine),
        }
        if "scratchpad" in ids:  # a reorder that computes int8 compensation
            scratchpad = handler.exec_descs(primitive.desc)["scratchpad"]
            args[ids["scratchpad"]] = Memory(
                scratchpad, aligned_bytes(scratchpad.size_bytes), engine=self.engine
            )
        stream = Stream(self.engine)
        primitive.execute(stream, args)
        stream.wait()
        return buffer

    def _acquire(
        self, call: Call, handler: PrimitiveHandler, *, threads: int | None = None
    ) -> Primitive:
        """The handler's primitive from the cache, created under ``threads`` threads (the
        calling thread's count when None)."""
        try:
            with running_on(threads or thread_count()):
                return self.cache.acquire(handler, self.engine)
        except DnnlError as error:
            raise call.error(f"oneDNN cannot create this primitive: {error}") from error

    def _primitive_step(self, call: Call) -> PrimitiveStep:
        operands = (*call.ins, *call.outs)
        memo = self.memo
        params = _hashable(call.params) if memo is None else memo.hashable_params(call)
        key = _kind_key(call, params)
        found = self.kinds.get(key) if key is not None else None
        if found is None:
            kind = self._step_kind(call, params)
        else:
            kind, bindings = found
        if kind.plain_weights:
            operands = tuple(self._in_plain(o) if o.role == "weights" else o for o in operands)
            self.plan.runtime_rows_steps += 1
        # a sum post-op's argument is the destination itself: not bound
        bound = [o for o in operands if o.role in kind.ids]
        if found is None:
            bindings = tuple(self._binding(o, kind) for o in bound)
            if key is not None:
                self.kinds[key] = (kind, bindings)
        storages = tuple(self._bound_storage(call, o, kind) for o in bound)
        return PrimitiveStep(
            kind.primitive, bindings, storages, kind.ids.get("scratchpad"), kind.threads
        )

    def _in_plain(self, operand: Operand) -> Operand:
        """``_in_plain(operand)``, one object per operand of the memo's template (so that
        the memo finds its storage again)."""
        memo = self.memo
        if memo is None:
            return _in_plain(operand)
        found = memo.plain.get(id(operand))
        if found is not None and found[0] is operand:
            return found[1]
        made = _in_plain(operand)
        _bounded(memo.plain)[id(operand)] = (operand, made)
        return made

    def _step_kind(self, call: Call, params: object) -> _StepKind:
        """The primitive of a call and the descriptor of each role it binds (``params``:
        its parameters made hashable)."""
        operands = (*call.ins, *call.outs)
        descs = {o.role: desc_of(o.memory) for o in operands}
        owns_weights = call.packs_own_weights()
        if owns_weights:
            descs["weights"] = MemoryDesc.any(descs["weights"].dims, descs["weights"].data_type)
        threads = 1 if runs_alone(call) else thread_count()
        try:
            handler = handler_for(call.kind, descs, call.params)
            if self.runtime_rows and _rows_at_run_time(call) and not self._held(handler, threads):
                kind = self._runtime_rows_kind(call, descs, threads, params)
                if kind is not None:
                    return kind
            primitive = self._acquire(call, handler, threads=threads)
            pd = primitive.desc  # the cached primitive's: a hit creates no descriptor
            ids, exec_descs = handler.exec_args(pd), handler.exec_descs(pd)
        except (ValueError, DnnlError) as error:
            raise call.error(f"({call.kind}) {error}") from error
        bound = _bound_descs(ids, descs, exec_descs)
        return _StepKind(primitive, ids, bound, handler if owns_weights else None, threads)

    def _held(self, handler: PrimitiveHandler, threads: int) -> bool:
        """Whether the cache holds the handler's primitive for ``threads`` threads (then
        acquiring it creates nothing)."""
        with running_on(threads):
            return self.cache.holds(handler, self.engine)

    def _runtime_rows_kind(
        self, call: Call, descs: dict[str, MemoryDesc], threads: int, params: object
    ) -> _StepKind | None:
        """A matmul [M, K] x [K, N] on the one primitive of every M (oneDNN's
        DNNL_RUNTIME_DIM_VAL rows; its weights plain, as that primitive takes them), so that
        a new M creates none; None when oneDNN would run it on its reference implementation.
        Each memory is bound in its own descriptor, which the primitive admits
        (``MemoryDesc.admits``). What does not depend on M comes from the memo, when the
        plan has one (``PlanMemo.rows``)."""
        src, dst = descs["src"], descs["dst"]
        memo = self.memo
        if memo is None:
            return self._general_kind(call, descs, threads)
        operands = (*call.ins, *call.outs)
        key = (
            call.kind,
            params,
            threads,
            self.engine,
            tuple(
                (o.role, _rowless(o.memory) if o.role in ("src", "dst") else o.memory)
                for o in operands
            ),
        )
        if key in memo.rows:
            memo.reused += 1
            found = memo.rows[key]
            if found is None:
                return None
            primitive, ids, bound = found
            return _StepKind(
                primitive, ids, {**bound, "src": src, "dst": dst}, None, threads, plain_weights=True
            )
        kind = self._general_kind(call, descs, threads)
        if len(memo.rows) >= ROWS_KINDS:
            memo.rows.clear()
        memo.rows[key] = None if kind is None else (kind.primitive, kind.ids, kind.descs)
        return kind

    def _general_kind(
        self, call: Call, descs: dict[str, MemoryDesc], threads: int
    ) -> _StepKind | None:
        """``_runtime_rows_kind`` made anew."""
        src, dst = descs["src"], descs["dst"]
        general = {
            **descs,
            "src": _any_rows(src),
            "weights": desc_of(_in_plain(next(o for o in call.ins if o.role == "weights")).memory),
            "dst": _any_rows(dst),
        }
        try:
            handler = handler_for(call.kind, general, call.params)
            primitive = self._acquire(call, handler, threads=threads)
            pd = primitive.desc
            ids, exec_descs = handler.exec_args(pd), handler.exec_descs(pd)
        except (ValueError, DnnlError) as error:
            raise call.error(f"({call.kind}) {error}") from error
        weights = exec_descs.get("weights")
        layout = None if weights is None else weights.layout()
        if pd.impl_info.startswith("ref") or layout is None or not layout.is_plain:
            return None  # the reference kernel, or weights in no layout bound here
        bound = _bound_descs(ids, descs, exec_descs)
        bound.update(src=src, dst=dst)
        return _StepKind(primitive, ids, bound, None, threads, plain_weights=True)

    @staticmethod
    def _binding(operand: Operand, kind: _StepKind) -> Binding:
        """The binding of an operand of a step of ``kind`` (the packed weights of an int8
        primitive that packs its own: ``kind.owner``, the size of their descriptor)."""
        desc = kind.descs[operand.role]
        packed = kind.owner is not None and operand.role == "weights"
        return Binding(
            kind.ids[operand.role], desc, desc.size_bytes if packed else operand.memory.nbytes
        )

    def _bound_storage(self, call: Call, operand: Operand, kind: _StepKind) -> Storage:
        """Where the bytes of a bound operand are (``_binding``)."""
        if kind.owner is not None and operand.role == "weights":
            return self._packed_weights(call, operand, kind.descs["weights"], kind.owner)
        return self._storage(call, operand)

    def _reference_step(self, call: Call) -> ReferenceStep:
        from dnnc import reference  # only a plan with reference steps needs their numpy code

        kernel = getattr(reference, call.kind, None)
        if kernel is None or call.kind not in reference.__all__:
            raise call.error(f"names no reference kernel '{call.kind}'")
        for operand in (*call.ins, *call.outs):
            if not operand.memory.layout.is_plain:
                raise call.error(
                    f"reads or writes layout {operand.memory.layout.name}: reference "
                    "kernels take plain layouts"
                )
        ins = tuple((o.role, self._storage(call, o), o.memory) for o in call.ins)
        outs = tuple((self._storage(call, o), o.memory) for o in call.outs)
        step = AppendStep if call.kind == "kv_append" else ReferenceStep
        return step(kernel, ins, outs, dict(call.params))


def _scratchpad_bytes(step: PrimitiveStep) -> int:
    desc = step.primitive.desc.scratchpad_desc()
    return 0 if desc is None or step.scratchpad_arg is None else desc.size_bytes


def _step_info(call: Call, step: PrimitiveStep | None) -> StepInfo:
    operands = (*call.ins, *call.outs)
    return StepInfo(
        library=call.library,
        kind=call.kind,
        location=call.where,
        operands=tuple(f"{o.role}={o.memory}" for o in operands),
        implementation="numpy" if step is None else step.primitive.desc.impl_info,
        bytes=sum(o.memory.nbytes for o in operands),
        threads=None if step is None else step.threads,
    )


def _subtract(ranges: list[tuple[int, int]], holes: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The parts of ``ranges`` outside every hole."""
    pieces = list(ranges)
    for lo_hole, hi_hole in holes:
        cut = []
        for lo, hi in pieces:
            if lo < lo_hole:
                cut.append((lo, min(hi, lo_hole)))
            if hi > hi_hole:
                cut.append((max(lo, hi_hole), hi))
        pieces = [(lo, hi) for lo, hi in cut if lo < hi]
    return pieces
