"""onednn-verify-buffers: prove that no value is read after its bytes were overwritten.

Rule: walking a lowered function in program order, every memory an op reads must still hold
the value last written through it (or through a `onednn.reshape` of it): no other value may
have written any of its bytes since. Reads of an op happen before its writes, so an in-place
execution (one memory in both `ins` and `outs`) is fine.
Also refused: reading a buffer before anything wrote it, writing into a caller's input or a
constant, and finishing without writing every result.
Pre:  a function in the `onednn` dialect with `onednn.inputs` (names of the leading
      arguments); the remaining arguments are its results.
Post: the IR is unchanged; a violation raises a DnncError at the offending op naming the
      value and the op that clobbered it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, ModuleOp
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass

from dnnc.diagnostics import DnncError, error_at, location_of
from dnnc.dialects.onednn import ArenaViewOp, ConstantOp, KernelCallOp, MemoryType, ReshapeOp

Content = tuple[SSAValue, int]
"""What a byte holds: the root memory written and the index of the op that wrote it."""


@dataclass(frozen=True)
class Storage:
    """Where a memory's bytes are: a base (the arena, an argument, a constant) and a range."""

    base: object
    start: int
    end: int
    root: SSAValue
    """The memory whose writes define these bytes (reshapes share their source's root)."""
    writable: bool


@dataclass
class ByteState:
    """Which content each byte range of every base holds, as disjoint segments."""

    segments: dict[object, list[tuple[int, int, Content]]] = field(default_factory=dict)

    def write(self, storage: Storage, content: Content) -> None:
        kept = [
            (lo, hi, c)
            for lo, hi, c in self._clipped(storage.base, storage.start, storage.end)
        ]
        self.segments[storage.base] = kept + [(storage.start, storage.end, content)]

    def holders(self, storage: Storage) -> list[tuple[int, int, Content]]:
        """The segments overlapping the storage's range."""
        return [
            (lo, hi, c)
            for lo, hi, c in self.segments.get(storage.base, [])
            if lo < storage.end and storage.start < hi
        ]

    def _clipped(self, base: object, start: int, end: int) -> list[tuple[int, int, Content]]:
        """Existing segments with [start, end) cut out of them."""
        result = []
        for lo, hi, content in self.segments.get(base, []):
            if lo < start:
                result.append((lo, min(hi, start), content))
            if hi > end:
                result.append((max(lo, end), hi, content))
        return result


def _describe(value: SSAValue) -> str:
    return f"%{value.name_hint}" if value.name_hint else f"a value of type {value.type}"


def _kind(op: Operation) -> str:
    return f"({op.kind.data}) " if isinstance(op, KernelCallOp) else ""


def check_buffers(function: func.FuncOp) -> None:
    """Raise a DnncError at the first read of clobbered or unwritten bytes."""
    inputs = function.attributes.get("onednn.inputs")
    num_inputs = len(inputs.data) if isinstance(inputs, ArrayAttr) else 0
    storages: dict[SSAValue, Storage] = {}
    state = ByteState()
    last_write: dict[SSAValue, int] = {}
    arguments = function.body.block.args
    for arg in arguments:
        storages[arg] = _argument_storage(arg, num_inputs)
        if arg.index < num_inputs:
            last_write[arg] = -1
            state.write(storages[arg], (arg, -1))
    ops = list(function.body.block.ops)
    for index, op in enumerate(ops):
        if isinstance(op, ArenaViewOp):
            size = _memory_type(op.result).nbytes
            storages[op.result] = Storage("arena", op.offset.data, op.offset.data + size, op.result, True)
        elif isinstance(op, ReshapeOp):
            storages[op.result] = storages[op.source]
        elif isinstance(op, ConstantOp):
            storage = Storage(op, 0, _memory_type(op.result).nbytes, op.result, False)
            storages[op.result] = storage
            last_write[op.result] = index
            state.write(storage, (op.result, index))
        elif isinstance(op, KernelCallOp):
            for value in op.ins:
                _check_read(op, value, storages[value], state, last_write, ops)
            for value in op.outs:
                storage = storages[value]
                if not storage.writable:
                    raise error_at(
                        op,
                        f"{_kind(op)}writes into {_describe(value)}, which the caller or a "
                        "constant owns",
                    )
                last_write[storage.root] = index
                state.write(storage, (storage.root, index))
    for arg in arguments[num_inputs:]:
        if arg not in last_write:
            raise error_at(
                function,
                f"result {arg.index - num_inputs} ({_describe(arg)}) is never written",
            )


def _check_read(
    op: Operation,
    value: SSAValue,
    storage: Storage,
    state: ByteState,
    last_write: dict[SSAValue, int],
    ops: list[Operation],
) -> None:
    if storage.root not in last_write:
        raise error_at(op, f"{_kind(op)}reads {_describe(value)} before anything wrote it")
    expected = (storage.root, last_write[storage.root])
    covered = 0
    for lo, hi, content in state.holders(storage):
        if content != expected:
            clobberer, writer_index = content
            writer = ops[writer_index]
            raise error_at(
                op,
                f"{_kind(op)}reads {_describe(value)}, but bytes [{max(lo, storage.start)}, "
                f"{min(hi, storage.end)}) of its storage were overwritten by "
                f"{_describe(clobberer)} ({writer.name} at {location_of(writer)})",
            )
        covered += min(hi, storage.end) - max(lo, storage.start)
    if covered != storage.end - storage.start:
        raise error_at(op, f"{_kind(op)}reads {_describe(value)}, part of which was never written")


def _argument_storage(arg: BlockArgument, num_inputs: int) -> Storage:
    size = _memory_type(arg).nbytes
    is_input = arg.index < num_inputs
    return Storage(("argument", arg.index), 0, size, arg, writable=not is_input)


def _memory_type(value: SSAValue) -> MemoryType:
    if not isinstance(value.type, MemoryType):
        raise DnncError(f"{_describe(value)} is not an !onednn.memory")
    return value.type


@dataclass(frozen=True)
class VerifyBuffersPass(ModulePass):
    """Check every lowered function with check_buffers."""

    name = "onednn-verify-buffers"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in op.walk():
            if isinstance(function, func.FuncOp) and "onednn.arena_bytes" in function.attributes:
                check_buffers(function)
