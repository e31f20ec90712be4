"""onednn-verify-buffers: prove that no value is read after its bytes were overwritten.

Rule: walking a lowered function in program order, every memory an op reads must still hold
the value last written through it (or through a `onednn.reshape` of it): no other value may
have written any of its bytes since. Reads of an op happen before its writes, so an in-place
execution (one memory in both `ins` and `outs`) is fine. A `onednn.subview` is a memory of
its own over part of its source's bytes: writing it writes those bytes; reading the source
reads, for each subview written since the source itself was last written, what that subview
(recursively, its own subviews) must hold, and the source's own last write elsewhere; so an
implicit concat is proven byte by byte, and two subviews that overlap clobber each other.
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

from dnnc.core.diagnostics import DnncError, error_at, location_of
from dnnc.dialects.onednn import (
    INPUT_NAMES,
    ArenaViewOp,
    ConstantOp,
    KernelCallOp,
    MemoryType,
    ReshapeOp,
    SubviewOp,
    is_lowered,
)

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
        kept = self._clipped(storage.base, storage.start, storage.end)
        self.segments[storage.base] = [*kept, (storage.start, storage.end, content)]

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


def _memory_name(value: SSAValue) -> str:
    return f"%{value.name_hint}" if value.name_hint else f"a value of type {value.type}"


def _kind(op: Operation) -> str:
    return f"({op.kind.data}) " if isinstance(op, KernelCallOp) else ""


@dataclass
class _Walk:
    """The state of the walk: storages, bytes, and when each root was written."""

    ops: list[Operation]
    storages: dict[SSAValue, Storage] = field(default_factory=dict)
    state: ByteState = field(default_factory=ByteState)
    last_write: dict[SSAValue, int] = field(default_factory=dict)
    subviews: dict[SSAValue, list[SSAValue]] = field(default_factory=dict)
    """Root -> the subviews of its bytes, in order of definition."""
    initial: dict[SSAValue, list[tuple[int, int, Content | None]]] = field(default_factory=dict)
    """Subview -> what its bytes had to hold when it was defined (a slice view's value)."""

    def written(self, root: SSAValue) -> int | None:
        """The last write to a root's bytes through it or any of its subviews."""
        times = [self.last_write[root]] if root in self.last_write else []
        times += [t for sub in self.subviews.get(root, []) if (t := self.written(sub)) is not None]
        return max(times, default=None)

    def expected(self, root: SSAValue) -> list[tuple[int, int, Content | None]]:
        """What each byte range of a root must hold (None: nothing was written there)."""
        storage = self.storages[root]
        own = self.last_write.get(root)
        pieces: list[tuple[int, int, Content | None]] = []
        for sub in self.subviews.get(root, []):
            when = self.written(sub)
            if when is not None and (own is None or when > own):
                pieces += self.expected(sub)
        rest: list[tuple[int, int, Content | None]]
        if own is None:
            rest = self.initial.get(root, [(storage.start, storage.end, None)])
        else:
            rest = [(storage.start, storage.end, (root, own))]
        for lo, hi, _ in pieces:
            rest = _cut(rest, lo, hi)
        return pieces + rest


def _cut(
    pieces: list[tuple[int, int, Content | None]], lo: int, hi: int
) -> list[tuple[int, int, Content | None]]:
    """The pieces with [lo, hi) cut out of them."""
    return [
        piece
        for a, b, c in pieces
        for piece in ((a, min(b, lo), c), (max(a, hi), b, c))
        if piece[0] < piece[1]
    ]


def check_buffers(function: func.FuncOp) -> None:
    """Raise a DnncError at the first read of clobbered or unwritten bytes."""
    inputs = function.attributes.get(INPUT_NAMES)
    num_inputs = len(inputs.data) if isinstance(inputs, ArrayAttr) else 0
    walk = _Walk(list(function.body.block.ops))
    arguments = function.body.block.args
    for arg in arguments:
        walk.storages[arg] = _argument_storage(arg, num_inputs)
        if arg.index < num_inputs:
            walk.last_write[arg] = -1
            walk.state.write(walk.storages[arg], (arg, -1))
    for index, op in enumerate(walk.ops):
        if isinstance(op, ArenaViewOp):
            size = _memory_type(op.result).nbytes
            start = op.offset.data
            walk.storages[op.result] = Storage("arena", start, start + size, op.result, True)
        elif isinstance(op, ReshapeOp):
            walk.storages[op.result] = walk.storages[op.source]
        elif isinstance(op, SubviewOp):
            source = walk.storages[op.source]
            start = source.start + op.offset.data
            end = start + _memory_type(op.result).nbytes
            walk.storages[op.result] = Storage(source.base, start, end, op.result, source.writable)
            inside = _cut(_cut(walk.expected(source.root), -1, start), end, 1 << 62)
            walk.initial[op.result] = inside
            walk.subviews.setdefault(source.root, []).append(op.result)
        elif isinstance(op, ConstantOp):
            storage = Storage(op, 0, _memory_type(op.result).nbytes, op.result, False)
            walk.storages[op.result] = storage
            walk.last_write[op.result] = index
            walk.state.write(storage, (op.result, index))
        elif isinstance(op, KernelCallOp):
            for value in op.ins:
                _check_read(op, value, walk)
            for value in op.outs:
                storage = walk.storages[value]
                if not storage.writable:
                    raise error_at(
                        op,
                        f"{_kind(op)}writes into {_memory_name(value)}, which the caller or a "
                        "constant owns",
                    )
                walk.last_write[storage.root] = index
                walk.state.write(storage, (storage.root, index))
    for arg in arguments[num_inputs:]:
        if walk.written(arg) is None:
            raise error_at(
                function,
                f"result {arg.index - num_inputs} ({_memory_name(arg)}) is never written",
            )


def _check_read(op: Operation, value: SSAValue, walk: _Walk) -> None:
    storage = walk.storages[value]
    if all(expected is None for _, _, expected in walk.expected(storage.root)):
        raise error_at(op, f"{_kind(op)}reads {_memory_name(value)} before anything wrote it")
    for start, end, expected in walk.expected(storage.root):
        if expected is None:
            raise error_at(
                op, f"{_kind(op)}reads {_memory_name(value)}, part of which was never written"
            )
        covered = 0
        for lo, hi, content in walk.state.holders(Storage(storage.base, start, end, value, False)):
            if content != expected:
                clobberer, writer_index = content
                writer = walk.ops[writer_index]
                raise error_at(
                    op,
                    f"{_kind(op)}reads {_memory_name(value)}, but bytes [{max(lo, start)}, "
                    f"{min(hi, end)}) of its storage were overwritten by "
                    f"{_memory_name(clobberer)} ({writer.name} at {location_of(writer)})",
                )
            covered += min(hi, end) - max(lo, start)
        if covered != end - start:
            raise error_at(
                op, f"{_kind(op)}reads {_memory_name(value)}, part of which was never written"
            )


def _argument_storage(arg: BlockArgument, num_inputs: int) -> Storage:
    size = _memory_type(arg).nbytes
    is_input = arg.index < num_inputs
    return Storage(("argument", arg.index), 0, size, arg, writable=not is_input)


def _memory_type(value: SSAValue) -> MemoryType:
    if not isinstance(value.type, MemoryType):
        raise DnncError(f"{_memory_name(value)} is not an !onednn.memory")
    return value.type


@dataclass(frozen=True)
class VerifyBuffersPass(ModulePass):
    """Check every lowered function with check_buffers."""

    name = "onednn-verify-buffers"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in op.walk():
            if isinstance(function, func.FuncOp) and is_lowered(function):
                check_buffers(function)
