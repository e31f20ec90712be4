"""Converters of the element-wise ONNX ops: activations, Clip, Pow, Cast, broadcasting binaries.

Unary activations are one table (``UNARY``): the ONNX op type gives the dnn eltwise algorithm
with explicit alpha and beta (docs/dialect.md has no per-algorithm defaults), read from the
node's attributes where ONNX has them.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from onnx import helper
from xdsl.dialects.builtin import AnyFloat
from xdsl.ir import SSAValue

from dnnc.core.kinds import BinaryAlg, DataType, EltwiseAlg, EltwisePostOp
from dnnc.dialects.dnn import CastOp, shape_of
from dnnc.dialects.types import data_type_of, element_type_of
from dnnc.frontend.onnx.graph import Node, dtype_name, one_element
from dnnc.frontend.onnx.importer import (
    VALUE_TYPE_NAMES,
    Importer,
    Value,
    element_of,
)

_FLOAT_MAX = float(np.finfo(np.float32).max)


def _fixed(
    alg: EltwiseAlg, alpha: float = 0.0, beta: float = 0.0
) -> Callable[[Node], EltwisePostOp]:
    return lambda node: EltwisePostOp(alg, alpha, beta)


def _gelu(node: Node) -> EltwisePostOp:
    approximate = node.attr("approximate", "none")
    return EltwisePostOp(EltwiseAlg.GELU_TANH if approximate == "tanh" else EltwiseAlg.GELU_ERF)


UNARY: dict[str, Callable[[Node], EltwisePostOp]] = {
    "Relu": _fixed(EltwiseAlg.RELU),
    "LeakyRelu": lambda n: EltwisePostOp(EltwiseAlg.LEAKY_RELU, n.float_attr("alpha", 0.01)),
    "Elu": lambda n: EltwisePostOp(EltwiseAlg.ELU, n.float_attr("alpha", 1.0)),
    "Sigmoid": _fixed(EltwiseAlg.SIGMOID),
    "Tanh": _fixed(EltwiseAlg.TANH),
    "Sqrt": _fixed(EltwiseAlg.SQRT),
    "Exp": _fixed(EltwiseAlg.EXP),
    "Log": _fixed(EltwiseAlg.LOG),
    "Abs": _fixed(EltwiseAlg.ABS),
    "Neg": _fixed(EltwiseAlg.LINEAR, -1.0),
    "HardSwish": _fixed(EltwiseAlg.HARDSWISH, 1.0 / 6.0, 0.5),
    "HardSigmoid": lambda n: EltwisePostOp(
        EltwiseAlg.HARDSIGMOID, n.float_attr("alpha", 0.2), n.float_attr("beta", 0.5)
    ),
    "Softplus": _fixed(EltwiseAlg.SOFT_RELU, 1.0),
    "Mish": _fixed(EltwiseAlg.MISH),
    "Softsign": _fixed(EltwiseAlg.SOFTSIGN),
    "Erf": _fixed(EltwiseAlg.ERF),
    "Sin": _fixed(EltwiseAlg.SIN),
    "Cos": _fixed(EltwiseAlg.COS),
    "Reciprocal": _fixed(EltwiseAlg.POW, 1.0, -1.0),
    "Gelu": _gelu,
    "Swish": lambda n: EltwisePostOp(EltwiseAlg.SWISH, n.float_attr("alpha", 1.0)),
}
"""ONNX activation -> the dnn.eltwise it is (algorithm, alpha, beta)."""

BINARY: dict[str, BinaryAlg] = {
    "Add": BinaryAlg.ADD,
    "Sub": BinaryAlg.SUB,
    "Mul": BinaryAlg.MUL,
    "Div": BinaryAlg.DIV,
    "Max": BinaryAlg.MAX,
    "Min": BinaryAlg.MIN,
    "Sum": BinaryAlg.ADD,
}
"""ONNX broadcasting binary (Max, Min and Sum take any number of inputs) -> dnn.binary alg."""


def convert_unary(imp: Importer, node: Node) -> Value:
    """An activation from ``UNARY``."""
    post_op = UNARY[node.op_type](node)
    return imp.eltwise(imp.tensor(node, 0), post_op.alg, post_op.alpha, post_op.beta)


def convert_binary(imp: Importer, node: Node, alg: BinaryAlg | None = None) -> Value:
    """Add/Sub/Mul/Div/Max/Min/Sum (or ``alg``), folded left to right; constants get the
    result's rank."""
    rank = max(len(imp.shape(imp.values[name])) for name in node.inputs)
    operands = [imp.tensor(node, index, rank) for index in range(len(node.inputs))]
    result = operands[0]
    for operand in operands[1:]:
        result = imp.binary(node, alg or BINARY[node.op_type], result, operand)
    return result


