"""dnn-fold-constants: fold per-channel affine ops into weights, and evaluate constant subgraphs.

Rules (a "constant" is the result of dnn.constant or dnn.weight; a "producer" is dnn.conv2d,
dnn.deconv2d, dnn.inner_product or dnn.matmul, whose output channels are result dimension 1 and wei
dimension 0, or for matmul the last dimension of the result and of rhs):
  FoldBatchNormIntoProducer
    %y = <producer>(%x, %w [, %b]);  %z = dnn.batch_norm %y, %scale, %shift, %mean, %var
    ==> %z = <producer>(%x, %w', %b')   a = scale / sqrt(var + eps), c = shift - a * mean,
        w' = a * w (per output channel), b' = a * b + c (b = 0 when absent)
  FoldChannelBinaryIntoProducer
    %z = dnn.binary mul|add|sub %y, %k   (%k constant, per-channel or per-tensor; mul and add
    also with %y on the right)  ==> the same with a = k, c = 0 (mul) or a = 1, c = +-k (add,
    sub). An add or sub changes only the bias, so the weights need not be constant.
  EvaluateConstantOp
    %z = <dnn op>(constants ...) ==> %z = dnn.constant <its reference kernel's result>
    (so reshape and transpose of weights fold, and folding chains through them); not when
    %z has a ? dimension or, traced, a size that is an expression of the input dimensions
    (it comes with each call: a slice of a constant up to a sequence length, docs/dialect.md
    "Symbolic dimensions").
Folded values go into new dnn.constant ops (DenseIntOrFPElementsAttr; xDSL prints a large one as
a single hex string, exact and quick to parse), computed in float64 from read-only arrays and
rounded once to the element type: neither the caller's arrays nor the weight files change.
Source ops left without users are erased.

A batch_norm or binary stays (each refusal is a remark "not folded: <why>") when:
- its input is not a producer (a batch_norm before a conv, as in pre-activation networks);
- the producer's result has another use, or the producer has post-ops (they come first);
- an operand that would change (weights for a scale, bias) or the batch_norm statistics are not
  constant, or the weights or bias are integers (a scale cannot be exact);
- the channel axis is not the producer's output channels (a batch_norm after a matmul of rank
  above 2), %k broadcasts otherwise, or the binary changes the result type.

Pre:  the IR verifies; dnn.weight files are readable (paths relative to the option
      ``weights_dir``, or else to the IR file).
Post: no foldable batch_norm, channel binary or all-constant op is left; every batch_norm and
      every mul/add/sub of a producer and a constant got one remark.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import (
    ModuleOp,
    TensorType,
)
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

from dnnc.core.diagnostics import Decisions, error_at, location_of
from dnnc.core.kinds import BinaryAlg
from dnnc.core.shapes import DYNAMIC
from dnnc.core.symbols import SymbolicInt
from dnnc.dialects.dnn import (
    BatchNormOp,
    BinaryOp,
    ConstantOp,
    Conv2DOp,
    Deconv2DOp,
    DnnOp,
    InnerProductOp,
    MatmulOp,
    WeightOp,
    shape_of,
)
from dnnc.dialects.dnn.base import stand_in, tensor_type
from dnnc.ir.weights import source_value
from dnnc.passes.buffer_classes import describe
from dnnc.passes.constants import constant_op, erase_dead_sources, is_float
from dnnc.reference.interpreter import kernel_and_arguments

Producer = Conv2DOp | Deconv2DOp | InnerProductOp | MatmulOp
_PRODUCERS = (Conv2DOp, Deconv2DOp, InnerProductOp, MatmulOp)


@dataclass(frozen=True)
class Sources:
    """Reads the data of source ops; dnn.weight paths resolve against `weights_dir` if given,
    else against the IR file (dnnc.ir.weights)."""

    weights_dir: str | None

    def constant_of(self, value: SSAValue | None) -> np.ndarray | None:
        """The data of a dnn.constant or dnn.weight result (read-only), None for anything else."""
        owner = value.owner if value is not None else None
        if isinstance(owner, (ConstantOp, WeightOp)):
            return source_value(owner, self.weights_dir)
        return None


def _with_weights(producer: Producer, weights: SSAValue, bias: SSAValue) -> Producer:
    """A new op like `producer` (which has no post-ops) with other weights and bias."""
    result_type = tensor_type(producer.result)
    if isinstance(producer, MatmulOp):
        return MatmulOp(producer.lhs, weights, bias, result_type=result_type)
    if isinstance(producer, InnerProductOp):
        return InnerProductOp(producer.src, weights, bias, result_type=result_type)
    return producer.rebuilt(producer.src, weights, bias, post_ops=[], post_args=[])


def _weights(producer: Producer) -> SSAValue:
    return producer.rhs if isinstance(producer, MatmulOp) else producer.wei


@dataclass(frozen=True)
class ChannelAffine:
    """``y -> scale * y + shift`` per output channel; scale None means 1 (weights unchanged)."""

    scale: np.ndarray | None
    shift: np.ndarray


@dataclass
class _FoldPattern(RewritePattern):
    """Shared by the rules that fold a per-channel affine op into its producer."""

    decisions: Decisions
    sources: Sources

    def producer_refusal(self, value: SSAValue, consumer: DnnOp) -> str | None:
        """Why `value`'s producer cannot absorb `consumer` (its one reader), None if it can."""
        producer = value.owner
        if not isinstance(producer, _PRODUCERS):
            what = producer.name if isinstance(producer, Operation) else "a function argument"
            return f"{describe(value)} comes from {what}, not a conv2d, matmul or inner_product"
        if not value.has_one_use():
            other = next(u.operation for u in value.uses if u.operation is not consumer)
            return f"{describe(value)} is also read by {other.name} at {location_of(other)}"
        if producer.post_ops.data:
            return f"{producer.name} at {location_of(producer)} has post-ops, which come first"
        if tensor_type(consumer.results[0]) != tensor_type(value):
            return f"{consumer.name} changes the type {tensor_type(value)} of {describe(value)}"
        return None

    def affine_refusal(self, producer: Producer, affine: ChannelAffine) -> str | None:
        """Why the weights or bias of `producer` cannot take `affine`, None if they can."""
        changed = [producer.bias] if producer.bias is not None else []
        if affine.scale is not None:
            changed.insert(0, _weights(producer))
        for value in changed:
            if self.sources.constant_of(value) is None:
                return f"{describe(value)} is not a dnn.constant or dnn.weight"
            if not is_float(value):
                return f"{describe(value)} has integer elements"
        return None

    def fold(
        self, rewriter: PatternRewriter, producer: Producer, consumer: DnnOp, affine: ChannelAffine
    ) -> None:
        """Replace `consumer` and `producer` by `producer` with weights and bias that apply
        `affine`, at `consumer`."""
        new_ops: list[Operation] = []
        weights = new_weights = _weights(producer)
        if affine.scale is not None:
            wei = self.sources.constant_of(weights)
            assert wei is not None  # affine_refusal checked it
            axis = -1 if isinstance(producer, MatmulOp) else 0
            shape = [1] * wei.ndim
            shape[axis] = -1
            new_wei = affine.scale.reshape(shape) * wei.astype(np.float64)
            assert isinstance(weights.owner, Operation)  # a constant: its source op
            new_ops.append(constant_op(new_wei, tensor_type(weights), weights.owner))
            new_weights = new_ops[-1].results[0]
        old_bias = self.sources.constant_of(producer.bias)
        scale = 1.0 if affine.scale is None else affine.scale
        bias = affine.shift
        if old_bias is not None:
            bias = scale * old_bias.astype(np.float64) + affine.shift
        bias_type = TensorType(tensor_type(producer.results[0]).get_element_type(), bias.shape)
        if producer.bias is not None:
            bias_type = TensorType(tensor_type(producer.bias).get_element_type(), bias.shape)
        new_ops.append(constant_op(bias, bias_type, consumer))
        folded = stand_in(_with_weights(producer, new_weights, new_ops[-1].results[0]), producer)
        folded.results[0].name_hint = consumer.results[0].name_hint
        self.decisions.messages[consumer] = (
            f"folded into {producer.name} at {location_of(producer)}"
        )
        old_values = [*producer.operands, *consumer.operands]
        rewriter.insert(new_ops, InsertPoint.before(consumer))
        rewriter.replace(consumer, folded, [folded.results[0]])
        rewriter.erase(producer)
        erase_dead_sources(rewriter, old_values)


