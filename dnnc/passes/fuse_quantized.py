"""dnn-fuse-quantized: a dequantized convolution whose result is quantized becomes one int8 one.

Rule: %xf = dnn.dequantize %xq, %sx, %zx            [per tensor, %xq i8 or ui8]
      %wf = dnn.dequantize %wq, %sw, %zw            [%wq an i8 dnn.constant or dnn.weight,
                                                     %zw all 0, per tensor or axis 0]
      %c  = dnn.conv2d %xf, %wf [, %b] {post_ops: eltwise only}
      [%r = dnn.eltwise relu|clip %c]...            [each read once]
      %yq = dnn.quantize %r, %sy, %zy               [per tensor]
      ==> %yq = dnn.qconv2d %xq, %wq, %sx, %zx, %sw, %sy, %zy [, %b] {post_ops: the conv's,
          then the eltwise ops}
The activations stay 8-bit between int8 convolutions and oneDNN runs each as one int8
primitive (s32 accumulation; scales, bias and post-ops in f32; one rounding), with the
scales and zero points as run-time arguments. The bias stays what it is (an f32 value in
real units; ONNX's dequantized int32 bias, which dnn-fold-constants folds). The dequantize
ops are erased when nothing else reads them (a shared activation's stays for its other
readers). Runs before dnn-fold-constants, which would fold the weights' dequantize to f32.

On a CPU without VNNI (``vnni``, dnnc.target.host.has_vnni) oneDNN's int8 convolution
(``jit_uni_int8:avx2``) multiplies with vpmaddubsw, which sums two u8 x s8 products in s16
with saturation, and halves the weights of an s8 source to stay in range (inexact: measured
on ResNet-18 up to 13 output steps from ONNX Runtime). It is exact for a u8 source (s8
activations are u8 after dnn-shift-to-u8) with weights in [-64, 64] (ONNX Runtime's
``reduce_range``): 2 * 255 * 64 fits in s16. Such convolutions fuse there too (measured
under ONEDNN_MAX_CPU_ISA=AVX2, a reduce_range ResNet-18: 0.76 ms against 2.6 ms for the f32
path, as close to ONNX Runtime); the others keep the f32 path, with a remark.

Not fused (remark "not fused: <why>" on the quantize) when, without VNNI, the source is s8
or a weight lies outside [-64, 64], a quantization is per axis where per tensor is needed,
the weights are not a constant (or have a zero point), the convolution or an eltwise op
between it and the quantize has another reader (its f32 value is needed), the convolution
has a binary or sum post-op, or an op between is not a relu or clip. A convolution not
followed by a quantize is left alone silently (f32 out: not this rule).

Rule (residual, after the first on the whole module):
      %a  = dnn.qconv2d ... {post_ops: eltwise only}  [%a read only by %af]
      %af = dnn.dequantize %a, %sa, %za               [per tensor, constant %sa, %za]
      %rf = dnn.dequantize %r, %sr, %zr               [per tensor, constant %sr, %zr,
                                                       %r typed exactly as %yq]
      %s  = dnn.binary add %af, %rf  (or %rf, %af)    [same shapes, no post-ops]
      [%e = dnn.eltwise relu|clip %s]...              [each read once]
      %yq = dnn.quantize %e, %sy, %zy                 [per tensor]
      ==> %yq = dnn.qconv2d (%a's operands but %sy, %zy) post_args(%r) {post_ops: %a's,
          then linear(1/%sa), round, clip(qmin - %za, qmax - %za), linear(%sa),
          #dnn.sum<%sr, %zr>, the eltwise ops}
The residual add of a ResNet block in one int8 convolution: oneDNN's sum post-op adds
``%sr * (%r - %zr)`` (compile-time scale and zero point, hence the constants) to the
convolution's f32 result, which dnn-inplace computes in %r's buffer. The four eltwise
post-ops before it are %a's quantize and dequantize (round half to even, saturate), so the
sum adds exactly the value the add read; the fused op sits where the quantize was. When both
addends are such convolutions, the later one (in program order) takes the other's result as
its residual. Not fused (remark on the quantize) when a scale or zero point is not a
constant or is per axis, %a or %af has another reader, %a already has a sum, the shapes
differ, %r's type is not the result's, or an op between is not a relu or clip. An add none
of whose operands dequantizes an int8 convolution is left alone silently.

Rule (zero point after rounding, last, on every int8 convolution): a constant nonzero
zero point of the result moves after the rounding, into the post-ops, as ONNX adds it
(dnnc.passes.requantization, shared with dnn-fuse-quantized-matmul).

Pre:  the IR verifies; dequantize ops not yet folded.
Post: no matching chain is left; every quantize of a convolution's result, and of a residual
      add of an int8 convolution's result, got a remark; no int8 convolution has a constant
      nonzero destination zero point beside a constant scale.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from dnnc.core.diagnostics import remark
from dnnc.core.kinds import BinaryAlg, DataType, EltwiseAlg, EltwisePostOp, PostOp, SumPostOp
from dnnc.dialects.dnn import (
    BinaryOp,
    ConstantOp,
    Conv2DOp,
    DequantizeOp,
    EltwiseOp,
    QConv2DOp,
    QuantizeOp,
    WeightOp,
    shape_of,
)
from dnnc.dialects.dnn.base import int_of, tensor_type, window_of
from dnnc.dialects.dnn.quant import QUANTIZED_TYPES
from dnnc.dialects.types import data_type_of
from dnnc.ir.weights import constant_value
from dnnc.passes.int8_exactness import check_exact_without_vnni
from dnnc.passes.matching import NoMatch, constant_number, need, only_use
from dnnc.passes.requantization import RoundBeforeZeroPoint
from dnnc.target.host import Vnni, vnni_enabled

_POST_OP_ALGS = (EltwiseAlg.RELU, EltwiseAlg.CLIP)
"""The eltwise ops between the convolution and the quantize that become post-ops."""


def _per_tensor(op: DequantizeOp | QuantizeOp, what: str) -> None:
    need(op.axis is None and not shape_of(op.scale), f"{what} is quantized per axis")


def _dequantized(value: SSAValue, what: str, types: tuple[DataType, ...]) -> DequantizeOp:
    """The dequantize defining ``value``, from one of ``types``."""
    owner = value.owner
    need(isinstance(owner, DequantizeOp), f"{what} is not dequantized")
    assert isinstance(owner, DequantizeOp)  # checked above
    element = data_type_of(tensor_type(owner.src).get_element_type())
    need(element in types, f"{what} is dequantized from {element}, not {' or '.join(types)}")
    return owner


def _weights(conv: Conv2DOp) -> DequantizeOp:
    """The dequantize of constant, symmetric i8 weights, per tensor or per output channel."""
    dq = _dequantized(conv.wei, "the weights", (DataType.S8,))
    need(isinstance(dq.src.owner, ConstantOp | WeightOp), "the weights are not a constant")
    zero = dq.zero_point.owner
    need(
        isinstance(zero, ConstantOp) and not np.any(constant_value(zero)),
        "the weights' zero point is not a constant 0",
    )
    if dq.axis is not None:
        need(int_of(dq.axis) % 4 == 0, "the weights are quantized along another axis than 0")
    return dq


def _before_eltwise(quantize: QuantizeOp) -> SSAValue:
    """The value the quantize reads through its chain of eltwise ops."""
    value = quantize.src
    while isinstance(value.owner, EltwiseOp):
        value = value.owner.src
    return value


def _eltwise_chain(quantize: QuantizeOp, what: str) -> list[EltwiseOp]:
    """The eltwise ops between the quantize and ``what`` (its producer, for the remarks), in
    order, each result and the producer's read only along the chain."""
    eltwise: list[EltwiseOp] = []
    value = quantize.src
    while isinstance(value.owner, EltwiseOp):
        op = value.owner
        need(op.alg.data in _POST_OP_ALGS, f"a {op.alg.data} is between {what} and quantize")
        only_use(value, f"the {op.alg.data}'s result")
        eltwise.insert(0, op)
        value = op.src
    only_use(value, f"the {what}'s f32 result")
    return eltwise