def convert_mean(imp: Importer, node: Node) -> Value:
    """Mean of any number of broadcasting inputs: their Sum, scaled by 1 / count."""
    total = convert_binary(imp, node, BinaryAlg.ADD)
    assert isinstance(total, SSAValue)  # a node of constants only is folded before conversion
    count = len(node.inputs)
    return total if count == 1 else imp.eltwise(total, EltwiseAlg.LINEAR, 1.0 / count)


def convert_clip(imp: Importer, node: Node) -> Value:
    """Clip (opsets 11+: bounds are optional inputs; graph.load_graph upgrades older models,
    whose Clip takes attributes). Constant bounds -> eltwise clip [min, max] (an absent bound
    is the f32 range; min > max gives max everywhere, as ONNX's min(max(x, min), max) does);
    a bound known only at run time (a graph input, a computed value), or an integer tensor
    (oneDNN's eltwise takes no int8 source) -> binary max with min, then binary min with max,
    as ONNX defines it, an absent float bound the f32 range as ONNX Runtime has it (an eltwise
    clip of that side)."""
    src = imp.tensor(node, 0)
    present = [index for index in (1, 2) if imp.has_input(node, index)]
    floating = isinstance(element_of(src), AnyFloat)
    if not floating or any(imp.const(node, index) is None for index in present):
        rank = len(shape_of(src))
        for index, alg in ((1, BinaryAlg.MAX), (2, BinaryAlg.MIN)):
            if index in present:
                src = imp.binary(node, alg, src, imp.tensor(node, index, rank))
            elif floating:
                low, high = (-_FLOAT_MAX, math.inf) if index == 1 else (-math.inf, _FLOAT_MAX)
                src = imp.eltwise(src, EltwiseAlg.CLIP, low, high)
        return src
    names = {1: "min", 2: "max"}
    constants = {index: float(imp.scalar(node, index, names[index])) for index in present}
    high = constants.get(2, _FLOAT_MAX)
    low = min(constants.get(1, -_FLOAT_MAX), high)
    return imp.eltwise(src, EltwiseAlg.CLIP, low, high)


def convert_pow(imp: Importer, node: Node) -> Value:
    """Pow with a constant scalar exponent: 2 -> square, 0.5 -> sqrt, 1 -> the base,
    otherwise eltwise pow (alpha 1, beta = exponent). Any other exponent (a tensor, or only
    known at run time) -> binary pow (the reference kernel), the exponent cast to the base's
    element type as ONNX's result has it."""
    exponent = imp.const(node, 1)
    value = None if exponent is None else one_element(exponent)
    base = imp.tensor(node, 0)
    if value is None:
        power = imp.tensor(node, 1, len(shape_of(base)))
        if element_of(power) != element_of(base):
            power = imp.emit(CastOp(power, element_of(base)))
        return imp.binary(node, BinaryAlg.POW, base, power)
    if value == 1.0:
        return base
    if value == 2.0:
        return imp.eltwise(base, EltwiseAlg.SQUARE)
    if value == 0.5:
        return imp.eltwise(base, EltwiseAlg.SQRT)
    return imp.eltwise(base, EltwiseAlg.POW, 1.0, float(value))


def convert_cast(imp: Importer, node: Node) -> Value:
    """Cast between dnn element types -> dnn.cast (nothing when the type is unchanged)."""
    to = node.int_attr("to")
    try:
        data_type = DataType.of_numpy(np.dtype(helper.tensor_dtype_to_np_dtype(to)))
    except (KeyError, TypeError, ValueError):
        data_type = None
    if data_type is None:
        raise imp.error(
            node,
            f"cast to {dtype_name(to)} of a run-time tensor: dnn tensors are {VALUE_TYPE_NAMES}",
        )
    return _cast(imp, node, data_type)


def convert_cast_like(imp: Importer, node: Node) -> Value:
    """CastLike(x, like) -> a Cast of x to the element type of `like` (only its type is read)."""
    like = imp.values[node.input(1)]
    if not isinstance(like, SSAValue):  # a constant array or a SizedArray
        data_type = DataType.of_numpy(like.dtype)
        if data_type is None:
            raise imp.error(
                node, f"cast like a {like.dtype} tensor: dnn tensors are {VALUE_TYPE_NAMES}"
            )
    else:
        data_type = data_type_of(element_of(like))
    return _cast(imp, node, data_type)


def _cast(imp: Importer, node: Node, data_type: DataType) -> Value:
    src = imp.tensor(node, 0)
    element = element_type_of(data_type)
    if element == element_of(src):
        return src
    return imp.emit(CastOp(src, element))


def convert_identity(imp: Importer, node: Node) -> Value:
    """Identity and inference-mode Dropout: the input itself."""
    return imp.values[node.input(0)]
