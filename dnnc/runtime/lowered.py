"""Reading a lowered (``onednn`` dialect) function into a `Program` (dnnc.runtime.program).

`program_of` walks the function once, in order:
* ``onednn.arena_view`` / ``onednn.subview`` / ``onednn.reshape`` define where a memory's
  bytes are: an arena offset (a view of part of the arena, or of another view), or the bytes
  of the value reshaped; function arguments are the caller's arrays;
* ``onednn.constant`` makes its source (a ``dnn.constant`` or ``dnn.weight``) a `Constant`,
  keyed by `constant_key`, loaded only when the plan first needs it (one entry per source);
* ``onednn.primitive`` and ``onednn.reference`` become `Call`s, their operands by role.

Errors name the op at fault; the Program keeps no IR but its constants' ``load``, which the
plan calls while it is built (and dnnc.compile then drops the Program).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Iterable

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, StringAttr
from xdsl.ir import BlockArgument, SSAValue

from dnnc.core.diagnostics import DnncError, error_at, op_location
from dnnc.dialects.dnn import ConstantOp, WeightOp
from dnnc.dialects.onednn import (
    ARENA_BYTES,
    GUARDS,
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
from dnnc.dialects.onednn import ConstantOp as MemoryConstantOp
from dnnc.ir.values import attribute_value
from dnnc.ir.weights import release_payload, source_value, weight_path
from dnnc.runtime.io_binding import TensorSpec
from dnnc.runtime.program import (
    ARENA,
    ARGUMENT,
    CONSTANT,
    Call,
    Constant,
    Guards,
    MemorySpec,
    Operand,
    Place,
    Program,
)

DIGEST_BYTES = 4096
"""dnn.constant values larger than this are keyed by a digest of their bytes, not by the IR
attribute, which would keep the IR's copy of every packed weight alive."""


class SharedPayloads:
    """The large dnn.constant payloads that many reads share, keyed by identity instead of a
    digest of their bytes.

    A dynamic executable reads a function per trace (dnnc.driver.dynamic), and every trace
    holds the same payloads: the importer's dnn.constant of an ONNX initializer holds the
    initializer's own bytes object (dnnc.frontend.onnx.importer.payload_of), a clone of a dnn
    function shares its attributes' bytes. Hashing BERT-base's 420 MB took 0.25 s per trace
    on an idle machine, 0.5-1.3 s on a busy one. A payload given here is this store's n-th:
    it keeps the payload alive, so no other bytes can take its place (or its id) while the
    key is in use, and its key is valid wherever the store is (one executable's constants).
    Any other payload (a constant folded during one trace) is keyed by its SHA-256."""

    def __init__(self, payloads: Iterable[bytes] = ()) -> None:
        self._payloads = {id(p): p for p in payloads}
        self._index = {id(p): n for n, p in enumerate(self._payloads.values())}
        self.hashed = 0
        """SHA-256 digests computed so far (of payloads not given)."""

    def key(self, data: bytes) -> tuple[str, int | bytes]:
        """What identifies ``data``: its index if it was given, else its SHA-256."""
        if self._payloads.get(id(data)) is data:
            return ("shared", self._index[id(data)])
        self.hashed += 1
        return ("sha256", hashlib.sha256(data).digest())


def constant_key(
    source: ConstantOp | WeightOp, weights_dir: str | None, shared: SharedPayloads | None = None
) -> tuple[object, ...]:
    """What identifies a source's data: a dnn.weight's resolved file and key; a dnn.constant's
    type and bytes (a SHA-256 digest of them when large: 0.06 s per 100 MB, once per compile;
    the index of a payload of ``shared``)."""
    if isinstance(source, WeightOp):
        return ("weight", str(weight_path(source, weights_dir).resolve()), source.key)
    data = source.value.data.data
    if len(data) <= DIGEST_BYTES:
        return ("constant", source.value)
    found = shared.key(data) if shared is not None else ("sha256", hashlib.sha256(data).digest())
    return ("constant", source.value.type, *found)