def _eltwise_post_ops(eltwise: list[EltwiseOp]) -> list[PostOp]:
    return [EltwisePostOp(e.alg.data, e.alpha.value.data, e.beta.value.data) for e in eltwise]


def _replace(
    rewriter: PatternRewriter,
    quantize: QuantizeOp,
    fused: QConv2DOp,
    dead: list[Operation],
    dequantizes: tuple[DequantizeOp, ...],
) -> None:
    """``fused`` replaces the quantize; the ``dead`` ops (the last reader first) are erased,
    and so are the ``dequantizes`` nothing reads any more (a shared one stays)."""
    rewriter.replace_op(quantize, fused)
    for op in dead:
        rewriter.erase_op(op)
    for dq in dict.fromkeys(dequantizes):
        if not dq.result.uses:
            rewriter.erase_op(dq)


@dataclass
class FuseQuantizedConv(RewritePattern):
    """The rule of the module docstring, anchored on the quantize."""

    vnni: bool
    """Whether the CPU has VNNI (else only u8 sources with 7-bit weights fuse)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: QuantizeOp, rewriter: PatternRewriter, /) -> None:
        conv = _before_eltwise(op).owner
        if not isinstance(conv, Conv2DOp):
            return  # not a convolution's quantize: nothing to say
        try:
            eltwise = _eltwise_chain(op, "conv2d")
            _per_tensor(op, "the result")
            src = _dequantized(conv.src, "the source", QUANTIZED_TYPES)
            _per_tensor(src, "the source")
            weights = _weights(conv)
            post_ops: list[PostOp] = list(conv.post_op_chain)
            need(
                all(isinstance(p, EltwisePostOp) for p in post_ops),
                "the conv2d has a binary or sum post-op",
            )
            if not self.vnni:
                check_exact_without_vnni(src, weights)
        except NoMatch as refusal:
            remark(op, f"not fused: {refusal}")
            return
        post_ops += _eltwise_post_ops(eltwise)
        fused = QConv2DOp(
            src.src,
            weights.src,
            (src.scale, src.zero_point, weights.scale, op.scale, op.zero_point),
            conv.bias,
            tensor_type(op.result),
            **window_of(conv),
            post_ops=post_ops,
        )
        fused.location = conv.location
        _replace(rewriter, op, fused, [*reversed(eltwise), conv], (src, weights))
        algs = ", ".join(str(p.alg) for p in post_ops if isinstance(p, EltwisePostOp))
        remark(fused, "fused into one int8 convolution" + (f" with {algs}" if algs else ""))


def _int8_convolution(value: SSAValue) -> QConv2DOp | None:
    """The int8 convolution whose result ``value`` dequantizes, if it does."""
    dq = value.owner
    if not isinstance(dq, DequantizeOp):
        return None
    return dq.src.owner if isinstance(dq.src.owner, QConv2DOp) else None


def _addends(add: BinaryOp) -> tuple[SSAValue, SSAValue]:
    """(the dequantized convolution result, the dequantized residual): the later convolution
    in program order when both addends are convolution results (it runs last, reading the
    other's result; the fused op takes the quantize's place after both)."""
    block = add.parent_block()
    assert block is not None  # a function body op
    candidates = {
        block.get_operation_index(conv): value
        for value in (add.lhs, add.rhs)
        if (conv := _int8_convolution(value)) is not None
    }
    anchor = candidates[max(candidates)]
    return anchor, add.rhs if anchor is add.lhs else add.lhs


def _requantized(dq: DequantizeOp, data_type: DataType) -> list[PostOp]:
    """The eltwise post-ops computing ``dequantize(quantize(x))`` of ``dq``'s parameters:
    ``x / s`` rounded half to even, clipped to the integer range less the zero point, times
    ``s``."""
    scale = constant_number(dq.scale, "the convolution result's scale")
    zero = constant_number(dq.zero_point, "the convolution result's zero point")
    info = np.iinfo(data_type.numpy)
    return [
        EltwisePostOp(EltwiseAlg.LINEAR, 1.0 / scale, 0.0),
        EltwisePostOp(EltwiseAlg.ROUND),
        EltwisePostOp(EltwiseAlg.CLIP, info.min - zero, info.max - zero),
        EltwisePostOp(EltwiseAlg.LINEAR, scale, 0.0),
    ]


class FuseResidualIntoQConv(RewritePattern):
    """The residual rule of the module docstring, anchored on the quantize."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: QuantizeOp, rewriter: PatternRewriter, /) -> None:
        add = _before_eltwise(op).owner
        if not isinstance(add, BinaryOp) or add.alg.data is not BinaryAlg.ADD:
            return  # not an add's quantize
        if all(_int8_convolution(v) is None for v in (add.lhs, add.rhs)):
            return  # no int8 convolution's result: not this rule
        try:
            eltwise = _eltwise_chain(op, "add")
            _per_tensor(op, "the result")
            need(not add.post_ops.data, "the add has post-ops")
            need(shape_of(add.lhs) == shape_of(add.rhs), "the addends' shapes differ")
            addend, residual_f32 = _addends(add)
            dq_conv, conv = addend.owner, _int8_convolution(addend)
            assert isinstance(dq_conv, DequantizeOp) and conv is not None  # _addends
            only_use(conv.result, "the int8 convolution's result")
            only_use(addend, "the int8 convolution's dequantized result")
            need(not conv.post_args, "the int8 convolution already has a sum")
            _per_tensor(dq_conv, "the convolution result")
            residual = _dequantized(residual_f32, "the residual", QUANTIZED_TYPES)
            _per_tensor(residual, "the residual")
            need(
                residual.src.type == op.result.type,
                f"the residual's type {residual.src.type} is not the result's {op.result.type}",
            )
            conv_type = data_type_of(tensor_type(conv.result).get_element_type())
            post_ops = [*conv.post_op_chain, *_requantized(dq_conv, conv_type)]
            residual_scale = constant_number(residual.scale, "the residual's scale")
            residual_zero = constant_number(residual.zero_point, "the residual's zero point")
        except NoMatch as refusal:
            remark(op, f"not fused: {refusal}")
            return
        post_ops += [SumPostOp(residual_scale, int(residual_zero)), *_eltwise_post_ops(eltwise)]
        fused = conv.requantized(
            op.scale, op.zero_point, tensor_type(op.result), post_ops, [residual.src]
        )
        fused.location = conv.location
        _replace(rewriter, op, fused, [*reversed(eltwise), add, dq_conv, conv], (residual,))
        remark(fused, "fused the residual add into the int8 convolution (a sum post-op)")


@dataclass(frozen=True)
class FuseQuantizedPass(ModulePass):
    """dnn-fuse-quantized (module docstring)."""

    name = "dnn-fuse-quantized"

    vnni: Vnni = "auto"
    """Whether to take the CPU as having VNNI: ``auto`` asks dnnc.target (``yes`` and ``no``
    make the result independent of the CPU, for tests)."""

    round_first: bool = True
    """Whether to move a constant nonzero zero point after the rounding (the last rule;
    ``false`` leaves it to oneDNN, for tests)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        patterns: list[RewritePattern] = [
            FuseQuantizedConv(vnni_enabled(self.vnni)),
            FuseResidualIntoQConv(),
        ]
        if self.round_first:
            patterns.append(RoundBeforeZeroPoint(QConv2DOp))
        for pattern in patterns:
            PatternRewriteWalker(pattern, apply_recursively=False).rewrite_module(op)
