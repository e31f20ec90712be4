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

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, ModuleOp, NoneAttr, TensorType, i32
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
from dnnc.core.diagnostics import DnncError, location_of, remark
from dnnc.core.kinds import BinaryPostOp, EltwisePostOp, PostOp
from dnnc.ir.dnn import (
    BinaryOp,
    BinaryPostOpAttr,
    DnnOp,
    EltwiseAlgAttr,
    EltwiseOp,
    EltwisePostOpAttr,
    PostOpAttr,
    ReshapeOp,
    SumPostOpAttr,
    shape_of,
)
from dnnc.ir.dnn.base import f32_attr, post_ops_of, tensor_type
from dnnc.passes.buffer_classes import describe
from dnnc.target.kernel_calls import kernel_call, pinned_to_reference
from dnnc.target.post_op_rules import (
    COMMUTATIVE,
    DEFAULT_MAX_POST_OPS,
    ONEDNN_MAX_POST_OPS,
    AnchorOp,
    PostOpKind,
    anchor_rule,
    appended,
    broadcast_kind,
    combine_eltwise,
    onednn_computes,
)


def post_op_attr(post_op: PostOp) -> PostOpAttr:
    """The dialect attribute of a post-op description."""
    if isinstance(post_op, EltwisePostOp):
        return EltwisePostOpAttr(post_op)
    if isinstance(post_op, BinaryPostOp):
        return BinaryPostOpAttr(post_op)
    return SumPostOpAttr(post_op)


def _eltwise_of(op: EltwiseOp) -> EltwisePostOp:
    return EltwisePostOp(op.alg.data, op.alpha.value.data, op.beta.value.data)


@dataclass
class Decisions:
    """The last word on each candidate consumer, emitted as remarks once the walk is done (the
    greedy walk visits an op again after every change, which would repeat a remark)."""

    messages: dict[Operation, str] = field(default_factory=dict)

    def emit(self) -> None:
        for op, message in self.messages.items():
            remark(op, message)


@dataclass
class _FusionPattern(RewritePattern):
    """Shared by the rules that fold a consumer into an anchor."""

    max_post_ops: int
    decisions: Decisions

    def refusal(
        self, anchor: Operation, value: SSAValue, consumer: DnnOp, extra: list[PostOp]
    ) -> str | None:
        """Why `consumer` (reading `value`, `anchor`'s result) cannot become `extra` post-ops."""
        rule = anchor_rule(anchor)
        if rule is None:
            return f"{anchor.name} takes no post-ops in oneDNN"
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
        have, want = tensor_type(value), tensor_type(consumer.results[0])
        if have.get_element_type() != want.get_element_type():
            return (
                f"the element type changes from {have.get_element_type()} to "
                f"{want.get_element_type()}"
            )
        if have.get_shape() != want.get_shape():
            return (
                f"{consumer.name} broadcasts {describe(value)} from "
                f"{shapes.format_shape(shape_of(value))} to "
                f"{shapes.format_shape(shape_of(consumer.results[0]))}"
            )
        if have != want:
            return f"the layout changes from {have.encoding} to {want.encoding}"
        assert isinstance(anchor, AnchorOp)  # anchor_rule accepted it
        length = len(appended(post_ops_of(anchor.post_ops), extra))
        if length > self.max_post_ops:
            return (
                f"the chain would have {length} post-ops, more than "
                f"max-post-ops={self.max_post_ops}"
            )
        return None

    def fuse(
        self,
        rewriter: PatternRewriter,
        anchor: AnchorOp,
        consumer: DnnOp,
        extra: list[PostOp],
        extra_args: list[SSAValue],
    ) -> None:
        """Replace `consumer` and `anchor` by `anchor` with `extra` post-ops, at `consumer`."""
        chain = appended(post_ops_of(anchor.post_ops), extra)
        fused = anchor.clone()
        fixed = list(anchor.operands[: len(anchor.operands) - len(anchor.post_args)])
        fused.operands = [*fixed, *anchor.post_args, *extra_args]
        fused.properties["post_ops"] = ArrayAttr([post_op_attr(p) for p in chain])
        sizes = fused.properties.get("operandSegmentSizes")
        if isinstance(sizes, DenseArrayBase):
            counts = [int(n) for n in sizes.get_values()]
            counts[-1] = len(anchor.post_args) + len(extra_args)
            fused.properties["operandSegmentSizes"] = DenseArrayBase.from_list(i32, counts)
        added = ", ".join(str(post_op_attr(p)) for p in extra)
        self.decisions.messages[consumer] = (
            f"fused into {anchor.name} at {location_of(anchor)} as {added}"
        )
        fused.results[0].name_hint = consumer.results[0].name_hint  # it is the consumer's value now
        rewriter.replace(consumer, fused, [fused.results[0]])
        rewriter.erase(anchor)


