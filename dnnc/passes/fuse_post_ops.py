"""dnn-fuse-post-ops: fold element-wise consumers into the primitive that produces their input.

Rules (what oneDNN accepts is the table in ``post_op_rules``; anchors are dnn.conv2d,
dnn.deconv2d, dnn.matmul, dnn.inner_product, dnn.pool and dnn.binary):
  FuseEltwiseIntoProducer
    %y = <anchor>(...) {post_ops = P};  %z = dnn.eltwise alg %y {alpha, beta}
    ==> %z = <anchor>(...) {post_ops = P + [#dnn.eltwise<alg, alpha, beta>]}
  FuseBinaryIntoProducer
    %y = <anchor>(...) post_args(A) {post_ops = P}
    %z = dnn.binary alg %y, %p post_args(B) {post_ops = Q}
    ==> %z = <anchor>(...) post_args(A, %p, B) {post_ops = P + [#dnn.binary<alg>] + Q}
    %y may be the right operand when alg is commutative; a %p of lower rank (numpy broadcasting)
    is first reshaped to the result's rank, which oneDNN needs.
  Through a reshape (either rule)
    %y = <anchor>(...) : S;  %r = dnn.reshape %y : R;  %z = <consumer> %r, %p ... : R
    ==> %f = <anchor>(...) post_args(%p') : S {post_ops = P + [...]};  %z = dnn.reshape %f : R
    when %r has no other use and every argument %p maps to S: it has R's shape (%p' is its
    reshape to S) or it varies along the last dimension only, which R and S share (a bias
    over a linear layer's flattened rows: %p' is [1, ..., N]). A dnn.reshape is a view, so the
    fused op writes the bytes the consumer did.
  CombineEltwiseOps
    %y = dnn.eltwise a %x;  %z = dnn.eltwise b %y  ==> %z = dnn.eltwise c %x
    when oneDNN computes b after a as one algorithm c (``post_op_rules.combine_eltwise``:
    relu then clip(0, 6) is relu6, clip after clip a tighter clip, linear after linear a
    linear); an eltwise appended to a chain ending in an eltwise merges the same way.
A residual add becomes ``#dnn.binary<add>``, never ``#dnn.sum``: sum accumulates into the
destination buffer, which needs the in-place analysis of a later pass.

Nothing is fused when (each refusal is a remark "not fused: <why>"):
- the producer takes no post-ops in oneDNN, or not this kind (pooling takes no sum);
- the intermediate %y has another use (it would be lost);
- the consumer's result type differs from the anchor's (a data-type or layout change, or a
  binary broadcasting %y to a bigger shape);
- through a reshape: %r has another use, or an argument varies along other dimensions than
  the last (it would not map to the anchor's shape);
- %y is the right operand of a non-commutative binary (sub, div);
- %p broadcasts in a way oneDNN has no fast binary post-op for (post_op_rules.broadcast_kind);
- the chain would grow beyond ``max_post_ops``;
- the consumer (or, combining eltwise ops, either one) is pinned to its reference kernel
  (``dnn.kernel``, as dnn-propagate-special-values pins what oneDNN computes otherwise).

Pre:  the IR verifies.
Post: no consumer that the rules allow is left unfused; every candidate (a consumer whose input
      an op produces) got one remark saying what was fused or why not. A fused op stands where
      the consumer stood (so %p dominates it) and keeps the anchor's location. Numerics: a
      fused chain computes in f32 and rounds once, as oneDNN does.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, NoneAttr, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    InsertPoint,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from dnnc.core import shapes
from dnnc.core.diagnostics import Decisions, location_of
from dnnc.core.kinds import BinaryPostOp, EltwisePostOp, PostOp
from dnnc.dialects.dnn import (
    BinaryOp,
    DnnOp,
    EltwiseOp,
    ReshapeOp,
    post_op_attr,
    shape_of,
)
from dnnc.dialects.dnn.base import PostOpAnchor, post_ops_of, stand_in, tensor_type
from dnnc.passes.buffer_classes import describe
from dnnc.target.kernel_calls import kernel_call, pinned_to_reference
from dnnc.target.post_op_rules import (
    COMMUTATIVE,
    DEFAULT_MAX_POST_OPS,
    ONEDNN_MAX_POST_OPS,
    PostOpKind,
    anchor_rule,
    appended,
    broadcast_kind,
    combine_eltwise,
    onednn_computes,
)


def _eltwise_of(op: EltwiseOp) -> EltwisePostOp:
    return EltwisePostOp(op.alg.data, op.alpha.value.data, op.beta.value.data)


def _printed(post_op: PostOp) -> str:
    """`post_op` as its attribute prints (the remark of a fusion), printed once per value
    (keyed by its repr too: -0.0 apart from 0.0): xDSL's printer costs ~40 us a post-op, and
    a model fuses the same few many times."""
    return _printed_once(repr(post_op), post_op)


@lru_cache(maxsize=256)
def _printed_once(key: str, post_op: PostOp) -> str:
    return str(post_op_attr(post_op))


@dataclass
class _FusionPattern(RewritePattern):
    """Shared by the rules that fold a consumer into an anchor."""

    max_post_ops: int
    decisions: Decisions

    def refusal(
        self,
        anchor: PostOpAnchor,
        value: SSAValue,
        consumer: DnnOp,
        extra: list[PostOp],
        result: TensorType | None = None,
    ) -> str | None:
        """Why `consumer` (reading `value`, `anchor`'s result) cannot become `extra` post-ops;
        `result` is the type the fused op would have (the consumer's, unless through a reshape)."""
        rule = anchor_rule(anchor)
        for post_op in extra:
            if PostOpKind.of(post_op) not in rule.kinds:
                return f"{anchor.name} takes no {PostOpKind.of(post_op)} post-op in oneDNN"
            if not onednn_computes(post_op):
                name = f"{PostOpKind.of(post_op)} {getattr(post_op, 'alg', '')}"
                return f"oneDNN has no {name} (it runs its reference kernel)"
        if kernel_call(consumer).reference:
            return "it runs its reference kernel (pinned, or oneDNN computes it otherwise)"
        if value.uses.get_length() > 1:
            other = next((u.operation for u in value.uses if u.operation is not consumer), consumer)
            return f"{describe(value)} is also read by {other.name} at {location_of(other)}"
        have, want = tensor_type(value), result or tensor_type(consumer.results[0])
        if have.get_element_type() != want.get_element_type():
            return (
                f"the element type changes from {have.get_element_type()} to "
                f"{want.get_element_type()}"
            )
        if not shapes.same_shape(have.get_shape(), want.get_shape()):
            return (
                f"{consumer.name} broadcasts {describe(value)} from "
                f"{shapes.format_shape(shape_of(value))} to "
                f"{shapes.format_shape(want.get_shape())}"
            )
        if have != want:
            return f"the layout changes from {have.encoding} to {want.encoding}"
        length = len(appended(anchor.post_op_chain, extra))
        if length > self.max_post_ops:
            return (
                f"the chain would have {length} post-ops, more than "
                f"max-post-ops={self.max_post_ops}"
            )
        return None

    def fuse(
        self,
        rewriter: PatternRewriter,
        anchor: PostOpAnchor,
        consumer: DnnOp,
        extra: list[PostOp],
        extra_args: list[SSAValue],
        reshape: ReshapeOp | None = None,
    ) -> None:
        """Replace `consumer` and `anchor` by `anchor` with `extra` post-ops, at `consumer`;
        with `reshape` (between them), the fused result is reshaped to the consumer's."""
        chain = appended(anchor.post_op_chain, extra)
        fused = stand_in(anchor.with_post_ops(chain, [*anchor.post_args, *extra_args]), anchor)
        added = ", ".join(map(_printed, extra))
        through = "" if reshape is None else " through the dnn.reshape of its result"
        self.decisions.messages[consumer] = (
            f"fused into {anchor.name} at {location_of(anchor)}{through} as {added}"
        )
        if reshape is None:
            fused.results[0].name_hint = consumer.results[0].name_hint  # the consumer's value now
            rewriter.replace(consumer, fused, [fused.results[0]])
        else:
            back = ReshapeOp(fused.result, shape_of(consumer.results[0]))
            back.location = consumer.location
            back.results[0].name_hint = consumer.results[0].name_hint
            rewriter.replace(consumer, [fused, back], [back.results[0]])
            rewriter.erase(reshape)
        rewriter.erase(anchor)

    def through_reshape(
        self, value: SSAValue, consumer: DnnOp, args: list[SSAValue]
    ) -> tuple[SSAValue, ReshapeOp | None, list[tuple[int, ...]] | str]:
        """The value to fuse into: `value`, or the source of the dnn.reshape producing it when
        that source's producer takes post-ops; with the reshape, and the shapes `args` take
        for the source's shape (or why they cannot: module docstring)."""
        reshape = value.owner
        rank = len(shape_of(value))
        same = [(1,) * (rank - len(shape_of(a))) + tuple(shape_of(a)) for a in args]
        if not isinstance(reshape, ReshapeOp):
            return value, None, same
        source = reshape.src
        if not isinstance(source.owner, PostOpAnchor):
            return value, None, same
        if value.uses.get_length() > 1:
            other = next((u.operation for u in value.uses if u.operation is not consumer), consumer)
            return (
                source,
                reshape,
                (
                    f"{describe(value)}, a reshape of {describe(source)}, is also read by "
                    f"{other.name} at {location_of(other)}"
                ),
            )
        mapped = [_through(shape_of(arg), shape_of(value), shape_of(source)) for arg in args]
        for arg, shape in zip(args, mapped, strict=True):
            if shape is None or not isinstance(tensor_type(arg).encoding, NoneAttr):
                return (
                    source,
                    reshape,
                    (
                        f"{describe(arg)} ({shapes.format_shape(shape_of(arg))}) does not follow "
                        f"the reshape of {describe(source)} to "
                        f"{shapes.format_shape(shape_of(value))}"
                    ),
                )
        return source, reshape, [shape for shape in mapped if shape is not None]

    def fused_type(self, value: SSAValue, consumer: DnnOp) -> TensorType:
        """The type of the fused op: the consumer's element type over `value`'s shape."""
        result = tensor_type(consumer.results[0])
        return TensorType(result.get_element_type(), shape_of(value), result.encoding)


def _takes_no_post_ops(op: Operation) -> str:
    """The refusal for a value that an op other than a post-op anchor produces."""
    return f"{op.name} takes no post-ops in oneDNN"


def _through(
    arg: tuple[int, ...], shape: tuple[int, ...], source: tuple[int, ...]
) -> tuple[int, ...] | None:
    """The shape an argument of a consumer of `shape` (a reshape of `source`) takes for
    `source`: the source's when it has the whole shape, [1, ..., N] when it varies along the
    last dimension only and the reshape keeps that one; None otherwise."""
    extended = (1,) * (len(shape) - len(arg)) + tuple(arg)
    if extended == tuple(shape):
        return tuple(source)
    if all(n == 1 for n in extended[:-1]) and shape and source and shape[-1] == source[-1]:
        return (1,) * (len(source) - 1) + (extended[-1],)
    return None


class FuseEltwiseIntoProducer(_FusionPattern):
    """%z = dnn.eltwise(%y = anchor(...)) ==> anchor(...) {post_ops = [..., eltwise]}."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: EltwiseOp, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op.src.owner, Operation):
            return  # a function argument: nothing to fuse into, not a candidate
        if isinstance(op.src.owner, EltwiseOp):
            return  # eltwise after eltwise is CombineEltwiseOps' case
        extra: list[PostOp] = [_eltwise_of(op)]
        value, reshape, mapped = self.through_reshape(op.src, op, [])
        anchor = value.owner
        assert isinstance(anchor, Operation)  # through_reshape returns produced values
        if not isinstance(anchor, PostOpAnchor):
            self.decisions.messages[op] = f"not fused: {_takes_no_post_ops(anchor)}"
            return  # oneDNN attaches post-ops to anchors only
        result = None if reshape is None else self.fused_type(value, op)
        reason = (
            mapped if isinstance(mapped, str) else self.refusal(anchor, value, op, extra, result)
        )
        if reason is not None:
            self.decisions.messages[op] = f"not fused: {reason}"
            return  # the refusal says why
        self.fuse(rewriter, anchor, op, extra, [], reshape)


class FuseBinaryIntoProducer(_FusionPattern):
    """%z = dnn.binary(%y = anchor(...), %p) ==> anchor(...) post_args(%p) {[..., binary]}."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: BinaryOp, rewriter: PatternRewriter, /) -> None:
        sides = [(op.lhs, op.rhs, "lhs"), (op.rhs, op.lhs, "rhs")]
        if not any(isinstance(value.owner, Operation) for value, _, _ in sides):
            return  # both operands are function arguments: not a candidate
        extra: list[PostOp] = [BinaryPostOp(op.alg.data), *post_ops_of(op.post_ops)]
        reasons: list[str] = []
        for value, other, side in sides:
            if not isinstance(value.owner, Operation):
                reasons.append(f"{side} {describe(value)} is a function argument")
                continue  # nothing produces it
            if side == "rhs" and op.alg.data not in COMMUTATIVE:
                reasons.append(f"{describe(value)} is the right operand of {op.alg.data}")
                continue  # d <alg> p needs %y on the left
            args = [other, *op.post_args]
            fused, reshape, mapped = self.through_reshape(value, op, args)
            if isinstance(mapped, str):
                reasons.append(f"{side}: {mapped}")
                continue  # perhaps the other side fuses
            anchor = fused.owner
            assert isinstance(anchor, Operation)  # through_reshape returns produced values
            if not isinstance(anchor, PostOpAnchor):
                reasons.append(f"{side}: {_takes_no_post_ops(anchor)}")
                continue  # perhaps the other side fuses
            result = None if reshape is None else self.fused_type(fused, op)
            reason = self.refusal(anchor, fused, op, extra, result)
            checked = args if reshape is not None else args[:1]  # post_args fit the binary
            for arg, shape in zip(checked, mapped, strict=False):
                reason = reason or self.broadcast_refusal(anchor, shape_of(fused), shape, arg)
            if reason is not None:
                reasons.append(f"{side}: {reason}")
                continue  # perhaps the other side fuses
            reshaped = [
                self.reshaped(rewriter, op, a, m) for a, m in zip(args, mapped, strict=True)
            ]
            self.fuse(rewriter, anchor, op, extra, reshaped, reshape)
            return
        self.decisions.messages[op] = f"not fused: {'; '.join(reasons)}"

    def broadcast_refusal(
        self, anchor: PostOpAnchor, dst: tuple[int, ...], arg: tuple[int, ...], other: SSAValue
    ) -> str | None:
        """Why `other`, taken as `arg` (of `dst`'s rank), cannot be a binary post-op argument
        of `anchor` writing `dst` (None if it can)."""
        rule = anchor_rule(anchor)
        kind = broadcast_kind(arg, dst, rule.oc_axis)
        if kind is None:
            return (
                f"{describe(other)} ({shapes.format_shape(shape_of(other))}) broadcasts to "
                f"{shapes.format_shape(dst)} neither per-tensor, per-channel, per-oc nor full"
            )
        if kind not in rule.broadcasts:
            return f"{anchor.name} takes no {kind} binary post-op argument"
        if shape_of(other) != arg and not isinstance(tensor_type(other).encoding, NoneAttr):
            return f"{describe(other)} needs a reshape to rank {len(dst)} but is not plain"
        return None

    def reshaped(
        self, rewriter: PatternRewriter, op: BinaryOp, value: SSAValue, shape: tuple[int, ...]
    ) -> SSAValue:
        """`value`, reshaped (before `op`) to `shape` if it has another."""
        if shape_of(value) == shape:
            return value
        reshape = ReshapeOp(value, shape)
        reshape.location = op.location
        rewriter.insert(reshape, InsertPoint.before(op))
        return reshape.results[0]


@dataclass
class CombineEltwiseOps(RewritePattern):
    """dnn.eltwise b (dnn.eltwise a %x) ==> dnn.eltwise c %x where c = b after a."""

    decisions: Decisions

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: EltwiseOp, rewriter: PatternRewriter, /) -> None:
        inner = op.src.owner
        if not isinstance(inner, EltwiseOp):
            return  # FuseEltwiseIntoProducer's case
        if pinned_to_reference(op) or pinned_to_reference(inner):
            self.decisions.messages[op] = "not fused: pinned to a reference kernel (dnn.kernel)"
            return  # each keeps its own kernel
        combined = combine_eltwise(_eltwise_of(inner), _eltwise_of(op))
        if combined is None:
            self.decisions.messages[op] = (
                f"not fused: oneDNN has no single algorithm for {op.alg.data} after "
                f"{inner.alg.data}"
            )
            return  # both stay separate primitives
        if not inner.result.has_one_use():
            user = next(u.operation for u in inner.result.uses if u.operation is not op)
            self.decisions.messages[op] = (
                f"not fused: {describe(inner.result)} is also read by {user.name} at "
                f"{location_of(user)}"
            )
            return  # the inner value is still needed
        new = EltwiseOp(combined.alg, inner.src, alpha=combined.alpha, beta=combined.beta)
        stand_in(new, inner)
        self.decisions.messages[op] = (
            f"combined with {inner.name} at {location_of(inner)} into {combined.alg}"
        )
        rewriter.replace(op, new)
        rewriter.erase(inner)


@dataclass(frozen=True)
class FusePostOpsPass(ModulePass):
    """Fold eltwise and binary consumers into oneDNN post-ops (module docstring)."""

    name = "dnn-fuse-post-ops"

    max_post_ops: int = DEFAULT_MAX_POST_OPS
    """The longest post-op chain to build (oneDNN takes at most 32)."""

    def __post_init__(self) -> None:
        if not 1 <= self.max_post_ops <= ONEDNN_MAX_POST_OPS:
            raise ValueError(
                f"max-post-ops={self.max_post_ops} is outside 1 to {ONEDNN_MAX_POST_OPS} "
                "(oneDNN's limit)"
            )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        decisions = Decisions()
        patterns: list[RewritePattern] = [
            CombineEltwiseOps(decisions),
            FuseEltwiseIntoProducer(self.max_post_ops, decisions),
            FuseBinaryIntoProducer(self.max_post_ops, decisions),
        ]
        walker = PatternRewriteWalker(GreedyRewritePatternApplier(patterns, dce_enabled=False))
        walker.rewrite_module(op)
        decisions.emit()
