"""The executor: a lowered (``onednn`` dialect) function made runnable, built once.

Building an ``Executable`` reads the function once into what every run shares, read-only:
* every ``onednn.constant`` loaded once (dnnc.ir.weights) and, when its memory is not
  plain, reordered once into that layout by the reorder primitive;
* primitives from the primitive cache, and the plan: each step's primitive (or numpy
  reference kernel) with, per argument, its descriptor and where its bytes are (an offset
  of the arena, an argument, a constant, the scratchpad).

What one run writes is an execution context's (``_Context``): a uint8 arena of
``onednn.arena_bytes`` (64-byte aligned) in which every ``onednn.arena_view`` and
``onednn.reshape`` is a ``Memory`` at its offset, a scratchpad as large as the largest need
of any primitive, a stream, and the steps with their memories bound (``BoundExecution``;
``onednn.reference`` calls run the numpy kernel on views of the context's arena after
waiting for the stream). ``run`` takes an idle context from the executable's pool (a new
one when every context is busy: the pool holds as many as ever ran at once), so any number
of threads may call ``run`` on one Executable and each gets its own bytes. The first context
is made at build time, so a single caller never allocates one in ``run``.

``run`` validates the inputs against the signature, binds the caller's arrays zero copy
(``Memory.set_data_handle``; an array that is not C-contiguous is copied to one that is, the
only copy ``run`` makes of an input), allocates and binds the output arrays, calls the
steps in order on the context's stream, waits, and returns the outputs. Inputs are never written (the
lowering guarantees it and onednn-verify-buffers checks it). Options: ``poison_freed``
fills the bytes of every arena value with 0xFF (NaN in every float type) once its last use
is over, so that a wrong reuse shows; ``profile`` times each step.

Sharing (dnnc.driver.dynamic builds one Executable per input shape): ``arena`` runs the
first context in a caller's buffer (at least ``onednn.arena_bytes``) instead of a new one
(the caller then runs one call at a time, as DynamicExecutable does), and
``constants`` is a ``PackedConstants`` store several Executables take their constants from,
so each source array is loaded once and packed once per memory descriptor.
"""

from __future__ import annotations

import hashlib
import inspect
import math
import statistics
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, StringAttr
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue

from dnnc.core.diagnostics import DnncError, InputError, error_at, location_of
from dnnc.ir.dnn import ConstantOp, WeightOp
from dnnc.ir.onednn import (
    ARENA_BYTES,
    ArenaViewOp,
    KernelCallOp,
    MemoryType,
    PrimitiveOp,
    ReferenceOp,
    ReshapeOp,
    SubviewOp,
)
from dnnc.ir.onednn import ConstantOp as MemoryConstantOp
from dnnc.core.arena import Lifetime, lower_bound
from dnnc import reference
from dnnc.runtime.cache import PrimitiveCache, default_cache
from dnnc.dnnl.objects import (
    DnnlError,
    Engine,
    Memory,
    MemoryDesc,
    Primitive,
    Stream,
)
from dnnc.ir.values import attribute_value
from dnnc.dnnl.primitives import handler_for
from dnnc.ir.weights import source_value, weight_path

ALIGNMENT = 64
POISON = 0xFF
"""The byte poison_freed writes: all-ones is a NaN in f32, bf16 and f16 (and -1 in ints)."""


def aligned_bytes(size: int) -> np.ndarray:
    """A new uint8 buffer of ``size`` bytes starting on a 64-byte boundary."""
    raw = np.empty(size + ALIGNMENT, dtype=np.uint8)
    start = -raw.ctypes.data % ALIGNMENT
    return raw[start : start + size]


@dataclass(frozen=True)
class TensorSpec:
    """One input or output of an Executable (a DynamicExecutable's ``?`` dims are -1)."""

    name: str
    shape: tuple[int, ...]
    dtype: np.dtype

    def __str__(self) -> str:
        dims = ", ".join("?" if d < 0 else str(d) for d in self.shape)
        return f"{self.name}: {self.dtype}[{dims}]"


@dataclass(frozen=True)
class StepInfo:
    """What a step runs: library (onednn / reference), kind, IR location, each role's
    memory as ``role=1x16x8x8xf32[,layout]``, the implementation: oneDNN's
    ``impl_info`` (``brg:avx512_core``, ``ref:any``), or ``numpy`` for a reference kernel,
    and the bytes of all the memories it reads and writes."""

    library: str
    kind: str
    location: str
    operands: tuple[str, ...]
    implementation: str
    bytes: int


