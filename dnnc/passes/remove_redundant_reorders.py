"""dnn-remove-redundant-reorders: drop the data transforms that move bytes for nothing.

Rules (T = dnn.reorder or dnn.cast, a "transform"):
  DropIdentityTransform      %y = T %x : t -> t                      ==> %x
  CancelInverseReorders      reorder(reorder %x : a -> b) : b -> a   ==> %x
  CollapseReorderChain       reorder(reorder %x : a -> b) : b -> c   ==> reorder %x : a -> c
  CancelLosslessCasts        cast(cast %x : A -> B) : B -> A         ==> %x  [B holds every A]
  SinkCastBelowReshape       reshape(cast %x : A -> B)               ==> cast(reshape %x) : A -> B
      when the cast has no other reader: an element-wise cast commutes with a reshape (a view),
      so the same values result, and a cast back across the reshape now meets it and cancels
      (a bf16 matmul's result cast to f32, reshaped for attention, cast to bf16 again)
  ShareDuplicateTransforms   %1 = T %x : t; %2 = T %x : t            ==> %2 uses %1
  FoldReorderIntoConstant    reorder(dnn.constant | dnn.weight)      ==> the source in the new
      layout: its data stay logical, the executor packs them once when it is built (a source
      read in two layouts becomes two sources, each packed once)
  FoldCastIntoConstant       cast(dnn.constant | dnn.weight) : A -> B ==> a dnn.constant of the
      values in B, when A and B are float types (rounded to nearest even, as oneDNN's run-time
      cast rounds: the results do not change; weights assigned bf16 are cast once, not at
      every run: MobileNetV2 from dnnc-import, its weights in an .npz, spent 1.4 ms of a 3.8 ms
      bf16 run so), or when B holds every value of A exactly (_EXACT: the s8/u8 zero points
      of a QDQ model, which oneDNN's quantizing reorders take in s32, were 65 run-time casts
      in MobileNetV2). A dnn.weight's file is read for it (as dnn-fold-constants does); one that
      cannot be read keeps its cast, with a remark saying why.
  FoldReorderIntoConsumer    %r = reorder %x; dnn.op %a, %r          ==> dnn.op %a, %x
      when %r is not the first operand (whose layout the op writes), the op still verifies
      and oneDNN runs it with an optimized (not ``ref``) implementation reading %x's layout
  FoldReorderIntoProducer    %a = reorder %x : b -> a; %y = op %a (a); %z = reorder %y : a -> b
                             ==> %z = op %x (b)
      for a layout-agnostic op (kernel_table) whose only reader is the reorder, every operand
      in layout a coming from a reorder out of b, and a fast oneDNN implementation in b.
A transform left without readers is erased. Never across a lossy cast: reorder chains stop at
any cast, and cast pairs cancel only when the inner cast is exact (f32 -> bf16 -> f32 is not).

Pre:  the IR verifies.
Post: no rule applies; a remark per function gives the run-time reorders and bytes moved
      before and after (transforms of constants, done once, are not counted).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp
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
from xdsl.utils.exceptions import VerifyException

from dnnc.core.diagnostics import DnncError, remark
from dnnc.core.kinds import DataType
from dnnc.core.layouts import Layout
from dnnc.dialects.dnn import (
    CastOp,
    ConstantOp,
    DnnOp,
    ReorderOp,
    ReshapeOp,
    WeightOp,
    layout_of,
)
from dnnc.dialects.dnn.base import retyped_op, shape_of, stand_in, tensor_type
from dnnc.dialects.types import data_type_of
from dnnc.ir.weights import source_value
from dnnc.passes.constants import constant_op, erase_dead_sources, is_float
from dnnc.passes.data_transforms import moved_bytes, retyped, transform_op, transform_stats
from dnnc.passes.functions import dnn_functions
from dnnc.target.kernel_table import LayoutRule, Probe, layout_rule, roles_of, runs_kernel

_EXACT = {
    (DataType.BF16, DataType.F32),
    (DataType.F16, DataType.F32),
    (DataType.S8, DataType.S32),
    (DataType.U8, DataType.S32),
    (DataType.S8, DataType.F32),
    (DataType.U8, DataType.F32),
    (DataType.S8, DataType.BF16),
    (DataType.U8, DataType.BF16),
    (DataType.S8, DataType.F16),
    (DataType.U8, DataType.F16),
}
"""(A, B): B represents every value of A exactly, so casting A -> B -> A is the identity."""


def _forward(rewriter: PatternRewriter, op: Operation, value: SSAValue) -> None:
    """Replace `op`'s result by `value` and erase `op`."""
    rewriter.replace(op, [], [value])


