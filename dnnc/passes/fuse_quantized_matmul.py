"""dnn-fuse-quantized-matmul: dequantized matmuls become oneDNN int8 matmuls.

Rules (1-5 and 7 one pattern each, in one forward walk, 2-5 and 7 growing what 1 made; then 6):
  1. %xf = dnn.dequantize %xq, %sx, %zx     [per tensor, %xq i8 or ui8]
     %wf = dnn.dequantize %wq, %sw, %zw     [%wq i8: a dnn.constant or dnn.weight with %zw
                                             all 0, per tensor or per column (the last
                                             axis); or an activation, per tensor, i8 or
                                             ui8 (then shifted to i8)]
     [%wf = dnn.transpose %wf               (its last two dims: ONNX Gemm's transB; of a
                                             constant, scaled per tensor or per row)]
     %y  = dnn.matmul %xf, %wf [, %b]       [no post-ops]
     ==> %y = dnn.qmatmul %xq, %wq, %sx, %zx, %sw [wei_zero_point(%zw) for an activation]
              [bias(%b)]                                             (an f32 result)
         (through a transpose, %wq is a dnn.transpose of the i8 constant: folded later)
  2. %z = dnn.binary add %y, %row           [%row: every dim but the last 1]
     ==> %z = dnn.qmatmul ... bias(%row)
  3. %z = dnn.eltwise relu|clip %y          ==> %z = dnn.qmatmul ... {post_ops += [it]}
  4. %q = dnn.quantize %y, %s, %z           [per tensor, %s and %z dnn.constant]
     ==> %q = dnn.qmatmul ... dst(%s, %z)                           (an i8 or ui8 result)
  5. %i = dnn.cast %y (to i32); %f = dnn.cast %i (to f32); %r = dnn.binary mul %f, %s
     [%y's scales dnn.constant 1: an ONNX MatMulInteger; %s of rank 0, or the product of a
      rank-0 value and a per-column [N] one]
     ==> %r = dnn.qmatmul %xq, %wq, %s, %zx, 1   (or the product's two factors as src and
         weights scales)
  6. (last, on every int8 matmul) a constant nonzero zero point of the result moves after
     the rounding, into the post-ops, as ONNX adds it (dnnc.passes.requantization, shared
     with dnn-fuse-quantized).
  7. (in the walk, after 4) %q = dnn.qmatmul ... dst(%s, %z)       [%q read only here]
     %f = dnn.dequantize %q, %s', %z'      [per tensor; constants %s' = %s, %z' = %z;
                                            %f only returned: a reader of %f could take
                                            %q itself (the next layer's int8 source)]
     ==> %f = dnn.qmatmul ... {post_ops += [linear(1/%s), round, clip(lo - %z, hi - %z),
         linear(%s)]}                                                (an f32 result)
     where lo, hi is %q's integer range: the same numbers (the rounding and the saturation
     of the 8-bit result, then (q - z) * s rounded once, as the dequantize's reorder does)
     without the 8-bit result and the dequantize's step (a classifier's head: Gemm -> Q ->
     DQ -> output; MobileNetV2's last step and its thread-count switch, 2.4-6.6 us).
In rules 2-5 %y is an f32 dnn.qmatmul read only there, with nothing yet after what the rule
adds (no bias for 2, no post-ops for 2 and 5, no dst scale for all). oneDNN then runs each
matmul as one int8 primitive (s32 accumulation; scales, bias and post-ops in f32; one
rounding into an 8-bit result, or an f32 one read by an f32 island: GELU, layer norm,
softmax, a residual add), the scales and zero points as run-time arguments. Rule 5 is
dynamic quantization (ONNX Runtime's quantize_dynamic: DynamicQuantizeLinear ->
MatMulInteger -> Cast -> Mul): the scale computed by the graph at run time goes to the same
primitive. The dequantize ops are erased when nothing else reads them. Runs before
dnn-fold-constants, which would fold the weights' dequantize to f32.

Without VNNI (``vnni``; dnnc.target.host.has_vnni) oneDNN's int8 matmul (``gemm:jit``) sums
u8 x s8 pairs in s16, which saturates: there only a u8 source with constant weights in
[-64, 64] (ONNX Runtime's ``reduce_range``) fuses (dnnc.passes.int8_exactness). Measured
under ONEDNN_MAX_CPU_ISA=AVX2 on the bench's BERT layer (1 thread, Zen 5): with 7-bit weights
the fused layer is as far from ONNX Runtime's output as the unfused one (3 steps, mean 0.12)
and runs 1.5-2x faster than the f32 compute between reorders; with 8-bit weights it
would be 4 output steps off and 1.34x less accurate.

Refused, with a remark "not fused: <why>" on the matmul (rule 1), the quantize (rule 4) or
the dequantize (rule 7: dequantized per axis, with another scale or zero point, or one
that is not a constant):
without VNNI an s8 source, weights that are an activation or beyond 7 bits; a source
quantized per axis, constant weights that are not i8 (oneDNN's int8 weights are s8), have a
zero point or are scaled per row, activation weights quantized per axis (or u8 with a zero
point that is not a constant), a matmul with post-ops, a quantize per axis or whose scale or
zero point is not a constant, and every configuration oneDNN runs only with its reference
implementation here (dnnc.target.implementations.quantized_matmul). A matmul reading no
dequantized value is left alone silently.

Not a rule: the residual add of quantize_static's BERT (a matmul's Q -> DQ, then Add of a
dequantized residual, then Q) stays three steps (dequantize, f32 add, quantize): 30-35 us
per add, 2.4% of the bench's S8S8 BERT layer for both adds (1 thread, Zen 5, dnnc-run
--profile). As oneDNN's sum post-op it would need post-op arguments on dnn.qmatmul and the
Q -> DQ between matmul and add emulated by post-ops (as dnn-fuse-quantized's residual rule
does), for at most that gain; the GELU between the FFN's
matmuls (DQ -> GELU -> Q, 134 us, 5%) is the larger such f32 island.

Pre:  the IR verifies; dequantize ops not yet folded.
Post: no matching chain is left; every refusal got a remark; no int8 matmul has a constant
      nonzero destination zero point beside a constant scale.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import ReturnOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from dnnc.core.diagnostics import remark
from dnnc.core.kinds import BinaryAlg, DataType, EltwiseAlg, EltwisePostOp
from dnnc.core.shapes import matmul as matmul_shape
from dnnc.dialects.dnn import (
    BinaryOp,
    CastOp,
    ConstantOp,
    DequantizeOp,
    EltwiseOp,
    MatmulOp,
    QMatmulOp,
    QuantizeOp,
    TransposeOp,
    WeightOp,
    shape_of,
)
from dnnc.dialects.dnn.base import post_ops_of
from dnnc.passes.int8_exactness import check_exact_without_vnni
from dnnc.passes.matching import NoMatch, constant_number, need, other_operand, splat
from dnnc.passes.quantized_matmul_operands import (
    element,
    matmul_source,
    matmul_weights,
)
from dnnc.passes.requantization import RoundBeforeZeroPoint, rounded_quotient
from dnnc.target.host import Vnni, vnni_enabled
from dnnc.target.implementations import quantized_matmul

_POST_OP_ALGS = (EltwiseAlg.RELU, EltwiseAlg.CLIP)
"""The eltwise ops after an int8 matmul that become its post-ops (rule 3)."""


def _native(
    src: SSAValue,
    wei_shape: tuple[int, ...],
    dst: DataType,
    *,
    per_column: bool,
    bias: bool,
    packed: bool,
    weights_zero_point: bool,
) -> None:
    """oneDNN runs this int8 matmul (dnnc.target.implementations.quantized_matmul's
    arguments) with a real kernel here."""
    shapes = (shape_of(src), wei_shape, matmul_shape(shape_of(src), wei_shape, None))
    found = quantized_matmul(
        element(src),
        dst,
        shapes,
        per_column=per_column,
        bias=bias,
        packed=packed,
        weights_zero_point=weights_zero_point,
    )
    need(found is not None, f"oneDNN has no int8 matmul into {dst} here")
    assert found is not None  # checked above
    need(not found.startswith("ref"), f"oneDNN runs this int8 matmul only with {found}")


def _constant(value: SSAValue) -> bool:
    """A constant, or a transpose of one (folded later)."""
    owner = value.owner
    if isinstance(owner, TransposeOp):
        owner = owner.src.owner
    return isinstance(owner, ConstantOp | WeightOp)


def _open(value: SSAValue) -> QMatmulOp | None:
    """The f32 qmatmul defining ``value`` if only the caller reads it, else None."""
    op = value.owner
    if not isinstance(op, QMatmulOp) or op.dst_scale is not None or not value.has_one_use():
        return None
    return op


def _rebuilt(op: QMatmulOp, **changes: object) -> QMatmulOp:
    """``op`` with some of its operands or post-ops replaced."""
    fields: dict[str, object] = {
        "scales": (op.src_scale, op.src_zero_point, op.wei_scale),
        "wei_zero_point": op.wei_zero_point,
        "dst": None if op.dst_scale is None else (op.dst_scale, op.dst_zero_point),
        "bias": op.bias,
        "post_ops": post_ops_of(op.post_ops),
    } | changes
    fused = QMatmulOp(op.src, op.wei, **fields)  # type: ignore[arg-type]
    fused.location = op.location
    return fused


def _replace(
    rewriter: PatternRewriter,
    old: QuantizeOp | DequantizeOp | BinaryOp | EltwiseOp,
    op: QMatmulOp,
    new: QMatmulOp,
) -> None:
    """``old``, which read ``op``'s result, becomes ``new``; ``op`` goes."""
    rewriter.replace(old, new)
    rewriter.erase(op)