@dataclass(frozen=True)
class StepTime:
    """A step and its median time over the profiled runs, in seconds."""

    step: StepInfo
    seconds: float


@dataclass(frozen=True)
class MemoryReport:
    """Bytes an Executable uses besides the caller's arrays."""

    planned_bytes: int
    """The plan's arena size (``onednn.arena_bytes``)."""
    lower_bound_bytes: int
    """The most bytes of arena values live at one step (no plan can do with less)."""
    arena_bytes: int
    """The arena actually allocated."""
    scratchpad_bytes: int
    constant_bytes: int
    """Constants: loaded arrays plus the buffers of reordered ones."""


@dataclass(frozen=True)
class _Storage:
    """Where a memory's bytes are: the arena at an offset, an argument, or a constant."""

    base: str  # "arena", "argument" or "constant"
    index: int  # argument index; 0 otherwise
    offset: int
    root: SSAValue | None
    """The memory that owns the bytes (a reshape shares its source's root); None once in
    the plan (``detached``), which keeps no IR."""
    array: np.ndarray | None = None
    """The bytes of a constant (None for the arena and arguments: a context's, a run's)."""

    def detached(self) -> _Storage:
        """The same place without its IR value (what the plan keeps)."""
        return _Storage(self.base, self.index, self.offset, None, self.array)

    @property
    def place(self) -> tuple[str, int, int, int]:
        """Where the bytes start, without the IR: (base, argument index, offset, constant)."""
        return self.base, self.index, self.offset, 0 if self.array is None else id(self.array)


@dataclass(frozen=True)
class _Binding:
    """One exec argument of a primitive step: its id, descriptor and bytes."""

    arg: int
    desc: MemoryDesc
    storage: _Storage
    nbytes: int
    """The size of the memory the argument is over (its descriptor may view part of it)."""


@dataclass(frozen=True)
class _PrimitivePlan:
    """A primitive step: the primitive and its arguments (the scratchpad included)."""

    primitive: Primitive
    bindings: tuple[_Binding, ...]
    scratchpad_arg: int | None


@dataclass(frozen=True)
class _ReferencePlan:
    """An onednn.reference step: the numpy kernel, its operands and parameters."""

    kernel: Callable[..., object]
    ins: tuple[tuple[str, _Storage, MemoryType], ...]
    outs: tuple[tuple[_Storage, MemoryType], ...]
    params: dict[str, object]


class PackedConstants:
    """Constants as primitives read them, shared by the Executables built with it.

    Keyed by the source (a dnn.weight's resolved file and key, or a dnn.constant's value)
    and the memory descriptor: a source is packed again only for a descriptor not seen
    before (a primitive that prefers another layout). ``packs`` counts the arrays made.
    """

    def __init__(self) -> None:
        self._arrays: dict[tuple[object, ...], np.ndarray] = {}
        self.packs = 0

    @property
    def entries(self) -> int:
        return len(self._arrays)

    @property
    def bytes(self) -> int:
        return sum(a.nbytes for a in self._arrays.values())

    def preload(self, source: tuple[object, ...], memory: MemoryType, array: np.ndarray) -> None:
        """Store ``array`` as the data of ``source`` (Executable.constant_key) in ``memory``:
        a saved model's constants, packed already (dnnc.driver.saved)."""
        self._arrays[(*source, memory)] = array

    def get(self, key: tuple[object, ...], make: Callable[[], np.ndarray]) -> np.ndarray:
        """The array stored under ``key``, made (and stored) by ``make`` the first time."""
        if key not in self._arrays:
            self._arrays[key] = make()
            self.packs += 1
        return self._arrays[key]


def _missing(name: str, source: Operation) -> np.ndarray:
    raise DnncError(f"@{name} binds no constant of {source.name} in that memory")


_DIGEST_BYTES = 4096
"""dnn.constant values larger than this are keyed by a digest of their bytes, not by the IR
attribute, which would keep the IR's copy of every packed weight alive."""


