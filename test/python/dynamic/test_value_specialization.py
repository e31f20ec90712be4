"""ONNX graph inputs whose values shape the graph (a Reshape's target, Tile's repeats) are
specialized on: dnnc.compile returns a ShapeSpecializedExecutable that compiles one plan per
value set and reuses it."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

import dnnc
from dnnc.core.diagnostics import RunTimeShapeError, RunTimeValueError
from dnnc.driver.onnx_shapes import ShapeSpecializedExecutable, value_inputs
from dnnc.frontend.onnx import import_onnx


def reshape_then_tile() -> object:
    nodes = [
        helper.make_node("Reshape", ["x", "shape"], ["r"]),
        helper.make_node("Relu", ["r"], ["y"]),
        helper.make_node("Tile", ["y", "repeats"], ["z"]),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 6]),
            helper.make_tensor_value_info("shape", TensorProto.INT64, [2]),
            helper.make_tensor_value_info("repeats", TensorProto.INT64, [2]),
        ],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, None)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_value_inputs_are_those_that_reach_a_constant_operand() -> None:
    assert value_inputs(reshape_then_tile()) == {"shape", "repeats"}


def test_a_plan_per_value_set() -> None:
    executable = dnnc.compile(reshape_then_tile())
    assert isinstance(executable, ShapeSpecializedExecutable)
    x = np.arange(-6, 6, dtype=np.float32).reshape(2, 6)
    for shape, repeats in (((3, 4), (1, 2)), ((4, 3), (2, 1)), ((3, 4), (1, 2))):
        feeds = {"x": x, "shape": np.array(shape), "repeats": np.array(repeats)}
        (z,) = executable.run(feeds)
        np.testing.assert_array_equal(z, np.tile(np.maximum(x.reshape(shape), 0), repeats))
    assert executable.compiles == 2  # the third run reused the first value set's plan


def test_values_reaching_a_shape_through_other_ops_are_specialized_too() -> None:
    """A float input cast to the shape is specialized on; a value set that makes no valid
    shape is a DnncError naming the reshape, not a crash."""
    nodes = [
        helper.make_node("Cast", ["f"], ["shape"], to=TensorProto.INT64),
        helper.make_node("Reshape", ["x", "shape"], ["y"]),
    ]
    graph = helper.make_graph(
        [helper.make_node("Relu", ["g"], ["f"]), *nodes],
        "g",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 6]),
            helper.make_tensor_value_info("g", TensorProto.FLOAT, [2]),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    executable = dnnc.compile(model)
    (y,) = executable.run({"x": np.ones((2, 6), np.float32), "g": np.array([3.0, 4.0], np.float32)})
    assert y.shape == (3, 4)
    with pytest.raises(dnnc.DnncError):
        executable.run({"x": np.ones((2, 6), np.float32), "g": np.array([5.0, 5.0], np.float32)})


def test_an_input_read_only_by_shape_is_not_a_value_input() -> None:
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Reshape", ["x", "s"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    assert value_inputs(helper.make_model(graph)) == frozenset()


def test_every_executable_kind_has_one_interface() -> None:
    """Static, dynamic and per-value executables: inputs, outputs, run, profile, memory report."""
    static = dnnc.compile(
        "func.func @f(%x: tensor<2x6xf32>) -> tensor<2x6xf32> {\n"
        "  %y = dnn.eltwise relu %x : tensor<2x6xf32>\n  func.return %y : tensor<2x6xf32>\n}"
    )
    dynamic = dnnc.compile(
        "func.func @f(%x: tensor<?x6xf32>) -> tensor<?x6xf32> {\n"
        "  %y = dnn.eltwise relu %x : tensor<?x6xf32>\n  func.return %y : tensor<?x6xf32>\n}"
    )
    per_value = dnnc.compile(reshape_then_tile())
    x = np.arange(-6, 6, dtype=np.float32).reshape(2, 6)
    feeds = {
        static: {"x": x},
        dynamic: {"x": x},
        per_value: {"x": x, "shape": np.array([3, 4]), "repeats": np.array([1, 1])},
    }
    for executable, inputs in feeds.items():
        assert [s.name for s in executable.inputs] == list(inputs)
        assert len(executable.outputs) == 1
        (result,) = executable.run(inputs)
        assert (result >= 0).all() and result.size == 12
        steps = executable.profile(inputs, repeats=2)
        assert any(t.step.kind == "eltwise" for t in steps) and all(t.seconds > 0 for t in steps)
        report = executable.memory_report()
        assert report.arena_bytes >= report.lower_bound_bytes >= 0
        assert report.planned_bytes >= report.lower_bound_bytes


def test_the_fallback_is_chosen_by_the_error_type() -> None:
    """The import says by its exception's class, not its wording, that a value it needs is
    computed at run time: RunTimeValueError for an operand computed from a graph input (the
    per-value fallback), RunTimeShapeError for a shape with `?` dims (per-shape)."""
    with pytest.raises(RunTimeValueError) as operand:
        import_onnx(reshape_then_tile())
    assert not isinstance(operand.value, RunTimeShapeError)
    nodes = [helper.make_node("Shape", ["x"], ["s"])]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])],
        [helper.make_tensor_value_info("s", TensorProto.INT64, [2])],
    )
    with pytest.raises(
        RunTimeShapeError
    ):  # the plain import (by default, the symbolic one follows)
        import_onnx(
            helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), symbolic=False
        )
