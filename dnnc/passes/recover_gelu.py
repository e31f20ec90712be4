"""dnn-recover-gelu: a decomposed tanh-approximation GELU becomes one dnn.eltwise gelu_tanh.

Rule: %c = x^3            (eltwise pow {alpha 1, beta 3}, or x * square(x), or x * (x * x))
      %i = x + 0.044715 * %c;  %t = tanh(0.7978846 * %i)   (sqrt(2 / pi); either order each)
      %a = %t + 1;  %y = the product of x, 0.5 and %a, as two muls in any association and order
      ==> %y = dnn.eltwise gelu_tanh %x
Constants are dnn.constant splats matching to 1e-4 relative. The erf form is not here: dnn has
no erf, so the ONNX importer fuses it before emitting dnn (dnnc/frontend/onnx/gelu.py).

Not recovered (remark "not recovered: <why>" on the tanh) when a constant differs, an
intermediate has another use (it would be lost), a binary has post-ops, or the result type is
not x's (a constant broadcast the result to a larger shape); nothing is recovered in a module
dnn-propagate-special-values marked (oneDNN's gelu_tanh gives NaN for +inf).

Pre:  the IR verifies.   Post: no matching tanh chain is left; every tanh got a remark.
Its guards come from dnnc.passes.matching.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from dnnc.core.diagnostics import remark
from dnnc.core.kinds import BinaryAlg, EltwiseAlg
from dnnc.dialects.dnn import BinaryOp, EltwiseOp
from dnnc.passes.matching import (
    NoMatch,
    binary_user,
    need,
    only_use,
    other_operand,
    producer,
    recover_unless_propagating,
    replace_chain,
    single_use_binary,
    splat,
)

_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


def _is_splat(value: SSAValue, expected: float) -> bool:
    try:
        splat(value, expected, "")
    except NoMatch:
        return False
    return True


def _cube_of(cube: SSAValue) -> tuple[SSAValue, list[Operation]]:
    """x and the ops (in program order) of x^3 written as pow(x; 1, 3), x * square(x) or
    x * (x * x)."""
    owner = cube.owner
    if isinstance(owner, EltwiseOp):
        producer(cube, "the cube", alg=EltwiseAlg.POW)
        need(owner.alpha.value.data == 1.0 and owner.beta.value.data == 3.0, "pow is not x^3")
        return owner.src, [owner]
    outer = producer(cube, "the cube", alg=BinaryAlg.MUL)
    assert isinstance(outer, BinaryOp)  # producer checked the kind
    for x, square in ((outer.lhs, outer.rhs), (outer.rhs, outer.lhs)):
        inner = square.owner
        if isinstance(inner, EltwiseOp) and inner.alg.data == EltwiseAlg.SQUARE and inner.src is x:
            return x, [inner, outer]
        if (
            isinstance(inner, BinaryOp)
            and inner.alg.data == BinaryAlg.MUL
            and inner.lhs is x is inner.rhs
        ):
            return x, [inner, outer]
    raise NoMatch("the cube is not x * x * x")


def product_with_half(start: SSAValue, x: SSAValue) -> tuple[BinaryOp, list[Operation]]:
    """The last of the two muls forming x * 0.5 * start, and the ops to erase."""
    first = binary_user(start, "1 + tanh", BinaryAlg.MUL)
    other = other_operand(first, start)
    if other is x or _is_splat(other, 0.5):
        second = binary_user(first.result, "the first product", BinaryAlg.MUL)
        last = other_operand(second, first.result)
        if other is x:
            splat(last, 0.5, "the factor")
        else:
            need(last is x, "the product does not take x")
        return second, [first]
    half = producer(other, "the other factor", alg=BinaryAlg.MUL)
    assert isinstance(half, BinaryOp)  # producer checked the kind
    need(x in (half.lhs, half.rhs), "the other factor is not x * 0.5")
    splat(other_operand(half, x), 0.5, "the factor of x")
    only_use(half.result, "x * 0.5")
    return first, [half]


class RecoverTanhGelu(RewritePattern):
    """The rule of the module docstring, anchored on the tanh."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: EltwiseOp, rewriter: PatternRewriter, /) -> None:
        if op.alg.data != EltwiseAlg.TANH:
            return  # the tanh is the one op every variant shares
        try:
            x, last, chain = self._match(op)
        except NoMatch as refusal:
            remark(op, f"not recovered: {refusal}")
            return
        gelu = EltwiseOp(EltwiseAlg.GELU_TANH, x)
        replace_chain(rewriter, [*chain, last], [gelu])
        remark(gelu, "recovered gelu_tanh")

    @staticmethod
    def _match(tanh: EltwiseOp) -> tuple[SSAValue, BinaryOp, list[Operation]]:
        scaled = single_use_binary(tanh.src, "the tanh argument", BinaryAlg.MUL)
        pairs = ((scaled.lhs, scaled.rhs), (scaled.rhs, scaled.lhs))
        inner = next((v for v, constant in pairs if _is_splat(constant, _SQRT_2_OVER_PI)), None)
        if inner is None:
            raise NoMatch("the tanh argument is not sqrt(2/pi) * (...)")
        add = single_use_binary(inner, "x + 0.044715 x^3", BinaryAlg.ADD)
        products = [
            (x, term)
            for x, term in ((add.lhs, add.rhs), (add.rhs, add.lhs))
            if isinstance(term.owner, BinaryOp) and term.owner.alg.data == BinaryAlg.MUL
        ]
        if not products:
            raise NoMatch("x + 0.044715 x^3 has no product term")
        x, term = products[0]
        weighted = single_use_binary(term, "0.044715 x^3", BinaryAlg.MUL)
        cube = weighted.lhs if _is_splat(weighted.rhs, 0.044715) else weighted.rhs
        splat(other_operand(weighted, cube), 0.044715, "the cube's coefficient")
        only_use(cube, "x^3")
        cube_x, cube_ops = _cube_of(cube)
        need(cube_x is x, "the cube is not of the same x")
        one = binary_user(tanh.result, "tanh", BinaryAlg.ADD)
        splat(other_operand(one, tanh.result), 1.0, "the constant added to tanh")
        last, muls = product_with_half(one.result, x)
        need(last.result.type == x.type, f"the result type {last.result.type} is not x's")
        return x, last, [*cube_ops, weighted, add, scaled, tanh, one, *muls]


@dataclass(frozen=True)
class RecoverGeluPass(ModulePass):
    """dnn-recover-gelu (module docstring)."""

    name = "dnn-recover-gelu"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        recover_unless_propagating(op, RecoverTanhGelu())
