"""Alias classes of a dnn function: which tensor values share one buffer, and who owns it.

Shared by dnn-plan-memory (which places the classes) and convert-dnn-to-onednn (which
materializes them), so both read the function the same way. The schedule is program order.
A value starts a class of its own, except:
- a `dnn.reshape` result joins its source's class (a view of the same plain bytes);
- a result named by the op's `dnn.inplace = array<i64: k, ...>` attribute (one entry per
  result: the operand whose buffer the result takes, or -1) joins operand k's class, when the
  request is safe (see `_inplace_refusal`); a refused request is reported, not honoured.
A class is owned by the caller (it holds a function argument), by constant storage (it holds
a `dnn.constant` / `dnn.weight` result), or is computed. A computed class holding a returned
value is written straight into the caller's output array of the first result it is returned
as (`BufferClass.output`); every other returned value is copied into its output array.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from xdsl.dialects import func
from xdsl.dialects.builtin import DenseArrayBase, TensorType
from xdsl.ir import Operation, SSAValue

from dnnc.diagnostics import error_at
from dnnc.dialects.dnn import ConstantOp, DnnOp, ReshapeOp, SumPostOpAttr, WeightOp, layout_of
from dnnc.dialects.dnn.base import ints
from dnnc.dialects.onednn import MemoryType
from dnnc.kinds import takes_argument

INPLACE = "dnn.inplace"
"""The in-place request attribute (written by the in-place pass)."""


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

    @property
    def output(self) -> int | None:
        """The result whose caller array holds this class (None: arena, argument or constant)."""
        if self.owner is Owner.COMPUTED and self.returned_at:
            return self.returned_at[0]
        return None


@dataclass(frozen=True)
class Refusal:
    """An in-place request that was not honoured, and why."""

    op: Operation
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


def is_dnn_function(function: func.FuncOp) -> bool:
    """Whether a function is one the lowering handles: it holds dnn ops or passes tensors."""
    signature = [*function.function_type.inputs, *function.function_type.outputs]
    return any(isinstance(t, TensorType) for t in signature) or any(
        isinstance(op, DnnOp) for op in function.body.ops
    )


def inplace_requests(op: Operation) -> list[int]:
    """The `dnn.inplace` entries of an op (all -1 when absent); an error if malformed."""
    attr = op.attributes.get(INPLACE)
    if attr is None:
        return [-1] * len(op.results)
    entries = ints(attr) if isinstance(attr, DenseArrayBase) else None
    if entries is None or len(entries) != len(op.results):
        raise error_at(op, f"{INPLACE} must be an array<i64> with one entry per result")
    if any(not -1 <= k < len(op.operands) for k in entries):
        raise error_at(op, f"{INPLACE} entries must be -1 or an operand index, got {entries}")
    return entries


def sum_post_args(op: Operation) -> list[int]:
    """Indices in `post_args` of the arguments of `#dnn.sum` post-ops (dst accumulates them)."""
    post_ops = getattr(op, "post_ops", None)
    if post_ops is None:
        return []
    with_args = [p for p in post_ops.data if takes_argument(p.post_op)]
    return [i for i, p in enumerate(with_args) if isinstance(p, SumPostOpAttr)]


def _inplace_refusal(
    op: Operation, result: SSAValue, operand: int, target: BufferClass, position: int
) -> str | None:
    """Why `result` may not take the buffer of `op.operands[operand]` (None: it may)."""
    source = op.operands[operand]
    if target.owner is not Owner.COMPUTED:
        return f"operand {operand} lives in {target.owner.value}, which is read-only"
    if source.type != result.type:
        return f"operand {operand} has type {source.type}, the result {result.type}"
    if target.end > position:
        return f"operand {operand}'s buffer is still read after this op"
    first_post_arg = len(op.operands) - len(getattr(op, "post_args", ()))
    sums = [first_post_arg + i for i in sum_post_args(op)]
    if sums and operand not in sums:
        return "a sum post-op accumulates another operand into the destination"
    return None


def buffer_classes(function: func.FuncOp) -> BufferClasses:
    """Form the alias classes of a function of dnn ops (see the module docstring)."""
    ops = list(function.body.block.ops)
    schedule = {op: i for i, op in enumerate(ops)}
    last_use: dict[SSAValue, int] = {}
    for op in ops:
        for operand in op.operands:
            last_use[operand] = schedule[op]
    classes: dict[SSAValue, BufferClass] = {}
    refusals: list[Refusal] = []

    def join(value: SSAValue, target: BufferClass, position: int) -> None:
        target.members.append(value)
        target.end = max(target.end, position, last_use.get(value, position))
        classes[value] = target

    for arg in function.body.block.args:
        join(arg, BufferClass(arg, Owner.ARGUMENT, -1, -1), -1)
    for position, op in enumerate(ops):
        if isinstance(op, ReshapeOp):
            join(op.result, classes[op.src], position)
            continue
        owner = Owner.CONSTANT if isinstance(op, ConstantOp | WeightOp) else Owner.COMPUTED
        for index, (result, operand) in enumerate(zip(op.results, inplace_requests(op))):
            if operand >= 0:
                target = classes[op.operands[operand]]
                reason = _inplace_refusal(op, result, operand, target, position)
                if reason is None:
                    join(result, target, position)
                    continue
                refusals.append(Refusal(op, index, reason))
            join(result, BufferClass(result, owner, position, position), position)
    returned = ops[-1].operands if ops and isinstance(ops[-1], func.ReturnOp) else ()
    for index, value in enumerate(returned):
        classes[value].returned_at.append(index)
    return BufferClasses(classes, schedule, refusals)
