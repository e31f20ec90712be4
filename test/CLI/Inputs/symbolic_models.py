"""ONNX models for dnnc-import-symbolic.mlir: ``python symbolic_models.py <name> <out.onnx>``.

reshape_chain  x[batch, seq, 8] reshaped to [batch, seq, 2, 4] through Shape -> Gather ->
               Unsqueeze -> Concat -> Reshape, as PyTorch exports ``x.view(b, s, 2, 4)``.
range          ids[batch, seq] and past[batch, past_len, 4]: position ids
               Range(past_len, past_len + seq) from Shape, gathered from a position table.
data_target    x[batch, 8] reshaped to a target read from the *values* of an int64 input.
broadcast      x[batch, seq, 8] + y[batch, seq, 8] (each dimension its own symbol), then
               reshaped to [(batch + seq) - seq, seq * 8] computed from Shape.
"""

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def _ints(name: str, value: object) -> onnx.TensorProto:
    return numpy_helper.from_array(np.array(value, np.int64), name)


def reshape_chain() -> onnx.GraphProto:
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("Gather", ["shape", "zero"], ["batch"], axis=0),
        helper.make_node("Gather", ["shape", "one"], ["seq"], axis=0),
        helper.make_node("Unsqueeze", ["batch", "axis0"], ["batch1"]),
        helper.make_node("Unsqueeze", ["seq", "axis0"], ["seq1"]),
        helper.make_node("Concat", ["batch1", "seq1", "heads"], ["target"], axis=0),
        helper.make_node("Reshape", ["x", "target"], ["y"]),
    ]
    constants = [_ints("zero", 0), _ints("one", 1), _ints("axis0", [0]), _ints("heads", [2, 4])]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "seq", 2, 4])
    return helper.make_graph(nodes, "reshape_chain", [x], [y], constants)


def range_positions() -> onnx.GraphProto:
    nodes = [
        helper.make_node("Shape", ["ids"], ["ids_shape"]),
        helper.make_node("Gather", ["ids_shape", "one"], ["seq"], axis=0),
        helper.make_node("Shape", ["past"], ["past_shape"]),
        helper.make_node("Gather", ["past_shape", "one"], ["past_len"], axis=0),
        helper.make_node("Add", ["past_len", "seq"], ["end"]),
        helper.make_node("Range", ["past_len", "end", "one"], ["positions"]),
        helper.make_node("Gather", ["table", "positions"], ["y"], axis=0),
    ]
    table = numpy_helper.from_array(np.arange(256, dtype=np.float32).reshape(64, 4), "table")
    inputs = [
        helper.make_tensor_value_info("ids", TensorProto.INT64, ["batch", "seq"]),
        helper.make_tensor_value_info("past", TensorProto.FLOAT, ["batch", "past_len", 4]),
    ]
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["seq", 4])
    return helper.make_graph(nodes, "range_positions", inputs, [y], [_ints("one", 1), table])


def data_target() -> onnx.GraphProto:
    nodes = [helper.make_node("Reshape", ["x", "target"], ["y"])]
    inputs = [
        helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 8]),
        helper.make_tensor_value_info("target", TensorProto.INT64, [3]),
    ]
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    return helper.make_graph(nodes, "data_target", inputs, [y])


def broadcast() -> onnx.GraphProto:
    nodes = [
        helper.make_node("Add", ["x", "y"], ["sum"]),
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("Gather", ["shape", "zero"], ["batch"], axis=0),
        helper.make_node("Gather", ["shape", "one"], ["seq"], axis=0),
        helper.make_node("Add", ["batch", "seq"], ["both"]),
        helper.make_node("Sub", ["both", "seq"], ["rows"]),
        helper.make_node("Mul", ["seq", "eight"], ["columns"]),
        helper.make_node("Unsqueeze", ["rows", "axis0"], ["rows1"]),
        helper.make_node("Unsqueeze", ["columns", "axis0"], ["columns1"]),
        helper.make_node("Concat", ["rows1", "columns1"], ["target"], axis=0),
        helper.make_node("Reshape", ["sum", "target"], ["z"]),
    ]
    constants = [_ints("zero", 0), _ints("one", 1), _ints("eight", 8), _ints("axis0", [0])]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "seq", 8])
    z = helper.make_tensor_value_info("z", TensorProto.FLOAT, ["batch", None])
    return helper.make_graph(nodes, "broadcast", [x, y], [z], constants)


MODELS = {
    "reshape_chain": reshape_chain,
    "range": range_positions,
    "data_target": data_target,
    "broadcast": broadcast,
}

if __name__ == "__main__":
    graph = MODELS[sys.argv[1]]()
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.save(model, sys.argv[2])
