"""Alias classes of a dnn function: which tensor values share one buffer, and who owns it.

Shared by dnn-plan-memory (which places the classes), convert-dnn-to-onednn (which
materializes them) and the passes that decide sharing (dnn-inplace, dnn-buffer-fusing, which
ask `ClassBuilder` the same questions the planner asks, op by op, so that all agree). The
schedule is program order. A value starts a class of its own, except:
- a `dnn.reshape` result joins its source's class (a view of the same plain bytes);
- a result named by the op's `dnn.inplace = array<i64: k, ...>` attribute (one entry per
  result: the operand whose buffer the result takes, or -1) joins operand k's class, when the
  request is safe (`ClassBuilder.inplace_refusal`); a refused request is reported, not honoured;
- a `dnn.concat` with `dnn.implicit_concat = array<i64: ...>` (the byte offset of each input in
  the result) starts a class that takes in each input's class at that offset: the producers
  write their slices of the result and the concat runs nothing (`concat_refusal`);
- a `dnn.slice` with `dnn.implicit_slice = <byte offset>` joins its source's class at that
  offset within the source: a view of a contiguous part (`slice_refusal`).
Members that cover part of the class's buffer are its `views` (member -> byte offset).
A class is owned by the caller (it holds a function argument), by constant storage (it holds
a `dnn.constant` / `dnn.weight` result), or is computed. A computed class without views that
holds a returned value is written straight into the caller's output array of the first
result it is returned as (`BufferClass.output`); every other returned value is copied into
its output array (the runtime binds a caller's array whole, never at an offset).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import cast

from xdsl.dialects import func
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, TensorType
from xdsl.ir import Operation, SSAValue

from dnnc.core.diagnostics import error_at, location_of
from dnnc.dialects.dnn import (
    BinaryOp,
    ConcatOp,
    ConstantOp,
    SliceOp,
    WeightOp,
    is_view,
    layout_of,
)
from dnnc.dialects.dnn.base import PostOpAnchor, int_of, ints
from dnnc.dialects.onednn import MemoryType
from dnnc.ir.decisions import IMPLICIT_CONCAT, IMPLICIT_SLICE, INPLACE, inplace_requests
from dnnc.passes.regions import concat_offsets, region_offset
from dnnc.target.post_op_rules import COMMUTATIVE


class Owner(Enum):
    """Who owns a class's buffer."""

    ARGUMENT = "a function argument"
    CONSTANT = "constant storage"
    COMPUTED = "computed"


@dataclass(eq=False)
class BufferClass:
    """Values sharing one buffer; `root` is the first defined, the others view or overwrite it."""

    root: SSAValue
    owner: Owner
    start: int
    """Schedule position of the root's definition (-1 for arguments)."""
    end: int
    """Last schedule position at which a member is defined or read."""
    members: list[SSAValue] = field(default_factory=list)
    returned_at: list[int] = field(default_factory=list)
    """Result indices at which members are returned, in order."""
    views: dict[SSAValue, int] = field(default_factory=dict)
    """Members that cover part of the buffer, and their byte offsets in it."""

    @property
    def output(self) -> int | None:
        """The result whose caller array holds this class (None: arena, argument or constant)."""
        if self.owner is Owner.COMPUTED and self.returned_at and not self.views:
            return self.returned_at[0]
        return None


@dataclass(frozen=True)
class Refusal:
    """A sharing request (attribute `attribute` of `op`; for dnn.inplace, entry `result`)
    that was not honoured, and why."""

    op: Operation
    attribute: str
    result: int
    reason: str


@dataclass
class BufferClasses:
    """The classes of one function, and the in-place requests refused while forming them."""

    of: dict[SSAValue, BufferClass]
    schedule: dict[Operation, int]
    refusals: list[Refusal]

    def distinct(self) -> list[BufferClass]:
        """Every class once, in order of definition."""
        return list({id(c): c for c in self.of.values()}.values())


def memory_type(op: Operation, value: SSAValue) -> MemoryType:
    """The memory descriptor of a tensor value; an error at `op` if it has none."""
    type_ = value.type
    if not isinstance(type_, TensorType) or any(d < 0 for d in type_.get_shape()):
        raise error_at(op, f"needs static tensor types to lower, got {type_}")
    return MemoryType(type_.get_shape(), type_.get_element_type(), layout_of(type_))


def describe(value: SSAValue) -> str:
    """`%name` of a value, or what defines it."""
    if value.name_hint:
        return f"%{value.name_hint}"
    if isinstance(value.owner, Operation):
        return f"the {value.owner.name} result at {location_of(value.owner)}"
    return "a function argument"


