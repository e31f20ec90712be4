"""The plan of a lowered function: what every run of it shares, built once and read-only.

`build_plan` reads a lowered (``onednn`` dialect) function once:
* every ``onednn.constant`` loaded once (dnnc.ir.weights) and, when its memory is not plain,
  reordered once into that layout by the reorder primitive (dnnc.runtime.constants keeps it);
* each step's primitive from the primitive cache (or its numpy reference kernel) with, per
  argument, its descriptor and where its bytes are (`Storage`: an offset of the arena, an
  argument, a constant);
* what the reports need: each step's `StepInfo`, the scratchpad size, the arena's lower
  bound, and the arena ranges `poison_freed` fills after each step;
* the steps whose oneDNN kernel drops NaN or infinities (dnnc.target.special_values), for
  the executor's refusal of such inputs.

The plan keeps no IR: storages are detached from their SSA values once the function is read.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import BlockArgument, Operation, SSAValue

from dnnc import reference
from dnnc.core.arena import ALIGNMENT, Lifetime, lower_bound
from dnnc.core.diagnostics import DnncError, error_at, location_of
from dnnc.dnnl.objects import DnnlError, Engine, Memory, MemoryDesc, Primitive, Stream
from dnnc.dnnl.primitives import handler_for
from dnnc.ir.dnn import ConstantOp, WeightOp
from dnnc.ir.onednn import (
    ARENA_BYTES,
    INPUT_NAMES,
    OUTPUT_NAMES,
    ArenaViewOp,
    KernelCallOp,
    MemoryType,
    PrimitiveOp,
    ReferenceOp,
    ReshapeOp,
    SubviewOp,
)
from dnnc.ir.onednn import ConstantOp as MemoryConstantOp
from dnnc.ir.values import attribute_value
from dnnc.ir.weights import source_value
from dnnc.runtime.cache import PrimitiveCache
from dnnc.runtime.constants import PackedConstants, constant_key
from dnnc.runtime.io_binding import TensorSpec, argument_names
from dnnc.runtime.report import StepInfo
from dnnc.target.special_values import primitive_masks


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
    root: SSAValue | None
    """The memory that owns the bytes (a reshape shares its source's root); None once in
    the plan (``detached``), which keeps no IR."""
    array: np.ndarray | None = None
    """The bytes of a constant (None for the arena and arguments: a context's, a run's)."""

    def detached(self) -> Storage:
        """The same place without its IR value (what the plan keeps)."""
        return Storage(self.base, self.index, self.offset, None, self.array)

    @property
    def place(self) -> tuple[str, int, int, int]:
        """Where the bytes start, without the IR: (base, argument index, offset, constant)."""
        return self.base, self.index, self.offset, 0 if self.array is None else id(self.array)


@dataclass(frozen=True)
class Binding:
    """One exec argument of a primitive step: its id, descriptor and bytes."""

    arg: int
    desc: MemoryDesc
    storage: Storage
    nbytes: int
    """The size of the memory the argument is over (its descriptor may view part of it)."""


@dataclass(frozen=True)
class PrimitiveStep:
    """A primitive step: the primitive and its arguments (the scratchpad included)."""

    primitive: Primitive
    bindings: tuple[Binding, ...]
    scratchpad_arg: int | None


@dataclass(frozen=True)
class ReferenceStep:
    """An onednn.reference step: the numpy kernel, its operands and parameters."""

    kernel: Callable[..., object]
    ins: tuple[tuple[str, Storage, MemoryType], ...]
    outs: tuple[tuple[Storage, MemoryType], ...]
    params: dict[str, object]


Step = PrimitiveStep | ReferenceStep


@dataclass
class Plan:
    """What every run of one lowered function shares (module docstring)."""

    name: str
    inputs: tuple[TensorSpec, ...]
    outputs: tuple[TensorSpec, ...]
    planned_bytes: int
    """The arena size the lowering planned (``onednn.arena_bytes``)."""
    steps: list[Step] = field(default_factory=list)
    step_infos: list[StepInfo] = field(default_factory=list)
    scratchpad_bytes: int = 0
    lower_bound_bytes: int = 0
    poison_ranges: list[list[tuple[int, int]]] = field(default_factory=list)
    """Per step, the arena byte ranges poison_freed fills after it."""
    constant_sizes: dict[object, int] = field(default_factory=dict)
    """Bytes of each constant array the plan holds, by id (an array it binds) or source key
    (a loaded array, for a reordered constant): a shared one counts once."""
    special_value_masks: list[str] = field(default_factory=list)
    """``<kind> at <location>: <how>`` of each step whose oneDNN kernel drops NaN or
    infinities (dnnc.target.special_values.primitive_masks)."""


def memory_type(value: SSAValue) -> MemoryType:
    """The !onednn.memory type of a value of a lowered function."""
    if not isinstance(value.type, MemoryType):
        raise DnncError(f"value of type {value.type} is not an !onednn.memory")
    return value.type


def desc_of(memory: MemoryType) -> MemoryDesc:
    """oneDNN's descriptor of a memory; rank 0 (a scalar) is a 1-element 1-D memory, as
    oneDNN has no rank 0."""
    if not memory.get_shape():
        return MemoryDesc.of_layout((1,), memory.data_type)
    return MemoryDesc.of_layout(memory.get_shape(), memory.data_type, memory.layout)


def build_plan(
    function: func.FuncOp,
    *,
    engine: Engine,
    cache: PrimitiveCache,
    constants: PackedConstants,
    weights_dir: str | None,
) -> Plan:
    """The plan of a lowered function (module docstring); errors name the op at fault."""
    return _PlanBuilder(engine, cache, constants, weights_dir).build(function)


class _PlanBuilder:
    """Reads one function into a Plan; `_storage` maps its values to bytes while it reads."""

    def __init__(
        self,
        engine: Engine,
        cache: PrimitiveCache,
        constants: PackedConstants,
        weights_dir: str | None,
    ) -> None:
        self.engine = engine
        self.cache = cache
        self.constants = constants
        self.weights_dir = weights_dir
        self._storage: dict[SSAValue, Storage] = {}

    def build(self, function: func.FuncOp) -> Plan:
        name = function.sym_name.data
        arena_bytes = function.attributes.get(ARENA_BYTES)
        if not isinstance(arena_bytes, IntegerAttr):
            raise error_at(function, f"has no {ARENA_BYTES}: run the lowering first")
        args = function.body.block.args
        input_names = argument_names(function, INPUT_NAMES)
        output_names = argument_names(function, OUTPUT_NAMES)
        if len(input_names) + len(output_names) != len(args):
            raise error_at(function, f"{INPUT_NAMES} and {OUTPUT_NAMES} do not name every argument")
        self.plan = Plan(
            name,
            tuple(_spec(name, n, a) for n, a in zip(input_names, args, strict=False)),
            tuple(
                _spec(name, n, a)
                for n, a in zip(output_names, args[len(input_names) :], strict=True)
            ),
            arena_bytes.value.data,
        )
        self._storage = {a: Storage("argument", a.index, 0, a) for a in args}
        ops = self._read(function)
        self.plan.scratchpad_bytes = max(
            (_scratchpad_bytes(s) for s in self.plan.steps if isinstance(s, PrimitiveStep)),
            default=0,
        )
        self.plan.step_infos = [
            _step_info(op, s.primitive if isinstance(s, PrimitiveStep) else None)
            for op, s in zip(ops, self.plan.steps, strict=True)
        ]
        self._plan_poison(ops)
        self._storage = {}  # the plan holds what runs need; no IR is kept
        return self.plan

    def _read(self, function: func.FuncOp) -> list[KernelCallOp]:
        """Every op in order: storages defined, steps planned; the kernel calls, in order."""
        ops: list[KernelCallOp] = []
        for op in function.body.block.ops:
            if isinstance(op, ArenaViewOp):
                self._define_view(op)
            elif isinstance(op, ReshapeOp):
                self._storage[op.result] = self._storage[op.source]
            elif isinstance(op, SubviewOp):
                source = self._storage[op.source]
                if source.base != "arena":
                    raise error_at(op, "views part of an argument or constant: only arena bytes")
                self._storage[op.result] = Storage(
                    source.base,
                    source.index,
                    source.offset + op.offset.data,
                    source.root,
                )
            elif isinstance(op, MemoryConstantOp):
                self._define_constant(op)
            elif isinstance(op, PrimitiveOp):
                self.plan.steps.append(self._primitive_step(op))
                ops.append(op)
            elif isinstance(op, ReferenceOp):
                self.plan.steps.append(self._reference_step(op))
                ops.append(op)
            elif not isinstance(op, ConstantOp | WeightOp | func.ReturnOp):
                raise error_at(op, "cannot be executed: not an op of a lowered function")
        return ops

    def _define_view(self, op: ArenaViewOp) -> None:
        offset, memory = op.offset.data, memory_type(op.result)
        if offset < 0 or offset + memory.nbytes > self.plan.planned_bytes:
            raise error_at(op, f"does not fit the arena of {self.plan.planned_bytes} bytes")
        self._storage[op.result] = Storage("arena", 0, offset, op.result)

    def _define_constant(self, op: MemoryConstantOp) -> None:
        source = op.tensor.owner
        if not isinstance(source, ConstantOp | WeightOp):
            raise error_at(op, "must wrap a dnn.constant or dnn.weight of the same function")
        memory = memory_type(op.result)
        key = constant_key(source, self.weights_dir)
        data = self.constants.get((*key, memory), lambda: self._constant_data(op, source, memory))
        sizes = self.plan.constant_sizes
        sizes[id(data)] = data.nbytes  # kept alive by the plan's storages: ids are stable
        if not memory.layout.is_plain:  # the loaded array stays cached by weights.py
            sizes[key] = math.prod(memory.get_shape()) * memory.data_type.itemsize
        self._storage[op.result] = Storage("constant", 0, 0, op.result, data)

    def _constant_data(
        self, op: MemoryConstantOp, source: ConstantOp | WeightOp, memory: MemoryType
    ) -> np.ndarray:
        """A source's array as ``memory`` lays it out (reordered if not plain)."""
        data = np.ascontiguousarray(source_value(source, self.weights_dir))
        return data if memory.layout.is_plain else self._reordered(op, data, memory)

    def _reordered(self, op: Operation, data: np.ndarray, memory: MemoryType) -> np.ndarray:
        """The logical array ``data`` in ``memory``'s layout, by one reorder primitive."""
        plain = MemoryDesc.of_layout(memory.get_shape(), memory.data_type)
        packed = desc_of(memory)
        handler = handler_for("reorder", {"src": plain, "dst": packed}, {})
        primitive = self._acquire(op, handler)
        buffer = aligned_bytes(packed.size_bytes)
        ids = handler.exec_args(primitive.desc)
        stream = Stream(self.engine)
        primitive.execute(
            stream,
            {
                ids["src"]: Memory(plain, data, engine=self.engine),
                ids["dst"]: Memory(packed, buffer, engine=self.engine),
            },
        )
        stream.wait()
        return buffer

    def _acquire(self, op: Operation, handler: object) -> Primitive:
        try:
            return self.cache.acquire(handler, self.engine)  # type: ignore[arg-type]
        except DnnlError as error:
            raise error_at(op, f"oneDNN cannot create this primitive: {error}") from error

    def _primitive_step(self, op: PrimitiveOp) -> PrimitiveStep:
        roles = (*op.inputs_by_role().items(), *op.outputs_by_role().items())
        descs = {role: desc_of(memory_type(value)) for role, value in roles}
        params = {name: attribute_value(attr) for name, attr in op.params.data.items()}
        try:
            handler = handler_for(op.kind.data, descs, params)
            primitive = self._acquire(op, handler)
            pd = primitive.desc  # the cached primitive's: a hit creates no descriptor
            ids, exec_descs = handler.exec_args(pd), handler.exec_descs(pd)
        except (ValueError, DnnlError) as error:
            raise error_at(op, f"({op.kind.data}) {error}") from error
        masks = primitive_masks(op.kind.data, handler.params)
        if masks is not None:
            self.plan.special_value_masks.append(f"{op.kind.data} at {location_of(op)}: {masks}")
        bindings = tuple(
            Binding(
                ids[role],
                exec_descs.get(role) or descs[role],
                self._storage[value].detached(),
                memory_type(value).nbytes,
            )
            for role, value in roles
            if role in ids  # a sum post-op's argument is the destination itself
        )
        return PrimitiveStep(primitive, bindings, ids.get("scratchpad"))

    def _reference_step(self, op: ReferenceOp) -> ReferenceStep:
        kernel = getattr(reference, op.kind.data, None)
        if kernel is None or op.kind.data not in reference.__all__:
            raise error_at(op, f"names no reference kernel '{op.kind.data}'")
        ins = [
            (role, self._storage[v].detached(), memory_type(v))
            for role, v in op.inputs_by_role().items()
        ]
        outs = [(self._storage[v].detached(), memory_type(v)) for v in op.outs]
        for memory in [m for _, _, m in ins] + [m for _, m in outs]:
            if not memory.layout.is_plain:
                raise error_at(
                    op,
                    f"reads or writes layout {memory.layout.name}: reference "
                    "kernels take plain layouts",
                )
        params = {name: attribute_value(attr) for name, attr in op.params.data.items()}
        return ReferenceStep(kernel, tuple(ins), tuple(outs), params)

    def _plan_poison(self, ops: list[KernelCallOp]) -> None:
        """Lifetimes of the arena roots, what poison_freed fills after each step, and the
        lower bound of the memory report."""
        first: dict[SSAValue, int] = {}
        last: dict[SSAValue, int] = {}
        for index, op in enumerate(ops):
            for value in (*op.ins, *op.outs):
                storage = self._storage[value]
                if storage.base == "arena" and storage.root is not None:
                    first.setdefault(storage.root, index)
                    last[storage.root] = index
        ranges = {
            root: (
                self._storage[root].offset,
                self._storage[root].offset + memory_type(root).nbytes,
            )
            for root in first
        }
        for index in range(len(ops)):
            live = [ranges[r] for r in first if first[r] <= index < last[r]]
            freed = [ranges[r] for r in first if last[r] == index]
            self.plan.poison_ranges.append(_subtract(freed, live))
        self.plan.lower_bound_bytes = lower_bound(
            [
                Lifetime(root, ranges[root][1] - ranges[root][0], first[root], last[root])
                for root in first
            ]
        )


def _scratchpad_bytes(step: PrimitiveStep) -> int:
    desc = step.primitive.desc.scratchpad_desc()
    return 0 if desc is None or step.scratchpad_arg is None else desc.size_bytes


def _spec(function: str, name: str, arg: BlockArgument) -> TensorSpec:
    memory = memory_type(arg)
    if not memory.layout.is_plain:
        raise DnncError(
            f"@{function}: argument '{name}' has layout {memory.layout.name}; the caller's "
            "arrays are plain, so the function must take and return plain layouts"
        )
    return TensorSpec(name, memory.get_shape(), memory.data_type.numpy)


def _operand_text(role: str, memory: MemoryType) -> str:
    dims = "x".join(map(str, memory.get_shape()))
    layout = "" if memory.layout.is_plain else f",{memory.layout.name}"
    return f"{role}={dims}x{memory.element_type}{layout}"


def _step_info(op: KernelCallOp, primitive: Primitive | None) -> StepInfo:
    roles = [*op.inputs_by_role().items(), *op.outputs_by_role().items()]
    return StepInfo(
        library="reference" if isinstance(op, ReferenceOp) else "onednn",
        kind=op.kind.data,
        location=location_of(op),
        operands=tuple(_operand_text(role, memory_type(v)) for role, v in roles),
        implementation="numpy" if primitive is None else primitive.desc.impl_info,
        bytes=sum(memory_type(v).nbytes for _, v in roles),
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