@dataclass
class FuseDequantizedMatmul(RewritePattern):
    """Rule 1 (module docstring)."""

    vnni: bool

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MatmulOp, rewriter: PatternRewriter, /) -> None:
        if not any(isinstance(v.owner, DequantizeOp) for v in (op.lhs, op.rhs)):
            return  # an f32 matmul: nothing to say
        try:
            src, weights = matmul_source(op.lhs), matmul_weights(op.rhs)
            need(not op.post_ops.data, "the matmul has post-ops")
            if not self.vnni:
                check_exact_without_vnni(src, weights.dq)
            _native(
                src.src,
                weights.shape(),
                DataType.F32,
                per_column=bool(shape_of(weights.dq.scale)),
                bias=op.bias is not None,
                packed=weights.constant,
                weights_zero_point=weights.zero_point is not None,
            )
        except NoMatch as refusal:
            remark(op, f"not fused: {refusal}")
            return
        wei, wei_zero_point = weights.operands(rewriter, op)
        fused = QMatmulOp(
            src.src,
            wei,
            (src.scale, src.zero_point, weights.dq.scale),
            wei_zero_point=wei_zero_point,
            bias=op.bias,
        )
        fused.location = op.location
        transpose = op.rhs.owner if weights.transposed else None
        rewriter.replace(op, fused)
        for dead in (transpose, src, weights.dq):
            if isinstance(dead, Operation) and not any(r.uses for r in dead.results):
                rewriter.erase(dead)
        shifted = " (its u8 weights shifted to i8)" if weights.shifted else ""
        remark(fused, f"fused into one int8 matmul{shifted}")


