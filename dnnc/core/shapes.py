"""Shape inference for every dnn op, in plain Python (no xDSL).

One function per op, named after it (``conv2d`` for ``dnn.conv2d``; ``sum`` and ``slice``
therefore shadow the builtins inside this module). Operand shapes are positional tuples of
ints; the op's properties are keyword arguments named and defaulted as in docs/dialect.md.
A dimension unknown until run time is ``DYNAMIC``: any size computed from it is ``DYNAMIC``
and any check that needs it is skipped. Each function returns the result shape (``top_k``:
both result shapes) or raises ``ShapeError`` saying what is wrong and what would be valid.

The dialect's verifiers, the ONNX importer and the runtime (re-inferring shapes for new
input sizes) all call these functions, so a rule lives here once.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Protocol

from dnnc.core.kinds import PostOp, SumPostOp, takes_argument
from dnnc.core.symbols import SymbolicInt, same_value

DYNAMIC = -1
"""A dimension whose size is known only at run time (``?`` in a tensor type)."""

Shape = tuple[int, ...]


class ShapeError(ValueError):
    """Operand shapes or properties that no op instance can have."""


def format_shape(shape: Sequence[int]) -> str:
    """``1x3x?x?`` as in a tensor type (``scalar`` for rank 0)."""
    if not shape:
        return "scalar"
    return "x".join("?" if d == DYNAMIC else str(d) for d in shape)


def compatible(actual: Sequence[int], expected: Sequence[int]) -> bool:
    """Same rank and every pair of dimensions equal or one of them dynamic."""
    return len(actual) == len(expected) and all(
        a == e or DYNAMIC in (a, e) for a, e in zip(actual, expected)
    )


def normalize_axis(axis: int, rank: int, what: str = "axis") -> int:
    """A possibly negative axis as an index in [0, rank)."""
    if not -rank <= axis < rank:
        raise ShapeError(
            f"{what} {axis} is out of range for rank {rank}: expected {-rank}..{rank - 1}"
        )
    return axis % rank


def _expect_rank(shape: Shape, what: str, valid: str, ok: bool) -> None:
    if not ok:
        raise ShapeError(
            f"{what} must have rank {valid}, got rank {len(shape)} ({format_shape(shape)})"
        )


def _expect_equal(a: int, b: int, message: str) -> None:
    """Raise unless a and b are equal or one of them is dynamic."""
    if a != b and DYNAMIC not in (a, b):
        raise ShapeError(message)


def _expect_pair(values: Sequence[int], what: str, minimum: int) -> None:
    if len(values) != 2 or any(v < minimum for v in values):
        raise ShapeError(
            f"{what} must be 2 values >= {minimum} (height, width), got {list(values)}"
        )


def _vector(shape: Shape, size: int, what: str, size_name: str) -> None:
    """A rank-1 operand of the given size (a per-channel parameter or a bias)."""
    _expect_rank(shape, what, "1", len(shape) == 1)
    _expect_equal(shape[0], size, f"{what} size ({shape[0]}) must equal {size_name} ({size})")


def _window(
    spatial: Sequence[int],
    kernel: Sequence[int],
    strides: Sequence[int],
    pads_begin: Sequence[int],
    pads_end: Sequence[int],
    dilations: Sequence[int],
) -> Shape:
    """Output height and width of a sliding window (convolution or pooling)."""
    _expect_pair(kernel, "kernel", 1)
    _expect_pair(strides, "strides", 1)
    _expect_pair(pads_begin, "pads_begin", 0)
    _expect_pair(pads_end, "pads_end", 0)
    _expect_pair(dilations, "dilations", 1)
    out: list[int] = []
    for axis, name in enumerate(("height", "width")):
        if spatial[axis] == DYNAMIC:
            out.append(DYNAMIC)
            continue
        padded = spatial[axis] + pads_begin[axis] + pads_end[axis]
        extent = dilations[axis] * (kernel[axis] - 1) + 1
        if extent > padded:
            raise ShapeError(
                f"window {name} ({extent} with dilation) exceeds the padded input {name} ({padded})"
            )
        out.append((padded - extent) // strides[axis] + 1)
    return tuple(out)


class ConvShape(Protocol):
    """The signature of conv2d and deconv2d."""

    def __call__(
        self,
        src: Shape,
        wei: Shape,
        bias: Shape | None = None,
        *,
        strides: Sequence[int] = ...,
        pads_begin: Sequence[int] = ...,
        pads_end: Sequence[int] = ...,
        dilations: Sequence[int] = ...,
        groups: int = ...,
    ) -> Shape: ...


def conv2d(
    src: Shape,
    wei: Shape,
    bias: Shape | None = None,
    *,
    strides: Sequence[int] = (1, 1),
    pads_begin: Sequence[int] = (0, 0),
    pads_end: Sequence[int] = (0, 0),
    dilations: Sequence[int] = (1, 1),
    groups: int = 1,
) -> Shape:
    """[N,C,H,W] * [O,C/groups,KH,KW] -> [N,O,OH,OW]; dilation 1 is a dense kernel."""
    _expect_conv_operands(src, wei, bias, groups)
    height, width = _window(src[2:], wei[2:], strides, pads_begin, pads_end, dilations)
    return (src[0], wei[0], height, width)


def deconv2d(
    src: Shape,
    wei: Shape,
    bias: Shape | None = None,
    *,
    strides: Sequence[int] = (1, 1),
    pads_begin: Sequence[int] = (0, 0),
    pads_end: Sequence[int] = (0, 0),
    dilations: Sequence[int] = (1, 1),
    groups: int = 1,
) -> Shape:
    """The transpose of conv2d: [N,C,H,W] through [O,C/groups,KH,KW] -> [N,O,OH,OW] with
    OH = (H - 1) * stride + (KH - 1) * dilation + 1 - pads_begin - pads_end; pads_end may be
    negative down to 1 - stride (output rows no input reaches)."""
    _expect_conv_operands(src, wei, bias, groups)
    _expect_pair(wei[2:], "kernel", 1)
    _expect_pair(strides, "strides", 1)
    _expect_pair(pads_begin, "pads_begin", 0)
    _expect_pair(dilations, "dilations", 1)
    if len(pads_end) != 2 or any(p <= -s for p, s in zip(pads_end, strides)):
        raise ShapeError(f"pads_end must be 2 values above -strides, got {list(pads_end)}")
    out: list[int] = []
    for size, k, s, d, begin, end in zip(
        src[2:], wei[2:], strides, dilations, pads_begin, pads_end
    ):
        if size == DYNAMIC:
            out.append(DYNAMIC)
            continue
        full = (size - 1) * s + (k - 1) * d + 1
        if full - begin - end < 1:
            raise ShapeError(f"pads {begin} + {end} crop the whole {full}-wide output")
        out.append(full - begin - end)
    return (src[0], wei[0], *out)


def _expect_conv_operands(src: Shape, wei: Shape, bias: Shape | None, groups: int) -> None:
    """src [N,C,H,W], wei [O,C/groups,KH,KW] with static KH, KW, bias [O]."""
    _expect_rank(src, "src", "4 (N, C, H, W)", len(src) == 4)
    _expect_rank(wei, "wei", "4 (O, C/groups, KH, KW)", len(wei) == 4)
    if groups < 1:
        raise ShapeError(f"groups must be >= 1, got {groups}")
    if DYNAMIC not in (src[1], wei[1]) and src[1] != groups * wei[1]:
        raise ShapeError(
            f"input channels ({src[1]}) must equal groups ({groups}) * weight input channels "
            f"({wei[1]})"
        )
    if wei[0] != DYNAMIC and wei[0] % groups != 0:
        raise ShapeError(f"output channels ({wei[0]}) must be a multiple of groups ({groups})")
    if DYNAMIC in wei[2:]:
        raise ShapeError(f"kernel size must be static, got wei {format_shape(wei)}")
    if bias is not None:
        _vector(bias, wei[0], "bias", "output channels")


def same_size(a: int, b: int) -> bool:
    """Whether ``a`` and ``b`` are the same size for every signature: equal plain ints or the
    same polynomial (dnnc.core.symbols.same_value: a comparison that records no guard)."""
    return same_value(a, b)


def positive_sizes(shape: Sequence[int]) -> bool:
    """Whether every size of ``shape`` is at least 1 (none DYNAMIC, none empty). Each size is
    compared with 0 alone: traced, a size that follows the input sizes records ``s > 0``,
    which every signature meets; ``min(shape) > 0`` would compare the batch with each other
    size first (a guard ``s0 > 32`` per stage of a CNN, splitting batches 1..16)."""
    return all(size > 0 for size in shape)


def same_shape(a: Sequence[int], b: Sequence[int]) -> bool:
    """Whether shapes ``a`` and ``b`` are equal, sizes that follow the input sizes (traced:
    dnnc.core.symbols) compared last: a pair of fixed sizes that differ settles it for every
    signature, so a weight's [64, 64, 3, 3] against a result's [N, 64, 32, 32] records no
    guard on N; only shapes alike in every fixed size compare their other pairs (guards)."""
    if len(a) != len(b):
        return False
    pairs = [(x, y) for x, y in zip(a, b) if not same_size(x, y)]
    if any(not isinstance(x, SymbolicInt) and not isinstance(y, SymbolicInt) for x, y in pairs):
        return False  # two fixed sizes that differ (same_size compared them)
    return all(x == y for x, y in pairs)


def _broadcast(lhs: Shape, rhs: Shape, what: str = "shapes") -> Shape:
    """numpy broadcasting: align from the right, each pair equal or one of them 1.

    Two sizes that are equal are compared with each other before either is compared with 1:
    for a pair of symbolic sizes equal in the traced signature (batch against batch) the
    guard is only ``a == b``, under which the result is ``a`` whether or not they are 1 (two
    sizes of 1 broadcast to 1, as two equal sizes keep theirs), so batch 1 keeps the
    decision; a pair that differs is then compared with 1 as before."""
    rank = max(len(lhs), len(rhs))
    padded_lhs = (1,) * (rank - len(lhs)) + lhs
    padded_rhs = (1,) * (rank - len(rhs)) + rhs
    out: list[int] = []
    for a, b in zip(padded_lhs, padded_rhs):
        if same_size(a, b) or same_size(b, 1):
            out.append(a)  # whatever a is: no guard on it (dnnc.core.symbols)
        elif same_size(a, 1):
            out.append(b)
        elif a == b:
            out.append(a)
        elif a == 1 or b == 1:
            out.append(b if a == 1 else a)
        elif DYNAMIC in (a, b):
            out.append(a if a != DYNAMIC else b)
        else:
            raise ShapeError(
                f"{what} {format_shape(lhs)} and {format_shape(rhs)} do not broadcast: each "
                "dimension pair (aligned from the right) must be equal or contain a 1"
            )
    return tuple(out)


def _expect_broadcastable_to(arg: Shape, dst: Shape, what: str, same_rank: bool) -> None:
    """Each dimension of arg equal to dst's or 1 (right-aligned unless same_rank)."""
    if len(arg) > len(dst) or (same_rank and len(arg) != len(dst)):
        raise ShapeError(
            f"{what} {format_shape(arg)} must have {'the' if same_rank else 'at most the'} rank "
            f"of the result {format_shape(dst)}"
        )
    for a, d in zip(arg, dst[len(dst) - len(arg) :]):
        if a != 1 and a != d and DYNAMIC not in (a, d):
            raise ShapeError(
                f"{what} {format_shape(arg)} does not broadcast to the result "
                f"{format_shape(dst)}: each dimension must equal the result's or be 1"
            )


