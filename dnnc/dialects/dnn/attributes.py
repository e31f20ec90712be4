"""Attributes of the dnn dialect: enums, layouts, post-ops and kernel types.

The enums wrap the StrEnums of dnnc.core.kinds and print bare (``relu``); generic form spells them
``#dnn<eltwise_alg relu>``. A layout is ``#dnn.layout<nChw16c>`` (any oneDNN format tag or
alias, printed as its conventional name so that equal layouts are equal attributes). Post-ops
are ``#dnn.eltwise<clip, 0.0, 6.0>``, ``#dnn.binary<add>`` and ``#dnn.sum<1.0>``, each with a
``post_op`` property giving the dnnc.core.kinds dataclass. ``#dnn.kernel<onednn, f32>`` records the
library and compute data type a pass chose for an op.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

from xdsl.dialects.builtin import FloatData, IntAttr, StringAttr
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, ParametrizedAttribute, SpacedOpaqueSyntaxAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from dnnc.core.kinds import (
    BinaryAlg,
    BinaryPostOp,
    CompareAlg,
    DataType,
    EltwiseAlg,
    EltwisePostOp,
    LogicalAlg,
    LrnKind,
    PoolKind,
    PostOp,
    ReduceKind,
    SumPostOp,
)
from dnnc.core.layouts import Layout, LayoutError, parse_layout, valid_layouts_hint


class KernelLibrary(StrEnum):
    """Who runs an op: a oneDNN primitive or dnnc's numpy reference kernel."""

    ONEDNN = "onednn"
    REFERENCE = "reference"


@irdl_attr_definition
class EltwiseAlgAttr(EnumAttribute[EltwiseAlg], SpacedOpaqueSyntaxAttribute):
    """An element-wise algorithm (``relu``)."""

    name = "dnn.eltwise_alg"


@irdl_attr_definition
class BinaryAlgAttr(EnumAttribute[BinaryAlg], SpacedOpaqueSyntaxAttribute):
    """A binary algorithm (``add``)."""

    name = "dnn.binary_alg"


@irdl_attr_definition
class CompareAlgAttr(EnumAttribute[CompareAlg], SpacedOpaqueSyntaxAttribute):
    """A comparison (``lt``)."""

    name = "dnn.compare_alg"


@irdl_attr_definition
class LogicalAlgAttr(EnumAttribute[LogicalAlg], SpacedOpaqueSyntaxAttribute):
    """A logical operation on booleans (``and``)."""

    name = "dnn.logical_alg"


@irdl_attr_definition
class PoolKindAttr(EnumAttribute[PoolKind], SpacedOpaqueSyntaxAttribute):
    """A pooling kind (``max``, ``avg_include_pad``, ``avg_exclude_pad``)."""

    name = "dnn.pool_kind"


@irdl_attr_definition
class ReduceKindAttr(EnumAttribute[ReduceKind], SpacedOpaqueSyntaxAttribute):
    """A reduction kind (``sum``, ``mean``, ``max``, ``min``, ``mul``)."""

    name = "dnn.reduce_kind"


@irdl_attr_definition
class LrnKindAttr(EnumAttribute[LrnKind], SpacedOpaqueSyntaxAttribute):
    """An LRN kind (``across_channels``, ``within_channel``)."""

    name = "dnn.lrn_kind"


@irdl_attr_definition
class DataTypeAttr(EnumAttribute[DataType], SpacedOpaqueSyntaxAttribute):
    """A data type in oneDNN's spelling (``f32``, ``s8``)."""

    name = "dnn.data_type"


@irdl_attr_definition
class KernelLibraryAttr(EnumAttribute[KernelLibrary], SpacedOpaqueSyntaxAttribute):
    """A kernel library (``onednn``, ``reference``)."""

    name = "dnn.kernel_library"


@irdl_attr_definition
class LayoutAttr(ParametrizedAttribute):
    """A tensor type's memory layout: ``tensor<1x64x56x56xf32, #dnn.layout<nChw16c>>``.

    The parameter is the layout's conventional name (``Layout.name``), so ``aBcd16b`` and
    ``nChw16c`` parse to the same attribute.
    """

    name = "dnn.layout"
    tag: StringAttr

    def __init__(self, layout: Layout | str):
        if isinstance(layout, str):
            layout = parse_layout(layout)
        super().__init__(StringAttr(layout.name))

    @property
    def layout(self) -> Layout:
        """The parsed format tag."""
        return parse_layout(self.tag.data)

    def verify(self) -> None:
        try:
            layout = parse_layout(self.tag.data)
        except LayoutError as error:
            raise VerifyException(f"#dnn.layout: {error}") from error
        if layout.name != self.tag.data:
            raise VerifyException(f"#dnn.layout: '{self.tag.data}' must be spelled '{layout.name}'")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            start = parser.pos
            text = parser.parse_optional_identifier()
            if text is None:
                parser.raise_error(f"expected a layout: {valid_layouts_hint()}", start, parser.pos)
            try:
                layout = parse_layout(text)
            except LayoutError as error:
                parser.raise_error(str(error), start, parser.pos)
        return (StringAttr(layout.name),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.tag.data}>")