class FoldBatchNormIntoProducer(_FoldPattern):
    """batch_norm(producer(...)) ==> producer with scaled weights and a shifted bias."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: BatchNormOp, rewriter: PatternRewriter, /) -> None:
        reason = self.producer_refusal(op.src, op)
        if reason is not None:
            self.decisions.messages[op] = f"not folded: {reason}"
            return  # the batch_norm stays a primitive
        producer = op.src.owner
        assert isinstance(producer, _PRODUCERS)  # producer_refusal checked it
        if isinstance(producer, MatmulOp) and len(shape_of(op.src)) != 2:
            self.decisions.messages[op] = (
                "not folded: batch_norm normalizes dimension 1, not the matmul's output channels"
            )
            return  # only for [M, N] is dimension 1 the last one
        operands = (op.scale, op.shift, op.mean, op.variance)
        stats = [self.sources.constant_of(v) for v in operands]
        missing = [v for v, s in zip(operands, stats) if s is None]
        if missing:
            self.decisions.messages[op] = (
                f"not folded: {describe(missing[0])} is not a dnn.constant or dnn.weight"
            )
            return  # the statistics are only known at run time
        scale, shift, mean, variance = (np.asarray(s, dtype=np.float64) for s in stats)
        a = scale / np.sqrt(variance + op.epsilon.value.data)
        affine = ChannelAffine(a, shift - a * mean)
        reason = self.affine_refusal(producer, affine)
        if reason is not None:
            self.decisions.messages[op] = f"not folded: {reason}"
            return  # the weights cannot absorb it
        self.fold(rewriter, producer, op, affine)


_CHANNEL_ALGS = frozenset({BinaryAlg.MUL, BinaryAlg.ADD, BinaryAlg.SUB})


class FoldChannelBinaryIntoProducer(_FoldPattern):
    """producer(...) mul|add|sub constant per-channel %k ==> producer with new weights / bias."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: BinaryOp, rewriter: PatternRewriter, /) -> None:
        alg = op.alg.data
        if alg not in _CHANNEL_ALGS or op.post_ops.data:
            return  # not affine per channel (or already carrying post-ops): not a candidate
        sides = [(op.lhs, op.rhs)] + ([(op.rhs, op.lhs)] if alg != BinaryAlg.SUB else [])
        candidates = [
            (value, other)
            for value, other in sides
            if isinstance(value.owner, _PRODUCERS) and self.sources.constant_of(other) is not None
        ]
        if not candidates:
            return  # no producer meets a constant here: not a candidate
        value, other = candidates[0]
        reason = self.producer_refusal(value, op)
        producer = value.owner
        assert isinstance(producer, _PRODUCERS)  # the candidate filter checked it
        channels = self.channel_values(producer, value, other)
        if reason is None and shape_of(value)[_channel_axis(producer, value)] == DYNAMIC:
            reason = "the producer's channel count is known only at run time"
        if reason is None and channels is None:
            reason = (
                f"{describe(other)} ({'x'.join(map(str, shape_of(other)))}) is neither "
                "per-channel nor per-tensor"
            )

        if reason is None:
            assert channels is not None
            affine = {
                BinaryAlg.MUL: ChannelAffine(channels, np.zeros_like(channels)),
                BinaryAlg.ADD: ChannelAffine(None, channels),
                BinaryAlg.SUB: ChannelAffine(None, -channels),
            }[alg]
            reason = self.affine_refusal(producer, affine)
        if reason is not None:
            self.decisions.messages[op] = f"not folded: {reason}"
            return  # the binary stays (dnn-fuse-post-ops may still make it a post-op)
        self.fold(rewriter, producer, op, affine)

    def channel_values(
        self, producer: Producer, value: SSAValue, other: SSAValue
    ) -> np.ndarray | None:
        """%k as one float64 value per output channel, None if it is not per-channel."""
        dst = shape_of(value)
        data = self.sources.constant_of(other)
        assert data is not None  # the candidate filter checked it
        shape = (1,) * (len(dst) - data.ndim) + data.shape
        axis = _channel_axis(producer, value)
        if len(shape) != len(dst) or any(n != 1 for i, n in enumerate(shape) if i != axis):
            return None
        if dst[axis] == DYNAMIC:
            return None  # one value per channel, how many known only at run time
        return np.broadcast_to(data.astype(np.float64).reshape(-1), (dst[axis],)).copy()


