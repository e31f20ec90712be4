"""Saved dynamic executables (dnnc.driver.saved_dynamic): ``dnnc.compile(..., save_to=DIR)`` of
a function with ``?`` dimensions, plain or with its sizes as expressions (``dnn.symbols``),
and ``dnnc.load(DIR)`` give the outputs of the executable that was saved at several shapes
(and ONNX Runtime's), run no pass at load and trace no more often than it did, keep each
weight once on disk, and refuse what they cannot read with a DnncError naming the file or op."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import dnnc
from dnnc.core.diagnostics import DnncError
from dnnc.dialects.dnn import symbolic
from dnnc.driver.dynamic import DynamicExecutable
from dnnc.driver.onnx_shapes import OnnxDynamicExecutable
from dnnc.driver.saved import MANIFEST
from dnnc.driver.saved_dynamic import CONSTANTS, FUNCTION, INITIALIZERS, MODEL, WEIGHTS
from dnnc_testing.dynamic_graphs import conv, write_weights

ort = pytest.importorskip("onnxruntime")

WIDTH = 64
"""64x64 f32 weights: 16 KiB, saved apart from the function (saved_dynamic.INLINE_BYTES)."""


def _model(symbolic_sizes: bool) -> onnx.ModelProto:
    """x[batch, seq, 64] -> MatMul(64x64) + bias -> Relu -> MatMul(64x64); with
    ``symbolic_sizes``, also + table[Range(0, seq)] first and a Reshape to [batch, seq, 4, 16]
    by a target from Shape last (a size and data from the ? dimensions, as transformer
    exports have them: import_onnx writes them as expressions)."""
    rng = np.random.default_rng(0)

    def draw(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * 0.2).astype(np.float32)

    def ints(name: str, value: object) -> onnx.TensorProto:
        return numpy_helper.from_array(np.array(value, np.int64), name)

    initializers = [
        numpy_helper.from_array(draw(WIDTH, WIDTH), "w1"),
        numpy_helper.from_array(draw(WIDTH), "b1"),
        numpy_helper.from_array(draw(WIDTH, WIDTH), "w2"),
    ]
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["m1"]),
        helper.make_node("Add", ["m1", "b1"], ["a1"]),
        helper.make_node("Relu", ["a1"], ["r1"]),
        helper.make_node("MatMul", ["r1", "w2"], ["y"]),
    ]
    output = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "seq", WIDTH])
    if symbolic_sizes:
        nodes[0].input[0] = "summed"
        nodes[:0] = [
            helper.make_node("Shape", ["x"], ["shape"]),
            helper.make_node("Gather", ["shape", "one"], ["seq"], axis=0),
            helper.make_node("Range", ["zero", "seq", "one"], ["positions"]),
            helper.make_node("Gather", ["table", "positions"], ["embedded"], axis=0),
            helper.make_node("Add", ["x", "embedded"], ["summed"]),
        ]
        nodes += [
            helper.make_node("Slice", ["shape", "zero1", "two1"], ["batch_seq"]),
            helper.make_node("Concat", ["batch_seq", "heads"], ["target"], axis=0),
            helper.make_node("Reshape", ["y", "target"], ["split"]),
        ]
        initializers += [
            numpy_helper.from_array(draw(256, WIDTH), "table"),
            ints("zero", 0),
            ints("one", 1),
            ints("zero1", [0]),
            ints("two1", [2]),
            ints("heads", [4, WIDTH // 4]),
        ]
        output = helper.make_tensor_value_info(
            "split", TensorProto.FLOAT, ["batch", "seq", 4, WIDTH // 4]
        )
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", WIDTH])
    graph = helper.make_graph(nodes, "encoder", [x], [output], initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


SHAPES = [(1, 5), (3, 17), (2, 9)]


@pytest.mark.parametrize("symbolic_sizes", [False, True], ids=["dynamic", "symbolic"])
def test_a_loaded_dynamic_executable_computes_what_the_saved_one_does(
    symbolic_sizes: bool, tmp_path: Path
) -> None:
    model = _model(symbolic_sizes)
    compiled = dnnc.compile(dnnc.import_onnx(model), save_to=tmp_path)
    loaded = dnnc.load(tmp_path)
    assert isinstance(compiled, DynamicExecutable) and isinstance(loaded, DynamicExecutable)
    assert (symbolic.bindings_of(loaded.function) is not None) == symbolic_sizes
    assert loaded.stats().traces == 0  # no pass ran at load
    assert [(s.name, s.shape) for s in loaded.inputs] == [
        (s.name, s.shape) for s in compiled.inputs
    ]
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(1)
    for batch, length in SHAPES:
        feeds = {"x": rng.standard_normal((batch, length, WIDTH)).astype(np.float32)}
        (ours,) = loaded.run(feeds)
        np.testing.assert_array_equal(ours, compiled.run(feeds)[0])
        np.testing.assert_allclose(ours, session.run(None, feeds)[0], rtol=1e-4, atol=1e-5)
    assert loaded.stats().traces == compiled.stats().traces  # the pipeline runs per template
    # each weight once, logical, apart from the text: the function refers to it by key
    with np.load(tmp_path / CONSTANTS) as arrays:
        saved = {tuple(arrays[k].shape) for k in arrays.files}
        count = len(arrays.files)
    large = [t for t in model.graph.initializer if len(t.raw_data) > 4096]
    assert count == len(large) and saved == {tuple(t.dims) for t in large}
    assert (tmp_path / FUNCTION).read_text().count(f'dnn.weight "{CONSTANTS}"') == count


def test_constants_printed_as_bit_patterns_survive_save_and_load(tmp_path: Path) -> None:
    """-inf (a causal mask's fill) and 123456792 print as hexadecimal bit patterns in the saved
    function.mlir; read back as integers (xDSL's reading), the mask let every position through
    and a LLaMA-style decoder's logits were 9.9 off."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq"])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "seq"])
    nodes = [
        helper.make_node("Greater", ["x", "zero"], ["positive"]),
        helper.make_node("Where", ["positive", "x", "fill"], ["masked"]),
        helper.make_node("Softmax", ["masked"], ["weights"], axis=-1),
        helper.make_node("Mul", ["weights", "large"], ["y"]),
    ]
    initializers = [
        numpy_helper.from_array(np.array(0, np.float32), "zero"),
        numpy_helper.from_array(np.array(-np.inf, np.float32), "fill"),
        numpy_helper.from_array(np.array(123456792, np.float32), "large"),
    ]
    graph = helper.make_graph(nodes, "masked", [x], [y], initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    dnnc.compile(dnnc.import_onnx(model), save_to=tmp_path)
    assert "0xff800000" in (tmp_path / FUNCTION).read_text()
    loaded = dnnc.load(tmp_path)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    feeds = {"x": np.random.default_rng(2).standard_normal((2, 7)).astype(np.float32)}
    np.testing.assert_allclose(loaded.run(feeds)[0], session.run(None, feeds)[0], rtol=1e-5)


SIZES = [(1, 8, 8), (2, 12, 6), (3, 4, 10)]


def test_a_dynamic_function_s_weight_files_are_saved_with_it(tmp_path: Path) -> None:
    """A dnn function with ? dimensions reading dnn.weight files: they are copied into the
    saved directory, so it loads once the originals are gone."""
    source = tmp_path / "source"
    source.mkdir()
    write_weights(source)
    (source / "conv.mlir").write_text(conv(None, None, None))
    compiled = dnnc.compile(source / "conv.mlir", save_to=tmp_path / "saved")
    rng = np.random.default_rng(2)
    inputs = [rng.standard_normal((n, 3, h, w)).astype(np.float32) for n, h, w in SIZES]
    expected = [compiled.run([x])[0] for x in inputs]  # its traces read the files
    shutil.rmtree(source)
    loaded = dnnc.load(tmp_path / "saved")
    assert (tmp_path / "saved" / WEIGHTS).is_file()
    for x, want in zip(inputs, expected, strict=True):
        np.testing.assert_array_equal(loaded.run([x])[0], want)


def test_an_onnx_file_s_dynamic_executable_is_saved_with_its_model(tmp_path: Path) -> None:
    """``dnnc.compile(path, save_to=...)`` of a model whose shape arithmetic reads ? sizes
    saves what OnnxDynamicExecutable serves signatures from: the symbolic function and the
    ONNX model (its initializers' data once: in the function's constants); ``cache_dir``
    caches it the same way. Loaded, it computes what the compiled one does."""
    path = tmp_path / "encoder.onnx"
    model = _model(True)
    onnx.save(model, path)
    compiled = dnnc.compile(path, save_to=tmp_path / "saved")
    cached = dnnc.compile(path, cache_dir=tmp_path / "cache")
    again = dnnc.compile(path, cache_dir=tmp_path / "cache")  # from the cache this time
    loaded = dnnc.load(tmp_path / "saved")
    for executable in (compiled, cached, again, loaded):
        assert isinstance(executable, OnnxDynamicExecutable)
        assert executable.symbolic_function is not None
    assert again.stats().traces == loaded.stats().traces == 0
    assert not (tmp_path / "saved" / INITIALIZERS).exists()
    with np.load(tmp_path / "saved" / CONSTANTS) as arrays:
        count = len(arrays.files)
    assert count == len([t for t in model.graph.initializer if len(t.raw_data) > 4096])
    rng = np.random.default_rng(3)
    for batch, length in SHAPES:
        feeds = {"x": rng.standard_normal((batch, length, WIDTH)).astype(np.float32)}
        np.testing.assert_array_equal(loaded.run(feeds)[0], compiled.run(feeds)[0])
        np.testing.assert_array_equal(again.run(feeds)[0], compiled.run(feeds)[0])


def test_what_cannot_be_saved_or_read_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "encoder.onnx"
    onnx.save(_model(True), path)
    saved = tmp_path / "saved"
    dnnc.compile(dnnc.import_onnx(path), save_to=saved)
    text = (saved / FUNCTION).read_text()
    (saved / FUNCTION).write_text(text.replace('"c0"', '"c99"'))
    with pytest.raises(DnncError, match=rf"{FUNCTION}:\d+:\d+: .*saved constant 'c99'"):
        dnnc.load(saved)
    (saved / CONSTANTS).write_bytes(b"not a zip")
    with pytest.raises(DnncError, match=f"cannot read the constants of '{saved}'"):
        dnnc.load(saved)
    (saved / FUNCTION).unlink()
    with pytest.raises(DnncError, match=f"'{saved}' holds no dynamic function"):
        dnnc.load(saved)
    with_model = tmp_path / "with_model"
    dnnc.compile(path, save_to=with_model)
    manifest = json.loads((with_model / MANIFEST).read_text())
    manifest["onnx"]["w1"] = "i7"
    (with_model / MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(DnncError, match=f"cannot read the initializers of '{with_model}'"):
        dnnc.load(with_model)
    (with_model / MODEL).write_bytes(b"not a model")
    with pytest.raises(DnncError, match=f"cannot read the ONNX model of '{with_model}'"):
        dnnc.load(with_model)
    # a Reshape to an input's values under a ? batch: compiled per value, not saved
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", WIDTH])
    shape = helper.make_tensor_value_info("shape", TensorProto.INT64, [3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    graph = helper.make_graph(
        [helper.make_node("Reshape", ["x", "shape"], ["y"])], "g", [x, shape], [y]
    )
    reshaping = tmp_path / "reshaping.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), reshaping)
    with pytest.raises(DnncError, match="compiled per value of its inputs cannot be saved"):
        dnnc.compile(reshaping, save_to=tmp_path / "per_value")
