"""dnn-recover-layer-norm: a decomposed layer normalization becomes one dnn.layer_norm.

Rule: %mu = dnn.reduce mean %x {axes = [last]} (keep_dims);  %d = %x - %mu
      %v  = dnn.reduce mean (%d ^ 2) {axes = [last]}   (square, pow {1, 2} or %d * %d)
      %n  = %d / sqrt(%v + eps)                          (eps a dnn.constant splat; either order)
      [%s = %n * gamma]  [%y = %s + beta]                (gamma, beta vary along the last axis only)
      ==> %y = dnn.layer_norm %x scale(gamma) shift(beta) {epsilon = eps}
gamma and beta of shape [1, ..., 1, C] are reshaped to [C] (dnn.reshape) as dnn.layer_norm needs.

Not recovered (remark "not recovered: <why>" on the first reduce mean) when a reduction is
over another axis or drops it, eps is not a splat constant, an intermediate (%mu, %d, the
square, %v, %v + eps, its sqrt, %n, %s) has another use (it would be lost), a binary has
post-ops, or the result type is not x's.

Pre:  the IR verifies.   Post: no matching chain is left; every reduce mean got a remark.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from dnnc.core.diagnostics import remark
from dnnc.core.kinds import BinaryAlg, EltwiseAlg, ReduceKind
from dnnc.dialects.dnn import (
    BinaryOp,
    ConstantOp,
    EltwiseOp,
    LayerNormOp,
    ReduceOp,
    ReshapeOp,
    shape_of,
)
from dnnc.dialects.dnn.base import int_of, ints
from dnnc.ir.weights import constant_value
from dnnc.passes.matching import (
    NoMatch,
    binary_user,
    need,
    only_use,
    other_operand,
    replace_chain,
)


def _last_axis_mean(op: Operation | None, what: str) -> ReduceOp:
    """A keep_dims mean over exactly the last axis."""
    is_mean = isinstance(op, ReduceOp) and op.kind.data == ReduceKind.MEAN
    need(is_mean, f"{what} is not a reduce mean")
    assert isinstance(op, ReduceOp)  # checked above
    rank = len(shape_of(op.src))
    axes = [a % rank for a in ints(op.axes) or []]
    need(axes == [rank - 1], f"{what} reduces axes {ints(op.axes)}, not only the last one")
    need(bool(int_of(op.keep_dims)), f"{what} drops the reduced axis")
    return op


def _square_of(d: SSAValue, user: Operation) -> bool:
    """Whether ``user`` computes d^2 (square, pow {1, 2} or d * d)."""
    if isinstance(user, EltwiseOp):
        alg = user.alg.data
        return alg == EltwiseAlg.SQUARE or (
            alg == EltwiseAlg.POW and user.alpha.value.data == 1.0 and user.beta.value.data == 2.0
        )
    return (
        isinstance(user, BinaryOp) and user.alg.data == BinaryAlg.MUL and user.lhs is d is user.rhs
    )


def _epsilon(value: SSAValue) -> float:
    """The splat value of the dnn.constant added to the variance."""
    owner = value.owner
    need(isinstance(owner, ConstantOp), "eps is not a dnn.constant")
    assert isinstance(owner, ConstantOp)  # checked above
    data = constant_value(owner)
    need(data.size >= 1 and bool((data == data.flat[0]).all()), "eps is not one value")
    return float(data.flat[0])


def _affine_user(value: SSAValue, alg: BinaryAlg, channels: int) -> BinaryOp | None:
    """The only user of ``value`` if it is a binary ``alg`` (no post-ops) with a vector that
    varies along the last axis only (shape [1, ..., 1, C]); None otherwise."""
    if not value.has_one_use():
        return None  # the normalized value is read elsewhere too: stop before the affine part
    user = next(iter(value.uses)).operation
    if not isinstance(user, BinaryOp) or user.alg.data != alg or user.post_ops.data:
        return None
    shape = shape_of(other_operand(user, value))
    if len(shape) < 1 or shape[-1] != channels or any(d != 1 for d in shape[:-1]):
        return None
    return user


@dataclass
class _Match:
    x: SSAValue
    epsilon: float
    scale: SSAValue | None
    shift: SSAValue | None
    ops: list[Operation]
    """The ops of the chain, each before its users (the last one is replaced)."""


class RecoverLayerNorm(RewritePattern):
    """The rule of the module docstring, anchored on the mean of x."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ReduceOp, rewriter: PatternRewriter, /) -> None:
        if op.kind.data != ReduceKind.MEAN:
            return  # the chain starts with a mean
        try:
            match = self._match(op)
        except NoMatch as refusal:
            remark(op, f"not recovered: {refusal}")
            return
        channels = shape_of(match.x)[-1]
        new_ops: list[Operation] = []
        operands: list[SSAValue | None] = []
        for vector in (match.scale, match.shift):
            if vector is not None and len(shape_of(vector)) != 1:
                reshape = ReshapeOp(vector, [channels])
                new_ops.append(reshape)
                vector = reshape.result
            operands.append(vector)
        norm = LayerNormOp(match.x, *operands, epsilon=match.epsilon)
        replace_chain(rewriter, match.ops, [*new_ops, norm])
        remark(norm, "recovered layer_norm")

    @staticmethod
    def _match(mean: ReduceOp) -> _Match:
        x = mean.src
        _last_axis_mean(mean, "the mean")
        sub = binary_user(mean.result, "the mean", BinaryAlg.SUB)
        need(sub.lhs is x and sub.rhs is mean.result, "the mean is not subtracted from x")
        d = sub.result
        users = [use.operation for use in d.uses]
        square = next((u for u in users if _square_of(d, u)), None)
        need(square is not None, "x - mean is not squared")
        assert square is not None  # checked above
        var = _last_axis_mean(only_use(square.results[0], "the square"), "the variance")
        add = binary_user(var.result, "the variance", BinaryAlg.ADD)
        epsilon = _epsilon(other_operand(add, var.result))
        sqrt = only_use(add.result, "variance + eps")
        is_sqrt = isinstance(sqrt, EltwiseOp) and sqrt.alg.data == EltwiseAlg.SQRT
        need(is_sqrt, "variance + eps is not square-rooted")
        div = binary_user(sqrt.results[0], "the standard deviation", BinaryAlg.DIV)
        divides = div.lhs is d and div.rhs is sqrt.results[0]
        need(divides, "x - mean is not divided by the deviation")
        others = sorted({u.name for u in users} - {square.name, div.name}) or ["twice"]
        need(set(users) == {square, div}, f"x - mean has another use ({', '.join(others)})")
        ops: list[Operation] = [mean, sub, square, var, add, sqrt, div]
        result, channels = div.result, shape_of(x)[-1]
        vectors: dict[BinaryAlg, SSAValue | None] = {BinaryAlg.MUL: None, BinaryAlg.ADD: None}
        for alg in vectors:
            user = _affine_user(result, alg, channels)
            if user is not None:
                vectors[alg] = other_operand(user, result)
                ops.append(user)
                result = user.result
        need(result.type == x.type, f"the result type {result.type} is not x's")
        return _Match(x, epsilon, vectors[BinaryAlg.MUL], vectors[BinaryAlg.ADD], ops)


@dataclass(frozen=True)
class RecoverLayerNormPass(ModulePass):
    """dnn-recover-layer-norm (module docstring)."""

    name = "dnn-recover-layer-norm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(RecoverLayerNorm(), apply_recursively=False).rewrite_module(op)
