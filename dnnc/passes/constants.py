"""Constants that rewrites create and erase.

A dnn.constant from an array, and the dnn.constant and dnn.weight ops a rewrite leaves unused
(dnn-fold-constants, dnn-dense-as-inner-product, dnn-remove-redundant-reorders)."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from dnnc.core.kinds import DataType
from dnnc.dialects.dnn import ConstantOp, WeightOp
from dnnc.dialects.dnn.base import tensor_type
from dnnc.dialects.types import data_type_of
from dnnc.ir.weights import release_payload
from dnnc.reference import to_dtype

_FLOATS = frozenset({DataType.F32, DataType.BF16, DataType.F16})
_FLOAT_DTYPES = frozenset(t.numpy for t in _FLOATS)
"""Arrays converted as they are (exactly in float64 too): no float64 copy of a large weight."""


def constant_op(array: np.ndarray, type_: TensorType, location_op: Operation) -> ConstantOp:
    """A dnn.constant of `type_` holding `array` (converted once with oneDNN's rounding, exactly
    if it already has the element type), at `location_op`'s location."""
    exact = array if array.dtype in _FLOAT_DTYPES else np.asarray(array, dtype=np.float64)
    data = to_dtype(exact, data_type_of(type_.get_element_type()))
    op = ConstantOp.of_bytes(type_, np.ascontiguousarray(data).tobytes())
    op.location = location_op.location
    return op


def erase_dead_sources(rewriter: PatternRewriter, values: list[SSAValue]) -> None:
    """Erase the dnn.constant and dnn.weight ops among the owners of `values` left unused,
    releasing a dnn.constant's data at once (dnnc.ir.weights.release_payload)."""
    for owner in dict.fromkeys(v.owner for v in values):
        if isinstance(owner, (ConstantOp, WeightOp)) and not owner.result.uses:
            rewriter.erase(owner)
            if isinstance(owner, ConstantOp):
                release_payload(owner)


def is_float(value: SSAValue) -> bool:
    """Whether a value's elements are f32, bf16 or f16."""
    return data_type_of(tensor_type(value).get_element_type()) in _FLOATS
