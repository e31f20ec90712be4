"""The `onednn` dialect: buffer semantics, one op per primitive execution.

A lowered function takes one `!onednn.memory` argument per caller input followed by one per
result (destination-passing style: the caller's arrays are bound to them, zero copy) and
returns nothing. Intermediate values live in one arena whose size is the function attribute
`onednn.arena_bytes`; `onednn.arena_view` names the bytes at an offset, `onednn.subview` a
contiguous part of a memory (a concat's input written in place). Execution is the
program order of `onednn.primitive` (a oneDNN primitive) and `onednn.reference` (a numpy
reference kernel) ops, each reading its `ins` and writing its `outs` by role name:

    %t = onednn.arena_view 0 : !onednn.memory<1x16x8x8xf32, nhwc>
    onednn.primitive convolution ins(src = %x : !onednn.memory<1x16x8x8xf32>, ...)
                                 outs(dst = %t : !onednn.memory<1x16x8x8xf32, nhwc>) {...}

The trailing dictionary holds the primitive's parameters, named as the `dnn` op properties
of docs/dialect.md (strides, alg, post_ops, ...), which the runtime handlers read.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    IntAttr,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, Dialect, Operation, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    var_operand_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from dnnc.core.kinds import DataType
from dnnc.core.layouts import Layout, LayoutError, parse_layout, plain_layout
from dnnc.dialects.types import data_type_of

ARENA_BYTES = "onednn.arena_bytes"
"""The function attribute of a lowered function: the size of its arena. A function that
has it is in the onednn dialect (dnn passes refuse it; the executor runs it)."""
INPUT_NAMES = "onednn.inputs"
"""The function attribute of a lowered function: the model's name of each input argument."""
OUTPUT_NAMES = "onednn.outputs"
"""The function attribute of a lowered function: the model's name of each output argument."""
GUARDS = "onednn.guards"
"""The function attribute of a lowered function: per input argument, a dictionary from each
special value the executor refuses in it to why (dnn-guard-special-values)."""


def is_lowered(function: Operation) -> bool:
    """Whether `function` has been lowered to the onednn dialect."""
    return ARENA_BYTES in function.attributes


@irdl_attr_definition
class MemoryType(ParametrizedAttribute, TypeAttribute):
    """`!onednn.memory<1x16x8x8xf32, nChw16c>`: a oneDNN memory descriptor (static shape,
    element type, layout; plain when the layout is omitted)."""

    name = "onednn.memory"

    shape: ArrayAttr[IntAttr]
    element_type: Attribute
    layout_tag: StringAttr

    def __init__(self, shape: Sequence[int], element_type: Attribute, layout: Layout | None = None):
        layout = layout or plain_layout(len(shape))
        super().__init__(
            ArrayAttr([IntAttr(d) for d in shape]), element_type, StringAttr(layout.tag)
        )

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            shape, element_type = parser.parse_ranked_shape()
            tag = plain_layout(len(shape)).tag
            if parser.parse_optional_punctuation(",") is not None:
                position = parser.pos
                name = parser.parse_identifier("layout name")
                try:
                    tag = parse_layout(name).tag
                except LayoutError as error:
                    parser.raise_error(str(error), position, parser.pos)
        return (ArrayAttr([IntAttr(d) for d in shape]), element_type, StringAttr(tag))

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_dimension_list(self.get_shape())
            if self.shape.data:
                printer.print_string("x")
            printer.print_attribute(self.element_type)
            if not self.layout.is_plain:
                printer.print_string(f", {self.layout.name}")

    def verify(self) -> None:
        if any(d.data < 0 for d in self.shape.data):
            raise VerifyException(f"{self.name} needs a static shape, got {list(self.get_shape())}")
        data_type_of(self.element_type)
        if parse_layout(self.layout_tag.data).rank != len(self.shape.data):
            raise VerifyException(
                f"layout '{self.layout.name}' has rank {self.layout.rank}, "
                f"the memory has rank {len(self.shape.data)}"
            )

    def get_shape(self) -> tuple[int, ...]:
        return tuple(d.data for d in self.shape.data)

    @property
    def layout(self) -> Layout:
        return parse_layout(self.layout_tag.data)

    @property
    def data_type(self) -> DataType:
        return data_type_of(self.element_type)

    @property
    def nbytes(self) -> int:
        """Bytes of the physical buffer, padding of blocked dimensions included."""
        return self.layout.num_elements(self.get_shape()) * self.data_type.itemsize