def _constant_key(source: ConstantOp) -> tuple[object, ...]:
    """What identifies a dnn.constant's value in PackedConstants: its type and its bytes (a
    SHA-256 digest of them when large: 0.06 s per 100 MB, once per compile)."""
    data = source.value.data.data
    if len(data) <= _DIGEST_BYTES:
        return ("constant", source.value)
    return ("constant", source.value.type, hashlib.sha256(data).digest())


_Slot = np.ndarray | tuple[_Storage, MemoryType]
"""A reference kernel's operand: a fixed array, or an argument's storage (bound per run)."""


def _memory_type(value: SSAValue) -> MemoryType:
    if not isinstance(value.type, MemoryType):
        raise DnncError(f"value of type {value.type} is not an !onednn.memory")
    return value.type


def _describe(role: str, memory: MemoryType) -> str:
    dims = "x".join(map(str, memory.get_shape()))
    layout = "" if memory.layout.is_plain else f",{memory.layout.name}"
    return f"{role}={dims}x{memory.element_type}{layout}"


def _desc_of(memory: MemoryType) -> MemoryDesc:
    """oneDNN's descriptor of a memory; rank 0 (a scalar) is a 1-element 1-D memory, as
    oneDNN has no rank 0."""
    if not memory.get_shape():
        return MemoryDesc.of_layout((1,), memory.data_type)
    return MemoryDesc.of_layout(memory.get_shape(), memory.data_type, memory.layout)


def _names(function: func.FuncOp, attribute: str) -> list[str]:
    names = function.attributes.get(attribute)
    if not isinstance(names, ArrayAttr):
        raise error_at(function, f"has no {attribute}: run the lowering (dnn-to-onednn) first")
    return [n.data for n in names.data if isinstance(n, StringAttr)]


def ordered_inputs(
    inputs: Mapping[str, object] | Sequence[object],
    names: Sequence[str],
    signature: Callable[[], str],
) -> list[np.ndarray]:
    """The inputs (by name or in order) as arrays in the order of ``names``; DnncError
    for missing or unknown names or a wrong count, quoting ``signature()`` (called only
    then)."""
    if not isinstance(inputs, Mapping | Sequence) or isinstance(inputs, str | bytes):
        raise InputError(
            f"inputs must be a dict of arrays by name or a list of arrays in order, got "
            f"{type(inputs).__name__}; expected {signature()}"
        )
    if isinstance(inputs, Mapping):
        if set(inputs) != set(names):
            missing = sorted(set(names) - set(inputs))
            unknown = sorted(set(map(str, inputs)) - set(names))
            raise InputError(
                f"inputs: missing {missing}, unknown {unknown}; expected {signature()}"
            )
        return [np.asarray(inputs[name]) for name in names]
    values = list(inputs)
    if len(values) != len(names):
        raise InputError(f"{len(values)} inputs given; expected {signature()}")
    return [np.asarray(value) for value in values]


def chosen_outputs(specs: Sequence[TensorSpec], names: Sequence[str] | None) -> list[int]:
    """The indices of the outputs named (all, in order, when ``names`` is None); InputError
    naming the unknown ones and the valid names."""
    if names is None:
        return list(range(len(specs)))
    index = {spec.name: i for i, spec in enumerate(specs)}
    unknown = [name for name in names if name not in index]
    if unknown or isinstance(names, str):
        raise InputError(f"output_names: unknown {unknown or [names]}; the outputs are "
                         f"{[spec.name for spec in specs]} (a list of them)")
    return [index[name] for name in names]


def input_error(name: str, array: np.ndarray, signature: str) -> InputError:
    """The error for an input of the wrong element type, rank or shape."""
    got = f"{array.dtype}[{', '.join(map(str, array.shape))}]"
    return InputError(f"input '{name}' is {got}; expected {signature}")


