"""Helpers of the ONNX frontend tests: one-node models, and running them through dnnc and
ONNX Runtime side by side."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import onnx
import onnxruntime as ort
from onnx import helper, numpy_helper
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

import dnnc
from dnnc.frontend.onnx import import_onnx
from dnnc.reference.interpreter import interpret

RTOL = 1e-5
"""fp32 relative tolerance of every comparison with ONNX Runtime (atol the same, for zeros)."""

_ONNX_TYPES = {
    np.dtype(t): helper.np_dtype_to_tensor_dtype(np.dtype(t))
    for t in (np.float32, np.float16, np.int8, np.uint8, np.int32, np.int64, np.bool_)
}


def value_info(name: str, array_or_shape: np.ndarray | Sequence[int | str], dtype=np.float32):
    """A graph input/output description from an example array or a shape (str = symbolic)."""
    if isinstance(array_or_shape, np.ndarray):
        return helper.make_tensor_value_info(
            name, _ONNX_TYPES[array_or_shape.dtype], array_or_shape.shape
        )
    return helper.make_tensor_value_info(name, _ONNX_TYPES[np.dtype(dtype)], array_or_shape)


def model(
    nodes: Sequence[onnx.NodeProto],
    inputs: Mapping[str, np.ndarray],
    outputs: Sequence[str] = ("y",),
    *,
    initializers: Mapping[str, np.ndarray] | None = None,
    opset: int = 17,
) -> onnx.ModelProto:
    """A model of ``nodes`` with typed inputs, untyped outputs (shape inference fills them)."""
    graph = helper.make_graph(
        list(nodes),
        "test",
        [value_info(name, array) for name, array in inputs.items()],
        [helper.make_empty_tensor_value_info(name) for name in outputs],
        [numpy_helper.from_array(a, name) for name, a in (initializers or {}).items()],
    )
    made = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    made.ir_version = 8
    return made


def function(module: ModuleOp) -> func.FuncOp:
    """The module's one function."""
    op = module.body.block.first_op
    assert isinstance(op, func.FuncOp)
    return op


def op_names(module: ModuleOp) -> list[str]:
    """The names of the ops in the function body (func.return left out)."""
    return [op.name for op in function(module).body.block.ops][:-1]


def run_dnnc(module: ModuleOp, inputs: Mapping[str, np.ndarray]) -> list[np.ndarray]:
    """The module's results on ``inputs`` (positional in graph order)."""
    return interpret(function(module), list(inputs.values()))


def run_onnxruntime(made: onnx.ModelProto, inputs: Mapping[str, np.ndarray]) -> list[np.ndarray]:
    """ONNX Runtime's results (CPU provider, graph optimizations off: the plain semantics)."""
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(
        made.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    return session.run(None, dict(inputs))


def run_compiled(module: ModuleOp, inputs: Mapping[str, np.ndarray]) -> list[np.ndarray]:
    """The results of ``dnnc.compile(module)`` (default pipeline, oneDNN) on ``inputs``."""
    results = dnnc.compile(module).run(list(inputs.values()))
    assert isinstance(results, list)
    return results


def check(made: onnx.ModelProto, inputs: Mapping[str, np.ndarray]) -> ModuleOp:
    """Import ``made``; run it with the reference interpreter and compiled (dnn-optimize,
    oneDNN) and with ONNX Runtime; assert every result agrees within ``RTOL``; return the
    module for checks of what was emitted."""
    module = import_onnx(made)
    theirs = run_onnxruntime(made, inputs)
    for ours in (run_dnnc(module, inputs), run_compiled(module, inputs)):
        assert len(ours) == len(theirs)
        for got, want in zip(ours, theirs):
            assert got.shape == want.shape
            np.testing.assert_allclose(got, want, rtol=RTOL, atol=RTOL)
    return module