class ClassBuilder:
    """Forms the classes of a function one op at a time, in program order (`add`).

    Before adding an op, a pass may ask whether a request on it would be honoured
    (`inplace_refusal`, `concat_refusal`, `slice_refusal`): the answers depend only on the
    ops added so far and on the SSA uses, exactly as when the planner forms the classes.
    """

    def __init__(self, function: func.FuncOp) -> None:
        self.ops = list(function.body.block.ops)
        self.schedule = {op: i for i, op in enumerate(self.ops)}
        self.last_use: dict[SSAValue, int] = {}
        for op in self.ops:
            for operand in op.operands:
                self.last_use[operand] = self.schedule[op]
        self.of: dict[SSAValue, BufferClass] = {}
        self.refusals: list[Refusal] = []
        for arg in function.body.block.args:
            self._join(arg, BufferClass(arg, Owner.ARGUMENT, -1, -1), -1)

    def _join(
        self, value: SSAValue, target: BufferClass, position: int, view: int | None = None
    ) -> None:
        target.members.append(value)
        target.end = max(target.end, position, self.last_use.get(value, position))
        if view is not None:
            target.views[value] = view
        self.of[value] = target

    def _alias(
        self, value: SSAValue, source: SSAValue, position: int, offset: int | None = None
    ) -> None:
        """`value` joins `source`'s class: on the same bytes (`offset` None) or as a view of
        part of them, `offset` bytes into `source`."""
        target = self.of[source]
        view = target.views.get(source)
        if view is None and offset is None:
            self._join(value, target, position)
        else:
            self._join(value, target, position, (view or 0) + (offset or 0))

    def later_reader(self, value: SSAValue, position: int) -> tuple[Operation, SSAValue] | None:
        """The first op after `position` reading a member of `value`'s class, and that member."""
        readers = [
            (self.schedule[use.operation], use.operation, member)
            for member in self.of[value].members
            for use in member.uses
            if self.schedule.get(use.operation, -1) > position
        ]
        if not readers:
            return None
        _, reader, member = min(readers, key=lambda r: r[0])
        return reader, member

    def inplace_refusal(self, op: Operation, index: int, operand: int) -> str | None:
        """Why result `index` of `op` may not take the buffer of operand `operand` (None: it
        may)."""
        source, result = op.operands[operand], op.results[index]
        target = self.of[source]
        name = f"operand {operand} ({describe(source)})"
        if target.owner is not Owner.COMPUTED:
            return f"{name} lives in {target.owner.value}, which is read-only"
        if source.type != result.type:
            return f"{name} has type {source.type}, the result {result.type}"
        if isinstance(op, BinaryOp) and operand == 1 and op.alg.data not in COMMUTATIVE:
            # oneDNN's binary writes in place over src_0 only; the lowering makes the rhs
            # src_0 by swapping the operands, which only a commutative algorithm allows
            return f"{name} is the rhs of {op.alg.data}, which cannot swap its operands"
        later = self.later_reader(source, self.schedule[op])
        if later is not None:
            reader, member = later
            return (
                f"{name}: {describe(member)} is also read by {reader.name} at "
                f"{location_of(reader)} after this op"
            )
        for other_index, other in enumerate(op.operands):
            same_element = other is source and isinstance(op, BinaryOp)
            if other_index != operand and self.of[other] is target and not same_element:
                return f"{name} shares its buffer with operand {other_index}, which this op reads"
        sums = (
            [op.first_post_arg + i for i in op.sum_post_args()]
            if isinstance(op, PostOpAnchor)
            else []
        )
        if sums and operand not in sums:
            return "a sum post-op accumulates another operand into the destination"
        return None

    def concat_refusal(self, op: ConcatOp) -> tuple[list[int], str | None]:
        """The byte offsets of the inputs in the result, and why they may not be written in
        place there (None: they may)."""
        result = memory_type(op, op.result)
        rank = len(result.get_shape())
        shapes = [memory_type(op, v).get_shape() for v in op.inputs]
        elements = concat_offsets(shapes, result.get_shape(), result.layout, int_of(op.axis) % rank)
        if elements is None:
            return [], (
                f"the inputs are not contiguous parts of a {result.layout.name} result: every "
                "outer dimension before the axis must be 1 and blocked offsets block-aligned"
            )
        offsets = [e * result.data_type.itemsize for e in elements]
        seen: set[int] = set()
        for k, value in enumerate(op.inputs):
            target = self.of[value]
            name = f"input {k} ({describe(value)})"
            if memory_type(op, value).layout != result.layout:
                return offsets, f"{name} has layout {memory_type(op, value).layout.name}"
            if target.owner is not Owner.COMPUTED:
                return offsets, f"{name} lives in {target.owner.value}: its producer is not ours"
            if (
                value in target.views
                or memory_type(op, value).nbytes != memory_type(op, target.root).nbytes
            ):
                return offsets, (
                    f"{name} is already part of a larger buffer (a view, or an input of "
                    "another implicit concat)"
                )
            if id(target) in seen:
                return offsets, f"{name} shares its buffer with an earlier input"
            seen.add(id(target))
        return offsets, None

    def slice_refusal(self, op: SliceOp) -> tuple[int, str | None]:
        """The byte offset of the result in the source, and why the slice may not be a view
        (None: it may)."""
        source = memory_type(op, op.src)
        if any(s != 1 for s in ints(op.steps) or ()):
            return 0, "it has steps: the elements are not contiguous"
        starts = ints(op.starts) or []
        element = region_offset(
            source.get_shape(), source.layout, starts, memory_type(op, op.result).get_shape()
        )
        if element is None:
            return 0, f"the window is not a contiguous part of the {source.layout.name} source"
        target = self.of[op.src]
        if target.owner is not Owner.COMPUTED:
            return 0, (f"the source lives in {target.owner.value}, which the runtime binds whole")
        return element * source.data_type.itemsize, None

    def add(self, op: Operation, inplace: list[int] | None = None) -> None:
        """Form the classes of `op`'s results; `inplace` overrides its dnn.inplace entries."""
        position = self.schedule[op]
        if is_view(op):
            self._alias(op.result, op.src, position)
            return
        if isinstance(op, ConcatOp) and IMPLICIT_CONCAT in op.attributes:
            self._add_concat(op, position)
            return
        if isinstance(op, SliceOp) and IMPLICIT_SLICE in op.attributes:
            offset, reason = self.slice_refusal(op)
            if reason is None and _int_attr(op, IMPLICIT_SLICE) == offset:
                self._alias(op.result, op.src, position, offset)
                return
            reason = reason or f"its byte offset must be {offset}"
            self.refusals.append(Refusal(op, IMPLICIT_SLICE, 0, reason))
        owner = Owner.CONSTANT if isinstance(op, ConstantOp | WeightOp) else Owner.COMPUTED
        requests = inplace_requests(op) if inplace is None else inplace
        for index, (result, operand) in enumerate(zip(op.results, requests)):
            if operand >= 0:
                reason = self.inplace_refusal(op, index, operand)
                if reason is None:
                    self._alias(result, op.operands[operand], position)
                    continue
                self.refusals.append(Refusal(op, INPLACE, index, reason))
            self._join(result, BufferClass(result, owner, position, position), position)

    def _add_concat(self, op: ConcatOp, position: int) -> None:
        offsets, reason = self.concat_refusal(op)
        requested = ints(cast(DenseArrayBase, op.attributes[IMPLICIT_CONCAT]))  # verified
        if reason is None and requested != offsets:
            reason = f"the byte offsets must be {offsets}, not {requested}"
        if reason is not None:
            self.refusals.append(Refusal(op, IMPLICIT_CONCAT, 0, reason))
            alone = BufferClass(op.result, Owner.COMPUTED, position, position)
            self._join(op.result, alone, position)
            return
        parts = [self.of[v] for v in op.inputs]
        merged = BufferClass(op.result, Owner.COMPUTED, min(p.start for p in parts), position)
        for part, offset in zip(parts, offsets):
            merged.end = max(merged.end, part.end)
            for member in part.members:
                merged.members.append(member)
                merged.views[member] = offset + part.views.get(member, 0)
                self.of[member] = merged
        self._join(op.result, merged, position)

    def finish(self) -> BufferClasses:
        """The classes, with the result indices at which members are returned."""
        last = self.ops[-1] if self.ops else None
        if isinstance(last, func.ReturnOp):
            for index, value in enumerate(last.operands):
                self.of[value].returned_at.append(index)
        return BufferClasses(self.of, self.schedule, self.refusals)


def _int_attr(op: Operation, name: str) -> int | None:
    attr = op.attributes.get(name)
    return attr.value.data if isinstance(attr, IntegerAttr) else None


def buffer_classes(function: func.FuncOp) -> BufferClasses:
    """Form the alias classes of a function of dnn ops (see the module docstring)."""
    builder = ClassBuilder(function)
    for op in builder.ops:
        builder.add(op)
    return builder.finish()