class _ReferenceStep:
    """One onednn.reference call: the numpy kernel on views of a context's memories."""

    def __init__(self, context: _Context, plan: _ReferencePlan) -> None:
        self.context = context
        self.kernel = plan.kernel
        self.params = plan.params
        positional, variadic = self._arrange(plan.kernel, plan.ins)
        self.positional = [None if s is None else self._slot(*s) for s in positional]
        self.variadic = [self._slot(*s) for s in variadic]
        self.outs = [self._slot(*s) for s in plan.outs]

    def _slot(self, storage: _Storage, memory: MemoryType) -> _Slot:
        """The array itself when its bytes are fixed, else what finds it in a run."""
        if storage.base != "argument":
            return self.context.array_of(storage, memory)
        return storage, memory

    def _array(self, slot: _Slot) -> np.ndarray:
        return slot if isinstance(slot, np.ndarray) else self.context.array_of(*slot)

    @staticmethod
    def _arrange(
        kernel: Callable[..., object], ins: Sequence[tuple[str, _Storage, MemoryType]]
    ) -> tuple[list[tuple[_Storage, MemoryType] | None], list[tuple[_Storage, MemoryType]]]:
        """Roles named like a positional parameter go there (an absent one is None, passed
        as such when ``*args`` follow: a matmul without bias but with post-op arguments);
        the others, in order, fill the kernel's ``*args`` (post_args, inputs)."""
        by_role = {role: (storage, memory) for role, storage, memory in ins}
        positional: list[tuple[_Storage, MemoryType] | None] = []
        for parameter in inspect.signature(kernel).parameters.values():
            if parameter.kind is not inspect.Parameter.POSITIONAL_OR_KEYWORD:
                break
            positional.append(by_role.pop(parameter.name, None))
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


class _Context:
    """What one run owns (module docstring): arena, scratchpad, stream, bound steps."""

    def __init__(self, executable: Executable, arena: np.ndarray | None = None) -> None:
        self.engine = executable.engine
        self.arena = aligned_bytes(executable.planned_bytes) if arena is None else arena
        self.scratchpad = aligned_bytes(executable.scratchpad_bytes)
        self.stream = Stream(self.engine)
        arguments = len(executable.inputs) + len(executable.outputs)
        self.bound: list[np.ndarray] = [np.empty(0, np.uint8)] * arguments
        self.argument_memories: list[list[Memory]] = [[] for _ in range(arguments)]
        self._memories: dict[tuple[object, ...], Memory] = {}
        self.steps: list[Callable[[], object]] = [
            self._step(plan) for plan in executable.plan
        ]
        self.poison = [[self.arena[lo:hi] for lo, hi in ranges]
                       for ranges in executable.poison_ranges]

    def _step(self, plan: _PrimitivePlan | _ReferencePlan) -> Callable[[], object]:
        if isinstance(plan, _ReferencePlan):
            return _ReferenceStep(self, plan)
        args = {b.arg: self._memory(b) for b in plan.bindings}
        if plan.scratchpad_arg is not None:
            desc = plan.primitive.desc.scratchpad_desc()
            assert desc is not None  # exec_args lists it only when there is one
            args[plan.scratchpad_arg] = Memory(desc, self.scratchpad, engine=self.engine)
        return plan.primitive.bind(args, self.stream)

    def _memory(self, binding: _Binding) -> Memory:
        """A Memory of the binding's descriptor over its bytes (one per place and
        descriptor)."""
        storage, desc = binding.storage, binding.desc
        key = (*storage.place, desc.key())
        if key not in self._memories:
            if storage.base == "argument":  # bound to the caller's array per run
                memory = Memory(desc, aligned_bytes(binding.nbytes), engine=self.engine)
                self.argument_memories[storage.index].append(memory)
            else:
                base = self.arena if storage.base == "arena" else storage.array
                memory = Memory(desc, base, storage.offset, engine=self.engine)
            self._memories[key] = memory
        return self._memories[key]

    def array_of(self, storage: _Storage, memory: MemoryType) -> np.ndarray:
        """The logical (plain) array of a memory, over its current bytes."""
        base = {"argument": None, "arena": self.arena}.get(storage.base, storage.array)
        if base is None:
            base = self.bound[storage.index]
        raw = base.reshape(-1).view(np.uint8)[storage.offset : storage.offset + memory.nbytes]
        return raw.view(memory.data_type.numpy).reshape(memory.get_shape())

    def bind(self, arrays: Sequence[np.ndarray], outputs: Sequence[TensorSpec]) -> list[np.ndarray]:
        """Bind the (checked) inputs, allocate and bind the outputs; return the outputs."""
        results = [np.empty(spec.shape, spec.dtype) for spec in outputs]
        for index, array in enumerate([*map(np.ascontiguousarray, arrays), *results]):
            self.bound[index] = array
            for memory in self.argument_memories[index]:
                memory.set_data_handle(array)
        return results

    def execute(self, poison_freed: bool) -> None:
        """Every step in order, then wait; with poison_freed, freed bytes get POISON."""
        if poison_freed:
            self.arena.fill(POISON)
            for step, poison in zip(self.steps, self.poison):
                step()
                self.stream.wait()
                for view in poison:
                    view.fill(POISON)
        else:
            for step in self.steps:
                step()
        self.stream.wait()


