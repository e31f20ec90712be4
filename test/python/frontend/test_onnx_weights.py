"""How the importer holds an ONNX model's weights: read from the file apart from the proto
(dnnc.frontend.onnx.wire), as arrays over those bytes, and into dnn.constant without another
copy."""

from __future__ import annotations

import gc
import tracemalloc
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper

import dnnc
import dnnc.frontend.onnx
from dnnc.core.diagnostics import ModelError, RunTimeShapeError
from dnnc.dialects.dnn import ConstantOp
from dnnc.driver.onnx_shapes import OnnxDynamicExecutable
from dnnc.frontend.onnx import CONVERTERS, convert, import_onnx
from dnnc.frontend.onnx.graph import DETACHED_BYTES, detach_weights, load_detached, load_graph
from dnnc.frontend.onnx.importer import Importer
from dnnc.frontend.onnx.wire import read_detached

RNG = np.random.default_rng(0)


def _matmul_model() -> tuple[onnx.ModelProto, np.ndarray, np.ndarray]:
    """y = x @ w + b with a large w (detached) and a small b (kept in the proto)."""
    w = RNG.standard_normal((64, 32)).astype(np.float32)
    b = RNG.standard_normal(32).astype(np.float32)
    assert w.nbytes > DETACHED_BYTES >= b.nbytes
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["m"]), helper.make_node("Add", ["m", "b"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2, 64])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2, 32])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), w, b


def test_a_file_s_large_initializers_are_read_only_arrays_of_its_values(tmp_path: Path) -> None:
    made, w, b = _matmul_model()
    onnx.save(made, tmp_path / "m.onnx")
    graph = load_graph(tmp_path / "m.onnx")
    np.testing.assert_array_equal(graph.initializers["w"], w)
    np.testing.assert_array_equal(graph.initializers["b"], b)
    assert not graph.initializers["w"].flags.writeable  # a view of the bytes read
    sizes = {t.name: len(t.raw_data) for t in graph.model.graph.initializer}
    assert sizes == {"w": 0, "b": b.nbytes}  # w left the proto, b stays for data propagation


def test_a_caller_s_proto_is_left_as_it_was() -> None:
    made, w, _ = _matmul_model()
    before = made.SerializeToString()
    graph = load_graph(made)
    np.testing.assert_array_equal(graph.initializers["w"], w)
    assert made.SerializeToString() == before


def test_a_caller_s_proto_is_copied_whole_but_the_large_raw_data() -> None:
    """detach_weights copies a caller's proto field by field, leaving the large raw data
    behind (a whole copy first was one more copy of every weight at the peak): the copy is
    the proto with that data cleared, metadata, opsets and small initializers included."""
    model, w, _ = _matmul_model()
    model.doc_string, model.producer_name = "a model", "a test"
    helper.set_model_props(model, {"author": "dnnc"})
    skeleton, weights = detach_weights(model)
    expected = onnx.ModelProto()
    expected.CopyFrom(model)
    expected.graph.initializer[0].ClearField("raw_data")
    assert skeleton == expected and np.array_equal(weights["w"], w)


def test_detached_weights_are_taken_back_without_a_copy() -> None:
    """detach_weights once, then each load_graph of an edited copy of the small proto (as an
    OnnxDynamicExecutable's trace does) reads the same arrays: no copy of the weights."""
    model, w, b = _matmul_model()
    skeleton, weights = detach_weights(model)
    assert set(weights) == {"w"} and np.array_equal(weights["w"], w)
    assert len(model.graph.initializer[0].raw_data) == w.nbytes  # the caller's proto kept
    for _ in range(2):
        edited = onnx.ModelProto()
        edited.CopyFrom(skeleton)
        graph = load_graph(edited, weights)
        assert graph.initializers["w"] is weights["w"]
        assert np.array_equal(graph.initializers["b"], b)


def test_the_constant_holds_the_initializer_s_bytes_themselves(tmp_path: Path) -> None:
    made, w, _ = _matmul_model()
    onnx.save(made, tmp_path / "m.onnx")
    module = import_onnx(tmp_path / "m.onnx")
    values = [op.value for op in module.walk() if isinstance(op, ConstantOp)]
    weight = next(v for v in values if len(v.data.data) == w.nbytes)
    assert weight.data.data == w.tobytes()


