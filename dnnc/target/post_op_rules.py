"""What oneDNN 3.2 accepts as post-ops: the one legality table of dnnc's fusion.

Source: oneDNN 3.2 developer guide, "Primitive Attributes: Post-ops" and the primitive pages.
- Anchors (the dnn ops of the ``PostOpAnchor`` interface) and the post-op kinds their primitive
  takes: convolution, deconvolution, matmul and inner product take eltwise, binary and sum;
  binary and pooling take eltwise and binary.
- Every ``dnn.eltwise`` algorithm has a post-op form (oneDNN's eltwise post-op takes any
  forward eltwise algorithm; ``relu6`` is ``clip_v2(0, 6)`` there).
- A binary post-op's argument ``p`` has the destination's rank and broadcasts to it as
  per-tensor (every dimension 1), per-channel (all but dimension 1 are 1), per-oc (all but the
  output-channel axis are 1: dimension 1, or the last one for matmul) or full (the same shape);
  a rank-3 or rank-4 matmul also per-mb-spatial ([N, 1, ...]) and per-mb-w ([N, 1, .., 1, W]),
  the attention masks over the heads (probed: brgemm on AVX-512 and gemm:jit on AVX2, for
  [2, 1, 16, 64], [2, 1, 1, 64] and [2, 1, 64] arguments; rank 5 and [1, 1, L, S] under a batch of
  2 fall to ref:any). oneDNN's reference kernels take other masks too, but its optimized ones
  do not, so fusing one would trade a fast binary for a slow convolution. Pooling takes no
  full-shape argument: with oneDNN 3.2 on plain (ncsp) data its result is wrong (the argument
  is read as if channels were innermost; test/python/passes/test_fusion_differential.py
  reproduces it).
- Binary and pooling take no sum post-op (oneDNN 3.2 returns unimplemented).
- The int8 convolution (``dnn.qconv2d``) takes its eltwise post-ops and its int8 residual's
  sum from dnn-fuse-quantized only: no f32 eltwise or binary op may fuse into it (its result
  is integers; a binary post-op's argument carries no scale).
- Layouts are chosen after fusion, so the table cannot see them: on plain (ncsp) data oneDNN
  3.2 runs a convolution with a full-shape binary post-op in its reference kernel (about 1000x
  slower at 1x64x56x56; bench/fusion.py's docstring), so such a convolution must get a blocked
  layout, as dnn-optimize's layout passes give it.
- ``post_ops_limit`` is 32 in oneDNN (``primitive_attr.hpp``); dnnc fuses at most
  ``DEFAULT_MAX_POST_OPS`` unless told otherwise, since long chains leave the JIT kernels.
Pairs of eltwise post-ops that oneDNN computes as one are in ``combine_eltwise``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from dnnc.core import shapes
from dnnc.core.kinds import BinaryAlg, BinaryPostOp, EltwiseAlg, EltwisePostOp, PostOp
from dnnc.dialects.dnn import (
    BinaryOp,
    Conv2DOp,
    Deconv2DOp,
    InnerProductOp,
    MatmulOp,
    PoolOp,
    QConv2DOp,
)
from dnnc.dialects.dnn.base import PostOpAnchor
from dnnc.dnnl.objects import has_binary_algorithm, has_eltwise_algorithm

ONEDNN_MAX_POST_OPS = 32
"""oneDNN's hard limit on the length of a post-op chain."""

DEFAULT_MAX_POST_OPS = 8
"""The longest chain dnnc fuses by default (`dnn-fuse-post-ops{max-post-ops=...}`)."""


class PostOpKind(StrEnum):
    """The post-op kinds of oneDNN that dnnc emits or reads."""

    ELTWISE = "eltwise"
    BINARY = "binary"
    SUM = "sum"

    @staticmethod
    def of(post_op: PostOp) -> PostOpKind:
        """The kind of a post-op description."""
        if isinstance(post_op, EltwisePostOp):
            return PostOpKind.ELTWISE
        if isinstance(post_op, BinaryPostOp):
            return PostOpKind.BINARY
        return PostOpKind.SUM


class Broadcast(StrEnum):
    """How a binary post-op argument may cover the destination."""

    PER_TENSOR = "per-tensor"
    PER_CHANNEL = "per-channel"
    PER_OC = "per-oc"
    FULL = "full"
    PER_MB_SPATIAL = "per-mb-spatial"
    """[N, 1, ...]: all but dimension 1 (an attention mask [B, 1, L, S] over the heads)."""
    PER_MB_W = "per-mb-w"
    """[N, 1, ..., 1, W]: the first and the last dimension (a padding mask [B, 1, 1, S])."""


_CLASSIC = frozenset(
    {Broadcast.PER_TENSOR, Broadcast.PER_CHANNEL, Broadcast.PER_OC, Broadcast.FULL}
)
"""What every anchor's optimized kernels take."""


@dataclass(frozen=True)
class AnchorRule:
    """What one anchor primitive accepts."""

    kinds: frozenset[PostOpKind]
    oc_axis: int
    """The output-channel axis of the result (negative counts from the end)."""
    broadcasts: frozenset[Broadcast] = _CLASSIC
    """The binary post-op argument shapes it takes."""


_ALL_KINDS = frozenset(PostOpKind)
_NO_SUM = frozenset({PostOpKind.ELTWISE, PostOpKind.BINARY})

