"""dnn-recover-attention: scaled dot-product attention, as PyTorch and transformers export it,
becomes one dnn.sdpa.

Rule: %s = dnn.matmul %q', %k'           (q' = q times scalar constants; k' = kᵀ times scalar
                                          constants, kᵀ a dnn.transpose of k's last two axes)
      %t = %s times / divided by scalar constants (any number, either operand order)
      %a = %t + %mask                     (or dnn.where %c, %t, <splat <= -1e30>: masked by %c)
      %p = dnn.softmax %a {axis = last}
      [%p' = dnn.where (%p != %p), 0, %p] (the NaN guard of torch's exported SDPA)
      %y = dnn.matmul %p', %v
      ==> %y = dnn.sdpa %q, %k, %v mask(%mask) {scale = product of the constants, causal,
                                                nan_to_zero = whether the guard was there}
k and v may each come through transformers' repeat_kv (dnn.reshape to [B, Hkv, 1, S, D],
dnn.expand to [B, Hkv, G, S, D] -- or the traced import's dnn.where %c, %x, %x of that shape,
the same broadcast whatever %c holds --, dnn.reshape to [B, Hkv G, S, D]): dnn.sdpa reads the
Hkv heads directly. A dnn.constant mask that is 0 on and below the diagonal j <= i + S - L
and <= -1e30 above it becomes ``causal`` (no mask operand); any other mask stays additive.
Without the transpose, kᵀ is what the matmul reads and k becomes a dnn.transpose of it.

Not recovered (remark "not recovered: <why>" on the softmax) when the softmax is over
another axis, an intermediate (q', k', the scores, the scaled or masked scores, the
probabilities, a repeat_kv step) has another use (it would be lost), a scale is not a
scalar dnn.constant, a dnn.where mask does not fill with a constant <= -1e30 (then it is
not additive), a matmul has a bias or post-ops, or q, k, v are not [B, H, L, D] with Hq a
multiple of Hkv.

Nothing is recovered in a module dnn-propagate-special-values marked (the softmax that
dnn.sdpa runs on oneDNN drops special values).

Pre:  the IR verifies.   Post: no matching chain is left; every softmax got a remark.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from dnnc.core import shapes
from dnnc.core.diagnostics import remark
from dnnc.core.kinds import BinaryAlg, CompareAlg
from dnnc.dialects.dnn import (
    BinaryOp,
    CompareOp,
    ConstantOp,
    ExpandOp,
    MatmulOp,
    ReshapeOp,
    SdpaOp,
    SoftmaxOp,
    TransposeOp,
    WhereOp,
    shape_of,
)
from dnnc.dialects.dnn.base import int_of, ints, tensor_type
from dnnc.ir.weights import constant_value
from dnnc.passes.constants import constant_op
from dnnc.passes.matching import NoMatch, need, only_use, recover_unless_propagating, replace_chain
from dnnc.reference.attention import causal_mask

Shape = shapes.Shape

MASKED = -1e30
"""A mask value at or below this is a masked position: exp(MASKED - max) is 0 in f32."""


@dataclass
class _Match:
    q: SSAValue
    k: SSAValue
    v: SSAValue
    scale: float
    mask: SSAValue | None
    where_mask: WhereOp | None
    """The dnn.where that masks the scores; its additive form is built at the rewrite."""
    transposed: bool
    """Whether k came through a dnn.transpose (otherwise the matmul reads kᵀ)."""
    nan_to_zero: bool
    ops: list[Operation]
    """The ops of the chain, producers before users (the last one is replaced)."""


def _scalar(value: SSAValue) -> float | None:
    """The value of a one-element dnn.constant, None for anything else."""
    owner = value.owner
    if not isinstance(owner, ConstantOp):
        return None
    data = constant_value(owner)
    return float(data.flat[0]) if data.size == 1 else None


def _scaling(value: SSAValue) -> BinaryOp | None:
    """The dnn.binary mul or div without post-ops that defines ``value``, None otherwise."""
    owner = value.owner
    if not isinstance(owner, BinaryOp) or owner.post_ops.data:
        return None
    return owner if owner.alg.data in (BinaryAlg.MUL, BinaryAlg.DIV) else None


def _strip_scales(
    value: SSAValue, what: str, factors: list[float], *, strict: bool
) -> tuple[SSAValue, list[Operation]]:
    """``value`` without the muls and divs by scalar constants that produced it (their
    factors appended to ``factors``) and those ops, producers first. A mul or div by anything
    else is a refusal if ``strict`` (the scores), else where q or k begins (rotary
    embeddings multiply them by tensors)."""
    ops: list[Operation] = []
    while (owner := _scaling(value)) is not None:
        divides = owner.alg.data == BinaryAlg.DIV
        pairs = (
            [(owner.lhs, owner.rhs)]
            if divides
            else [(owner.lhs, owner.rhs), (owner.rhs, owner.lhs)]
        )
        found = [(x, _scalar(c)) for x, c in pairs if _scalar(c) is not None]
        if not found and not strict:
            break
        need(bool(found), f"the scale of {what} is not a scalar dnn.constant")
        x, factor = found[0]
        assert factor is not None  # filtered above
        need(not divides or factor != 0.0, f"{what} is divided by 0")
        need(owner.result.type == x.type, f"the scale of {what} broadcasts it")
        only_use(owner.result, f"the scaled {what}")
        factors.append(1.0 / factor if divides else factor)
        ops.insert(0, owner)
        value = x
    return value, ops


def _leads_to_matmul(value: SSAValue) -> bool:
    """Whether ``value`` is a dnn.matmul result, possibly times scalars."""
    while (owner := _scaling(value)) is not None:
        value = owner.lhs if _scalar(owner.rhs) is not None else owner.rhs
    return isinstance(value.owner, MatmulOp)


def _broadcast_source(op: Operation) -> SSAValue | None:
    """What ``op`` broadcasts if it is a dnn.expand or a dnn.where %c, %x, %x (the traced
    import's Expand: both branches are %x, so the condition's values do not matter, only
    its shape), None for anything else."""
    if isinstance(op, ExpandOp):
        return op.src
    if isinstance(op, WhereOp) and op.lhs is op.rhs:
        return op.lhs
    return None


def _strip_repeat_kv(value: SSAValue, what: str) -> tuple[SSAValue, list[Operation]]:
    """``value`` before transformers' repeat_kv (reshape, expand, reshape) and its ops, or
    ``value`` itself when it is not repeated."""
    last = value.owner
    if not isinstance(last, ReshapeOp) or not isinstance(expand := last.src.owner, Operation):
        return value, []
    unexpanded = _broadcast_source(expand)
    if unexpanded is None:
        return value, []
    first = unexpanded.owner
    if not isinstance(first, ReshapeOp):
        return value, []
    source, unsqueezed = shape_of(first.src), shape_of(first.result)
    expanded, repeated = shape_of(expand.results[0]), shape_of(last.result)
    if not (
        len(source) == 4
        and unsqueezed == (*source[:2], 1, *source[2:])
        and expanded[:2] + expanded[3:] == unsqueezed[:2] + unsqueezed[3:]
        and repeated == (source[0], source[1] * expanded[2], *source[2:])
    ):
        return value, []
    readers = {use.operation for use in first.result.uses}  # a dnn.where reads it twice
    need(readers == {expand}, f"a repeat_kv step of {what} has another use, which would be lost")
    for step in (expand, last):
        only_use(step.results[0], f"a repeat_kv step of {what}")
    return first.src, [first, expand, last]


def _plain_matmul(value: SSAValue, what: str) -> MatmulOp:
    """The dnn.matmul without bias and post-ops that defines ``value``."""
    owner = value.owner
    need(isinstance(owner, MatmulOp), f"{what} is not a dnn.matmul")
    assert isinstance(owner, MatmulOp)  # checked above
    need(owner.bias is None and not owner.post_ops.data, f"{what} has a bias or post-ops")
    return owner


def _is_causal(mask: SSAValue, scores: Shape) -> bool:
    """Whether ``mask`` is a dnn.constant [1, ..., 1, L, S] that is 0 up to the diagonal
    j <= i + S - L and <= MASKED after it."""
    owner = mask.owner
    if not isinstance(owner, ConstantOp):
        return False
    shape = shape_of(mask)
    if len(shape) < 2 or shape[-2:] != scores[-2:] or any(d != 1 for d in shape[:-2]):
        return False
    data = constant_value(owner).reshape(shape[-2:]).astype(np.float64)
    after = np.isinf(causal_mask(*shape[-2:]))
    return bool((data[~after] == 0.0).all() and (data[after] <= MASKED).all())


def _nan_guard(probabilities: SSAValue) -> list[Operation]:
    """The dnn.compare ne p, p and dnn.where (p != p), 0, p that zero NaN probabilities, if
    they are what reads p (else nothing)."""
    users = [use.operation for use in probabilities.uses]
    compare = next((u for u in users if isinstance(u, CompareOp)), None)
    if compare is None:
        return []
    where = next((u for u in users if isinstance(u, WhereOp)), None)
    guarded = (
        where is not None
        and len(users) == 3
        and compare.alg.data == CompareAlg.NE
        and compare.lhs is probabilities is compare.rhs
        and where.condition is compare.result
        and where.rhs is probabilities
        and _scalar(where.lhs) == 0.0
        and where.result.type == probabilities.type
    )
    need(guarded, "the softmax is read by a dnn.compare that is not a NaN guard")
    assert where is not None  # checked above
    only_use(compare.result, "the NaN test")
    return [compare, where]


def _unmask(scores: SSAValue) -> tuple[SSAValue, SSAValue | None, WhereOp | None, list[Operation]]:
    """The scores before the mask, the additive mask or the masking dnn.where, and the
    masking op."""
    owner = scores.owner
    if isinstance(owner, BinaryOp) and owner.alg.data == BinaryAlg.ADD:
        need(not owner.post_ops.data, "the mask's add has post-ops")
        unmasked, mask = owner.lhs, owner.rhs
        if not _leads_to_matmul(unmasked):
            unmasked, mask = mask, unmasked
        need(owner.result.type == unmasked.type, "the mask broadcasts the scores")
        only_use(unmasked, "the unmasked scores")
        return unmasked, mask, None, [owner]
    if isinstance(owner, WhereOp):
        fill = _scalar(owner.rhs)
        additive = fill is not None and fill <= MASKED
        need(additive, "the dnn.where mask does not fill with a constant <= -1e30 (not additive)")
        need(owner.result.type == owner.lhs.type, "the dnn.where mask broadcasts the scores")
        only_use(owner.lhs, "the unmasked scores")
        return owner.lhs, None, owner, [owner]
    return scores, None, None, []


def _match(softmax: SoftmaxOp) -> _Match:
    """The chain ending at the matmul that reads ``softmax`` (module docstring)."""
    rank = len(shape_of(softmax.src))
    need(int_of(softmax.axis) % rank == rank - 1, "the softmax is not over the last axis")
    need(rank == 4, f"the scores have rank {rank}, not 4 ([B, H, L, S])")
    probabilities: SSAValue = softmax.result
    guard = _nan_guard(probabilities)
    if guard:
        probabilities = guard[-1].results[0]
    reader = only_use(probabilities, "the softmax")
    need(isinstance(reader, MatmulOp), "the softmax is not read by a dnn.matmul")
    pv = _plain_matmul(reader.results[0], "the softmax's reader")
    need(pv.lhs is probabilities, "the softmax is not the left operand of its matmul")
    v, v_ops = _strip_repeat_kv(pv.rhs, "v")
    masked, mask, where_mask, mask_ops = _unmask(softmax.src)
    factors: list[float] = []
    scores, scale_ops = _strip_scales(masked, "the scores", factors, strict=True)
    qk = _plain_matmul(scores, "the scores")
    only_use(qk.result, "the scores")
    q, q_ops = _strip_scales(qk.lhs, "q", factors, strict=False)
    kt, k_ops = _strip_scales(qk.rhs, "kᵀ", factors, strict=False)
    transpose = kt.owner
    transposed = isinstance(transpose, TransposeOp) and ints(transpose.permutation) == [0, 1, 3, 2]
    repeat_ops: list[Operation] = []
    k = kt
    if transposed:
        assert isinstance(transpose, TransposeOp)  # checked above
        only_use(kt, "kᵀ")
        k, repeat_ops = _strip_repeat_kv(transpose.src, "k")
        k_ops.insert(0, transpose)
    for what, value in (("q", q), ("kᵀ", kt), ("v", v)):
        need(len(shape_of(value)) == 4, f"{what} is not [B, H, L, D]")
    heads, kv_heads = shape_of(q)[1], shape_of(v)[1]
    multiple = heads % kv_heads == 0 if kv_heads > 0 else False
    need(multiple, f"the {heads} q heads are not a multiple of the {kv_heads} v heads")
    ops = [*q_ops, *repeat_ops, *k_ops, *v_ops, qk, *scale_ops, *mask_ops, softmax, *guard, pv]
    scale = float(np.prod(factors)) if factors else 1.0
    return _Match(q, k, v, scale, mask, where_mask, transposed, bool(guard), ops)


def _additive(where: WhereOp, at: Operation) -> list[Operation]:
    """dnn.where %c, 0, fill: the additive form of a dnn.where that masks the scores."""
    element = tensor_type(where.rhs).get_element_type()
    zero = constant_op(np.zeros(()), TensorType(element, []), at)
    additive = WhereOp(where.condition, zero.result, where.rhs)
    return [zero, additive]


class RecoverAttention(RewritePattern):
    """The rule of the module docstring, anchored on the softmax."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: SoftmaxOp, rewriter: PatternRewriter, /) -> None:
        try:
            match = _match(op)
        except NoMatch as refusal:
            remark(op, f"not recovered: {refusal}")
            return
        new_ops = _additive(match.where_mask, op) if match.where_mask is not None else []
        mask = new_ops[-1].results[0] if new_ops else match.mask
        causal = mask is not None and _is_causal(mask, shape_of(op.src))
        k = match.k
        if not match.transposed:
            transpose = TransposeOp(k, permutation=[0, 1, 3, 2])
            new_ops.append(transpose)
            k = transpose.result
        last = match.ops[-1]
        sdpa = SdpaOp(
            match.q,
            k,
            match.v,
            None if causal else mask,
            scale=match.scale,
            causal=causal,
            nan_to_zero=match.nan_to_zero,
        )
        if sdpa.result.type != last.results[0].type:
            remark(op, f"not recovered: the result type {last.results[0].type} is not q's")
            return
        for new in (*new_ops, sdpa):
            new.location = last.location  # the attention's output: where profiles name it
        replace_chain(rewriter, match.ops, [*new_ops, sdpa])
        remark(sdpa, f"recovered sdpa (scale {match.scale:.6g}{', causal' if causal else ''})")


@dataclass(frozen=True)
class RecoverAttentionPass(ModulePass):
    """dnn-recover-attention (module docstring)."""

    name = "dnn-recover-attention"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        recover_unless_propagating(op, RecoverAttention())