def matmul(lhs: Shape, rhs: Shape, bias: Shape | None = None) -> Shape:
    """[...,M,K] @ [...,K,N] -> [...,M,N] with the batch dimensions broadcast."""
    _expect_rank(lhs, "lhs", ">= 2 ([..., M, K])", len(lhs) >= 2)
    _expect_rank(rhs, "rhs", ">= 2 ([..., K, N])", len(rhs) >= 2)
    _expect_equal(lhs[-1], rhs[-2], f"lhs columns ({lhs[-1]}) must equal rhs rows ({rhs[-2]}) (K)")
    dst = (*_broadcast(lhs[:-2], rhs[:-2], "batch dimensions"), lhs[-2], rhs[-1])
    if bias is not None:
        _expect_broadcastable_to(bias, dst, "bias", same_rank=False)
    return dst


def sdpa(q: Shape, k: Shape, v: Shape, mask: Shape | None = None) -> Shape:
    """Scaled dot-product attention: q [B,Hq,L,D], k [B,Hkv,S,D], v [B,Hkv,S,Dv] -> [B,Hq,L,Dv].

    Hq is a multiple of Hkv (query head h reads key/value head h // (Hq / Hkv)); the mask
    broadcasts (right-aligned, each dimension equal or 1) to the scores [B,Hq,L,S].
    """
    for what, shape, layout in (("q", q, "B, Hq, L, D"), ("k", k, "B, Hkv, S, D")):
        _expect_rank(shape, what, f"4 ([{layout}])", len(shape) == 4)
    _expect_rank(v, "v", "4 ([B, Hkv, S, Dv])", len(v) == 4)
    for what, shape in (("k", k), ("v", v)):
        _expect_equal(shape[0], q[0], f"{what} batch ({shape[0]}) must equal q's ({q[0]})")
    _expect_equal(k[3], q[3], f"k head size ({k[3]}) must equal q's ({q[3]})")
    _expect_equal(v[1], k[1], f"v heads ({v[1]}) must equal k's ({k[1]})")
    _expect_equal(v[2], k[2], f"v length ({v[2]}) must equal k's ({k[2]})")
    if DYNAMIC not in (q[1], k[1]) and (k[1] < 1 or q[1] % k[1] != 0):
        raise ShapeError(f"q heads ({q[1]}) must be a multiple of the key/value heads ({k[1]})")
    scores = (q[0], q[1], q[2], k[2])
    if mask is not None and (
        len(mask) > 4
        or any(m not in (1, s) and DYNAMIC not in (m, s) for m, s in zip(mask[::-1], scores[::-1]))
    ):
        raise ShapeError(
            f"mask {format_shape(mask)} does not broadcast to the scores [B, Hq, L, S] = "
            f"{format_shape(scores)}: each dimension (aligned from the right) must equal the "
            "scores' or be 1"
        )
    return (q[0], q[1], q[2], v[3])


