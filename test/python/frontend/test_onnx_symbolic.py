"""import_onnx(model, symbolic=True): a model whose shape arithmetic reads ? dimensions imported
once into IR that carries the expressions (dnnc/frontend/onnx/symbolic.py), then compiled as a
dnn module: the same numbers as ONNX Runtime at several lengths, without importing again."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import dnnc
from dnnc.core.diagnostics import DnncError, ModelError, RunTimeShapeError
from dnnc.driver.dynamic import DynamicExecutable
from dnnc.ir.text import make_context, parse_module, print_module, verify_module

ort = pytest.importorskip("onnxruntime")


def _ints(name: str, value: object) -> onnx.TensorProto:
    return numpy_helper.from_array(np.array(value, np.int64), name)


def _encoder_head() -> onnx.ModelProto:
    """x[batch, seq, 8] + table[Range(0, seq)], viewed as [batch, seq, 2, 4] by a target from
    Shape, then a transposed matmul with itself per head: a size (the target) and data (the
    positions) from the same dimensions, as transformer exports have them."""
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("Gather", ["shape", "zero"], ["batch"], axis=0),
        helper.make_node("Gather", ["shape", "one"], ["seq"], axis=0),
        helper.make_node("Range", ["zero", "seq", "one"], ["positions"]),
        helper.make_node("Gather", ["table", "positions"], ["embedded"], axis=0),
        helper.make_node("Add", ["x", "embedded"], ["summed"]),
        helper.make_node("Unsqueeze", ["batch", "axis0"], ["batch1"]),
        helper.make_node("Unsqueeze", ["seq", "axis0"], ["seq1"]),
        helper.make_node("Concat", ["batch1", "seq1", "heads"], ["target"], axis=0),
        helper.make_node("Reshape", ["summed", "target"], ["split"]),
        helper.make_node("Transpose", ["split"], ["by_head"], perm=[0, 2, 1, 3]),
        helper.make_node("Transpose", ["split"], ["by_head_t"], perm=[0, 2, 3, 1]),
        helper.make_node("MatMul", ["by_head", "by_head_t"], ["scores"]),
    ]
    table = np.random.default_rng(1).standard_normal((64, 8)).astype(np.float32)
    constants = [
        _ints("zero", 0),
        _ints("one", 1),
        _ints("axis0", [0]),
        _ints("heads", [2, 4]),
        numpy_helper.from_array(table, "table"),
    ]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", 8])
    y = helper.make_tensor_value_info("scores", TensorProto.FLOAT, ["batch", 2, "seq", "seq"])
    graph = helper.make_graph(nodes, "encoder_head", [x], [y], constants)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


@pytest.fixture(scope="module")
def model() -> onnx.ModelProto:
    return _encoder_head()


def test_symbolic_import_round_trips(model: onnx.ModelProto) -> None:
    module = dnnc.import_onnx(model, symbolic=True)
    text = print_module(module)
    assert 'dnn.dims = ["s0", "s1", "2", "4"]' in text
    assert 'dnn.shape_function = "range(0, s1, 1)"' in text
    parsed = parse_module(text, "<symbolic>", make_context())
    verify_module(parsed)
    assert print_module(parsed) == text


def test_symbolic_module_agrees_with_onnxruntime(model: onnx.ModelProto) -> None:
    """One import, one compile; three lengths (and two batches) against ONNX Runtime."""
    executable = dnnc.compile(dnnc.import_onnx(model, symbolic=True))
    assert isinstance(executable, DynamicExecutable)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(0)
    for batch, seq in ((2, 5), (2, 12), (3, 31)):
        x = rng.standard_normal((batch, seq, 8)).astype(np.float32)
        (want,) = session.run(None, {"x": x})
        (got,) = executable.run({"x": x})
        assert got.shape == (batch, 2, seq, seq)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    assert executable.stats().traces == 1  # one pipeline run serves every length


def test_twenty_lengths_run_the_pipeline_once(model: onnx.ModelProto) -> None:
    """One import, then every new length only instantiates the one trace's template (from 3:
    a trace of batch 2 and length 2 would take the two as equal, a guard)."""
    executable = dnnc.compile(dnnc.import_onnx(model, symbolic=True))
    assert isinstance(executable, DynamicExecutable)
    for length in range(3, 23):
        (got,) = executable.run({"x": np.ones((2, length, 8), np.float32)})
        assert got.shape == (2, 2, length, length)
    stats = executable.stats()
    assert (stats.traces, stats.misses) == (1, 20)


def test_import_onnx_writes_symbols_when_the_plain_import_cannot(
    model: onnx.ModelProto,
) -> None:
    """import_onnx's default: the plain import needs the sizes of ? dimensions (a
    RunTimeShapeError), so the module is the symbolic one and compile(import_onnx(m)) runs."""
    with pytest.raises(RunTimeShapeError):
        dnnc.import_onnx(model, symbolic=False)
    module = dnnc.import_onnx(model)
    assert print_module(module) == print_module(dnnc.import_onnx(model, symbolic=True))
    x = np.random.default_rng(2).standard_normal((1, 7, 8)).astype(np.float32)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    np.testing.assert_allclose(
        dnnc.compile(module).run({"x": x})[0], session.run(None, {"x": x})[0], atol=1e-5
    )


def test_symbolic_guard_refuses_breaking_shapes() -> None:
    """A call whose sizes break a condition of the import is refused, naming it."""
    executable = dnnc.compile(
        "func.func @f(%x: tensor<?x8xf32>) -> tensor<?x2x4xf32> attributes {dnn.symbols = "
        '[array<i64: 0, 0>], dnn.guards = ["s0 <= 4"]} {\n'
        '  %y = dnn.reshape %x {dnn.dims = ["s0", "2", "4"]} : (tensor<?x8xf32>) -> '
        "tensor<?x2x4xf32>\n"
        "  func.return %y : tensor<?x2x4xf32>\n}"
    )
    x = np.arange(24, dtype=np.float32).reshape(3, 8)
    np.testing.assert_array_equal(executable.run([x])[0], x.reshape(3, 2, 4))
    with pytest.raises(DnncError, match=r"input shapes 5x8 break 's0 <= 4'"):
        executable.run([np.zeros((5, 8), np.float32)])


def test_symbolic_import_refuses_a_target_from_data() -> None:
    """A reshape target read from an input's values has no expression over the dimensions."""
    graph = helper.make_graph(
        [helper.make_node("Reshape", ["x", "target"], ["y"])],
        "data_target",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 8]),
            helper.make_tensor_value_info("target", TensorProto.INT64, [3]),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    with pytest.raises(ModelError, match=r"input 1 \(shape\) must be a constant"):
        dnnc.import_onnx(model, symbolic=True)
    with pytest.raises(ModelError, match=r"input 1 \(shape\) must be a constant"):
        dnnc.import_onnx(model)  # not a size of a ? dimension: no symbolic import either


def test_a_pinned_size_is_a_refusal_of_the_symbolic_import() -> None:
    """Tile's repeats from Shape: the importer pins the batch to its stand-in value, which no
    expression in the IR can say; the two imports with other stand-ins differ, and the error
    says so with the pin."""
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("Slice", ["shape", "zero", "one"], ["batch"]),
        helper.make_node("Concat", ["batch", "one"], ["repeats"], axis=0),
        helper.make_node("Tile", ["row", "repeats"], ["tiled"]),
        helper.make_node("Add", ["x", "tiled"], ["y"]),
    ]
    constants = [
        _ints("zero", [0]),
        _ints("one", [1]),
        numpy_helper.from_array(np.arange(4, dtype=np.float32).reshape(1, 4), "row"),
    ]
    graph = helper.make_graph(
        nodes,
        "tile",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4])],
        constants,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    with pytest.raises(ModelError, match=r"the import pinned it, s0 == 3; two imports"):
        dnnc.import_onnx(model, symbolic=True)
