"""The one table of ONNX op type -> converter function (see ``importer.Converter``)."""

from __future__ import annotations

from dnnc.frontend.onnx import elementwise, nn, tensor
from dnnc.frontend.onnx.importer import Converter

CONVERTERS: dict[str, Converter] = {
    **{op_type: elementwise.convert_unary for op_type in elementwise.UNARY},
    **{op_type: elementwise.convert_binary for op_type in elementwise.BINARY},
    **{op_type: tensor.convert_reduce for op_type in tensor.REDUCE},
    "Clip": elementwise.convert_clip,
    "Pow": elementwise.convert_pow,
    "Cast": elementwise.convert_cast,
    "Identity": elementwise.convert_identity,
    "Dropout": elementwise.convert_identity,
    "Conv": nn.convert_conv,
    "MaxPool": nn.convert_pool,
    "AveragePool": nn.convert_pool,
    "GlobalAveragePool": nn.convert_global_pool,
    "GlobalMaxPool": nn.convert_global_pool,
    "BatchNormalization": nn.convert_batch_norm,
    "LayerNormalization": nn.convert_layer_norm,
    "Softmax": nn.convert_softmax,
    "LogSoftmax": nn.convert_softmax,
    "MatMul": nn.convert_matmul,
    "Gemm": nn.convert_gemm,
    "Flatten": tensor.convert_flatten,
    "Reshape": tensor.convert_reshape,
    "Squeeze": tensor.convert_squeeze,
    "Unsqueeze": tensor.convert_unsqueeze,
    "Transpose": tensor.convert_transpose,
    "Concat": tensor.convert_concat,
    "Slice": tensor.convert_slice,
    "Shape": tensor.convert_shape,
}
"""Every ONNX op type (default domain) the importer converts at run time; ``Constant`` and
any node with only constant inputs are folded instead (``Importer.fold``)."""