def inner_product(src: Shape, wei: Shape, bias: Shape | None = None) -> Shape:
    """[N,C,...] x [O,C,...] -> [N,O]: every non-batch dimension is reduced."""
    _expect_rank(src, "src", "2 to 5 ([N, C, ...])", 2 <= len(src) <= 5)
    if len(wei) != len(src) or not compatible(wei[1:], src[1:]):
        raise ShapeError(
            f"wei {format_shape(wei)} must be [O] followed by the src dimensions after N "
            f"({format_shape(src[1:])})"
        )
    if bias is not None:
        _vector(bias, wei[0], "bias", "output channels")
    return (src[0], wei[0])


def pool(
    src: Shape,
    *,
    kernel: Sequence[int],
    strides: Sequence[int] = (1, 1),
    pads_begin: Sequence[int] = (0, 0),
    pads_end: Sequence[int] = (0, 0),
    dilations: Sequence[int] = (1, 1),
) -> Shape:
    """[N,C,H,W] -> [N,C,OH,OW] for any pooling kind."""
    _expect_rank(src, "src", "4 (N, C, H, W)", len(src) == 4)
    height, width = _window(src[2:], kernel, strides, pads_begin, pads_end, dilations)
    return (src[0], src[1], height, width)


def _channels(src: Shape) -> int:
    _expect_rank(src, "src", ">= 2 ([N, C, ...])", len(src) >= 2)
    return src[1]


