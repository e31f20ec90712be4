"""dnn-insert-data-transforms: make every value reach its reader in the type it expects.

Each operand has an actual type (the value's) and an expected one, as Fluid's data transform
compares the "actual" and the "expected kernel type":
- layout: the op's ``dnn.operand_layouts`` entry (dnn-assign-layouts; plain layouts
  included, ``#dnn.layout<nchw>``),
  else the operand's type as it was before this pass;
- element type: the ``dnn.kernel`` data type for the operands the kernel computes with
  (kernel_table.data_operands: first operand, weights, same-shaped operands, a depthwise
  convolution's bias); f32 for a bf16/f16 bias, normalization parameter or post-op argument
  of a reduced-precision model, which oneDNN reads in f32 (kernel_table.operand_data_types);
  else unchanged;
- a func.return operand: the function's declared result type (plain, the caller's dtype).
Results follow from the expected operand types by the dialect's rules (first operand's layout
and element type; dnn.reorder keeps its layout, dnn.cast, dnn.quantize and dnn.dequantize
their element type), and where a
value's type differs from what a reader expects:

Rule: %x : tensor<S x A, La>;  %y = dnn.op %x {expects tensor<S x B, Lb>}
      ==> %r = dnn.reorder %x : (tensor<SxA, La>) -> tensor<SxA, Lb>      [La != Lb]
          %c = dnn.cast %r : (tensor<SxA, Lb>) -> tensor<SxB, Lb>          [A != B]
          %y = dnn.op %c
      the layout first, then the data type; one transform per (value, expected type), right
      after the value's definition, shared by every reader expecting the same type; each with
      ``dnn.kernel = #dnn.kernel<onednn, A>`` and the location of the first reader needing it.
Pre:  the IR verifies; dnn-assign-layouts (and dnn-select-kernels, dnn-assign-precision) ran.
Post: ``dnn.operand_layouts`` is gone; layouts are in the tensor types; the IR verifies; a
      remark per function counts the reorders and casts and the bytes the reorders move.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, NoneAttr, TensorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    InsertPoint,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import Rewriter

from dnnc.core.diagnostics import remark
from dnnc.dialects.dnn import (
    CastOp,
    ConstantOp,
    DequantizeOp,
    DnnOp,
    LayoutAttr,
    QConv2DOp,
    QMatmulOp,
    QuantizeOp,
    ReorderOp,
    WeightOp,
    layout_of,
)
from dnnc.dialects.dnn.base import tensor_type
from dnnc.dialects.types import element_type_of
from dnnc.ir.decisions import OPERAND_LAYOUTS
from dnnc.passes.data_transforms import retyped, transform_op, transform_stats
from dnnc.passes.functions import is_dnn_function
from dnnc.target.kernel_table import kernel_of, operand_data_types


def _expected(op: DnnOp | func.ReturnOp, function: func.FuncOp) -> list[TensorType]:
    """The type each operand of `op` is expected in (module docstring)."""
    if isinstance(op, func.ReturnOp):
        return [cast(TensorType, t) for t in function.function_type.outputs.data]  # tensors
    actual = [tensor_type(v) for v in op.operands]
    layouts = op.attributes.get(OPERAND_LAYOUTS)
    if isinstance(layouts, ArrayAttr):
        actual = [retyped(t, encoding=_encoding(e)) for t, e in zip(actual, layouts.data)]
    kernel = kernel_of(op)
    if kernel is None:
        return actual
    elements = operand_data_types(op, kernel.data_type.data)
    return [retyped(t, element=element_type_of(e)) for t, e in zip(actual, elements)]


def _encoding(entry: Attribute) -> Attribute:
    """The type encoding of a dnn.operand_layouts entry: plain layouts have none."""
    if isinstance(entry, LayoutAttr) and not entry.layout.is_plain:
        return entry
    return NoneAttr()


def _result_types(op: DnnOp, src: TensorType) -> list[TensorType]:
    """Result types given the first operand's expected type (the dialect's rules): where
    dnn-assign-layouts chose the op's layout, in it; elsewhere a result keeps a layout the
    op allows besides src's (a transpose that is a view, a strided matmul write)."""
    decided = OPERAND_LAYOUTS in op.attributes
    types: list[TensorType] = []
    for value in op.results:
        old = tensor_type(value)
        if isinstance(op, ReorderOp):
            types.append(retyped(old, element=src.get_element_type()))
        elif isinstance(op, CastOp | QuantizeOp | DequantizeOp | QConv2DOp | QMatmulOp):
            types.append(retyped(old, encoding=src.encoding))  # the op sets the element type
        elif any(value is getattr(op, name) for name in op.RESULT_TYPES):
            types.append(old)  # a fixed type (top_k indices, comparisons) on reference kernels
        elif old.get_num_dims() == src.get_num_dims():
            kept = not decided and op.allows_result_layout(layout_of(old), src)
            encoding = old.encoding if kept else src.encoding
            types.append(retyped(old, element=src.get_element_type(), encoding=encoding))
        else:
            types.append(retyped(old, element=src.get_element_type(), encoding=NoneAttr()))
    return types


class MaterializeExpectedTypes(RewritePattern):
    """Retype the results and insert the reorders and casts of one function."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, function: func.FuncOp, rewriter: PatternRewriter, /) -> None:
        if not function.body.blocks or not is_dnn_function(function):
            return  # a declaration, or a function without tensors
        ops = [op for op in function.body.block.ops if isinstance(op, DnnOp | func.ReturnOp)]
        expected = {op: _expected(op, function) for op in ops if op.operands}
        for op in ops:
            if isinstance(op, DnnOp) and op.operands and not isinstance(op, ConstantOp | WeightOp):
                for value, type_ in zip(list(op.results), _result_types(op, expected[op][0])):
                    if value.type != type_:
                        hint = value.name_hint
                        Rewriter.replace_value_with_new_type(value, type_).name_hint = hint
        transforms: dict[tuple[SSAValue, TensorType], SSAValue] = {}
        for op in expected:
            for index, want in enumerate(expected[op]):
                operand = op.operands[index]
                if operand.type != want:
                    op.operands[index] = _transformed(rewriter, operand, want, op, transforms)
            op.attributes.pop(OPERAND_LAYOUTS, None)
        reorders, moved, casts = transform_stats(function.body.block)
        remark(function, f"{reorders} run-time reorders moving {moved} bytes, {casts} casts")


def _transformed(
    rewriter: PatternRewriter,
    value: SSAValue,
    want: TensorType,
    reader: Operation,
    transforms: dict[tuple[SSAValue, TensorType], SSAValue],
) -> SSAValue:
    """`value` reordered to `want`'s layout, then cast to its element type (shared)."""
    have = tensor_type(value)
    steps: list[tuple[type[ReorderOp] | type[CastOp], TensorType]] = [
        (ReorderOp, retyped(have, encoding=want.encoding)),
        (CastOp, want),
    ]
    current = value
    for op_class, type_ in steps:
        if tensor_type(current) == type_:
            continue  # this step changes nothing
        key = (value, type_)
        if key not in transforms:
            new = transform_op(op_class, current, type_, reader)
            owner = current.owner
            point = (
                InsertPoint.after(owner)
                if isinstance(owner, Operation)
                else InsertPoint.at_start(owner)
            )
            rewriter.insert(new, point)
            transforms[key] = new.results[0]
        current = transforms[key]
    return current


@dataclass(frozen=True)
class InsertDataTransformsPass(ModulePass):
    """Insert the reorders and casts readers expect (module docstring)."""

    name = "dnn-insert-data-transforms"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(MaterializeExpectedTypes(), apply_recursively=False).rewrite_module(op)
