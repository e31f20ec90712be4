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

Not fused (remark "not fused: <why>" on the quantize) when the CPU has no VNNI (``vnni``:
oneDNN's int8 convolution would then saturate u8 sources above 127 and halve s8 sources'
weights, dnnc.target.host.has_vnni; the f32 path is exact), a quantization is per axis where
per tensor is needed, the weights are not a constant (or have a zero point), the
convolution or an eltwise op between it and the quantize has another reader (its f32 value
is needed), the convolution has a binary or sum post-op, or an op between is not a relu or
clip. A convolution not followed by a quantize is left alone silently (f32 out: not this
rule).

Pre:  the IR verifies; dequantize ops not yet folded.
Post: no matching chain is left; every quantize of a convolution's result got a remark.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

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
from dnnc.core.kinds import DataType, EltwiseAlg, EltwisePostOp, PostOp
from dnnc.dialects.dnn import (
    ConstantOp,
    Conv2DOp,
    DequantizeOp,
    EltwiseOp,
    QConv2DOp,
    QuantizeOp,
    WeightOp,
    shape_of,
)
from dnnc.dialects.dnn.base import int_of, ints, tensor_type
from dnnc.dialects.dnn.quant import QUANTIZED_TYPES
from dnnc.dialects.types import data_type_of
from dnnc.ir.weights import constant_value
from dnnc.passes.matching import NoMatch, need, only_use
from dnnc.target.host import has_vnni

Vnni = Literal["auto", "yes", "no"]

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


def _chain(quantize: QuantizeOp) -> tuple[Conv2DOp, list[EltwiseOp]]:
    """The convolution the quantize reads and the eltwise ops in between, in order."""
    eltwise: list[EltwiseOp] = []
    value = quantize.src
    while isinstance(value.owner, EltwiseOp):
        op = value.owner
        need(op.alg.data in _POST_OP_ALGS, f"a {op.alg.data} is between conv2d and quantize")
        only_use(value, f"the {op.alg.data}'s result")
        eltwise.insert(0, op)
        value = op.src
    conv = value.owner
    need(isinstance(conv, Conv2DOp), "it does not quantize a conv2d")
    assert isinstance(conv, Conv2DOp)  # checked above
    only_use(value, "the conv2d's f32 result")
    return conv, eltwise


@dataclass
class FuseQuantizedConv(RewritePattern):
    """The rule of the module docstring, anchored on the quantize."""

    vnni: bool
    """Whether the CPU has VNNI (else every candidate is refused)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: QuantizeOp, rewriter: PatternRewriter, /) -> None:
        value = op.src
        while isinstance(value.owner, EltwiseOp):
            value = value.owner.src
        if not isinstance(value.owner, Conv2DOp):
            return  # not a convolution's quantize: nothing to say
        try:
            conv, eltwise = _chain(op)
            _per_tensor(op, "the result")
            src = _dequantized(conv.src, "the source", QUANTIZED_TYPES)
            _per_tensor(src, "the source")
            weights = _weights(conv)
            post_ops: list[PostOp] = list(conv.post_op_chain)
            need(
                all(isinstance(p, EltwisePostOp) for p in post_ops),
                "the conv2d has a binary or sum post-op",
            )
            need(self.vnni, "this CPU has no VNNI (oneDNN's int8 convolution would be inexact)")
        except NoMatch as refusal:
            remark(op, f"not fused: {refusal}")
            return
        post_ops += [
            EltwisePostOp(e.alg.data, e.alpha.value.data, e.beta.value.data) for e in eltwise
        ]
        fused = QConv2DOp(
            src.src,
            weights.src,
            (src.scale, src.zero_point, weights.scale, op.scale, op.zero_point),
            conv.bias,
            tensor_type(op.result),
            strides=ints(conv.strides),
            pads_begin=ints(conv.pads_begin),
            pads_end=ints(conv.pads_end),
            dilations=ints(conv.dilations),
            groups=int_of(conv.groups),
            post_ops=post_ops,
        )
        fused.location = conv.location
        rewriter.replace_op(op, fused)
        dead: list[Operation] = [*reversed(eltwise), conv]
        for chained in dead:
            rewriter.erase_op(chained)
        for dq in dict.fromkeys((src, weights)):
            if not dq.result.uses:
                rewriter.erase_op(dq)
        algs = ", ".join(str(p.alg) for p in post_ops if isinstance(p, EltwisePostOp))
        remark(fused, "fused into one int8 convolution" + (f" with {algs}" if algs else ""))


@dataclass(frozen=True)
class FuseQuantizedPass(ModulePass):
    """dnn-fuse-quantized (module docstring)."""

    name = "dnn-fuse-quantized"

    vnni: Vnni = "auto"
    """Whether to take the CPU as having VNNI: ``auto`` asks dnnc.target (``yes`` and ``no``
    make the result independent of the CPU, for tests)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        vnni = has_vnni() if self.vnni == "auto" else self.vnni == "yes"
        pattern = FuseQuantizedConv(vnni)
        PatternRewriteWalker(pattern, apply_recursively=False).rewrite_module(op)