def _erase_if_unused(rewriter: PatternRewriter, op: Operation | None) -> None:
    if isinstance(op, ReorderOp | CastOp) and not op.results[0].uses:
        rewriter.erase(op)


class DropIdentityTransform(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, ReorderOp | CastOp):
            return  # only transforms can be identities
        if op.src.type != op.result.type:
            return  # it changes the layout or the element type
        _forward(rewriter, op, op.src)


class CancelInverseReorders(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ReorderOp, rewriter: PatternRewriter, /) -> None:
        inner = op.src.owner
        if not isinstance(inner, ReorderOp):
            return  # not a chain (a cast in between stops it: casts may lose information)
        if inner.src.type != op.result.type:
            return  # not back to the start: CollapseReorderChain's case
        _forward(rewriter, op, inner.src)
        _erase_if_unused(rewriter, inner)


class CollapseReorderChain(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ReorderOp, rewriter: PatternRewriter, /) -> None:
        inner = op.src.owner
        if not isinstance(inner, ReorderOp):
            return  # not a chain
        if inner.src.type == op.result.type:
            return  # back to the start: CancelInverseReorders' case
        op.operands[0] = inner.src  # one reorder a -> c instead of a -> b -> c
        rewriter.notify_op_modified(op)
        _erase_if_unused(rewriter, inner)


class CancelLosslessCasts(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CastOp, rewriter: PatternRewriter, /) -> None:
        inner = op.src.owner
        if not isinstance(inner, CastOp) or inner.src.type != op.result.type:
            return  # not a cast there and back
        start = data_type_of(tensor_type(inner.src).get_element_type())
        middle = data_type_of(tensor_type(inner.result).get_element_type())
        if (start, middle) not in _EXACT:
            return  # the inner cast rounds or saturates: the pair is not the identity
        _forward(rewriter, op, inner.src)
        _erase_if_unused(rewriter, inner)


class SinkCastBelowReshape(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ReshapeOp, rewriter: PatternRewriter, /) -> None:
        cast = op.src.owner
        if not isinstance(cast, CastOp) or not cast.result.has_one_use():
            return  # no cast before, or one whose result is read elsewhere too
        reshape = ReshapeOp(cast.src, shape_of(op.result))
        reshape.location = op.location
        moved = stand_in(CastOp(reshape.result, tensor_type(op.result).get_element_type()), cast)
        moved.results[0].name_hint = op.result.name_hint
        rewriter.replace(op, [reshape, moved], moved.results)
        rewriter.erase(cast)


class ShareDuplicateTransforms(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, ReorderOp | CastOp):
            return  # only transforms are shared here
        for use in op.src.uses:
            twin = use.operation
            if (
                type(twin) is type(op)
                and twin is not op
                and twin.parent is op.parent
                and twin.results[0].type == op.result.type
                and twin.is_before_in_block(op)
            ):
                _forward(rewriter, op, twin.results[0])  # the earlier one dominates op's readers
                return


class FoldReorderIntoConstant(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ReorderOp, rewriter: PatternRewriter, /) -> None:
        source = op.src.owner
        if not isinstance(source, ConstantOp | WeightOp):
            return  # only sources can be packed before the first run
        packed: ConstantOp | WeightOp
        if isinstance(source, ConstantOp):
            packed = ConstantOp(DenseIntOrFPElementsAttr(op.result.type, source.value.data))
        else:
            key = None if source.key is None else source.key.data
            packed = WeightOp(source.file.data, key, tensor_type(op.result))
        stand_in(packed, source)
        rewriter.replace(op, packed, packed.results)
        erase_dead_sources(rewriter, [source.results[0]])


class FoldCastIntoConstant(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CastOp, rewriter: PatternRewriter, /) -> None:
        source = op.src.owner
        if not isinstance(source, ConstantOp | WeightOp):
            return
        widening = (
            data_type_of(tensor_type(op.src).get_element_type()),
            data_type_of(tensor_type(op.result).get_element_type()),
        ) in _EXACT
        if not (is_float(op.src) and is_float(op.result)) and not widening:
            return  # casts to integers saturate and round oneDNN's way: left to oneDNN
        try:
            value = source_value(source)
        except DnncError as error:
            remark(op, f"cast kept: the weight cannot be read here ({error})")
            return
        folded = constant_op(value, tensor_type(op.result), op)
        folded.results[0].name_hint = op.result.name_hint
        rewriter.replace(op, folded, folded.results)
        erase_dead_sources(rewriter, [source.results[0]])


def _typed_layouts(op: DnnOp) -> dict[str, Layout | None]:
    """Each primitive role of `op` with the layout its operand's type has."""
    layouts = {role: layout_of(tensor_type(op.operands[i])) for role, i in roles_of(op)}
    return {**layouts, "dst": layout_of(tensor_type(op.results[0]))}