@irdl_op_definition
class ArenaViewOp(IRDLOperation):
    """The arena's bytes from `offset` on, seen as a memory of the result type."""

    name = "onednn.arena_view"

    offset = prop_def(IntAttr)
    result = result_def(MemoryType)

    def __init__(self, offset: int, memory_type: MemoryType):
        super().__init__(properties={"offset": IntAttr(offset)}, result_types=[memory_type])

    @classmethod
    def parse(cls, parser: Parser) -> ArenaViewOp:
        offset = parser.parse_integer(allow_boolean=False, allow_negative=False)
        parser.parse_punctuation(":")
        memory_type = parser.parse_type()
        if not isinstance(memory_type, MemoryType):
            parser.raise_error(f"expected !onednn.memory, got {memory_type}")
        return cls(offset, memory_type)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.offset.data} : ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class ReshapeOp(IRDLOperation):
    """The same bytes as `source` seen with another type: another shape (plain layouts),
    or dims permuted (unblocked layouts: a transpose that is a view); equal sizes."""

    name = "onednn.reshape"

    source = operand_def(MemoryType)
    result = result_def(MemoryType)

    assembly_format = "$source attr-dict `:` type($source) `->` type($result)"

    def __init__(self, source: SSAValue, memory_type: MemoryType):
        super().__init__(operands=[source], result_types=[memory_type])

    def verify_(self) -> None:
        source, result = self.source.type, self.result.type
        assert isinstance(source, MemoryType) and isinstance(result, MemoryType)
        if source.layout.is_blocked or result.layout.is_blocked:
            raise VerifyException(f"'{self.name}' op views unblocked layouts only")
        if source.nbytes != result.nbytes or source.element_type != result.element_type:
            raise VerifyException(
                f"'{self.name}' op must keep the element type and the byte size "
                f"({source.nbytes} -> {result.nbytes})"
            )


