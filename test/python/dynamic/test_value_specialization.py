"""ONNX graph inputs whose values shape the graph (a Reshape's target, Tile's repeats) are
specialized on: the import keeps the nodes that read them as dnn.deferred and marks them
dnn.value_arg, and dnnc.compile of the model or of its import returns a
ValueSpecializedExecutable that compiles one plan per value set and reuses it. A value that
comes from an input with ? dimensions is not deferred: dnnc.compile of the model then
imports it again per input shape and value (ShapeSpecializedExecutable)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute

import dnnc
from dnnc.core.diagnostics import RunTimeShapeError, RunTimeValueError
from dnnc.driver.onnx_shapes import ShapeSpecializedExecutable, value_inputs
from dnnc.driver.values import ValueSpecializedExecutable, specialize_values
from dnnc.frontend.onnx import import_onnx
from dnnc.frontend.onnx.deferred import convert_deferred
from dnnc.tools.run import run as run_cli
from dnnc_testing.value_models import MODELS, shape_of_reshape, top_k


def reshape_then_tile(shape_dims: tuple[int | str, ...] = (2,)) -> onnx.ModelProto:
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
            helper.make_tensor_value_info("shape", TensorProto.INT64, shape_dims),
            helper.make_tensor_value_info("repeats", TensorProto.INT64, [2]),
        ],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, None)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_value_inputs_are_those_that_reach_a_constant_operand() -> None:
    assert value_inputs(reshape_then_tile()) == {"shape", "repeats"}


@pytest.mark.parametrize("door", ["model", "import_onnx"])
def test_a_plan_per_value_set(door: str) -> None:
    model = reshape_then_tile()
    executable = dnnc.compile(model if door == "model" else import_onnx(model))
    assert isinstance(executable, ValueSpecializedExecutable)
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


def test_a_value_input_with_dynamic_dimensions_is_compiled_per_shape_and_value() -> None:
    """A value input of ? dimensions cannot become a constant of its type: the import
    refuses it (no dnn.deferred), and dnnc.compile of the model imports it again per input
    shape and value."""
    model = reshape_then_tile(shape_dims=("rank",))
    with pytest.raises(RunTimeValueError, match="input 1 \\(shape\\) must be a constant"):
        import_onnx(model)
    executable = dnnc.compile(model)
    assert isinstance(executable, ShapeSpecializedExecutable)
    x = np.arange(12, dtype=np.float32).reshape(2, 6)
    feeds = {"x": x, "shape": np.array([3, 4]), "repeats": np.array([1, 1])}
    np.testing.assert_array_equal(executable.run(feeds)[0], x.reshape(3, 4))


def test_the_fallback_is_chosen_by_the_error_type() -> None:
    """The import says by its exception's class, not its wording, that a value it needs is
    computed at run time: RunTimeValueError for an operand computed from a graph input it
    cannot defer (the per-value fallback), RunTimeShapeError for a shape with `?` dims
    (per-shape)."""
    with pytest.raises(RunTimeValueError) as operand:
        import_onnx(reshape_then_tile(shape_dims=("rank",)))
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


@pytest.mark.parametrize("name", list(MODELS))
def test_both_doors_agree_with_onnxruntime(name: str) -> None:
    """Each value model, through dnnc.compile(model) and dnnc.compile(import_onnx(model)):
    a ValueSpecializedExecutable whose every run agrees with ONNX Runtime, one compile per
    distinct value set."""
    made = MODELS[name]()
    session = ort.InferenceSession(
        made.model.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    for source in (made.model, import_onnx(made.model)):
        executable = dnnc.compile(source)
        assert isinstance(executable, ValueSpecializedExecutable)
        for feeds in made.feeds:
            got = executable.run(feeds)
            for have, want in zip(got, session.run(None, feeds), strict=True):
                np.testing.assert_allclose(have, want, rtol=1e-6)
        values = {
            tuple(feeds[n].tobytes() for n in feeds if n in value_inputs(made.model))
            for feeds in made.feeds
        }
        assert executable.compiles == len(values)


def test_a_specialization_is_the_import_with_the_values_as_initializers() -> None:
    """The values as constants, folded, every dnn.deferred converted: the ops and types of
    the import of the model whose value inputs are initializers."""
    made = shape_of_reshape()
    function = import_onnx(made.model).body.block.first_op
    assert isinstance(function, func.FuncOp)
    shape = np.array([6, 2], np.int64)
    specialized = specialize_values(function, [shape], convert_deferred)
    fixed = onnx.ModelProto()
    fixed.CopyFrom(made.model)
    del fixed.graph.input[1]
    fixed.graph.initializer.append(numpy_helper.from_array(shape, "shape"))
    expected = import_onnx(fixed)

    def ops(module: ModuleOp) -> list[tuple[str, tuple[Attribute, ...]]]:
        return [(op.name, tuple(r.type for r in op.results)) for op in module.walk()][1:]

    assert "dnn.deferred" not in str(specialized)
    assert ops(specialized) == ops(expected)
    assert "dnn.value_arg" not in str(specialized)


def test_a_value_no_conversion_takes_is_an_error_naming_the_node() -> None:
    """K beyond the axis: the converter's error at the TopK node, not a traceback."""
    made = top_k()
    executable = dnnc.compile(import_onnx(made.model))
    feeds = {**made.feeds[0], "k": np.array([9], np.int64)}
    with pytest.raises(dnnc.DnncError, match="TopK"):
        executable.run(feeds)


def test_a_node_that_cannot_wait_for_values_is_a_model_error_naming_it() -> None:
    """A Cast to float64 of a deferred Reshape's result: it must wait too, and float64 has no
    dnn type to give its result, so the import says so at the node (not a traceback)."""
    nodes = [
        helper.make_node("Reshape", ["x", "shape"], ["r"]),
        helper.make_node("Cast", ["r"], ["y"], to=TensorProto.DOUBLE, name="to_f64"),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 6]),
            helper.make_tensor_value_info("shape", TensorProto.INT64, [2]),
        ],
        [helper.make_tensor_value_info("y", TensorProto.DOUBLE, None)],
    )
    made = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    with pytest.raises(dnnc.DnncError, match=r"Cast \(node 'to_f64'.*cannot wait for them"):
        import_onnx(made)


def test_dnnc_run_checks_a_value_input_model_against_the_interpreter(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """dnnc-run --check: the plan of the given K, compared with the reference interpreter on
    the function specialized to that K (the deferred TopK has no reference kernel)."""
    path, k = tmp_path / "top_k.onnx", tmp_path / "k.npy"
    onnx.save(top_k().model, path)
    np.save(k, np.array([2], np.int64))
    assert run_cli([str(path), "--input", f"k={k}", "--check"]) == 0
    out = capsys.readouterr().out
    assert "values: float32[3, 2]" in out
    assert out.count(": ok") == 2


def test_a_node_waiting_for_values_is_refused_at_import_for_what_its_converter_refuses() -> None:
    """The converter runs first: a Resize whose scales are an input but whose antialias dnnc
    does not implement is refused by the import, as without value inputs, not when a value
    set first comes (the converter asked for the scales only after its attribute checks)."""
    node = helper.make_node("Resize", ["x", "", "scales"], ["y"], antialias=1, mode="linear")
    graph = helper.make_graph(
        [node],
        "g",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 2, 2]),
            helper.make_tensor_value_info("scales", TensorProto.FLOAT, [4]),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    made = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
    for door in (import_onnx, dnnc.compile):
        with pytest.raises(dnnc.DnncError, match="antialias 1 is not supported"):
            door(made)