def _fast(probe: Probe, op: DnnOp) -> bool:
    """Whether oneDNN runs `op`, as typed, with an optimized implementation."""
    implementation = probe.implementation(op, _typed_layouts(op))
    return implementation is not None and not implementation.startswith("ref")


def _verifies(op: Operation) -> bool:
    try:
        op.verify()
    except VerifyException:
        return False
    return True


@dataclass
class FoldReorderIntoConsumer(RewritePattern):
    probe: Probe

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ReorderOp, rewriter: PatternRewriter, /) -> None:
        if not data_type_of(tensor_type(op.src).get_element_type()).is_onednn:
            return  # only reference kernels, which read plain layouts, read i64 and i1
        for use in list(op.result.uses):
            reader = use.operation
            if not isinstance(reader, DnnOp) or layout_rule(reader) is LayoutRule.PLAIN:
                continue  # func.return, reshape and reference kernels read one layout only
            if use.index == 0 or isinstance(reader, ReorderOp | CastOp):
                continue  # the op writes its first operand's layout; transforms read theirs
            reader.operands[use.index] = op.src
            if not (_verifies(reader) and _fast(self.probe, reader)):
                reader.operands[use.index] = op.result  # the dialect or oneDNN says no
                continue
            rewriter.notify_op_modified(reader)
        _erase_if_unused(rewriter, op)


@dataclass
class FoldReorderIntoProducer(RewritePattern):
    probe: Probe

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ReorderOp, rewriter: PatternRewriter, /) -> None:
        producer = op.src.owner
        if not isinstance(producer, DnnOp) or isinstance(producer, ReorderOp | CastOp):
            return  # an argument, or a transform (the chain rules' case)
        if not runs_kernel(producer) or layout_rule(producer) is not LayoutRule.AGNOSTIC:
            return  # a source, a view, or an op that computes in a layout of its own
        if len(producer.results) != 1 or not op.src.has_one_use():
            return  # another reader still needs the producer's layout
        here, there = tensor_type(op.src), tensor_type(op.result)
        saved = moved_bytes(op.src, layout_of(here), layout_of(there))
        operands, added, new_reorders = list(producer.operands), 0, []
        for index, value in enumerate(producer.operands):
            type_ = tensor_type(value)
            if type_.encoding != here.encoding or type_.get_num_dims() != here.get_num_dims():
                continue  # read in a layout of its own (weights, broadcast operands)
            wanted = retyped(type_, encoding=there.encoding)
            source = value.owner
            if isinstance(source, ReorderOp) and source.src.type == wanted:
                operands[index] = source.src  # the two reorders cancel
                continue
            added += moved_bytes(value, layout_of(type_), layout_of(wanted))
            new_reorders.append(transform_op(ReorderOp, value, wanted, op))
            operands[index] = new_reorders[-1].result
        if added > saved:
            return  # moving the reorder up would move more bytes (e.g. above a strided pool)
        moved = retyped_op(producer, operands, retyped(here, encoding=there.encoding))
        if not (_verifies(moved) and _fast(self.probe, moved)):
            moved.erase()
            return  # the dialect or oneDNN says no
        if new_reorders:
            rewriter.insert(new_reorders, InsertPoint.before(producer))
        old_sources = [v.owner for v in producer.operands if isinstance(v.owner, Operation)]
        rewriter.replace(producer, moved, moved.results)
        _forward(rewriter, op, moved.results[0])
        for source in old_sources:
            _erase_if_unused(rewriter, source)


@dataclass(frozen=True)
class RemoveRedundantReordersPass(ModulePass):
    """Drop, merge and fold redundant reorders and casts (module docstring)."""

    name = "dnn-remove-redundant-reorders"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        functions = dnn_functions(op)
        before = {f: transform_stats(f.body.block) for f in functions}
        probe = Probe()
        patterns: list[RewritePattern] = [
            DropIdentityTransform(),
            CancelInverseReorders(),
            CollapseReorderChain(),
            CancelLosslessCasts(),
            SinkCastBelowReshape(),
            ShareDuplicateTransforms(),
            FoldReorderIntoConstant(),
            FoldCastIntoConstant(),
            FoldReorderIntoProducer(probe),
            FoldReorderIntoConsumer(probe),
        ]
        walker = PatternRewriteWalker(GreedyRewritePatternApplier(patterns, dce_enabled=False))
        walker.rewrite_module(op)
        for function in functions:
            (r0, b0, c0), (r1, b1, c1) = before[function], transform_stats(function.body.block)
            remark(
                function,
                f"run-time reorders {r0} -> {r1} ({b0} -> {b1} bytes moved), casts {c0} -> {c1}",
            )
