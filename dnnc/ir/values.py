"""Attributes as the plain Python values kernels, primitive builders and handlers take."""

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    FloatAttr,
    FloatData,
    IntAttr,
    IntegerAttr,
    StringAttr,
    i1,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute

from dnnc.core.diagnostics import DnncError
from dnnc.dialects.dnn import PostOpAttr


def attribute_value(attr: Attribute) -> object:
    """A property or parameter attribute as the plain Python value kernels and handlers take:
    ints, floats, bools, strings (enums as their StrEnum), lists, kinds.PostOp values."""
    if isinstance(attr, PostOpAttr):
        return attr.post_op
    if isinstance(attr, EnumAttribute):
        return attr.data
    if isinstance(attr, IntegerAttr):
        return bool(attr.value.data) if attr.type == i1 else attr.value.data
    if isinstance(attr, FloatAttr):
        return attr.value.data
    if isinstance(attr, (IntAttr, FloatData, StringAttr)):
        return attr.data
    if isinstance(attr, DenseArrayBase):
        return list(attr.get_values())
    if isinstance(attr, ArrayAttr):
        return [attribute_value(a) for a in attr.data]
    raise DnncError(f"no Python value for the attribute {attr}")
