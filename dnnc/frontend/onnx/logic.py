"""Converters of the ONNX ops attention masks are built from: comparisons, Boolean logic,
Where, Expand, IsNaN and IsInf (dnnc/dialects/dnn/logic.py)."""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from dnnc.core import shapes
from dnnc.core.kinds import CompareAlg, LogicalAlg
from dnnc.core.symbols import SymbolicInt, evaluate
from dnnc.dialects.dnn import CompareOp, ExpandOp, LogicalOp, WhereOp, shape_of
from dnnc.dialects.types import data_type_of
from dnnc.frontend.onnx.graph import Node
from dnnc.frontend.onnx.importer import Importer, Value, element_of, make_tensor_type
from dnnc.frontend.onnx.sized import SizedArray

COMPARE: dict[str, CompareAlg] = {
    "Equal": CompareAlg.EQ,
    "Less": CompareAlg.LT,
    "LessOrEqual": CompareAlg.LE,
    "Greater": CompareAlg.GT,
    "GreaterOrEqual": CompareAlg.GE,
}
LOGICAL: dict[str, LogicalAlg] = {"And": LogicalAlg.AND, "Or": LogicalAlg.OR, "Xor": LogicalAlg.XOR}


def _operands(imp: Importer, node: Node) -> list[SSAValue]:
    """The node's inputs, constants given the rank of the widest (as broadcasting would)."""
    rank = max(len(imp.shape(imp.values[name])) for name in node.inputs)
    return [imp.tensor(node, index, rank) for index in range(len(node.inputs))]


def _boolean(
    imp: Importer,
    node: Node,
    alg: CompareAlg | LogicalAlg,
    lhs: SSAValue,
    rhs: SSAValue,
) -> SSAValue:
    imp.infer(node, shapes.binary, shape_of(lhs), shape_of(rhs))  # an error names the node
    if isinstance(alg, CompareAlg):
        return imp.emit(CompareOp(alg, lhs, rhs))
    return imp.emit(LogicalOp(alg, lhs, rhs))


def convert_compare(imp: Importer, node: Node) -> Value:
    """Equal, Less, LessOrEqual, Greater, GreaterOrEqual -> dnn.compare (a bool result)."""
    lhs, rhs = _operands(imp, node)
    return _boolean(imp, node, COMPARE[node.op_type], lhs, rhs)


def convert_logical(imp: Importer, node: Node) -> Value:
    """And, Or, Xor -> dnn.logical."""
    lhs, rhs = _operands(imp, node)
    return _boolean(imp, node, LOGICAL[node.op_type], lhs, rhs)


def convert_not(imp: Importer, node: Node) -> Value:
    """Not x -> x xor true."""
    src = imp.tensor(node, 0)
    true = imp.materialize(node, np.ones((1,) * len(shape_of(src)), np.bool_), "true")
    return _boolean(imp, node, LogicalAlg.XOR, src, true)


def convert_is_nan(imp: Importer, node: Node) -> Value:
    """IsNaN x -> x != x (NaN alone is unequal to itself)."""
    src = imp.tensor(node, 0)
    return _boolean(imp, node, CompareAlg.NE, src, src)


def convert_is_inf(imp: Importer, node: Node) -> Value:
    """IsInf x -> x == +inf, x == -inf, or either (detect_positive / detect_negative)."""
    src = imp.tensor(node, 0)
    rank = len(shape_of(src))
    wanted = [
        sign
        for sign, attr in ((1, "detect_positive"), (-1, "detect_negative"))
        if node.int_attr(attr, 1)
    ]
    if not wanted:
        false = imp.materialize(node, np.zeros((1,) * rank, np.bool_), "false")
        return imp.emit(ExpandOp(false, shape=shape_of(src)))
    dtype = element_of(src)
    tests = []
    for sign in wanted:
        infinity = imp.materialize(
            node, np.full((1,) * rank, sign * np.inf, data_type_of(dtype).numpy), f"{sign}inf"
        )
        tests.append(_boolean(imp, node, CompareAlg.EQ, src, infinity))
    if len(tests) == 1:
        return tests[0]
    return _boolean(imp, node, LogicalAlg.OR, *tests)


def convert_where(imp: Importer, node: Node) -> Value:
    """Where(condition, X, Y) -> dnn.where (X's element type)."""
    condition, lhs, rhs = _operands(imp, node)
    imp.infer(  # an error names the node
        node,
        lambda c, x, y: shapes.binary(shapes.binary(c, x), y),
        shape_of(condition),
        shape_of(lhs),
        shape_of(rhs),
    )
    return imp.emit(WhereOp(condition, lhs, rhs))


def convert_expand(imp: Importer, node: Node) -> Value:
    """Expand with a constant shape -> dnn.expand (numpy broadcasting of both shapes). A
    shape of sizes that follow the input dimensions (a traced import) -> dnn.where of an
    all-true condition of that shape, computed per input signature (a SizedArray), between
    src and itself: the same broadcast, with no size in a property."""
    src = imp.tensor(node, 0)
    target = imp.sizes(node, 1, "shape")
    rank = max(len(shape_of(src)), len(target))
    if len(shape_of(src)) < rank:
        src = imp.reshape(src, (1,) * (rank - len(shape_of(src))) + tuple(shape_of(src)))
    shape = imp.infer(node, shapes.binary, shape_of(src), tuple(target))
    result_type = make_tensor_type(element_of(src), shape)
    if any(isinstance(d, SymbolicInt) for d in target):
        hint = np.ones([int.__int__(d) for d in target], np.bool_)
        texts = ", ".join(d.text if isinstance(d, SymbolicInt) else str(d) for d in target)
        everywhere = SizedArray(
            hint,
            tuple(target),
            lambda v: np.ones([evaluate(d, v) for d in target], np.bool_),
            f"true({texts})",
        )
        condition = imp.materialize(node, everywhere, f"{node.outputs[0]}.everywhere", rank)
        return imp.emit(WhereOp(condition, src, src, result_type=result_type))
    return imp.emit(ExpandOp(src, shape=target, result_type=result_type))
