"""ONNX models with value inputs: graph inputs whose *values* an operand dnn needs at compile
time is computed from (docs/dialect.md, "Value arguments"), each with value sets to run.

``python -m dnnc_testing.value_models <prefix>`` writes each as ``<prefix>.<name>.onnx``
(test/CLI/dnnc-import-values.mlir imports them); test/python/dynamic/
test_value_specialization.py runs each through both doors against ONNX Runtime.

reshape_relu    x[2, 6] reshaped to the int64 input ``shape``, then Relu (the Relu waits too:
                its input's shape is known only with the values).
top_k           the K largest of x[3, 5] along axis 1, K an input: two results.
resize_scales   x[1, 1, 2, 3] resized (nearest) by the float input ``scales``; Resize's roi
                is left out (an absent input between two given ones).
shape_of_reshape  y = Reshape(x, shape), then w reshaped to Shape(y): the second Reshape waits
                for ``shape`` only, through Shape, which reads no values of y.
cumsum_axis     CumSum of x[2, 3] along the 0-d int32 input ``axis``, then Relu: CumSum's
                result keeps x's shape, so the Relu converts at import.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import onnx
from onnx import TensorProto, helper


@dataclass(frozen=True)
class ValueModel:
    """A model, and feeds for a few runs: each a dict of every graph input."""

    model: onnx.ModelProto
    feeds: list[dict[str, np.ndarray]]


def _model(
    name: str,
    nodes: list[onnx.NodeProto],
    inputs: dict[str, tuple[int, list[int]]],
    outputs: dict[str, int],
) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes,
        name,
        [helper.make_tensor_value_info(n, t, shape) for n, (t, shape) in inputs.items()],
        [helper.make_tensor_value_info(n, t, None) for n, t in outputs.items()],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def _x(shape: tuple[int, ...]) -> np.ndarray:
    return np.random.default_rng(0).standard_normal(shape).astype(np.float32)


def reshape_relu() -> ValueModel:
    model = _model(
        "reshape_relu",
        [
            helper.make_node("Reshape", ["x", "shape"], ["r"]),
            helper.make_node("Relu", ["r"], ["y"]),
        ],
        {"x": (TensorProto.FLOAT, [2, 6]), "shape": (TensorProto.INT64, [2])},
        {"y": TensorProto.FLOAT},
    )
    shapes = ([3, 4], [4, 3], [-1, 2], [3, 4])
    return ValueModel(model, [{"x": _x((2, 6)), "shape": np.array(s, np.int64)} for s in shapes])


def top_k() -> ValueModel:
    model = _model(
        "top_k",
        [helper.make_node("TopK", ["x", "k"], ["values", "indices"], axis=1)],
        {"x": (TensorProto.FLOAT, [3, 5]), "k": (TensorProto.INT64, [1])},
        {"values": TensorProto.FLOAT, "indices": TensorProto.INT64},
    )
    return ValueModel(model, [{"x": _x((3, 5)), "k": np.array([k], np.int64)} for k in (2, 4)])


def resize_scales() -> ValueModel:
    model = _model(
        "resize_scales",
        [helper.make_node("Resize", ["x", "", "scales"], ["y"], mode="nearest")],
        {"x": (TensorProto.FLOAT, [1, 1, 2, 3]), "scales": (TensorProto.FLOAT, [4])},
        {"y": TensorProto.FLOAT},
    )
    scales = ([1, 1, 2, 2], [1, 1, 3, 1])
    return ValueModel(
        model, [{"x": _x((1, 1, 2, 3)), "scales": np.array(s, np.float32)} for s in scales]
    )


def shape_of_reshape() -> ValueModel:
    model = _model(
        "shape_of_reshape",
        [
            helper.make_node("Reshape", ["x", "shape"], ["y"]),
            helper.make_node("Shape", ["y"], ["s"]),
            helper.make_node("Reshape", ["w", "s"], ["z"]),
        ],
        {
            "x": (TensorProto.FLOAT, [2, 6]),
            "shape": (TensorProto.INT64, [2]),
            "w": (TensorProto.FLOAT, [12]),
        },
        {"y": TensorProto.FLOAT, "z": TensorProto.FLOAT},
    )
    return ValueModel(
        model,
        [
            {"x": _x((2, 6)), "shape": np.array(s, np.int64), "w": _x((12,))}
            for s in ([6, 2], [1, 12])
        ],
    )


def cumsum_axis() -> ValueModel:
    model = _model(
        "cumsum_axis",
        [
            helper.make_node("CumSum", ["x", "axis"], ["c"]),
            helper.make_node("Relu", ["c"], ["y"]),
        ],
        {"x": (TensorProto.FLOAT, [2, 3]), "axis": (TensorProto.INT32, [])},
        {"y": TensorProto.FLOAT},
    )
    return ValueModel(model, [{"x": _x((2, 3)), "axis": np.array(a, np.int32)} for a in (0, 1)])


MODELS: dict[str, Callable[[], ValueModel]] = {
    "reshape_relu": reshape_relu,
    "top_k": top_k,
    "resize_scales": resize_scales,
    "shape_of_reshape": shape_of_reshape,
    "cumsum_axis": cumsum_axis,
}


if __name__ == "__main__":
    for name, build in MODELS.items():
        onnx.save(build().model, f"{sys.argv[1]}.{name}.onnx")
