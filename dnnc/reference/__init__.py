"""numpy reference kernels: one function per ``dnn`` op of docs/dialect.md, named like the op.

Contract (shared by every kernel):
* Arrays are LOGICAL: row-major in logical dimension order (NCHW, OIHW). Layouts belong to
  buffers, so ``reorder`` is the identity on values; ``to_layout`` / ``from_layout`` give
  the physical arrays of a layout for tests that compare the runtime's buffers.
* Operands are positional, in the contract's order (``post_args`` last, as ``*post_args``);
  properties are keyword-only with the contract's names and defaults. Enum-valued
  properties take the ``dnnc.core.kinds`` StrEnum or its string value.
* Results have the first operand's element type (``cast`` excepted; ``top_k`` indices are
  int64). Computing kernels work in float64 and convert once at the end with oneDNN's
  rounding (``dtypes.to_dtype``: bf16 via ``round_to_bf16``, integers saturated and
  rounded half to even). Post-ops run in float64 before that conversion.
"""

from dnnc.reference.attention import sdpa
from dnnc.reference.compute import conv2d, deconv2d, inner_product, matmul, pool
from dnnc.reference.dtypes import round_to_bf16, to_dtype
from dnnc.reference.elementwise import (
    BINARY,
    ELTWISE,
    apply_post_ops,
    binary,
    compare,
    eltwise,
    logical,
    where,
)
from dnnc.reference.movement import (
    cast,
    concat,
    expand,
    from_layout,
    gather,
    gather_elements,
    gather_nd,
    kv_append,
    reorder,
    reshape,
    slice,
    sum,
    to_layout,
    top_k,
    transpose,
)
from dnnc.reference.normalization import (
    batch_norm,
    cumsum,
    layer_norm,
    log_softmax,
    lrn,
    reduce,
    softmax,
)
from dnnc.reference.quant import dequantize, dynamic_quantize, qconv2d, qmatmul, quantize
from dnnc.reference.resample import resize

__all__ = [
    "BINARY",
    "ELTWISE",
    "apply_post_ops",
    "batch_norm",
    "binary",
    "cast",
    "compare",
    "concat",
    "conv2d",
    "cumsum",
    "deconv2d",
    "dequantize",
    "dynamic_quantize",
    "eltwise",
    "expand",
    "from_layout",
    "gather",
    "gather_elements",
    "gather_nd",
    "inner_product",
    "kv_append",
    "layer_norm",
    "log_softmax",
    "logical",
    "lrn",
    "matmul",
    "pool",
    "qconv2d",
    "qmatmul",
    "quantize",
    "reduce",
    "reorder",
    "reshape",
    "resize",
    "round_to_bf16",
    "sdpa",
    "slice",
    "softmax",
    "sum",
    "to_dtype",
    "to_layout",
    "top_k",
    "transpose",
    "where",
]