class FuseBiasIntoQMatmul(RewritePattern):
    """Rule 2 (module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: BinaryOp, rewriter: PatternRewriter, /) -> None:
        if op.alg.data != BinaryAlg.ADD or op.post_ops.data:
            return
        for value in (op.lhs, op.rhs):
            matmul = _open(value)
            row = other_operand(op, value)
            if matmul is None or matmul.bias is not None or matmul.post_ops.data:
                continue  # oneDNN adds the bias before the post-ops
            if element(row) != DataType.F32:
                continue
            *outer, width = shape_of(row) or (1,)
            if any(d != 1 for d in outer) or width != shape_of(matmul.result)[-1]:
                continue  # not a row broadcast over the result (a residual, a scalar)
            if len(shape_of(row)) > len(shape_of(matmul.result)):
                continue  # it would broadcast the result to a higher rank
            _replace(rewriter, op, matmul, _rebuilt(matmul, bias=row))
            return


class FuseEltwiseIntoQMatmul(RewritePattern):
    """Rule 3 (module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: EltwiseOp, rewriter: PatternRewriter, /) -> None:
        matmul = _open(op.src)
        if matmul is None or op.alg.data not in _POST_OP_ALGS:
            return
        post_op = EltwisePostOp(op.alg.data, op.alpha.value.data, op.beta.value.data)
        post_ops = [*post_ops_of(matmul.post_ops), post_op]
        _replace(rewriter, op, matmul, _rebuilt(matmul, post_ops=post_ops))