def memory_type(value: SSAValue) -> MemoryType:
    """The !onednn.memory type of a value of a lowered function."""
    if not isinstance(value.type, MemoryType):
        raise DnncError(f"value of type {value.type} is not an !onednn.memory")
    return value.type


def memory_spec(value: SSAValue) -> MemorySpec:
    """The shape, element type and layout of a value of a lowered function."""
    memory = memory_type(value)
    return MemorySpec(memory.get_shape(), memory.data_type, memory.layout)


def argument_names(function: func.FuncOp, attribute: str) -> list[str]:
    """The names a lowered function gives its inputs (`onednn.inputs`) or outputs
    (`onednn.outputs`); an error at the function if the lowering did not write them."""
    names = function.attributes.get(attribute)
    if not isinstance(names, ArrayAttr):
        raise error_at(function, f"has no {attribute}: run the lowering (dnn-to-onednn) first")
    return [n.data for n in names.data if isinstance(n, StringAttr)]


def program_of(
    function: func.FuncOp,
    weights_dir: str | None = None,
    *,
    consume: bool = False,
    shared: SharedPayloads | None = None,
) -> Program:
    """The Program of a lowered function (module docstring); dnn.weight paths are resolved
    against ``weights_dir`` (dnnc.ir.weights). With ``consume`` (a function nobody reads
    again: dnnc.compile's own), each dnn.constant gives up its payload once the plan has
    loaded it for every memory it is bound in (`_Taken`). A large constant whose payload is
    one of ``shared`` is keyed by it, not hashed (`SharedPayloads`)."""
    return _Reader(weights_dir, consume, shared).read(function)


class _Taken:
    """A dnn.constant's array, for ``uses`` loads (one per memory a call binds it in: the
    plan loads a source once per memory), after which the op's payload is replaced by
    _RELEASED.
    The plan packs a weight into a buffer of its own, so without this a compile held every
    packed weight twice: once packed, once in the IR (ResNet-50: 98 MB more at its peak)."""

    def __init__(self, source: ConstantOp) -> None:
        self.source = source
        self.uses = 0

    def __call__(self) -> np.ndarray:
        value = source_value(self.source)
        self.uses -= 1
        if self.uses == 0:
            release_payload(self.source)
        return value


