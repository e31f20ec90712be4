"""Data transforms as the layout passes build and count them.

A tensor type with another element type or layout, a new dnn.reorder or dnn.cast with its
kernel, the bytes a reorder moves, and the transforms a function runs (dnn-assign-layouts,
dnn-insert-data-transforms, dnn-remove-redundant-reorders, dnn-transpose-as-view)."""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, Block, Operation, SSAValue

from dnnc.core.layouts import Layout
from dnnc.dialects.dnn import (
    CastOp,
    ConstantOp,
    KernelAttr,
    KernelLibrary,
    ReorderOp,
    WeightOp,
    is_view,
    layout_of,
)
from dnnc.dialects.dnn.base import tensor_type
from dnnc.dialects.types import data_type_of
from dnnc.target.kernel_table import KERNEL


def retyped(
    type_: TensorType, element: Attribute | None = None, encoding: Attribute | None = None
) -> TensorType:
    """`type_` with another element type and/or encoding (layout); `type_` itself when
    neither differs (a new type is a verified attribute: the layout passes ask for thousands)."""
    element = type_.get_element_type() if element is None else element
    encoding = type_.encoding if encoding is None else encoding
    if element == type_.get_element_type() and encoding == type_.encoding:
        return type_
    return TensorType(element, type_.get_shape(), encoding)


def transform_stats(block: Block) -> tuple[int, int, int]:
    """(reorders, bytes they move, casts) run at every execution of `block`; reorders of
    constants (the executor packs them once) and views (dnn.is_view) are left out."""
    reorders = moved = casts = 0
    for op in block.ops:
        if isinstance(op, ReorderOp) and not (
            is_view(op) or isinstance(op.src.owner, ConstantOp | WeightOp)
        ):
            reorders += 1
            src, dst = layout_of(tensor_type(op.src)), layout_of(tensor_type(op.result))
            moved += moved_bytes(op.src, src, dst)
        elif isinstance(op, CastOp):
            casts += 1
    return reorders, moved, casts


def moved_bytes(value: SSAValue, src: Layout, dst: Layout) -> int:
    """Bytes a reorder of `value` from `src` to `dst` reads and writes (0 if they place its
    bytes alike: the reorder is a view)."""
    type_ = tensor_type(value)
    shape = tuple(type_.get_shape())
    if src.same_bytes(dst, shape):
        return 0
    itemsize = data_type_of(type_.get_element_type()).itemsize
    return (src.num_elements(shape) + dst.num_elements(shape)) * itemsize


def transform_op(
    op_class: type[ReorderOp] | type[CastOp], value: SSAValue, type_: TensorType, at: Operation
) -> ReorderOp | CastOp:
    """A new (not inserted) reorder or cast of `value` to `type_`, with its kernel, located at
    the op `at` that needs it."""
    new: ReorderOp | CastOp
    if op_class is ReorderOp:
        new = ReorderOp(value, type_)
    else:
        new = CastOp(value, type_.get_element_type())
    source = data_type_of(tensor_type(value).get_element_type())
    new.attributes[KERNEL] = KernelAttr(KernelLibrary.ONEDNN, source)
    new.location = at.location
    return new