class FuseEltwiseIntoProducer(_FusionPattern):
    """%z = dnn.eltwise(%y = anchor(...)) ==> anchor(...) {post_ops = [..., eltwise]}."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: EltwiseOp, rewriter: PatternRewriter, /) -> None:
        anchor = op.src.owner
        if not isinstance(anchor, Operation):
            return  # a function argument: nothing to fuse into, not a candidate
        if isinstance(anchor, EltwiseOp):
            return  # eltwise after eltwise is CombineEltwiseOps' case
        extra: list[PostOp] = [_eltwise_of(op)]
        reason = self.refusal(anchor, op.src, op, extra)
        if reason is not None:
            self.decisions.messages[op] = f"not fused: {reason}"
            return  # the refusal says why
        assert isinstance(anchor, AnchorOp)  # anchor_rule accepted it
        self.fuse(rewriter, anchor, op, extra, [])


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
            anchor = value.owner
            if not isinstance(anchor, Operation):
                reasons.append(f"{side} {describe(value)} is a function argument")
                continue  # nothing produces it
            if side == "rhs" and op.alg.data not in COMMUTATIVE:
                reasons.append(f"{describe(value)} is the right operand of {op.alg.data}")
                continue  # d <alg> p needs %y on the left
            reason = self.refusal(anchor, value, op, extra) or self.broadcast_refusal(
                anchor, value, other
            )
            if reason is not None:
                reasons.append(f"{side}: {reason}")
                continue  # perhaps the other side fuses
            assert isinstance(anchor, AnchorOp)  # anchor_rule accepted it
            arg = self.same_rank(rewriter, op, other, tensor_type(value).get_num_dims())
            self.fuse(rewriter, anchor, op, extra, [arg, *op.post_args])
            return
        self.decisions.messages[op] = f"not fused: {'; '.join(reasons)}"

    def broadcast_refusal(self, anchor: Operation, value: SSAValue, other: SSAValue) -> str | None:
        """Why `other` cannot be a binary post-op argument of `anchor` (None if it can)."""
        rule = anchor_rule(anchor)
        assert rule is not None  # refusal() checked the anchor first
        dst, arg = shape_of(value), shape_of(other)
        extended = (1,) * (len(dst) - len(arg)) + tuple(arg)
        kind = broadcast_kind(extended, dst, rule.oc_axis)
        if kind is None:
            return (
                f"{describe(other)} ({shapes.format_shape(arg)}) broadcasts to "
                f"{shapes.format_shape(dst)} neither per-tensor, per-channel, per-oc nor full"
            )
        if kind not in rule.broadcasts:
            return f"{anchor.name} takes no {kind} binary post-op argument"
        if len(arg) < len(dst) and not isinstance(tensor_type(other).encoding, NoneAttr):
            return f"{describe(other)} needs a reshape to rank {len(dst)} but is not plain"
        return None

    def same_rank(
        self, rewriter: PatternRewriter, op: BinaryOp, other: SSAValue, rank: int
    ) -> SSAValue:
        """`other`, reshaped (before `op`) to `rank` dimensions if it has fewer."""
        type_ = tensor_type(other)
        missing = rank - type_.get_num_dims()
        if missing == 0:
            return other
        shape = [1] * missing + list(type_.get_shape())
        reshape = ReshapeOp.create(
            operands=[other], result_types=[TensorType(type_.get_element_type(), shape)]
        )
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
        inner.properties["alg"] = EltwiseAlgAttr(combined.alg)
        inner.properties["alpha"] = f32_attr(combined.alpha)
        inner.properties["beta"] = f32_attr(combined.beta)
        rewriter.notify_op_modified(inner)
        self.decisions.messages[op] = (
            f"combined with {inner.name} at {location_of(inner)} into {combined.alg}"
        )
        rewriter.replace(op, [], [inner.result])


@dataclass(frozen=True)
class FusePostOpsPass(ModulePass):
    """Fold eltwise and binary consumers into oneDNN post-ops (module docstring)."""

    name = "dnn-fuse-post-ops"

    max_post_ops: int = DEFAULT_MAX_POST_OPS
    """The longest post-op chain to build (oneDNN takes at most 32)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not 1 <= self.max_post_ops <= ONEDNN_MAX_POST_OPS:
            raise DnncError(
                f"dnn-fuse-post-ops: max-post-ops={self.max_post_ops} is outside 1 to "
                f"{ONEDNN_MAX_POST_OPS} (oneDNN's limit)"
            )
        decisions = Decisions()
        patterns: list[RewritePattern] = [
            CombineEltwiseOps(decisions),
            FuseEltwiseIntoProducer(self.max_post_ops, decisions),
            FuseBinaryIntoProducer(self.max_post_ops, decisions),
        ]
        walker = PatternRewriteWalker(GreedyRewritePatternApplier(patterns, dce_enabled=False))
        walker.rewrite_module(op)
        decisions.emit()
