"""The ``dnn`` dialect: deep-learning graph ops on value-semantics tensors.

docs/dialect.md is the contract (op names, operands, properties and defaults). Attributes are
in ``attributes``, the shared verification in ``base``, the ops in ``compute`` (one oneDNN
primitive each), ``attention`` (dnn.sdpa), ``data`` (data movement and sources) and ``logic``;
``deferred`` the op that waits for argument values (dnn.deferred) and its contract.
"""

from xdsl.ir import Dialect

from dnnc.dialects.dnn.attention import ATTENTION_OPS, SdpaOp
from dnnc.dialects.dnn.attributes import (
    ATTRIBUTES,
    BinaryAlgAttr,
    BinaryPostOpAttr,
    DataTypeAttr,
    EltwiseAlgAttr,
    EltwisePostOpAttr,
    KernelAttr,
    KernelLibrary,
    KernelLibraryAttr,
    LayoutAttr,
    LrnKindAttr,
    PoolKindAttr,
    PostOpAttr,
    ReduceKindAttr,
    SumPostOpAttr,
    post_op_attr,
)
from dnnc.dialects.dnn.base import DnnOp, PostOpAnchor, layout_of, shape_of
from dnnc.dialects.dnn.compute import (
    COMPUTE_OPS,
    BatchNormOp,
    BinaryOp,
    Conv2DOp,
    CumSumOp,
    Deconv2DOp,
    EltwiseOp,
    InnerProductOp,
    LayerNormOp,
    LogSoftmaxOp,
    LrnOp,
    MatmulOp,
    PoolOp,
    ReduceOp,
    SoftmaxOp,
    SumOp,
)
from dnnc.dialects.dnn.data import (
    DATA_OPS,
    CastOp,
    ConcatOp,
    ConstantOp,
    GatherElementsOp,
    GatherNDOp,
    GatherOp,
    KvAppendOp,
    ReorderOp,
    ReshapeOp,
    ResizeOp,
    SliceOp,
    TopKOp,
    TransposeOp,
    WeightOp,
    is_view,
)
from dnnc.dialects.dnn.deferred import DeferredOp
from dnnc.dialects.dnn.logic import (
    LOGIC_OPS,
    CompareOp,
    ExpandOp,
    LogicalOp,
    WhereOp,
)
from dnnc.dialects.dnn.quant import (
    QUANT_OPS,
    DequantizeOp,
    DynamicQuantizeOp,
    QConv2DOp,
    QMatmulOp,
    QuantizeOp,
)

DNN = Dialect(
    "dnn",
    [*COMPUTE_OPS, *ATTENTION_OPS, *DATA_OPS, *LOGIC_OPS, *QUANT_OPS, DeferredOp],
    list(ATTRIBUTES),
)
"""The dialect as xDSL registers it."""

__all__ = [
    "DNN",
    "BatchNormOp",
    "BinaryAlgAttr",
    "BinaryOp",
    "BinaryPostOpAttr",
    "CastOp",
    "CompareOp",
    "ConcatOp",
    "ConstantOp",
    "Conv2DOp",
    "CumSumOp",
    "DataTypeAttr",
    "Deconv2DOp",
    "DeferredOp",
    "DequantizeOp",
    "DnnOp",
    "DynamicQuantizeOp",
    "EltwiseAlgAttr",
    "EltwiseOp",
    "EltwisePostOpAttr",
    "ExpandOp",
    "GatherElementsOp",
    "GatherNDOp",
    "GatherOp",
    "InnerProductOp",
    "KernelAttr",
    "KernelLibrary",
    "KernelLibraryAttr",
    "KvAppendOp",
    "LayerNormOp",
    "LayoutAttr",
    "LogSoftmaxOp",
    "LogicalOp",
    "LrnKindAttr",
    "LrnOp",
    "MatmulOp",
    "PoolKindAttr",
    "PoolOp",
    "PostOpAnchor",
    "PostOpAttr",
    "QConv2DOp",
    "QMatmulOp",
    "QuantizeOp",
    "ReduceKindAttr",
    "ReduceOp",
    "ReorderOp",
    "ReshapeOp",
    "ResizeOp",
    "SdpaOp",
    "SliceOp",
    "SoftmaxOp",
    "SumOp",
    "SumPostOpAttr",
    "TopKOp",
    "TransposeOp",
    "WeightOp",
    "WhereOp",
    "is_view",
    "layout_of",
    "post_op_attr",
    "shape_of",
]
