"""Every op that dnn-optimize (f32 and bf16) and the lowering leave has the source location
of the op it came from, where the input had locations: an error or a profile line then names
a line of the user's file, or the ONNX node, never ``<unknown>``. A pass that builds an op without copying a
location fails here (dnn-canonicalize's and dnn-scale-weights' once did: ViT-B/16 had 120
ops without one)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

import dnnc
from dnnc.api import load_module, make_context, parse_pipeline, run_passes
from dnnc.core.diagnostics import DnncError, NameLocation, op_location
from dnnc_testing.graphs import (
    bert_layer,
    dense_block,
    inverted_residuals,
    residual_blocks,
    write,
)

CASES = {
    "residual_blocks": lambda: residual_blocks(2, (1, 16, 8, 8)),
    "inverted_residuals": lambda: inverted_residuals(2, (1, 16, 8, 8)),
    "bert_layer": lambda: bert_layer(16, 64),
    "dense_block": lambda: dense_block(2, (1, 8, 8, 8), 4),
}


@pytest.mark.parametrize("precision", ["f32", "bf16"])
@pytest.mark.parametrize("name", CASES)
def test_every_op_keeps_a_source_location(tmp_path: Path, name: str, precision: str) -> None:
    module, _ = load_module(write(CASES[name](), tmp_path))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # bf16 where the CPU has none: stays f32, says so
        pipeline = f"dnn-optimize{{precision={precision}}},dnn-to-onednn"
        run_passes(make_context(), module, parse_pipeline(pipeline))
    unknown = [
        op.name
        for op in module.walk()
        if not isinstance(op, ModuleOp | func.FuncOp) and op_location(op) is None
    ]
    assert not unknown


NODES = ("stem:0", "act", "pool", "fc/Gemm")
"""The ONNX model's node names (a colon as in TensorFlow exports)."""


def _onnx_model(path: Path) -> Path:
    rng = np.random.default_rng(0)
    weights = {
        "w": rng.standard_normal((8, 3, 3, 3)).astype(np.float32),
        "b": rng.standard_normal(8).astype(np.float32),
        "fc_w": rng.standard_normal((8, 4)).astype(np.float32),
    }
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], name=NODES[0], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"], name=NODES[1]),
        helper.make_node("GlobalAveragePool", ["r"], ["p"], name=NODES[2]),
        helper.make_node("Flatten", ["p"], ["f"]),  # unnamed: located by its index
        helper.make_node("Gemm", ["f", "fc_w"], ["y"], name=NODES[3]),
        helper.make_node("Shape", ["x"], ["s"], name="shape"),  # a constant output
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1, 3, 8, 8])],
        [
            helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [1, 4]),
            helper.make_tensor_value_info("s", onnx.TensorProto.INT64, [4]),
        ],
        [numpy_helper.from_array(array, name) for name, array in weights.items()],
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


def test_onnx_ops_are_located_at_their_nodes(tmp_path: Path) -> None:
    """An op imported from ONNX is at its node's name (``loc("stem:0")``; a constant output
    and the return at the graph's) through the passes, the lowering, the profile and a saved
    model; an error names the node."""
    path = _onnx_model(tmp_path / "m.onnx")
    names = {*NODES, "#3 (unnamed)", "g"}
    module = dnnc.import_onnx(path)
    located = {
        op.name: op_location(op)
        for op in module.walk()
        if not isinstance(op, ModuleOp | func.FuncOp)
    }
    assert all(isinstance(at, NameLocation) and at.file in names for at in located.values())
    assert located["dnn.conv2d"] == NameLocation("stem:0", 0, 0)
    run_passes(make_context(), module, parse_pipeline("dnn-optimize,dnn-to-onednn"))
    assert all(
        isinstance(op_location(op), NameLocation)
        for op in module.walk()
        if not isinstance(op, ModuleOp | func.FuncOp)
    )
    x = np.ones((1, 3, 8, 8), np.float32)
    compiled = dnnc.compile(path, save_to=tmp_path / "saved")
    for executable in (compiled, dnnc.load(tmp_path / "saved")):
        steps = executable.profile([x], repeats=1)
        assert {json.loads(t.step.location) for t in steps} <= names
        assert json.loads(steps[0].step.location) == "stem:0"
    error = DnncError("'dnn.conv2d' op cannot", NameLocation("stem:0", 0, 0))
    assert str(error) == "\"stem:0\": error: 'dnn.conv2d' op cannot"