def batch_norm(src: Shape, scale: Shape, shift: Shape, mean: Shape, variance: Shape) -> Shape:
    """Normalization with given statistics: every parameter is [C]."""
    channels = _channels(src)
    for what, shape in (("scale", scale), ("shift", shift), ("mean", mean), ("variance", variance)):
        _vector(shape, channels, what, "channels")
    return src


def layer_norm(src: Shape, scale: Shape | None = None, shift: Shape | None = None) -> Shape:
    """Normalization over the last axis: scale and shift are [C], C the last dimension."""
    _expect_rank(src, "src", ">= 1", len(src) >= 1)
    for what, shape in (("scale", scale), ("shift", shift)):
        if shape is not None:
            _vector(shape, src[-1], what, "the last src dimension")
    return src


def lrn(src: Shape, *, size: int) -> Shape:
    """Local response normalization over a window of ``size`` channels or pixels."""
    _channels(src)
    if size < 1:
        raise ShapeError(f"size must be >= 1, got {size}")
    return src


def softmax(src: Shape, *, axis: int) -> Shape:
    """Softmax along one (possibly negative) axis."""
    normalize_axis(axis, len(src))
    return src


def log_softmax(src: Shape, *, axis: int) -> Shape:
    """Log-softmax along one (possibly negative) axis."""
    return softmax(src, axis=axis)


