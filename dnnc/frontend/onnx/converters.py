"""The one table of ONNX op type -> converter function (see ``importer.Converter``), and the
newest version of each op the converter implements."""

from __future__ import annotations

import onnx

from dnnc.core.diagnostics import ModelError
from dnnc.frontend.onnx import einsum, elementwise, logic, movement, nn, quant, tensor
from dnnc.frontend.onnx.graph import Graph
from dnnc.frontend.onnx.importer import Converter

CONVERTERS: dict[str, Converter] = {
    **{op_type: elementwise.convert_unary for op_type in elementwise.UNARY},
    **{op_type: elementwise.convert_binary for op_type in elementwise.BINARY},
    **{op_type: tensor.convert_reduce for op_type in tensor.REDUCE},
    **{op_type: logic.convert_compare for op_type in logic.COMPARE},
    **{op_type: logic.convert_logical for op_type in logic.LOGICAL},
    "Not": logic.convert_not,
    "IsNaN": logic.convert_is_nan,
    "IsInf": logic.convert_is_inf,
    "Where": logic.convert_where,
    "Expand": logic.convert_expand,
    "Mean": elementwise.convert_mean,
    "LRN": nn.convert_lrn,
    "Clip": elementwise.convert_clip,
    "Pow": elementwise.convert_pow,
    "Cast": elementwise.convert_cast,
    "CastLike": elementwise.convert_cast_like,
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
    "Gather": tensor.convert_gather,
    "GatherElements": tensor.convert_gather,
    "GatherND": tensor.convert_gather_nd,
    "Slice": tensor.convert_slice,
    "Shape": tensor.convert_shape,
    "Size": tensor.convert_size,
    "Split": movement.convert_split,
    "Tile": movement.convert_tile,
    "Pad": movement.convert_pad,
    "DepthToSpace": movement.convert_depth_to_space,
    "SpaceToDepth": movement.convert_space_to_depth,
    "ArgMax": movement.convert_arg_extreme,
    "ArgMin": movement.convert_arg_extreme,
    "TopK": movement.convert_top_k,
    "CumSum": tensor.convert_cumsum,
    "InstanceNormalization": nn.convert_instance_norm,
    "GroupNormalization": nn.convert_group_norm,
    "PRelu": nn.convert_prelu,
    "Resize": movement.convert_resize,
    "ConvTranspose": nn.convert_conv_transpose,
    "Einsum": einsum.convert_einsum,
    "QuantizeLinear": quant.convert_quantize_linear,
    "DequantizeLinear": quant.convert_dequantize_linear,
    "DynamicQuantizeLinear": quant.convert_dynamic_quantize_linear,
    "QLinearConv": quant.convert_qlinear_conv,
    "QLinearMatMul": quant.convert_qlinear_matmul,
    "ConvInteger": quant.convert_conv_integer,
    "MatMulInteger": quant.convert_matmul_integer,
}
"""Every ONNX op type (default domain) the importer converts at run time; ``Constant`` and
any node with only constant inputs are folded instead (``Importer.fold``)."""

NEWEST_VERSIONS: dict[str, int] = {
    "QuantizeLinear": 28,
    "DequantizeLinear": 28,
    "DynamicQuantizeLinear": 11,
    "QLinearConv": 10,
    "QLinearMatMul": 21,
    "ConvInteger": 10,
    "MatMulInteger": 10,
    "Abs": 13,
    "Size": 25,
    "Einsum": 28,
    "ConvTranspose": 22,
    "Resize": 19,
    "ReduceSumSquare": 18,
    "ArgMax": 13,
    "ArgMin": 13,
    "DepthToSpace": 28,
    "Erf": 13,
    "Sin": 22,
    "Cos": 22,
    "GroupNormalization": 21,
    "InstanceNormalization": 22,
    "Pad": 25,
    "PRelu": 16,
    "Reciprocal": 13,
    "SpaceToDepth": 28,
    "Split": 18,
    "Tile": 13,
    "TopK": 24,
    "CumSum": 14,
    "Add": 14,
    "AveragePool": 22,
    "BatchNormalization": 15,
    "Cast": 28,
    "CastLike": 25,
    "Clip": 13,
    "Concat": 13,
    "Conv": 22,
    "Div": 14,
    "Dropout": 22,
    "Elu": 22,
    "Exp": 13,
    "Flatten": 25,
    "Gelu": 20,
    "Gemm": 13,
    "GlobalAveragePool": 22,
    "GlobalMaxPool": 22,
    "HardSigmoid": 22,
    "HardSwish": 22,
    "Identity": 25,
    "LayerNormalization": 17,
    "LeakyRelu": 16,
    "Log": 13,
    "LogSoftmax": 13,
    "MatMul": 13,
    "Max": 13,
    "MaxPool": 22,
    "Min": 13,
    "Mish": 22,
    "Mul": 14,
    "Neg": 13,
    "Pow": 15,
    "ReduceMax": 20,
    "ReduceMean": 18,
    "ReduceMin": 20,
    "ReduceSum": 13,
    "Relu": 14,
    "Reshape": 25,
    "Sum": 13,
    "Mean": 13,
    "LRN": 13,
    "Gather": 13,
    "GatherElements": 13,
    "GatherND": 13,
    "Equal": 19,
    "Less": 13,
    "LessOrEqual": 16,
    "Greater": 13,
    "GreaterOrEqual": 16,
    "And": 7,
    "Or": 7,
    "Xor": 7,
    "Not": 1,
    "Where": 16,
    "Expand": 13,
    "IsNaN": 20,
    "IsInf": 20,
    "Shape": 25,
    "Sigmoid": 13,
    "Slice": 13,
    "Softmax": 13,
    "Softplus": 22,
    "Softsign": 22,
    "Sqrt": 13,
    "Squeeze": 25,
    "Sub": 14,
    "Swish": 24,
    "Tanh": 13,
    "Transpose": 25,
    "Unsqueeze": 25,
}
"""Per op type, the newest ONNX version (schema ``since_version``) whose semantics its
converter implements. Every version from opset 22 on up to 28 of these ops only adds element
types (bf16, 4-bit and 8-bit floats and ints) or attributes of such types (Cast's
``round_mode`` for float8e8m0; QuantizeLinear's ``precision`` and DequantizeLinear's
``output_dtype``, accepted at float32 only), which the converters refuse as types; a model
whose node has a newer version is refused naming it (check_versions). A test ties the table
to CONVERTERS and to the installed onnx's schemas."""


def check_versions(graph: Graph) -> None:
    """ModelError for the first node whose op version is newer than NEWEST_VERSIONS says."""
    versions: dict[str, int] = {}  # one schema look-up per op type, not per node
    for node in graph.nodes:
        newest = NEWEST_VERSIONS.get(node.op_type)
        if node.domain not in ("", "ai.onnx") or newest is None:
            continue  # folded, or refused by the importer with the list of supported ops
        version = versions.get(node.op_type)
        if version is None:
            schema = onnx.defs.get_schema(node.op_type, graph.opset)
            version = versions[node.op_type] = schema.since_version
        if version > newest:
            raise ModelError(
                f"ONNX {node.op_type} (node '{node.label}', opset {graph.opset}) is "
                f"{node.op_type}-{version}, whose semantics dnnc does not implement (it "
                f"converts {node.op_type} up to version {newest}): export the model at an "
                f"opset where {node.op_type} is version {newest} or older"
            )