class FuseQuantizeIntoQMatmul(RewritePattern):
    """Rule 4 (module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: QuantizeOp, rewriter: PatternRewriter, /) -> None:
        matmul = _open(op.src)
        if matmul is None:
            return  # not an int8 matmul's f32 result read only here: nothing to say
        try:
            need(op.axis is None and not shape_of(op.scale), "the result is quantized per axis")
            need(
                isinstance(op.scale.owner, ConstantOp)
                and isinstance(op.zero_point.owner, ConstantOp),
                "the result's scale or zero point is not a constant",
            )
            _native(
                matmul.src,
                shape_of(matmul.wei),
                element(op.result),
                per_column=bool(shape_of(matmul.wei_scale)),
                bias=matmul.bias is not None,
                packed=_constant(matmul.wei),
                weights_zero_point=matmul.wei_zero_point is not None,
            )
        except NoMatch as refusal:
            remark(op, f"not fused: {refusal}")
            return
        _replace(rewriter, op, matmul, _rebuilt(matmul, dst=(op.scale, op.zero_point)))


class FuseDequantizeIntoQMatmul(RewritePattern):
    """Rule 7 (module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: DequantizeOp, rewriter: PatternRewriter, /) -> None:
        matmul = op.src.owner
        if not isinstance(matmul, QMatmulOp) or matmul.dst_scale is None:
            return  # not an int8 matmul's 8-bit result: nothing to say
        if matmul.dst_zero_point is None or not op.src.has_one_use():
            return  # the 8-bit result is read elsewhere too: it stays
        if not all(isinstance(use.operation, ReturnOp) for use in op.result.uses):
            return  # what reads the dequantized value may take the 8-bit one (an int8 op)
        try:
            need(op.axis is None and not shape_of(op.scale), "dequantized per axis")
            scale = constant_number(matmul.dst_scale, "the result's scale")
            zero = constant_number(matmul.dst_zero_point, "the result's zero point")
            need(
                constant_number(op.scale, "the dequantize's scale") == scale
                and constant_number(op.zero_point, "the dequantize's zero point") == zero,
                "dequantized with another scale or zero point",
            )
        except NoMatch as refusal:
            remark(op, f"not fused: {refusal}")
            return
        limits = np.iinfo(element(op.src).numpy)
        dequantization = [
            *rounded_quotient(scale),
            EltwisePostOp(EltwiseAlg.CLIP, limits.min - zero, limits.max - zero),
            EltwisePostOp(EltwiseAlg.LINEAR, scale, 0.0),
        ]
        post_ops = [*post_ops_of(matmul.post_ops), *dequantization]
        _replace(rewriter, op, matmul, _rebuilt(matmul, dst=None, post_ops=post_ops))