def reduce(src: Shape, *, axes: Sequence[int], keep_dims: bool = True) -> Shape:
    """Reduced axes become 1, or are dropped when keep_dims is false."""
    if not axes:
        raise ShapeError("axes must name at least one dimension")
    normalized = [normalize_axis(a, len(src), "reduction axis") for a in axes]
    if len(set(normalized)) != len(normalized):
        raise ShapeError(f"axes {list(axes)} name a dimension twice")
    if keep_dims:
        return tuple(1 if d in normalized else n for d, n in enumerate(src))
    return tuple(n for d, n in enumerate(src) if d not in normalized)


def eltwise(src: Shape) -> Shape:
    """Element-wise: the shape is unchanged."""
    return src


def binary(lhs: Shape, rhs: Shape) -> Shape:
    """numpy broadcast of both operand shapes."""
    return _broadcast(lhs, rhs)


def post_ops(dst: Shape, post_ops: Sequence[PostOp], post_args: Sequence[Shape]) -> None:
    """Check post-op arguments against an anchor op's result shape.

    One argument per binary or sum post-op, in order; a binary argument has the result's
    rank with each dimension equal to the result's or 1 (oneDNN's per-tensor, per-channel
    or full broadcast), a sum argument has exactly the result's shape.
    """
    consumers = [p for p in post_ops if takes_argument(p)]
    if len(consumers) != len(post_args):
        raise ShapeError(
            f"has {len(post_args)} post_args but its post_ops take {len(consumers)} "
            "(one per binary or sum post-op)"
        )
    for index, (post_op, arg) in enumerate(zip(consumers, post_args)):
        what = f"post_args[{index}]"
        if isinstance(post_op, SumPostOp):
            if not compatible(arg, dst):
                raise ShapeError(
                    f"{what} {format_shape(arg)} of a sum post-op must have the result shape "
                    f"{format_shape(dst)}"
                )
        else:
            _expect_broadcastable_to(arg, dst, what, same_rank=True)


def sum(inputs: Sequence[Shape], *, scales: Sequence[float] | None = None) -> Shape:
    """Scaled sum of same-shaped inputs."""
    if not inputs:
        raise ShapeError("needs at least one input")
    for index, shape in enumerate(inputs[1:], start=1):
        if not compatible(shape, inputs[0]):
            raise ShapeError(
                f"inputs[{index}] {format_shape(shape)} must have the shape of inputs[0] "
                f"{format_shape(inputs[0])}"
            )
    if scales is not None and len(scales) != len(inputs):
        raise ShapeError(
            f"has {len(scales)} scales for {len(inputs)} inputs: expected one per input"
        )
    return inputs[0]


