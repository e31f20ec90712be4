"""The attention op: scaled dot-product attention as one dnn op (see docs/dialect.md).

dnn-recover-attention builds it from the MatMul -> scale -> mask -> Softmax -> MatMul chain
that PyTorch and transformers export; its value is the reference kernel's
(dnnc/reference/attention.py).
"""

from __future__ import annotations

from xdsl.dialects.builtin import BoolAttr, Float32Type, FloatAttr, TensorType
from xdsl.ir import SSAValue
from xdsl.irdl import (
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure

from dnnc.core import shapes
from dnnc.dialects.dnn.base import FALSE, TRUE, DnnOp, f32_attr, shape_of, tensor_type


@irdl_op_definition
class SdpaOp(DnnOp):
    """Scaled dot-product attention with grouped key/value heads.

    result[b, h, i, :] = sum_j p[b, h, i, j] v[b, g, j, :], with g = h // (Hq / Hkv) and
    p = softmax_j(scale * q[b, h, i, :] . k[b, g, j, :] + mask[b, h, i, j] + causal[i, j]);
    mask (optional) broadcasts to the scores [B, Hq, L, S]; causal[i, j] is -inf where
    j > i + S - L (the queries are the last L of the S positions), 0 elsewhere. With
    ``nan_to_zero`` a NaN probability (a row whose scores are all -inf) counts as 0, as the
    ``Where(IsNaN(p), 0, p)`` guard of PyTorch's exported scaled_dot_product_attention does.
    """

    name = "dnn.sdpa"
    q = operand_def(TensorType)
    k = operand_def(TensorType)
    v = operand_def(TensorType)
    mask = opt_operand_def(TensorType)
    result = result_def(TensorType)
    scale = prop_def(FloatAttr[Float32Type])
    causal = prop_def(BoolAttr, FALSE)
    nan_to_zero = prop_def(BoolAttr, FALSE)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$q `,` $k `,` $v (`mask` `(` $mask^ `:` type($mask) `)`)? attr-dict `:` "
        "`(` type($q) `,` type($k) `,` type($v) `)` `->` type($result)"
    )

    def __init__(
        self,
        q: SSAValue,
        k: SSAValue,
        v: SSAValue,
        mask: SSAValue | None = None,
        *,
        scale: float,
        causal: bool = False,
        nan_to_zero: bool = False,
    ) -> None:
        q_type, v_shape = tensor_type(q), shape_of(v)
        result_shape = shapes.sdpa(
            shape_of(q), shape_of(k), v_shape, None if mask is None else shape_of(mask)
        )
        super().__init__(
            operands=[q, k, v, [] if mask is None else [mask]],
            result_types=[TensorType(q_type.get_element_type(), result_shape)],
            properties={
                "scale": f32_attr(scale),
                "causal": TRUE if causal else FALSE,
                "nan_to_zero": TRUE if nan_to_zero else FALSE,
            },
        )

    def verify_op(self) -> None:
        inferred = shapes.sdpa(
            shape_of(self.q),
            shape_of(self.k),
            shape_of(self.v),
            None if self.mask is None else shape_of(self.mask),
        )
        self.expect_result_shape(self.result, inferred)


ATTENTION_OPS: tuple[type[DnnOp], ...] = (SdpaOp,)
"""The attention ops, in docs/dialect.md order."""
