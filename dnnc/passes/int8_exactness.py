"""When oneDNN's int8 convolution and matmul are exact on a CPU without VNNI.

Without VNNI (dnnc.target.host.has_vnni) oneDNN multiplies u8 by s8 with vpmaddubsw, which
sums two products in s16 with saturation, and halves the weights of an s8 source to stay in
range (jit_uni_int8 convolutions and the gemm:jit int8 matmul alike). It is exact for a u8
source (s8 activations are u8 after dnn-shift-to-u8) with constant weights in [-64, 64]
(ONNX Runtime's ``reduce_range``): 2 * 255 * 64 fits in s16. dnn-fuse-quantized and
dnn-fuse-quantized-matmul fuse only those there.
"""

from __future__ import annotations

import numpy as np

from dnnc.core.kinds import DataType
from dnnc.dialects.dnn import ConstantOp, DequantizeOp
from dnnc.dialects.dnn.base import tensor_type
from dnnc.dialects.types import data_type_of
from dnnc.ir.weights import constant_value
from dnnc.passes.matching import need

SEVEN_BITS = 64
"""The largest weight magnitude vpmaddubsw sums in pairs with u8 without saturating."""


def check_exact_without_vnni(src: DequantizeOp, weights: DequantizeOp) -> None:
    """NoMatch unless the int8 primitive reading these dequantized operands is exact
    without VNNI (module docstring)."""
    element = data_type_of(tensor_type(src.src).get_element_type())
    need(
        element is DataType.U8,
        "this CPU has no VNNI and the source is s8 (oneDNN would halve the weights: inexact)",
    )
    owner = weights.src.owner
    need(
        isinstance(owner, ConstantOp),
        "this CPU has no VNNI and the weights are not a constant in the IR (their range is "
        "unknown: vpmaddubsw's pair sums could saturate)",
    )
    assert isinstance(owner, ConstantOp)  # checked above
    largest = int(np.abs(constant_value(owner).astype(np.int64)).max(initial=0))
    need(
        largest <= SEVEN_BITS,
        f"this CPU has no VNNI and a weight is {largest}, beyond 7 bits (vpmaddubsw's pair "
        "sums would saturate; ONNX Runtime's reduce_range quantizes weights to 7 bits)",
    )