def concat(inputs: Sequence[Shape], *, axis: int) -> Shape:
    """Inputs joined along one axis; every other dimension must agree."""
    if not inputs:
        raise ShapeError("needs at least one input")
    first = inputs[0]
    along = normalize_axis(axis, len(first))
    total = 0
    for index, shape in enumerate(inputs):
        others = first[:along] + first[along + 1 :]
        if len(shape) != len(first) or not compatible(shape[:along] + shape[along + 1 :], others):
            raise ShapeError(
                f"inputs[{index}] {format_shape(shape)} must match inputs[0] "
                f"{format_shape(first)} in every dimension but axis {axis}"
            )
        total = DYNAMIC if DYNAMIC in (total, shape[along]) else total + shape[along]
    return (*first[:along], total, *first[along + 1 :])


def slice(
    src: Shape,
    *,
    starts: Sequence[int],
    ends: Sequence[int],
    steps: Sequence[int] | None = None,
) -> Shape:
    """One (start, end, step) per dimension, 0 <= start <= end <= dim, step >= 1; an end of
    ``DYNAMIC`` on a dynamic dimension reaches its end (the result is dynamic there)."""
    steps = [1] * len(src) if steps is None else steps
    for what, values in (("starts", starts), ("ends", ends), ("steps", steps)):
        if len(values) != len(src):
            raise ShapeError(
                f"{what} has {len(values)} entries, expected one per dimension ({len(src)})"
            )
    out: list[int] = []
    for d, (size, start, end, step) in enumerate(zip(src, starts, ends, steps)):
        if step < 1:
            raise ShapeError(f"steps[{d}] must be >= 1, got {step}")
        if end == DYNAMIC and size == DYNAMIC and start >= 0:
            out.append(DYNAMIC)
            continue
        if not 0 <= start <= end or (size != DYNAMIC and end > size):
            raise ShapeError(
                f"dimension {d}: expected 0 <= start ({start}) <= end ({end}) <= size ({size})"
            )
        out.append(-(-(end - start) // step))
    return tuple(out)


def reshape(src: Shape, *, shape: Shape) -> Shape:
    """A new shape with the same number of elements."""
    if any(d < 0 and d != DYNAMIC for d in shape):
        raise ShapeError(f"result dimensions must be >= 0 or dynamic, got {list(shape)}")
    if DYNAMIC not in src and DYNAMIC not in shape and math.prod(src) != math.prod(shape):
        raise ShapeError(
            f"cannot reshape {format_shape(src)} ({math.prod(src)} elements) to "
            f"{format_shape(shape)} ({math.prod(shape)} elements)"
        )
    return shape


def gather(src: Shape, indices: Shape, *, axis: int) -> Shape:
    """src's dimensions with the one at ``axis`` replaced by the indices' (ONNX Gather)."""
    along = normalize_axis(axis, len(src))
    return src[:along] + tuple(indices) + src[along + 1 :]


def gather_elements(src: Shape, indices: Shape, *, axis: int) -> Shape:
    """The indices' shape (ONNX GatherElements): of src's rank, and no larger than src on any
    axis but ``axis`` (an index there picks along ``axis`` at the same other coordinates)."""
    along = normalize_axis(axis, len(src))
    if len(indices) != len(src):
        raise ShapeError(
            f"indices {format_shape(indices)} must have the rank of src {format_shape(src)}"
        )
    for dim, (have, want) in enumerate(zip(src, indices, strict=True)):
        if dim != along and DYNAMIC not in (have, want) and want > have:
            raise ShapeError(
                f"indices {format_shape(indices)} exceed src {format_shape(src)} on axis {dim}"
            )
    return tuple(indices)


def gather_nd(src: Shape, indices: Shape, *, batch_dims: int) -> Shape:
    """The indices' dimensions but the last, then src's beyond the first ``batch_dims`` and
    the ``indices[-1]`` it indexes (ONNX GatherND): the last indices dimension must be static
    and at most src's rank less ``batch_dims``, the first ``batch_dims`` of both equal."""
    if not 0 <= batch_dims < min(len(src), len(indices)):
        raise ShapeError(
            f"batch_dims {batch_dims} must be below the ranks of src {format_shape(src)} and "
            f"indices {format_shape(indices)}"
        )
    depth = indices[-1]
    if depth == DYNAMIC or not 1 <= depth <= len(src) - batch_dims:
        raise ShapeError(
            f"indices {format_shape(indices)} must end in a static dimension from 1 to "
            f"{len(src) - batch_dims} (src {format_shape(src)}, batch_dims {batch_dims})"
        )
    for dim in range(batch_dims):
        if DYNAMIC not in (src[dim], indices[dim]) and src[dim] != indices[dim]:
            raise ShapeError(
                f"src {format_shape(src)} and indices {format_shape(indices)} differ on batch "
                f"axis {dim}"
            )
    return tuple(indices[:-1]) + tuple(src[batch_dims + depth :])


def transpose(src: Shape, *, permutation: Sequence[int]) -> Shape:
    """Result dimension i is src dimension permutation[i]."""
    if sorted(permutation) != list(range(len(src))):
        raise ShapeError(
            f"permutation {list(permutation)} must be a permutation of 0..{len(src) - 1}"
        )
    return tuple(src[p] for p in permutation)


def inverse_permutation(permutation: Sequence[int]) -> tuple[int, ...]:
    """The permutation that undoes `permutation` (transposing by one, then the other, is
    the identity)."""
    inverse = [0] * len(permutation)
    for i, d in enumerate(permutation):
        inverse[d] = i
    return tuple(inverse)


def moves_only_unit_dims(src: Shape, permutation: Sequence[int]) -> bool:
    """Whether transposing a static `src` by `permutation` keeps its dims of size other than
    1 in order: the same row-major elements, so a reshape."""
    if DYNAMIC in src:
        return False
    moved = [d for d in permutation if src[d] != 1]
    return moved == sorted(moved)


def transpose_before_reshape(
    src: Shape, permutation: Sequence[int], shape: Shape
) -> tuple[Shape, tuple[int, ...]] | None:
    """For ``reshape(transpose(x, permutation), shape)`` of a static x of shape `src`, where
    the reshape only inserts or drops dims of size 1: (x's shape for a reshape first, the
    permutation after it) giving the same result; None for any other reshape."""
    transposed = transpose(src, permutation=permutation)
    if DYNAMIC in src or DYNAMIC in shape:
        return None
    if [d for d in transposed if d != 1] != [d for d in shape if d != 1]:
        return None  # the reshape regroups elements, not only unit dims
    kept = sorted(permutation[i] for i, d in enumerate(transposed) if d != 1)  # x's dims
    units = list(shape).count(1)
    first = tuple([1] * units + [src[d] for d in kept])
    position = {d: units + k for k, d in enumerate(kept)}
    order = iter(permutation[i] for i, d in enumerate(transposed) if d != 1)
    unit = iter(range(units))
    after = tuple(next(unit) if d == 1 else position[next(order)] for d in shape)
    return first, after


def cumsum(src: Shape, *, axis: int) -> Shape:
    """Running sums along an axis: the shape is unchanged."""
    normalize_axis(axis, len(src))
    return src


def top_k(src: Shape, *, k: int, axis: int = -1) -> tuple[Shape, Shape]:
    """The k largest (or smallest) along an axis: values and indices share one shape."""
    along = normalize_axis(axis, len(src))
    if k < 1:
        raise ShapeError(f"k must be >= 1, got {k}")
    if src[along] != DYNAMIC and k > src[along]:
        raise ShapeError(f"k ({k}) exceeds the size of axis {axis} ({src[along]})")
    out = (*src[:along], k, *src[along + 1 :])
    return out, out


def reorder(src: Shape) -> Shape:
    """A layout change: the logical shape is unchanged."""
    return src


def cast(src: Shape) -> Shape:
    """An element type change: the shape is unchanged."""
    return src