def test_a_payload_shares_a_whole_buffer_and_counts_what_it_copies() -> None:
    raw = RNG.standard_normal(24).astype(np.float32).tobytes()
    whole = np.frombuffer(raw, np.float32).reshape(2, 3, 4)
    importer = Importer(load_graph(_matmul_model()[0]), None)
    assert importer._payload(whole) is raw
    assert importer.copied_bytes == 0
    part = whole[:, 1:]
    assert importer._payload(part) == np.ascontiguousarray(part).tobytes()
    transposed = whole.transpose(2, 1, 0)
    assert importer._payload(transposed) == np.ascontiguousarray(transposed).tobytes()
    assert importer._payload(transposed) is not raw
    assert importer.copied_bytes == part.nbytes + 2 * transposed.nbytes


def test_a_file_is_read_without_its_large_raw_data(tmp_path: Path) -> None:
    """wire.read_detached: the model bytes are onnx's own serialization minus the large
    raw_data fields, which come back by initializer name; a float64 weight (not a type the
    importer views in place) goes back into the proto and still imports."""
    made, w, _ = _matmul_model()
    big = RNG.standard_normal(1024)  # float64, 8 KiB
    made.graph.initializer.append(numpy_helper.from_array(big, "big"))
    made.graph.output.append(helper.make_tensor_value_info("big", onnx.TensorProto.DOUBLE, [1024]))
    onnx.save(made, tmp_path / "m.onnx")
    stripped, raw = read_detached(tmp_path / "m.onnx", DETACHED_BYTES)
    assert raw == {"w": w.tobytes(), "big": big.tobytes()}
    expected = onnx.load(tmp_path / "m.onnx")
    for tensor in expected.graph.initializer:
        if tensor.name in raw:
            tensor.ClearField("raw_data")
    assert onnx.ModelProto.FromString(stripped) == expected
    graph = load_graph(tmp_path / "m.onnx")
    np.testing.assert_array_equal(graph.initializers["big"], big)
    np.testing.assert_array_equal(graph.initializers["w"], w)


def test_a_model_with_external_data_still_loads(tmp_path: Path) -> None:
    made, w, _ = _matmul_model()
    onnx.save(made, tmp_path / "m.onnx", save_as_external_data=True, size_threshold=1024)
    assert (tmp_path / "m.onnx").stat().st_size < w.nbytes  # the weights are beside it
    graph = load_graph(tmp_path / "m.onnx")
    np.testing.assert_array_equal(graph.initializers["w"], w)


def test_a_truncated_file_is_a_clear_error(tmp_path: Path) -> None:
    made, _, _ = _matmul_model()
    data = made.SerializeToString()
    (tmp_path / "m.onnx").write_bytes(data[: len(data) - 100])
    with pytest.raises(ModelError, match="not an ONNX protobuf, or truncated"):
        load_graph(tmp_path / "m.onnx")


