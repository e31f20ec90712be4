"""dnn-expand-attention: a dnn.sdpa becomes the oneDNN primitives that compute it.

Rule: %y = dnn.sdpa %q, %k, %v mask(%m) {scale, causal, nan_to_zero}
      ==> %s = dnn.matmul %q', %kᵀ'          scores [B, H, L, S] (G = Hq / Hkv = 1),
                                             [B, Hkv, G L, S] (G > 1, rows stacked) or
                                             [B, Hkv, G, L, S] (G > 1, rows apart)
          %t = dnn.eltwise linear %s {alpha = scale}        (none when scale is 1)
          %a = dnn.binary add %t, %m'                       (when there is a mask)
          %c = dnn.binary add %a, <[L, S] constant: the lowest f32 after the diagonal>
                                                            (causal, L > 1)
          %p = dnn.softmax %c {axis = last}
          [%n = dnn.compare ne %p, %p;  %p = dnn.where %n, 0, %p]   (when nan_to_zero)
          %y = dnn.matmul %p, %v'  (then a dnn.reshape to [B, Hq, L, Dv] when G > 1)
With grouped heads, when nothing added to the scores varies along the queries or the heads
(no causal diagonal over several queries, a mask [B, 1, 1, S] at most: a decoding step), the
G query heads of a key/value head are stacked as G L rows, q' = q viewed as [B, Hkv, G L, D],
and k, v are read as they are; otherwise q' is q viewed as [B, Hkv, G, L, D] and k, v as
[B, Hkv, 1, S, D], which the matmuls broadcast over the G query heads. Either way neither k
nor v is repeated in memory. kᵀ' is a dnn.transpose of the last two axes (a view
for dnn-transpose-as-view). The mask keeps its own shape (viewed at the scores' rank: a
[B, 1, L, S] padding mask is never broadcast over the heads in memory); dnn-fuse-post-ops
then folds the scale and the mask additions into the first matmul where oneDNN takes them
as post-ops (its remarks say where it does not), so the scores are written once.

Kept as dnn.sdpa, on its reference kernel (remark "kept on the reference kernel: <why>"),
when a dimension the views or the causal constant need is dynamic.

Pre:  the IR verifies.   Post: every dnn.sdpa is expanded or has a remark.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from dnnc.core import shapes
from dnnc.core.diagnostics import remark
from dnnc.core.kinds import BinaryAlg, CompareAlg, EltwiseAlg
from dnnc.dialects.dnn import (
    BinaryOp,
    CompareOp,
    EltwiseOp,
    MatmulOp,
    ReshapeOp,
    SdpaOp,
    SoftmaxOp,
    TransposeOp,
    WhereOp,
    shape_of,
)
from dnnc.dialects.dnn.base import int_of, tensor_type
from dnnc.passes.constants import constant_op
from dnnc.reference.attention import causal_mask


class _Builder:
    """The ops of one expansion, in order, each typed by its shape function."""

    def __init__(self, at: Operation, element: Attribute) -> None:
        self.at, self.element, self.ops = at, element, list[Operation]()

    def _add(self, op: Operation) -> SSAValue:
        op.location = self.at.location
        self.ops.append(op)
        return op.results[0]

    def _type(self, shape: shapes.Shape, element: Attribute | None = None) -> TensorType:
        return TensorType(element or self.element, shape)

    def constant(self, array: np.ndarray) -> SSAValue:
        return self._add(constant_op(array, self._type(array.shape), self.at))

    def reshape(self, value: SSAValue, shape: shapes.Shape) -> SSAValue:
        if shape_of(value) == shape:
            return value
        return self._add(ReshapeOp(value, shape))

    def transpose_last(self, value: SSAValue) -> SSAValue:
        rank = len(shape_of(value))
        permutation = [*range(rank - 2), rank - 1, rank - 2]
        shape = shapes.transpose(shape_of(value), permutation=permutation)
        return self._add(TransposeOp(value, permutation=permutation, result_type=self._type(shape)))

    def matmul(self, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        shape = shapes.matmul(shape_of(lhs), shape_of(rhs))
        return self._add(MatmulOp(lhs, rhs, result_type=self._type(shape)))

    def binary(self, alg: BinaryAlg, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        shape = shapes.binary(shape_of(lhs), shape_of(rhs))
        return self._add(BinaryOp(alg, lhs, rhs, result_type=self._type(shape)))

    def linear(self, value: SSAValue, alpha: float) -> SSAValue:
        return self._add(EltwiseOp(EltwiseAlg.LINEAR, value, alpha=alpha))

    def softmax(self, value: SSAValue) -> SSAValue:
        return self._add(SoftmaxOp(value, axis=len(shape_of(value)) - 1))

    def nan_to_zero(self, value: SSAValue) -> SSAValue:
        """where(value != value, 0, value)."""
        is_nan = self._add(CompareOp(CompareAlg.NE, value, value))
        zero = self.constant(np.zeros((1,) * len(shape_of(value)), np.float32))
        return self._add(WhereOp(is_nan, zero, value))


def _rows_folded(sdpa: SdpaOp) -> bool:
    """Whether the G query heads of a key/value head can be stacked as G * L rows: nothing
    added to the scores varies along the queries or the heads (no causal diagonal, a mask
    [.., 1, 1, S] at most)."""
    queries = shape_of(sdpa.q)[2]
    if int_of(sdpa.causal) and queries > 1:
        return False
    mask = (1,) * 4 + shape_of(sdpa.mask) if sdpa.mask is not None else (1,) * 4
    return mask[-3:-1] == (1, 1)


def _expand(sdpa: SdpaOp) -> list[Operation]:
    """The ops of the rule (module docstring) for ``sdpa``, its result last."""
    batch, heads, queries, head_size = shape_of(sdpa.q)
    kv_heads, keys, _ = shape_of(sdpa.k)[1:]
    group = heads // kv_heads
    build = _Builder(sdpa, tensor_type(sdpa.q).get_element_type())
    q, k, v = sdpa.q, sdpa.k, sdpa.v
    if group > 1 and _rows_folded(sdpa):
        q = build.reshape(q, (batch, kv_heads, group * queries, head_size))
    elif group > 1:
        q = build.reshape(q, (batch, kv_heads, group, queries, head_size))
        k = build.reshape(k, (shape_of(k)[0], kv_heads, 1, *shape_of(k)[2:]))
        v = build.reshape(v, (shape_of(v)[0], kv_heads, 1, *shape_of(v)[2:]))
    scores = build.matmul(q, build.transpose_last(k))
    scale = sdpa.scale.value.data
    if scale != 1.0:
        scores = build.linear(scores, scale)
    if sdpa.mask is not None:
        mask = _mask_view(sdpa.mask, heads, group, len(shape_of(scores)))
        scores = build.binary(BinaryAlg.ADD, scores, build.reshape(sdpa.mask, mask))
    if int_of(sdpa.causal) and queries > 1:  # one query is the last position: it sees every key
        # the lowest f32 rather than -inf: the same probabilities (exp gives 0 either way), and
        # a constant that survives the IR's text form (xDSL reads -inf's hex form back wrongly)
        causal = np.maximum(causal_mask(queries, keys), np.finfo(np.float32).min)
        view = causal.reshape((1,) * (len(shape_of(scores)) - 2) + causal.shape)
        scores = build.binary(BinaryAlg.ADD, scores, build.constant(view))
    probabilities = build.softmax(scores)
    if int_of(sdpa.nan_to_zero):
        probabilities = build.nan_to_zero(probabilities)
    build.reshape(build.matmul(probabilities, v), shape_of(sdpa.result))
    return build.ops


def _mask_view(mask: SSAValue, heads: int, group: int, rank: int) -> shapes.Shape:
    """The mask's shape at the scores' rank: [Mb, Mh, Ml, Ms]; with grouped heads in rank 5
    [Mb, Mh / G or 1, G or 1, Ml, Ms] (with stacked rows Mh and Ml are 1)."""
    shape = (1,) * (4 - len(shape_of(mask))) + shape_of(mask)
    if rank == 5:
        per_head = shape[1] == heads
        shape = (shape[0], heads // group if per_head else 1, group if per_head else 1, *shape[2:])
    return shape


def _dynamic_reason(sdpa: SdpaOp) -> str | None:
    """Why the expansion cannot be built statically, None if it can."""
    grouped = shape_of(sdpa.q)[1] != shape_of(sdpa.k)[1]
    needed = [("q", sdpa.q), ("k", sdpa.k), ("v", sdpa.v)] if grouped else []
    if sdpa.mask is not None:
        needed.append(("the mask", sdpa.mask))
    for what, value in needed:
        if shapes.DYNAMIC in shape_of(value):
            return f"{what} has a dynamic dimension and is viewed at another rank"
    if int_of(sdpa.causal) and shapes.DYNAMIC in (shape_of(sdpa.q)[2], shape_of(sdpa.k)[2]):
        return "the causal mask needs the static lengths"
    return None


class ExpandSdpa(RewritePattern):
    """The rule of the module docstring."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: SdpaOp, rewriter: PatternRewriter, /) -> None:
        reason = _dynamic_reason(op)
        if reason is not None:
            remark(op, f"kept on the reference kernel: {reason}")
            return
        ops = _expand(op)
        rewriter.replace(op, ops, [ops[-1].results[0]])


@dataclass(frozen=True)
class ExpandAttentionPass(ModulePass):
    """dnn-expand-attention (module docstring)."""

    name = "dnn-expand-attention"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(ExpandSdpa(), apply_recursively=False).rewrite_module(op)