def _channel_axis(producer: Producer, value: SSAValue) -> int:
    """The output-channel axis of a producer's result: a matmul's last, else 1."""
    return len(shape_of(value)) - 1 if isinstance(producer, MatmulOp) else 1


@dataclass
class EvaluateConstantOp(RewritePattern):
    """A dnn op whose operands are all constants ==> dnn.constant of its reference result."""

    sources: Sources

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: DnnOp, rewriter: PatternRewriter, /) -> None:
        if isinstance(op, (ConstantOp, WeightOp)) or not op.operands:
            return  # already a source
        if len(op.results) != 1:
            return  # top_k: a dnn.constant has one result
        if any(d == DYNAMIC or isinstance(d, SymbolicInt) for d in shape_of(op.results[0])):
            return  # a size each call brings (a slice up to a sequence length): no constant
        arrays = [self.sources.constant_of(v) for v in op.operands]
        if any(a is None for a in arrays):
            return  # something is only known at run time
        kernel, operands, kwargs = kernel_and_arguments(op)
        try:
            args = [None if v is None else self.sources.constant_of(v) for v in operands]
            result = kernel(*args, **kwargs)
        except ValueError as error:
            raise error_at(op, f"reference kernel failed: {error}") from error
        assert isinstance(result, np.ndarray)  # one result (checked above): one array
        constant = constant_op(result, tensor_type(op.results[0]), op)
        constant.results[0].name_hint = op.results[0].name_hint
        old_values = list(op.operands)
        rewriter.replace(op, constant, [constant.results[0]])
        erase_dead_sources(rewriter, old_values)


@dataclass(frozen=True)
class FoldConstantsPass(ModulePass):
    """Fold batch_norm and per-channel binaries into weights; evaluate constant ops."""

    name = "dnn-fold-constants"

    weights_dir: str = ""
    """Where relative dnn.weight paths start ("": the directory of the IR file)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        decisions = Decisions()
        sources = Sources(self.weights_dir or None)
        patterns: list[RewritePattern] = [
            EvaluateConstantOp(sources),
            FoldBatchNormIntoProducer(decisions, sources),
            FoldChannelBinaryIntoProducer(decisions, sources),
        ]
        walker = PatternRewriteWalker(GreedyRewritePatternApplier(patterns, dce_enabled=False))
        walker.rewrite_module(op)
        decisions.emit()
