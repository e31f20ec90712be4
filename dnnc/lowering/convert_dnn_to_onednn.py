"""convert-dnn-to-onednn: turn a planned dnn function into the onednn runtime dialect.

Rule: func.func @f(%x: tensor<A>) -> tensor<B> { dnn ops; func.return %y }   [planned]
      ==> func.func @f(%x: !onednn.memory<A>, %result0: !onednn.memory<B>)
              attributes {onednn.arena_bytes = N, onednn.inputs = ["x"],
                          onednn.outputs = ["result0"], onednn.guards = [{...}]}
              { ...; func.return }
      Each tensor value becomes a memory: arguments stay arguments; `dnn.constant` /
      `dnn.weight` stay (they hold the data) wrapped by `onednn.constant`; a value with arena
      offset k is `onednn.arena_view k`; a class written into a caller's output array is that
      result argument; `dnn.reshape` is `onednn.reshape`; an in-place result is its operand's
      memory. A class with views (an implicit concat) gets its whole buffer as an arena view
      when its first member is defined, each view `onednn.subview` of it at its byte offset;
      an implicit concat then runs nothing (its result is that buffer) and an implicit slice
      is a `onednn.subview` of its source. Every other dnn op is one `onednn.primitive` or
      `onednn.reference` call
      (dnnc.target.kernel_calls). Copies (reorder primitives) fill a result that is not
      written directly (an argument, a constant, a class returned twice) and the destination
      of a `#dnn.sum` post-op that does not already share its argument's buffer.
      `dnn.special_value_guards` becomes `onednn.guards` (one dictionary per input).
Pre:  dnn-plan-memory ran (`dnn.arena_bytes`, `dnn.arena_offsets`) and
      dnn-guard-special-values (`dnn.special_value_guards`); static tensor types.
Post: no dnn op but constants and weights; onednn-verify-buffers accepts the function.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, FunctionType, ModuleOp, StringAttr
from xdsl.ir import Block, Operation, OpResult, SSAValue
from xdsl.passes import ModulePass

from dnnc.core.diagnostics import error_at
from dnnc.dialects.dnn import (
    ConcatOp,
    ConstantOp,
    DnnOp,
    ReduceOp,
    SliceOp,
    WeightOp,
    is_view,
)
from dnnc.dialects.dnn.base import PostOpAnchor, ints
from dnnc.dialects.onednn import ARENA_BYTES as LOWERED_ARENA_BYTES
from dnnc.dialects.onednn import (
    GUARDS,
    INPUT_NAMES,
    OUTPUT_NAMES,
    ArenaViewOp,
    MemoryType,
    PrimitiveOp,
    ReferenceOp,
    SubviewOp,
)
from dnnc.dialects.onednn import ConstantOp as MemoryConstantOp
from dnnc.dialects.onednn import ReshapeOp as MemoryReshapeOp
from dnnc.ir.decisions import (
    ARENA_BYTES,
    ARENA_OFFSETS,
    IMPLICIT_CONCAT,
    IMPLICIT_SLICE,
    LOWER_BOUND_BYTES,
    SPECIAL_VALUE_GUARDS,
    inplace_requests,
)
from dnnc.ir.names import input_names, output_names
from dnnc.ir.weights import release_payload
from dnnc.passes.buffer_classes import (
    BufferClass,
    BufferClasses,
    buffer_classes,
    memory_type,
)
from dnnc.passes.functions import dnn_functions
from dnnc.target.kernel_calls import KernelCall, kernel_call, params_of


class _FunctionLowering:
    """The new body of one function, built op by op in program order."""

    def __init__(self, function: func.FuncOp, classes: BufferClasses) -> None:
        self.function = function
        self.classes = classes
        inputs = [memory_type(function, a) for a in function.body.block.args]
        terminator = function.body.block.last_op
        assert terminator is not None  # a verified function ends in its func.return
        self.returned = list(terminator.operands)
        outputs = [memory_type(function, v) for v in self.returned]
        self.block = Block(arg_types=[*inputs, *outputs])
        self.outputs = self.block.args[len(inputs) :]
        self.memories: dict[SSAValue, SSAValue] = {}
        self.whole: dict[int, SSAValue] = {}
        """The whole buffer of each class with views, by id, once a member needs it."""
        for old, new in zip(function.body.block.args, self.block.args):
            new.name_hint = old.name_hint
            self.memories[old] = new
        for index, output in enumerate(self.outputs):
            output.name_hint = f"result{index}"

    def add(self, op: Operation, origin: Operation) -> Operation:
        op.location = origin.location
        self.block.add_op(op)
        return op

    def copy(self, src: SSAValue, dst: SSAValue, origin: Operation) -> None:
        """dst := src: oneDNN's reorder, or the reference one for types oneDNN lacks."""
        assert isinstance(src.type, MemoryType)  # the lowering's memories
        kernel = PrimitiveOp if src.type.data_type.is_onednn else ReferenceOp
        self.add(kernel("reorder", [("src", src)], [("dst", dst)]), origin)

    def view(self, memory: SSAValue, type_: MemoryType, origin: Operation) -> SSAValue:
        """`memory` seen as `type_` (itself, or an onednn.reshape of it)."""
        if memory.type == type_:
            return memory
        return self.add(MemoryReshapeOp(memory, type_), origin).results[0]

    def whole_buffer(self, buffer: BufferClass, origin: Operation) -> SSAValue:
        """The arena view of a class with views, at its root's offset and type."""
        if id(buffer) not in self.whole:
            root = buffer.root
            assert isinstance(root, OpResult)  # classes with views are computed
            offset = _offsets(root.owner)[root.index]
            view = ArenaViewOp(offset, memory_type(root.owner, root))
            self.whole[id(buffer)] = self.add(view, origin).results[0]
        return self.whole[id(buffer)]

    def part(self, buffer: BufferClass, value: SSAValue, origin: Operation) -> SSAValue:
        """The memory of a member of a class with views: its subview, or the whole buffer."""
        whole = self.whole_buffer(buffer, origin)
        if value not in buffer.views:
            return whole
        view = SubviewOp(whole, buffer.views[value], memory_type(origin, value))
        return self.add(view, origin).results[0]

    def define(self, op: Operation, index: int) -> SSAValue:
        """The memory a result of `op` is written into."""
        result = op.results[index]
        buffer = self.classes.of[result]
        operand = inplace_requests(op)[index]
        if operand >= 0:  # in place: the planner checked the types are equal
            memory = self.memories[op.operands[operand]]
        elif result in buffer.views:
            memory = self.part(buffer, result, op)
        else:
            offset = _offsets(op)[index]
            if offset >= 0:
                memory = self.add(ArenaViewOp(offset, memory_type(op, result)), op).results[0]
            elif buffer.output is not None:
                memory = self.view(self.outputs[buffer.output], memory_type(op, result), op)
            else:
                raise error_at(op, f"result {index} has no buffer in the plan: run dnn-plan-memory")
        self.memories[result] = memory
        return memory

    def lower(self, op: Operation) -> None:
        if isinstance(op, ConstantOp | WeightOp):
            data = self.add(op.clone(), op)
            data.attributes.pop(ARENA_OFFSETS)
            constant = MemoryConstantOp(data.results[0], memory_type(op, op.results[0]))
            self.memories[op.results[0]] = self.add(constant, op).results[0]
        elif is_view(op):
            view = MemoryReshapeOp(self.memories[op.src], memory_type(op, op.result))
            self.memories[op.result] = self.add(view, op).results[0]
        elif isinstance(op, ConcatOp) and IMPLICIT_CONCAT in op.attributes:
            self.memories[op.result] = self.part(self.classes.of[op.result], op.result, op)
        elif isinstance(op, SliceOp) and IMPLICIT_SLICE in op.attributes:
            buffer = self.classes.of[op.result]
            offset = buffer.views[op.result] - buffer.views.get(op.src, 0)
            subview = SubviewOp(self.memories[op.src], offset, memory_type(op, op.result))
            self.memories[op.result] = self.add(subview, op).results[0]
        elif isinstance(op, DnnOp):
            self.call(op, kernel_call(op))
        elif isinstance(op, func.ReturnOp):
            self.finish(op)
        else:
            raise error_at(op, "is not a dnn op: convert-dnn-to-onednn lowers dnn functions only")

    def call(self, op: DnnOp, call: KernelCall) -> None:
        ins: list[tuple[str, SSAValue]] = []
        for role, operand in call.ins:
            value = getattr(op, operand)
            if isinstance(value, SSAValue):
                ins.append((role, self.memories[value]))
            elif value is not None:
                ins.extend((f"{role}{i}", self.memories[v]) for i, v in enumerate(value))
        outs = [(role, self.define(op, i)) for i, role in enumerate(call.outs)]
        dst = outs[0][1]
        for index in op.sum_post_args() if isinstance(op, PostOpAnchor) else []:
            role = f"post_arg_{index}"
            position = [r for r, _ in ins].index(role)
            if ins[position][1] is not dst:
                self.copy(ins[position][1], dst, op)  # oneDNN accumulates into dst
            ins[position] = (role, dst)
        if isinstance(op, ReduceOp) and not op.keep_dims.value.data:
            outs[0] = ("dst", self.view(dst, _keep_dims_type(op), op))
        if call.reference:
            _check_plain(op, [*ins, *outs])
        kernel = ReferenceOp if call.reference else PrimitiveOp
        self.add(kernel(call.kind, ins, outs, params_of(op, call)), op)

    def finish(self, op: func.ReturnOp) -> None:
        """Copy each result not written in place into its array; return nothing."""
        for index, value in enumerate(op.operands):
            if self.classes.of[value].output != index:
                self.copy(self.memories[value], self.outputs[index], op)
        self.add(func.ReturnOp(), op)