def _parse_number(parser: AttrParser) -> FloatData:
    """A post-op's number as it prints (``repr``): a literal, or ``inf``, ``-inf``, ``nan``
    (a Clip without a lower bound imports as clip(-inf, max))."""
    negative = parser.parse_optional_punctuation("-") is not None
    word = parser.parse_optional_keyword_in(("inf", "nan"))
    value = float(word) if word is not None else float(parser.parse_number())
    return FloatData(-value if negative else value)


class PostOpAttr(ParametrizedAttribute, ABC):
    """Base of the post-op attributes; ``post_op`` is the dnnc.core.kinds description."""

    @property
    @abstractmethod
    def post_op(self) -> PostOp:
        """The post-op as the reference kernels and the runtime describe it."""


@irdl_attr_definition
class EltwisePostOpAttr(PostOpAttr):
    """``#dnn.eltwise<alg[, alpha[, beta]]>``: d = eltwise(d); alpha and beta default to 0."""

    name = "dnn.eltwise"
    alg: EltwiseAlgAttr
    alpha: FloatData
    beta: FloatData

    def __init__(self, post_op: EltwisePostOp):
        super().__init__(
            EltwiseAlgAttr(post_op.alg), FloatData(post_op.alpha), FloatData(post_op.beta)
        )

    @property
    def post_op(self) -> EltwisePostOp:
        return EltwisePostOp(self.alg.data, self.alpha.data, self.beta.data)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            alg = EltwiseAlgAttr(EltwiseAlgAttr.parse_parameter(parser))
            alpha = (
                _parse_number(parser) if parser.parse_optional_punctuation(",") else FloatData(0.0)
            )
            beta = (
                _parse_number(parser) if parser.parse_optional_punctuation(",") else FloatData(0.0)
            )
        return (alg, alpha, beta)

    def print_parameters(self, printer: Printer) -> None:
        numbers = [self.alpha.data, self.beta.data]
        while numbers and numbers[-1] == 0.0:
            numbers.pop()
        printer.print_string(f"<{', '.join([self.alg.data.value, *map(repr, numbers)])}>")


@irdl_attr_definition
class BinaryPostOpAttr(PostOpAttr):
    """``#dnn.binary<alg>``: d = d <alg> p, p the next post-op argument."""

    name = "dnn.binary"
    alg: BinaryAlgAttr

    def __init__(self, post_op: BinaryPostOp):
        super().__init__(BinaryAlgAttr(post_op.alg))

    @property
    def post_op(self) -> BinaryPostOp:
        return BinaryPostOp(self.alg.data)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            return (BinaryAlgAttr(BinaryAlgAttr.parse_parameter(parser)),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.alg.data.value}>")


@irdl_attr_definition
class SumPostOpAttr(PostOpAttr):
    """``#dnn.sum<scale[, zero_point]>``: d = d + scale * (p - zero_point), p the next
    post-op argument (the zero point, 0 when not written, of an int8 p)."""

    name = "dnn.sum"
    scale: FloatData
    zero_point: IntAttr

    def __init__(self, post_op: SumPostOp):
        super().__init__(FloatData(post_op.scale), IntAttr(post_op.zero_point))

    @property
    def post_op(self) -> SumPostOp:
        return SumPostOp(self.scale.data, self.zero_point.data)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            scale = _parse_number(parser)
            zero_point = parser.parse_integer() if parser.parse_optional_punctuation(",") else 0
            return (scale, IntAttr(zero_point))

    def print_parameters(self, printer: Printer) -> None:
        zero_point = f", {self.zero_point.data}" if self.zero_point.data else ""
        printer.print_string(f"<{self.scale.data!r}{zero_point}>")


def post_op_attr(post_op: PostOp) -> PostOpAttr:
    """The dialect attribute of a post-op description."""
    if isinstance(post_op, EltwisePostOp):
        return EltwisePostOpAttr(post_op)
    if isinstance(post_op, BinaryPostOp):
        return BinaryPostOpAttr(post_op)
    return SumPostOpAttr(post_op)


@irdl_attr_definition
class KernelAttr(ParametrizedAttribute):
    """``#dnn.kernel<library, data_type>``: what a pass decided an op runs with.

    Ops carry it as the discardable attribute ``dnn.kernel`` (``kernel`` alone would be taken
    for dnn.pool's window property).
    """

    name = "dnn.kernel"
    library: KernelLibraryAttr
    data_type: DataTypeAttr

    def __init__(self, library: KernelLibrary, data_type: DataType):
        super().__init__(KernelLibraryAttr(library), DataTypeAttr(data_type))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            library = KernelLibraryAttr(KernelLibraryAttr.parse_parameter(parser))
            parser.parse_punctuation(",")
            data_type = DataTypeAttr(DataTypeAttr.parse_parameter(parser))
        return (library, data_type)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.library.data.value}, {self.data_type.data.value}>")


ATTRIBUTES: tuple[type[Attribute], ...] = (
    EltwiseAlgAttr,
    BinaryAlgAttr,
    CompareAlgAttr,
    LogicalAlgAttr,
    PoolKindAttr,
    ReduceKindAttr,
    LrnKindAttr,
    DataTypeAttr,
    KernelLibraryAttr,
    LayoutAttr,
    EltwisePostOpAttr,
    BinaryPostOpAttr,
    SumPostOpAttr,
    KernelAttr,
)
"""Every attribute the dialect registers."""