class Recipe(Protocol):
    """How an executable was compiled: enough to compile it again (dnnc.api.CompileRecipe)."""

    def compile(self) -> object: ...


class ShippedByRecipe:
    """Pickles as its ``recipe``: unpickling compiles again in the receiving process."""

    recipe: Recipe | None = None

    def __reduce__(self) -> tuple[object, tuple[()]]:
        if self.recipe is None:
            raise DnncError(
                "this executable cannot be pickled: it was compiled from a ModuleOp or an "
                "onnx.ModelProto object, which leave nothing to compile again from; compile "
                "from a file path or IR text to ship it to other processes"
            )
        return self.recipe.compile, ()


class Executable(ShippedByRecipe):
    """A lowered function ready to run (module docstring). Build with ``dnnc.compile``."""

    def __init__(
        self,
        function: func.FuncOp,
        *,
        weights_dir: str | None = None,
        engine: Engine | None = None,
        cache: PrimitiveCache | None = None,
        arena: np.ndarray | None = None,
        constants: PackedConstants | None = None,
    ) -> None:
        self.name = function.sym_name.data
        self.engine = engine or Engine.default()
        self._cache = cache or default_cache()
        self._weights_dir = weights_dir
        arena_bytes = function.attributes.get(ARENA_BYTES)
        if not isinstance(arena_bytes, IntegerAttr):
            raise error_at(function, "has no onednn.arena_bytes: run the lowering first")
        self.planned_bytes = arena_bytes.value.data
        if arena is not None and arena.nbytes < self.planned_bytes:
            raise error_at(function, f"needs an arena of {self.planned_bytes} bytes, the one "
                           f"given has {arena.nbytes}")
        self._constants = constants or PackedConstants()
        args = function.body.block.args
        input_names = _names(function, "onednn.inputs")
        output_names = _names(function, "onednn.outputs")
        if len(input_names) + len(output_names) != len(args):
            raise error_at(function, "onednn.inputs and onednn.outputs do not name every argument")
        self.inputs = tuple(self._spec(n, a) for n, a in zip(input_names, args))
        self.outputs = tuple(
            self._spec(n, a) for n, a in zip(output_names, args[len(input_names) :])
        )
        self._input_names = tuple(input_names)
        self._storage: dict[SSAValue, _Storage] = {
            a: _Storage("argument", a.index, 0, a) for a in args
        }
        self._constant_sizes: dict[object, int] = {}
        """Bytes of each constant array this Executable holds, by id (an array it binds)
        or source key (a loaded array, for a reordered constant): a shared one counts once."""
        self.plan: list[_PrimitivePlan | _ReferencePlan] = []
        self.poison_ranges: list[list[tuple[int, int]]] = []
        """Per step, the arena byte ranges poison_freed fills after it."""
        self._build(function)
        del self._storage  # the plan holds what runs need; no IR is kept
        self._lock = threading.Lock()
        self._first = self._new_context(function, arena)
        self._idle = [self._first]
        self.contexts = 1
        """Execution contexts made so far: the most runs that were ever under way at once."""

    # --- building ----------------------------------------------------------------------------

    def _spec(self, name: str, arg: BlockArgument) -> TensorSpec:
        memory = _memory_type(arg)
        if not memory.layout.is_plain:
            raise DnncError(
                f"@{self.name}: argument '{name}' has layout {memory.layout.name}; the caller's "
                "arrays are plain, so the function must take and return plain layouts"
            )
        return TensorSpec(name, memory.get_shape(), memory.data_type.numpy)

    def _build(self, function: func.FuncOp) -> None:
        ops: list[KernelCallOp] = []
        for op in function.body.block.ops:
            if isinstance(op, ArenaViewOp):
                self._define_view(op)
            elif isinstance(op, ReshapeOp):
                source = self._storage[op.source]
                self._storage[op.result] = _Storage(
                    source.base, source.index, source.offset, source.root, source.array
                )
            elif isinstance(op, SubviewOp):
                source = self._storage[op.source]
                if source.base != "arena":
                    raise error_at(op, "views part of an argument or constant: only arena bytes")
                self._storage[op.result] = _Storage(
                    source.base, source.index, source.offset + op.offset.data, source.root,
                )
            elif isinstance(op, MemoryConstantOp):
                self._define_constant(op)
            elif isinstance(op, PrimitiveOp):
                self.plan.append(self._primitive_plan(op))
                ops.append(op)
            elif isinstance(op, ReferenceOp):
                self.plan.append(self._reference_plan(op))
                ops.append(op)
            elif not isinstance(op, ConstantOp | WeightOp | func.ReturnOp):
                raise error_at(op, "cannot be executed: not an op of a lowered function")
        self.scratchpad_bytes = max(
            (p.primitive.desc.scratchpad_desc().size_bytes for p in self.plan
             if isinstance(p, _PrimitivePlan) and p.scratchpad_arg is not None),
            default=0,
        )
        self.step_infos = [
            _step_info(op, p.primitive if isinstance(p, _PrimitivePlan) else None)
            for op, p in zip(ops, self.plan)
        ]
        self._plan_poison(ops)

    def _new_context(
        self, function: func.FuncOp | None = None, arena: np.ndarray | None = None
    ) -> _Context:
        """A context for one run at a time; binding errors name the function when given."""
        try:
            return _Context(self, arena)
        except ValueError as error:
            if function is None:
                raise DnncError(f"@{self.name}: cannot bind its memories: {error}") from error
            raise error_at(function, f"cannot bind its memories: {error}") from error

    def _define_view(self, op: ArenaViewOp) -> None:
        offset, memory = op.offset.data, _memory_type(op.result)
        if offset < 0 or offset + memory.nbytes > self.planned_bytes:
            raise error_at(op, f"does not fit the arena of {self.planned_bytes} bytes")
        self._storage[op.result] = _Storage("arena", 0, offset, op.result)

    def _define_constant(self, op: MemoryConstantOp) -> None:
        source = op.tensor.owner
        if not isinstance(source, ConstantOp | WeightOp):
            raise error_at(op, "must wrap a dnn.constant or dnn.weight of the same function")
        memory = _memory_type(op.result)
        key = self.constant_key(source, self._weights_dir)
        data = self._constants.get(
            (*key, memory), lambda: self._constant_data(op, source, memory)
        )
        self._constant_sizes[id(data)] = data.nbytes  # kept alive by _storage: ids are stable
        if not memory.layout.is_plain:  # the loaded array stays cached by weights.py
            self._constant_sizes[key] = math.prod(memory.get_shape()) * memory.data_type.itemsize
        self._storage[op.result] = _Storage("constant", 0, 0, op.result, data)

    @staticmethod
    def constant_key(source: ConstantOp | WeightOp, weights_dir: str | None) -> tuple[object, ...]:
        """What identifies a source's data in PackedConstants: a dnn.weight's resolved file
        and key, a dnn.constant's value (_constant_key)."""
        if isinstance(source, WeightOp):
            return ("weight", str(weight_path(source, weights_dir).resolve()), source.key)
        return _constant_key(source)

    def constant_data(self, source: Operation, memory: Attribute) -> np.ndarray:
        """The array this Executable binds for ``source`` (an op of the function it was
        built from) in ``memory``, e.g. a weight packed for its convolution."""
        if not isinstance(source, ConstantOp | WeightOp) or not isinstance(memory, MemoryType):
            raise DnncError(f"{source} in {memory} is no constant of @{self.name}")
        key = self.constant_key(source, self._weights_dir)
        return self._constants.get((*key, memory), lambda: _missing(self.name, source))

    def _constant_data(
        self, op: MemoryConstantOp, source: ConstantOp | WeightOp, memory: MemoryType
    ) -> np.ndarray:
        """A source's array as ``memory`` lays it out (reordered if not plain)."""
        data = np.ascontiguousarray(source_value(source, self._weights_dir))
        return data if memory.layout.is_plain else self._reordered(op, data, memory)

    def _reordered(self, op: Operation, data: np.ndarray, memory: MemoryType) -> np.ndarray:
        """The logical array ``data`` in ``memory``'s layout, by one reorder primitive."""
        plain = MemoryDesc.of_layout(memory.get_shape(), memory.data_type)
        packed = _desc_of(memory)
        handler = handler_for("reorder", {"src": plain, "dst": packed}, {})
        primitive = self._acquire(op, handler)
        buffer = aligned_bytes(packed.size_bytes)
        ids = handler.exec_args(primitive.desc)
        stream = Stream(self.engine)
        primitive.execute(
            stream,
            {ids["src"]: Memory(plain, data, engine=self.engine),
             ids["dst"]: Memory(packed, buffer, engine=self.engine)},
        )
        stream.wait()
        return buffer

    def _acquire(self, op: Operation, handler: object) -> Primitive:
        try:
            return self._cache.acquire(handler, self.engine)  # type: ignore[arg-type]
        except DnnlError as error:
            raise error_at(op, f"oneDNN cannot create this primitive: {error}") from error

    def _primitive_plan(self, op: PrimitiveOp) -> _PrimitivePlan:
        descs = {
            role: _desc_of(_memory_type(value))
            for role, value in (*op.inputs_by_role().items(), *op.outputs_by_role().items())
        }
        params = {name: attribute_value(attr) for name, attr in op.params.data.items()}
        try:
            handler = handler_for(op.kind.data, descs, params)
            primitive = self._acquire(op, handler)
            pd = primitive.desc  # the cached primitive's: a hit creates no descriptor
            ids, exec_descs = handler.exec_args(pd), handler.exec_descs(pd)
        except (ValueError, DnnlError) as error:
            raise error_at(op, f"({op.kind.data}) {error}") from error
        bindings = tuple(
            _Binding(ids[role], exec_descs.get(role) or descs[role],
                     self._storage[value].detached(), _memory_type(value).nbytes)
            for role, value in (*op.inputs_by_role().items(), *op.outputs_by_role().items())
            if role in ids  # a sum post-op's argument is the destination itself
        )
        return _PrimitivePlan(primitive, bindings, ids.get("scratchpad"))

    def _reference_plan(self, op: ReferenceOp) -> _ReferencePlan:
        kernel = getattr(reference, op.kind.data, None)
        if kernel is None or op.kind.data not in reference.__all__:
            raise error_at(op, f"names no reference kernel '{op.kind.data}'")
        ins = [(role, self._storage[v].detached(), _memory_type(v))
               for role, v in op.inputs_by_role().items()]
        outs = [(self._storage[v].detached(), _memory_type(v)) for v in op.outs]
        for _, memory in [(s, m) for _, s, m in ins] + outs:
            if not memory.layout.is_plain:
                raise error_at(op, f"reads or writes layout {memory.layout.name}: reference "
                               "kernels take plain layouts")
        params = {name: attribute_value(attr) for name, attr in op.params.data.items()}
        return _ReferencePlan(kernel, tuple(ins), tuple(outs), params)

    def _plan_poison(self, ops: list[KernelCallOp]) -> None:
        """Lifetimes of the arena roots, what poison_freed fills after each step, and the
        lower bound of the memory report."""
        first: dict[SSAValue, int] = {}
        last: dict[SSAValue, int] = {}
        for index, op in enumerate(ops):
            for value in (*op.ins, *op.outs):
                storage = self._storage[value]
                if storage.base == "arena":
                    first.setdefault(storage.root, index)
                    last[storage.root] = index
        ranges = {
            root: (self._storage[root].offset,
                   self._storage[root].offset + _memory_type(root).nbytes)
            for root in first
        }
        for index in range(len(ops)):
            live = [ranges[r] for r in first if first[r] <= index < last[r]]
            freed = [ranges[r] for r in first if last[r] == index]
            self.poison_ranges.append(_subtract(freed, live))
        self.lower_bound_bytes = lower_bound(
            [Lifetime(root, ranges[root][1] - ranges[root][0], first[root], last[root])
             for root in first]
        )

    # --- running -----------------------------------------------------------------------------

    def signature(self) -> str:
        """``@name(x: float32[1, 16, 8, 8]) -> (result0: float32[...])``."""
        inputs = ", ".join(map(str, self.inputs))
        outputs = ", ".join(map(str, self.outputs))
        return f"@{self.name}({inputs}) -> ({outputs})"

    def _checked_inputs(self, inputs: Mapping[str, object] | Sequence[object]) -> list[np.ndarray]:
        """The inputs in order as arrays, each of its spec's element type and shape."""
        arrays = ordered_inputs(inputs, self._input_names, self.signature)
        for spec, array in zip(self.inputs, arrays):
            if array.dtype != spec.dtype or array.shape != spec.shape:
                raise input_error(spec.name, array, self.signature())
        return arrays

    @property
    def arena(self) -> np.ndarray:
        """The first context's arena (the one a caller running alone always runs in)."""
        return self._first.arena

    def _take_context(self) -> _Context:
        """An idle context for one run (a new one if none is idle: another thread is
        running in each); give it back with ``_return_context``."""
        with self._lock:
            if self._idle:
                return self._idle.pop()
            self.contexts += 1
        return self._new_context()

    def _return_context(self, context: _Context) -> None:
        with self._lock:
            self._idle.append(context)

    def run(
        self,
        inputs: Mapping[str, object] | Sequence[object],
        *,
        as_dict: bool = False,
        output_names: Sequence[str] | None = None,
        poison_freed: bool = False,
    ) -> list[np.ndarray] | dict[str, np.ndarray]:
        """The outputs for ``inputs`` (by name or in order): a list, or a dict by output name;
        only those of ``output_names``, in that order, when given (ONNX Runtime's
        ``session.run(output_names, feeds)``). Safe to call from several threads at once
        (module docstring)."""
        arrays = self._checked_inputs(inputs)
        return self.run_checked(
            arrays, as_dict=as_dict, output_names=output_names, poison_freed=poison_freed
        )

    def run_checked(
        self,
        arrays: Sequence[np.ndarray],
        *,
        as_dict: bool = False,
        output_names: Sequence[str] | None = None,
        poison_freed: bool = False,
    ) -> list[np.ndarray] | dict[str, np.ndarray]:
        """``run`` for arrays in order already checked against ``inputs`` (element types and
        shapes), as DynamicExecutable checks them, so that no run checks twice."""
        chosen = None if output_names is None else chosen_outputs(self.outputs, output_names)
        context = self._take_context()
        try:
            outputs = context.bind(arrays, self.outputs)
            context.execute(poison_freed)
        finally:
            self._return_context(context)
        if chosen is not None:
            specs = [self.outputs[i] for i in chosen]
            outputs = [outputs[i] for i in chosen]
        else:
            specs = self.outputs
        if as_dict:
            return {spec.name: array for spec, array in zip(specs, outputs)}
        return outputs

    def profile(
        self, inputs: Mapping[str, object] | Sequence[object], repeats: int = 10
    ) -> list[StepTime]:
        """The median time of each step over ``repeats`` runs (after one warm-up run), each
        step timed up to the end of its work (the stream is waited for after it)."""
        arrays = self._checked_inputs(inputs)
        times: list[list[float]] = [[] for _ in self.plan]
        context = self._take_context()
        try:
            context.bind(arrays, self.outputs)
            for repeat in range(repeats + 1):
                for step, samples in zip(context.steps, times):
                    start = time.perf_counter()
                    step()
                    context.stream.wait()
                    if repeat:
                        samples.append(time.perf_counter() - start)
        finally:
            self._return_context(context)
        return [StepTime(info, statistics.median(s)) for info, s in zip(self.step_infos, times)]

    def memory_report(self) -> MemoryReport:
        return MemoryReport(
            planned_bytes=self.planned_bytes,
            lower_bound_bytes=self.lower_bound_bytes,
            arena_bytes=self.arena.nbytes,
            scratchpad_bytes=self.scratchpad_bytes,
            constant_bytes=sum(self._constant_sizes.values()),
        )


def _step_info(op: KernelCallOp, primitive: Primitive | None) -> StepInfo:
    roles = [*op.inputs_by_role().items(), *op.outputs_by_role().items()]
    return StepInfo(
        library="reference" if isinstance(op, ReferenceOp) else "onednn",
        kind=op.kind.data,
        location=location_of(op),
        operands=tuple(_describe(role, _memory_type(v)) for role, v in roles),
        implementation="numpy" if primitive is None else primitive.desc.impl_info,
        bytes=sum(_memory_type(v).nbytes for _, v in roles),
    )


def _subtract(
    ranges: list[tuple[int, int]], holes: list[tuple[int, int]]
) -> list[tuple[int, int]]:
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