ANCHORS: dict[type[PostOpAnchor], AnchorRule] = {
    Conv2DOp: AnchorRule(_ALL_KINDS, oc_axis=1),
    Deconv2DOp: AnchorRule(_ALL_KINDS, oc_axis=1),
    MatmulOp: AnchorRule(
        _ALL_KINDS,
        oc_axis=-1,
        broadcasts=_CLASSIC | {Broadcast.PER_MB_SPATIAL, Broadcast.PER_MB_W},
    ),
    InnerProductOp: AnchorRule(_ALL_KINDS, oc_axis=1),
    PoolOp: AnchorRule(
        _NO_SUM, oc_axis=1, broadcasts=frozenset({Broadcast.PER_TENSOR, Broadcast.PER_CHANNEL})
    ),
    BinaryOp: AnchorRule(_NO_SUM, oc_axis=1),
    QConv2DOp: AnchorRule(frozenset({PostOpKind.SUM}), oc_axis=1),
}
"""Every dnn op that carries post-ops (each `PostOpAnchor`), with the post-op kinds its oneDNN
primitive accepts."""

COMMUTATIVE: frozenset[BinaryAlg] = frozenset(
    {BinaryAlg.ADD, BinaryAlg.MUL, BinaryAlg.MAX, BinaryAlg.MIN}
)
"""Binary algorithms whose operands may swap (so the fused value may be either one)."""


def anchor_rule(op: PostOpAnchor) -> AnchorRule:
    """The rule of an anchor op."""
    return ANCHORS[type(op)]


def accumulates(op: PostOpAnchor) -> bool:
    """Whether the anchor's primitive takes a sum post-op, which accumulates into dst (so a
    residual add may become one, computed in place)."""
    return PostOpKind.SUM in anchor_rule(op).kinds


def broadcast_kind(arg: shapes.Shape, dst: shapes.Shape, oc_axis: int) -> Broadcast | None:
    """How `arg` (already of `dst`'s rank) covers `dst`, None if oneDNN has no fast form."""
    if len(arg) != len(dst) or shapes.DYNAMIC in arg or shapes.DYNAMIC in dst:
        return None
    if tuple(arg) == tuple(dst):
        return Broadcast.FULL
    kept = {axis for axis, size in enumerate(arg) if size != 1}
    if not kept:
        return Broadcast.PER_TENSOR
    if any(arg[axis] != dst[axis] for axis in kept):
        return None
    if kept == {1}:
        return Broadcast.PER_CHANNEL
    if kept == {oc_axis % len(dst)}:
        return Broadcast.PER_OC
    rank = len(dst)
    if rank in (3, 4) and tuple(arg) == (dst[0], 1, *dst[2:]):
        return Broadcast.PER_MB_SPATIAL
    if rank in (3, 4) and tuple(arg) == (dst[0], *(1,) * (rank - 2), dst[-1]):
        return Broadcast.PER_MB_W
    return None


def onednn_computes(post_op: PostOp) -> bool:
    """Whether oneDNN has the post-op's algorithm (every sum; not every eltwise or binary)."""
    if isinstance(post_op, EltwisePostOp):
        return has_eltwise_algorithm(post_op.alg)
    if isinstance(post_op, BinaryPostOp):
        return has_binary_algorithm(post_op.alg)
    return True


def _as_clip(post_op: EltwisePostOp) -> tuple[float, float] | None:
    """The [lo, hi] of an eltwise that clamps (relu with slope 0, relu6, clip), else None."""
    if post_op.alg == EltwiseAlg.RELU and post_op.alpha == 0.0:
        return (0.0, math.inf)
    if post_op.alg == EltwiseAlg.RELU6:
        return (0.0, 6.0)
    if post_op.alg == EltwiseAlg.CLIP and post_op.alpha <= post_op.beta:
        return (post_op.alpha, post_op.beta)
    return None


def _clamp(x: float, lo: float, hi: float) -> float:
    return min(max(x, lo), hi)


def combine_eltwise(first: EltwisePostOp, second: EltwisePostOp) -> EltwisePostOp | None:
    """One eltwise computing ``second(first(x))``, or None if oneDNN has no such form.

    Clamps compose into a clamp: ``clip(clip(x, a1, b1), a2, b2)`` is
    ``clip(x, clamp(a1, a2, b2), clamp(b1, a2, b2))`` (relu is clip to [0, inf), relu6 clip to
    [0, 6]); linear after linear is linear: ``a2 (a1 x + b1) + b2``.
    """
    if first.alg == EltwiseAlg.LINEAR and second.alg == EltwiseAlg.LINEAR:
        return EltwisePostOp(
            EltwiseAlg.LINEAR, second.alpha * first.alpha, second.alpha * first.beta + second.beta
        )
    inner, outer = _as_clip(first), _as_clip(second)
    if inner is None or outer is None:
        return None
    lo, hi = (_clamp(bound, *outer) for bound in inner)
    if hi == math.inf:
        return EltwisePostOp(EltwiseAlg.RELU)  # only relu after relu keeps no upper bound
    if (lo, hi) == (0.0, 6.0):
        return EltwisePostOp(EltwiseAlg.RELU6)
    return EltwisePostOp(EltwiseAlg.CLIP, lo, hi)


def appended(post_ops: Sequence[PostOp], extra: Sequence[PostOp]) -> list[PostOp]:
    """`post_ops` followed by `extra`, an eltwise merged into a trailing eltwise when it can be."""
    chain = list(post_ops)
    for post_op in extra:
        tail = chain[-1] if chain else None
        if isinstance(tail, EltwisePostOp) and isinstance(post_op, EltwisePostOp):
            merged = combine_eltwise(tail, post_op)
            if merged is not None:
                chain[-1] = merged
                continue
        chain.append(post_op)
    return chain