class FoldDynamicScaleIntoQMatmul(RewritePattern):
    """Rule 5 (module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: BinaryOp, rewriter: PatternRewriter, /) -> None:
        if op.alg.data != BinaryAlg.MUL or op.post_ops.data:
            return
        for value in (op.lhs, op.rhs):
            found = self._integer_matmul(value)
            if found is None:
                continue
            matmul, casts = found
            scale = other_operand(op, value)
            scales = self._scales(scale, matmul.wei_scale, shape_of(matmul.result)[-1])
            if scales is None:
                continue
            src_scale, wei_scale = scales
            fused = _rebuilt(matmul, scales=(src_scale, matmul.src_zero_point, wei_scale))
            rewriter.replace(op, fused)
            for dead in (*casts, matmul):
                rewriter.erase(dead)
            product = scale.owner
            if scale is not src_scale and not scale.uses and isinstance(product, BinaryOp):
                rewriter.erase(product)  # split into src_scale and wei_scale
            remark(fused, "the run-time scale of a dynamic quantization folded in")
            return

    @staticmethod
    def _integer_matmul(value: SSAValue) -> tuple[QMatmulOp, tuple[CastOp, CastOp]] | None:
        """The unit-scaled f32 qmatmul whose result reaches ``value`` through a cast to i32
        and back (MatMulInteger's int32 product in f32), with the two casts."""
        to_f32 = value.owner
        if not isinstance(to_f32, CastOp) or not value.has_one_use():
            return None
        to_i32 = to_f32.src.owner
        if not isinstance(to_i32, CastOp) or not to_f32.src.has_one_use():
            return None
        if element(to_i32.result) != DataType.S32:
            return None
        matmul = _open(to_i32.src)
        if matmul is None or matmul.bias is not None or matmul.post_ops.data:
            return None  # the scale multiplies the bare product
        try:
            splat(matmul.src_scale, 1.0, "the source's scale")
            splat(matmul.wei_scale, 1.0, "the weights' scale")
        except NoMatch:
            return None
        return matmul, (to_f32, to_i32)

    @staticmethod
    def _scales(scale: SSAValue, unit: SSAValue, columns: int) -> tuple[SSAValue, SSAValue] | None:
        """(src scale, weights scale) whose product is ``scale``: a rank-0 ``scale`` and
        the ``unit`` weights scale, or the factors of a product of a rank-0 and a
        per-column value; None if ``scale`` is neither."""
        if not shape_of(scale):
            return scale, unit
        product = scale.owner
        if not isinstance(product, BinaryOp) or product.alg.data != BinaryAlg.MUL:
            return None
        a, b = product.lhs, product.rhs
        if shape_of(a) and not shape_of(b):
            a, b = b, a
        if shape_of(a) or shape_of(b) != (columns,):
            return None
        return a, b


@dataclass(frozen=True)
class FuseQuantizedMatmulPass(ModulePass):
    """dnn-fuse-quantized-matmul (module docstring)."""

    name = "dnn-fuse-quantized-matmul"

    vnni: Vnni = "auto"
    """Whether to take the CPU as having VNNI (dnnc.target.host.Vnni)."""

    round_first: bool = True
    """Whether to move a constant nonzero zero point after the rounding (rule 6; ``false``
    leaves it to oneDNN, for tests)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        vnni = vnni_enabled(self.vnni)
        patterns: list[RewritePattern] = [
            FuseDequantizedMatmul(vnni),
            FoldDynamicScaleIntoQMatmul(),
            FuseBiasIntoQMatmul(),
            FuseEltwiseIntoQMatmul(),
            FuseQuantizeIntoQMatmul(),
            FuseDequantizeIntoQMatmul(),
        ]
        # One forward walk: each rule's result is visited before the ops that read it, so
        # chains grow in order, and each refusal is remarked once.
        walker = PatternRewriteWalker(
            GreedyRewritePatternApplier(patterns), apply_recursively=False
        )
        walker.rewrite_module(op)
        if self.round_first:
            rounding = RoundBeforeZeroPoint(QMatmulOp)
            PatternRewriteWalker(rounding, apply_recursively=False).rewrite_module(op)