@irdl_op_definition
class SubviewOp(IRDLOperation):
    """The bytes of `source` from `offset` on, seen as a smaller memory of the result type: a
    contiguous part (one input of an implicit concat, an implicit slice). A write through it
    writes those bytes of `source`; a read of `source` reads what was written through it."""

    name = "onednn.subview"

    source = operand_def(MemoryType)
    offset = prop_def(IntAttr)
    result = result_def(MemoryType)

    def __init__(self, source: SSAValue, offset: int, memory_type: MemoryType):
        super().__init__(
            operands=[source], properties={"offset": IntAttr(offset)}, result_types=[memory_type]
        )

    @classmethod
    def parse(cls, parser: Parser) -> SubviewOp:
        """`%source[offset] : !onednn.memory<...> -> !onednn.memory<...>`"""
        unresolved = parser.parse_unresolved_operand()
        parser.parse_punctuation("[")
        offset = parser.parse_integer(allow_boolean=False, allow_negative=False)
        parser.parse_punctuation("]")
        parser.parse_punctuation(":")
        source = parser.resolve_operand(unresolved, parser.parse_type())
        parser.parse_punctuation("->")
        memory_type = parser.parse_type()
        if not isinstance(memory_type, MemoryType):
            parser.raise_error(f"expected !onednn.memory, got {memory_type}")
        return cls(source, offset, memory_type)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        printer.print_string(f"[{self.offset.data}] : ")
        printer.print_attribute(self.source.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        source, result = self.source.type, self.result.type
        assert isinstance(source, MemoryType) and isinstance(result, MemoryType)
        offset = self.offset.data
        if source.element_type != result.element_type:
            raise VerifyException("must keep the element type")
        if (
            offset < 0
            or offset % result.data_type.itemsize
            or offset + result.nbytes > source.nbytes
        ):
            raise VerifyException(
                f"bytes [{offset}, {offset + result.nbytes}) are not whole "
                f"elements inside the {source.nbytes} bytes of the source"
            )


@irdl_op_definition
class ConstantOp(IRDLOperation):
    """The data of a `dnn.constant` / `dnn.weight` tensor as a read-only memory; when the
    memory's layout differs from plain, the runtime packs it once at plan build."""

    name = "onednn.constant"

    tensor = operand_def(TensorType)
    result = result_def(MemoryType)

    assembly_format = "$tensor attr-dict `:` type($tensor) `->` type($result)"

    def __init__(self, tensor: SSAValue, memory_type: MemoryType):
        super().__init__(operands=[tensor], result_types=[memory_type])

    def verify_(self) -> None:
        tensor, memory = self.tensor.type, self.result.type
        assert isinstance(tensor, TensorType) and isinstance(memory, MemoryType)
        if tensor.get_shape() != memory.get_shape() or tensor.element_type != memory.element_type:
            raise VerifyException(
                f"'{self.name}' op memory {memory} does not hold the tensor {tensor}"
            )


class KernelCallOp(IRDLOperation):
    """Shared form of the two execution ops: `<kind> ins(role = %v : T, ...)
    outs(role = %v : T, ...) {params}`. Reads happen before writes, so one value may be in
    both lists (an in-place execution)."""

    kind = prop_def(StringAttr)
    in_roles = prop_def(ArrayAttr[StringAttr])
    out_roles = prop_def(ArrayAttr[StringAttr])
    params = prop_def(DictionaryAttr)
    ins = var_operand_def(MemoryType)
    outs = var_operand_def(MemoryType)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(
        self,
        kind: str,
        ins: Sequence[tuple[str, SSAValue]],
        outs: Sequence[tuple[str, SSAValue]],
        params: dict[str, Attribute] | None = None,
    ):
        super().__init__(
            operands=[[v for _, v in ins], [v for _, v in outs]],
            properties={
                "kind": StringAttr(kind),
                "in_roles": ArrayAttr([StringAttr(r) for r, _ in ins]),
                "out_roles": ArrayAttr([StringAttr(r) for r, _ in outs]),
                "params": DictionaryAttr(params or {}),
            },
        )

    @classmethod
    def parse(cls, parser: Parser) -> KernelCallOp:
        kind = parser.parse_identifier("kernel kind")
        parser.parse_keyword("ins")
        ins = cls._parse_bindings(parser)
        parser.parse_keyword("outs")
        outs = cls._parse_bindings(parser)
        params = parser.parse_optional_attr_dict()
        return cls(kind, ins, outs, params)

    @staticmethod
    def _parse_bindings(parser: Parser) -> list[tuple[str, SSAValue]]:
        def binding() -> tuple[str, SSAValue]:
            role = parser.parse_identifier("role name")
            parser.parse_punctuation("=")
            unresolved = parser.parse_unresolved_operand()
            parser.parse_punctuation(":")
            return role, parser.resolve_operand(unresolved, parser.parse_type())

        return parser.parse_comma_separated_list(parser.Delimiter.PAREN, binding)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.data} ins")
        self._print_bindings(printer, self.in_roles, self.ins)
        printer.print_string(" outs")
        self._print_bindings(printer, self.out_roles, self.outs)
        if self.params.data:
            printer.print_string(" ")
            printer.print_attr_dict(self.params.data)

    @staticmethod
    def _print_bindings(
        printer: Printer, roles: ArrayAttr[StringAttr], values: Sequence[SSAValue]
    ) -> None:
        printer.print_string("(")
        for i, (role, value) in enumerate(zip(roles.data, values, strict=True)):
            if i:
                printer.print_string(", ")
            printer.print_string(f"{role.data} = ")
            printer.print_operand(value)
            printer.print_string(" : ")
            printer.print_attribute(value.type)
        printer.print_string(")")

    def verify_(self) -> None:
        for roles, values, what in (
            (self.in_roles, self.ins, "ins"),
            (self.out_roles, self.outs, "outs"),
        ):
            names = [r.data for r in roles.data]
            if len(names) != len(values):
                raise VerifyException(
                    f"'{self.name}' op has {len(values)} {what} but {len(names)} role names"
                )
            if len(set(names)) != len(names):
                raise VerifyException(f"'{self.name}' op repeats a role in {what}: {names}")
        if not self.outs:
            raise VerifyException(f"'{self.name}' op writes nothing: it needs at least one out")


@irdl_op_definition
class PrimitiveOp(KernelCallOp):
    """One execution of a oneDNN primitive of `kind` (convolution, matmul, reorder, ...)."""

    name = "onednn.primitive"


@irdl_op_definition
class ReferenceOp(KernelCallOp):
    """One call of the numpy reference kernel named `kind`, for ops oneDNN lacks (top_k)."""

    name = "onednn.reference"


ONEDNN = Dialect(
    "onednn",
    [ArenaViewOp, ReshapeOp, SubviewOp, ConstantOp, PrimitiveOp, ReferenceOp],
    [MemoryType],
)