class _Reader:
    """Reads one function; `places` maps its values to their bytes while it reads."""

    def __init__(
        self, weights_dir: str | None, consume: bool, shared: SharedPayloads | None
    ) -> None:
        self.weights_dir = weights_dir
        self.consume = consume
        self.shared = shared
        self.places: dict[SSAValue, Place] = {}
        self.constants: dict[tuple[object, ...], int] = {}
        self.sources: list[Constant] = []
        self.roots: list[tuple[int, int]] = []
        self.root_memories: list[MemorySpec] = []

    def read(self, function: func.FuncOp) -> Program:
        name = function.sym_name.data
        arena_bytes = function.attributes.get(ARENA_BYTES)
        if not isinstance(arena_bytes, IntegerAttr):
            raise error_at(function, f"has no {ARENA_BYTES}: run the lowering first")
        args = function.body.block.args
        input_names = argument_names(function, INPUT_NAMES)
        output_names = argument_names(function, OUTPUT_NAMES)
        if len(input_names) + len(output_names) != len(args):
            raise error_at(function, f"{INPUT_NAMES} and {OUTPUT_NAMES} do not name every argument")
        inputs = tuple(_spec(name, n, a) for n, a in zip(input_names, args, strict=False))
        outputs = tuple(
            _spec(name, n, a) for n, a in zip(output_names, args[len(input_names) :], strict=True)
        )
        self.places = {a: Place(ARGUMENT, a.index, 0) for a in args}
        calls: list[Call] = []
        for op in function.body.block.ops:
            if isinstance(op, ArenaViewOp):
                self._define_view(op, arena_bytes.value.data)
            elif isinstance(op, ReshapeOp):
                self.places[op.result] = self.places[op.source]
            elif isinstance(op, SubviewOp):
                source = self.places[op.source]
                if source.base != ARENA:
                    raise error_at(op, "views part of an argument or constant: only arena bytes")
                offset = source.offset + op.offset.data
                self.places[op.result] = Place(ARENA, 0, offset, source.root)
            elif isinstance(op, MemoryConstantOp):
                self._define_constant(op)
            elif isinstance(op, PrimitiveOp | ReferenceOp):
                calls.append(self._call(op))
            elif not isinstance(op, ConstantOp | WeightOp | func.ReturnOp):
                raise error_at(op, "cannot be executed: not an op of a lowered function")
        program = Program(
            name,
            inputs,
            outputs,
            arena_bytes.value.data,
            tuple(calls),
            tuple(self.sources),
            tuple(self.roots),
            _guards(function, len(inputs)),
            op_location(function),
            tuple(self.root_memories),
        )
        for index, memories in program.bound_constants().items():
            taken = self.sources[index].load
            if isinstance(taken, _Taken):
                taken.uses = len(memories)
        return program

    def _define_view(self, op: ArenaViewOp, arena_bytes: int) -> None:
        offset, size = op.offset.data, memory_type(op.result).nbytes
        if offset < 0 or offset + size > arena_bytes:
            raise error_at(op, f"does not fit the arena of {arena_bytes} bytes")
        self.places[op.result] = Place(ARENA, 0, offset, len(self.roots))
        self.roots.append((offset, offset + size))
        self.root_memories.append(memory_spec(op.result))

    def _define_constant(self, op: MemoryConstantOp) -> None:
        source = op.tensor.owner
        if not isinstance(source, ConstantOp | WeightOp):
            raise error_at(op, "must wrap a dnn.constant or dnn.weight of the same function")
        key = constant_key(source, self.weights_dir, self.shared)
        if key not in self.constants:
            self.constants[key] = len(self.sources)
            load: Callable[[], np.ndarray] = functools.partial(
                source_value, source, self.weights_dir
            )
            if self.consume and isinstance(source, ConstantOp):
                load = _Taken(source)
            self.sources.append(Constant(key, load))
        self.places[op.result] = Place(CONSTANT, self.constants[key], 0)

    def _call(self, op: KernelCallOp) -> Call:
        def operand(role: str, value: SSAValue) -> Operand:
            return Operand(role, memory_spec(value), self.places[value])

        return Call(
            "reference" if isinstance(op, ReferenceOp) else "onednn",
            op.kind.data,
            tuple(operand(r.data, v) for r, v in zip(op.in_roles.data, op.ins, strict=True)),
            tuple(operand(r.data, v) for r, v in zip(op.out_roles.data, op.outs, strict=True)),
            {name: attribute_value(attr) for name, attr in op.params.data.items()},
            op.name,
            op_location(op),
        )


def _guards(function: func.FuncOp, count: int) -> tuple[Guards, ...]:
    """The `onednn.guards` of a lowered function's ``count`` inputs."""
    guards = function.attributes.get(GUARDS)
    entries = guards.data if isinstance(guards, ArrayAttr) else ()
    if len(entries) != count or not all(isinstance(e, DictionaryAttr) for e in entries):
        raise error_at(function, f"has no {GUARDS} for its inputs: run the lowering first")
    return tuple(
        {kind: why.data for kind, why in entry.data.items() if isinstance(why, StringAttr)}
        for entry in entries
        if isinstance(entry, DictionaryAttr)
    )


def _spec(function: str, name: str, arg: BlockArgument) -> TensorSpec:
    memory = memory_type(arg)
    if not memory.layout.is_plain:
        raise DnncError(
            f"@{function}: argument '{name}' has layout {memory.layout.name}; the caller's "
            "arrays are plain, so the function must take and return plain layouts"
        )
    return TensorSpec(name, memory.get_shape(), memory.data_type.numpy)
