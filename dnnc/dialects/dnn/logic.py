"""Comparisons, logic and selection: the ops of attention masks (``i1`` values).

oneDNN 3.2 has no primitive for them (its binary compares write 0/1 in the source type), so
each runs its numpy reference kernel. Every operand broadcasts as numpy does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import I64, DenseArrayBase, TensorType, i1
from xdsl.ir import SSAValue
from xdsl.irdl import (
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from dnnc.core import shapes
from dnnc.core.kinds import CompareAlg, DataType, LogicalAlg
from dnnc.dialects.dnn.attributes import CompareAlgAttr, LogicalAlgAttr
from dnnc.dialects.dnn.base import DnnOp, i64_array, ints, result_like, shape_of, tensor_type


def _boolean_like(lhs: SSAValue, rhs: SSAValue) -> TensorType:
    """The i1 result type of a comparison or logic op on `lhs` and `rhs`."""
    return result_like(lhs, shapes.binary(shape_of(lhs), shape_of(rhs)), i1)


class _BooleanBinaryOp(DnnOp):
    """lhs <alg> rhs, broadcast, with an i1 result."""

    RESULT_TYPES: ClassVar[dict[str, DataType]] = {"result": DataType.BOOL}
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$alg $lhs `,` $rhs attr-dict `:` `(` type($lhs) `,` type($rhs) `)` `->` type($result)"
    )

    def verify_op(self) -> None:
        left, right = (tensor_type(v).get_element_type() for v in (self.lhs, self.rhs))
        if left != right:
            raise VerifyException(f"lhs is {left} and rhs {right}: both must have one type")
        self.expect_result_shape(self.result, shapes.binary(shape_of(self.lhs), shape_of(self.rhs)))


@irdl_op_definition
class CompareOp(_BooleanBinaryOp):
    """result[i] = lhs[i] <alg> rhs[i] (eq, ne, lt, le, gt, ge): true or false; a NaN
    compares unequal to everything, itself included."""

    name = "dnn.compare"
    alg = prop_def(CompareAlgAttr)

    def __init__(self, alg: CompareAlg, lhs: SSAValue, rhs: SSAValue):
        super().__init__(
            operands=[lhs, rhs],
            result_types=[_boolean_like(lhs, rhs)],
            properties={"alg": CompareAlgAttr(alg)},
        )


@irdl_op_definition
class LogicalOp(_BooleanBinaryOp):
    """result[i] = lhs[i] <alg> rhs[i] (and, or, xor) on i1 operands."""

    name = "dnn.logical"
    alg = prop_def(LogicalAlgAttr)

    def __init__(self, alg: LogicalAlg, lhs: SSAValue, rhs: SSAValue):
        super().__init__(
            operands=[lhs, rhs],
            result_types=[_boolean_like(lhs, rhs)],
            properties={"alg": LogicalAlgAttr(alg)},
        )

    def verify_op(self) -> None:
        if tensor_type(self.lhs).get_element_type() != i1:
            raise VerifyException("operands must be i1: logic is on booleans")
        super().verify_op()


@irdl_op_definition
class WhereOp(DnnOp):
    """result[i] = condition[i] ? lhs[i] : rhs[i], the three broadcast (ONNX Where). The
    condition prints first but is the last operand: results follow the first operand's
    type and layout, as in every dnn op."""

    name = "dnn.where"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    condition = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$condition `,` $lhs `,` $rhs attr-dict `:` "
        "`(` type($condition) `,` type($lhs) `,` type($rhs) `)` `->` type($result)"
    )

    def __init__(
        self,
        condition: SSAValue,
        lhs: SSAValue,
        rhs: SSAValue,
        result_type: TensorType | None = None,
    ):
        if result_type is None:
            shape = shapes.binary(shapes.binary(shape_of(condition), shape_of(lhs)), shape_of(rhs))
            result_type = result_like(lhs, shape)
        super().__init__(operands=[lhs, rhs, condition], result_types=[result_type])

    def verify_op(self) -> None:
        if tensor_type(self.condition).get_element_type() != i1:
            raise VerifyException("condition must be i1")
        if tensor_type(self.lhs).get_element_type() != tensor_type(self.rhs).get_element_type():
            raise VerifyException("lhs and rhs must have one element type")
        inferred = shapes.binary(
            shapes.binary(shape_of(self.condition), shape_of(self.lhs)), shape_of(self.rhs)
        )
        self.expect_result_shape(self.result, inferred)


@irdl_op_definition
class ExpandOp(DnnOp):
    """src broadcast to ``shape`` as numpy broadcasts it (ONNX Expand: ``shape`` may also
    be smaller than src in a dimension, which keeps src's size there)."""

    name = "dnn.expand"
    src = operand_def(TensorType)
    result = result_def(TensorType)
    shape = prop_def(DenseArrayBase[I64])
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$src attr-dict `:` functional-type($src, $result)"

    def __init__(
        self, src: SSAValue, *, shape: Sequence[int], result_type: TensorType | None = None
    ):
        if result_type is None:
            result_type = result_like(src, shapes.binary(shape_of(src), tuple(shape)))
        super().__init__(
            operands=[src], result_types=[result_type], properties={"shape": i64_array(*shape)}
        )

    def verify_op(self) -> None:
        inferred = shapes.binary(shape_of(self.src), tuple(ints(self.shape) or ()))
        self.expect_result_shape(self.result, inferred)


LOGIC_OPS: tuple[type[DnnOp], ...] = (CompareOp, LogicalOp, WhereOp, ExpandOp)
"""The ops of this module, in docs/dialect.md order."""