def _offsets(op: Operation) -> list[int]:
    attr = op.attributes.get(ARENA_OFFSETS)
    offsets = ints(attr) if isinstance(attr, DenseArrayBase) else None
    if offsets is None or len(offsets) != len(op.results):
        raise error_at(op, f"has no {ARENA_OFFSETS} (one per result): run dnn-plan-memory")
    return offsets


def _keep_dims_type(op: ReduceOp) -> MemoryType:
    """The memory of a reduction's result with the reduced axes kept as 1."""
    src = memory_type(op, op.src)
    rank = len(src.get_shape())
    axes = {a % rank for a in ints(op.axes) or ()}
    shape = [1 if d in axes else n for d, n in enumerate(src.get_shape())]
    return MemoryType(shape, src.element_type)


def _check_plain(op: Operation, bindings: list[tuple[str, SSAValue]]) -> None:
    """Reference kernels read and write plain (row-major) memories only."""
    for role, memory in bindings:
        assert isinstance(memory.type, MemoryType)
        if not memory.type.layout.is_plain:
            raise error_at(
                op,
                f"runs a reference kernel, which needs plain layouts, but {role} has layout "
                f"{memory.type.layout.name} (dnn.reorder it to plain first)",
            )


def lower_function(function: func.FuncOp) -> None:
    """Replace a planned dnn function's body and signature by their onednn form."""
    name = function.sym_name.data
    if ARENA_BYTES not in function.attributes:
        raise error_at(function, f"@{name} has no memory plan: run dnn-plan-memory first")
    classes = buffer_classes(function)
    if classes.refusals:
        refusal = classes.refusals[0]
        raise error_at(
            refusal.op, f"has an unplanned dnn.inplace ({refusal.reason}): run dnn-plan-memory"
        )
    if SPECIAL_VALUE_GUARDS not in function.attributes:
        raise error_at(
            function,
            f"@{name} has no {SPECIAL_VALUE_GUARDS}: run dnn-guard-special-values first",
        )
    inputs, outputs = input_names(function), output_names(function)
    lowering = _FunctionLowering(function, classes)
    for op in function.body.block.ops:
        lowering.lower(op)
    old = function.body.detach_block(function.body.block)
    function.body.add_block(lowering.block)
    for op in old.ops:
        if isinstance(op, ConstantOp):
            release_payload(op)  # its clone holds the same data, which nothing else should
    old.erase(safe_erase=False)
    types = [a.type for a in lowering.block.args]
    function.function_type = FunctionType.from_lists(types, [])
    function.arg_attrs = function.res_attrs = None  # stale: the signature is new
    attributes = function.attributes
    attributes[LOWERED_ARENA_BYTES] = attributes.pop(ARENA_BYTES)
    attributes.pop(LOWER_BOUND_BYTES, None)
    attributes[INPUT_NAMES] = ArrayAttr([StringAttr(n) for n in inputs])
    attributes[OUTPUT_NAMES] = ArrayAttr([StringAttr(n) for n in outputs])
    attributes[GUARDS] = attributes.pop(SPECIAL_VALUE_GUARDS)


@dataclass(frozen=True)
class ConvertDnnToOnednnPass(ModulePass):
    """Lower every function of dnn ops (see the module docstring)."""

    name = "convert-dnn-to-onednn"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in dnn_functions(op):
            lower_function(function)