def test_a_weight_folded_into_another_is_not_kept_beside_it() -> None:
    """A MatMul weight given transposed (Transpose of an initializer, as PyTorch exports a
    Linear) is folded at import; once no node reads the initializer, the importer drops it,
    so the two copies do not both live until the import ends."""
    w = RNG.standard_normal((32, 64)).astype(np.float32)
    graph = helper.make_graph(
        [
            helper.make_node("Transpose", ["w"], ["wt"], perm=[1, 0]),
            helper.make_node("MatMul", ["x", "wt"], ["y"]),
        ],
        "g",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2, 64])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2, 32])],
        [numpy_helper.from_array(w, "w")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    importer = Importer(load_graph(model), None)
    module = importer.run(CONVERTERS, "main")
    assert "w" not in importer.values and "w" not in importer.graph.initializers
    values = [op.value for op in module.walk() if isinstance(op, ConstantOp)]
    assert [v.data.data for v in values] == [np.ascontiguousarray(w.T).tobytes()]


def _reshaped_matmul(width: int, dims: list[str | int]) -> onnx.ModelProto:
    """x[b, s, width] @ w, reshaped to [b, s, 4, width / 4] by a target from Shape(x): with
    ``?`` dimensions the plain import needs their sizes and the symbolic import takes over."""

    def ints(name: str, value: list[int]) -> onnx.TensorProto:
        return numpy_helper.from_array(np.array(value, np.int64), name)

    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["m"]),
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("Slice", ["shape", "zero", "two"], ["leading"]),
        helper.make_node("Concat", ["leading", "heads"], ["target"], axis=0),
        helper.make_node("Reshape", ["m", "target"], ["y"]),
    ]
    w = RNG.standard_normal((width, width)).astype(np.float32)
    initializers = [
        numpy_helper.from_array(w, "w"),
        ints("zero", [0]),
        ints("two", [2]),
        ints("heads", [4, width // 4]),
    ]
    x = helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [*dims, width])
    y = helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [*dims, 4, width // 4])
    graph = helper.make_graph(nodes, "g", [x], [y], initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def test_a_symbolic_import_holds_the_weights_once(tmp_path: Path) -> None:
    """import_onnx falls back to the symbolic import when the plain one needs a ? size: the
    plain import's weights are freed first, and the file is read once (peak Python memory as
    a static import's, not one copy of the weights more: BERT-base peaked at 1.7 GiB)."""
    width = 2048  # 16 MiB of weights
    peaks = []
    for dims in ([2, 3], ["batch", "seq"]):
        path = tmp_path / f"{len(peaks)}.onnx"
        onnx.save(_reshaped_matmul(width, dims), path)
        tracemalloc.start()
        import_onnx(path)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    static, symbolic = peaks
    assert symbolic < static + width * width * 4 / 2, f"{symbolic >> 20} MiB, static {static >> 20}"


def _transposed_reshaped_matmul(path: Path, width: int) -> np.ndarray:
    """``_reshaped_matmul`` (``?`` dims) with its weight given transposed (a Transpose of the
    initializer, folded at import: a copy the import makes); the weight's logical value."""
    made = _reshaped_matmul(width, ["batch", "seq"])
    stored = numpy_helper.to_array(made.graph.initializer[0])
    made.graph.initializer[0].CopyFrom(numpy_helper.from_array(stored.T.copy(), "w"))
    made.graph.node[0].input[1] = "wt"
    made.graph.node.insert(0, helper.make_node("Transpose", ["w"], ["wt"], perm=[1, 0]))
    onnx.save(made, path)
    return stored


@pytest.mark.parametrize("transposed", [False, True])
def test_a_failed_plain_import_is_collected_only_for_the_bytes_it_copied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, transposed: bool
) -> None:
    """compile reads a file's weights once and gives the plain import their arrays: when it
    stops at a ``?`` size, its partial IR holds of its own only the constants it copied
    and the rest of the model (RunTimeValueError.own_bytes). Those above COLLECTED_BYTES are collected before the
    symbolic import; the shared weights alone are not worth a full collection (BERT-base:
    25-30 ms, nothing freed). The executable and its answers are the same either way."""
    width = 64  # a 16 KiB weight, above the threshold set below
    path = tmp_path / "m.onnx"
    if transposed:
        w = _transposed_reshaped_matmul(path, width)
    else:
        made = _reshaped_matmul(width, ["batch", "seq"])
        w = numpy_helper.to_array(made.graph.initializer[0])
        onnx.save(made, path)
    model, weights = load_detached(path)
    with pytest.raises(RunTimeShapeError) as failed:
        convert(model, weights=weights)
    rest = model.ByteSize()  # the proto without the weight: a bound of what it holds
    assert rest < w.nbytes // 2
    assert failed.value.own_bytes == rest + (w.nbytes if transposed else 0)
    monkeypatch.setattr(dnnc.frontend.onnx, "COLLECTED_BYTES", w.nbytes // 2)
    collections = []
    real_collect = gc.collect
    monkeypatch.setattr(gc, "collect", lambda *a: collections.append(a) or real_collect(*a))
    executable = dnnc.compile(path)
    monkeypatch.undo()
    assert len(collections) == (1 if transposed else 0)
    assert isinstance(executable, OnnxDynamicExecutable)
    for batch, seq in ((1, 3), (2, 5)):
        x = RNG.standard_normal((batch, seq, width)).astype(np.float32)
        (y,) = executable.run({"x": x})
        expected = (x @ w).reshape(batch, seq, 4, width // 4)
        np.testing.assert_allclose(y, expected, rtol=1e-4, atol=1e-4)
