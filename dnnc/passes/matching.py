"""The matching kit of the passes that recover a decomposed op.

dnn-recover-gelu, -swish and -layer-norm share it: guards that raise `NoMatch` with the reason a
remark reports, walks along single-use chains, and the rewrite replacing a matched chain.

A recovering pass matches with these guards inside a `try`, remarks the `NoMatch` message when
a guard fails and calls `replace_chain` when every guard held; it applies its pattern through
`recover_unless_propagating`."""

from __future__ import annotations

import math

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern

from dnnc.core.kinds import BinaryAlg, EltwiseAlg
from dnnc.dialects.dnn import BinaryOp, ConstantOp, EltwiseOp
from dnnc.dialects.dnn.base import tensor_type
from dnnc.ir.decisions import PROPAGATE_SPECIAL_VALUES
from dnnc.ir.weights import constant_value


class NoMatch(Exception):
    """A guard failed; the message says why (it becomes the remark)."""


def need(condition: bool, why: str) -> None:
    """Guard: continue matching only if ``condition`` holds."""
    if not condition:
        raise NoMatch(why)


def splat(value: SSAValue, expected: float, what: str) -> None:
    """``value`` is a dnn.constant whose elements all equal ``expected`` (1e-4 relative)."""
    owner = value.owner
    need(isinstance(owner, ConstantOp), f"{what} is not a dnn.constant")
    assert isinstance(owner, ConstantOp)  # checked above
    data = np.unique(constant_value(owner).astype(np.float64))
    need(
        data.size == 1 and math.isclose(float(data[0]), expected, rel_tol=1e-4),
        f"{what} is {data.tolist()[:4]}, expected {expected:.7g}",
    )


def constant_number(value: SSAValue, what: str) -> float:
    """The one element of a rank-0 dnn.constant (a scale or zero point)."""
    owner = value.owner
    need(
        isinstance(owner, ConstantOp) and not tensor_type(value).get_shape(),
        f"{what} is not a constant",
    )
    assert isinstance(owner, ConstantOp)  # checked above
    return float(constant_value(owner))


def producer(value: SSAValue, what: str, *, alg: BinaryAlg | EltwiseAlg) -> Operation:
    """The dnn.binary or dnn.eltwise ``alg`` (without post-ops) that defines ``value``."""
    owner = value.owner
    ok = isinstance(owner, (BinaryOp, EltwiseOp)) and owner.alg.data == alg
    need(ok, f"{what} is not a {alg} ({getattr(owner, 'name', 'a function argument')})")
    assert isinstance(owner, (BinaryOp, EltwiseOp))  # checked above
    need(not isinstance(owner, BinaryOp) or not owner.post_ops.data, f"{what} has post-ops")
    return owner


def only_use(value: SSAValue, what: str) -> Operation:
    """The one op reading ``value`` (an intermediate that disappears)."""
    need(value.has_one_use(), f"{what} has another use, which would be lost")
    return next(iter(value.uses)).operation


def other_operand(op: BinaryOp, value: SSAValue) -> SSAValue:
    """The operand of a commutative binary that is not ``value``."""
    return op.rhs if op.lhs is value else op.lhs


def single_use_binary(value: SSAValue, what: str, alg: BinaryAlg) -> BinaryOp:
    """The binary ``alg`` (without post-ops) defining ``value``, an intermediate read once."""
    owner = producer(value, what, alg=alg)
    assert isinstance(owner, BinaryOp)  # producer checked the kind
    only_use(value, what)
    return owner


def binary_user(value: SSAValue, what: str, alg: BinaryAlg) -> BinaryOp:
    """The only user of ``value``, which must be a binary ``alg`` without post-ops."""
    user = only_use(value, what)
    need(isinstance(user, BinaryOp) and user.alg.data == alg, f"{what} is not read by a {alg}")
    assert isinstance(user, BinaryOp)  # checked above
    need(not user.post_ops.data, f"the {alg} of {what} has post-ops")
    return user


def replace_chain(
    rewriter: PatternRewriter, chain: list[Operation], new_ops: list[Operation]
) -> None:
    """Replace the last op of a matched chain (each op's users come later in ``chain`` or
    are outside it only for the last) by ``new_ops``, whose last result takes its place;
    erase the others and the dnn.constant operands they leave unused."""
    constants = [v.owner for op in chain for v in op.operands if isinstance(v.owner, ConstantOp)]
    rewriter.replace(chain[-1], new_ops, [new_ops[-1].results[0]])
    for op in reversed(chain[:-1]):
        rewriter.erase(op)
    for constant in dict.fromkeys(constants):
        if not constant.result.uses:
            rewriter.erase(constant)


def recover_unless_propagating(module: ModuleOp, pattern: RewritePattern) -> None:
    """Apply a recovering rewrite (one that brings in a kernel dropping special values:
    gelu_tanh, swish) to `module`, unless dnn-propagate-special-values marked it: the module
    then asked for ONNX's special values, and the decomposed ops compute them."""
    if PROPAGATE_SPECIAL_VALUES not in module.attributes:
        PatternRewriteWalker(pattern, apply_recursively=False).rewrite_module(module)
