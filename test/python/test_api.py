"""dnnc.compile: weights of IR text resolved through weights_dir by every pass, and pipelines
that already lower."""

from pathlib import Path

import numpy as np
import pytest

import dnnc
from dnnc.ir.text import make_context, parse_module, print_module
from dnnc.reference.interpreter import compare

CONV_BN = """func.func @f(%x: tensor<1x4x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %w = dnn.weight "w.npz", "w" : tensor<8x4x3x3xf32>
  %b = dnn.weight "w.npz", "b" : tensor<8xf32>
  %s = dnn.weight "w.npz", "scale" : tensor<8xf32>
  %t = dnn.weight "w.npz", "shift" : tensor<8xf32>
  %m = dnn.weight "w.npz", "mean" : tensor<8xf32>
  %v = dnn.weight "w.npz", "var" : tensor<8xf32>
  %c = dnn.conv2d %x, %w, %b {pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  %y = dnn.batch_norm %c, %s, %t, %m, %v : (tensor<1x8x8x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  func.return %y : tensor<1x8x8x8xf32>
}"""


@pytest.fixture
def weights_dir(tmp_path: Path) -> Path:
    rng = np.random.default_rng(0)
    arrays = {
        "w": rng.standard_normal((8, 4, 3, 3)),
        "b": rng.standard_normal(8),
        **{k: rng.uniform(0.5, 1.5, 8) for k in ("scale", "shift", "mean", "var")},
    }
    np.savez(tmp_path / "w.npz", **{k: a.astype(np.float32) for k, a in arrays.items()})
    return tmp_path


def test_text_with_weights_dir_folds_batch_norm(
    weights_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """From another cwd, the folding pass finds the weights the executor finds: the batch
    norm disappears into the conv and the result equals the unoptimized compile."""
    monkeypatch.chdir(tmp_path.parent)
    x = np.random.default_rng(1).standard_normal((1, 4, 8, 8), dtype=np.float32)
    optimized = dnnc.compile(CONV_BN, weights_dir=weights_dir)
    plain = dnnc.compile(CONV_BN, pipeline="", weights_dir=weights_dir)
    assert (len(optimized.plan.step_infos), len(plain.plan.step_infos)) == (1, 2)
    assert compare(optimized.run([x])[0], plain.run([x])[0]).ok


def test_pipeline_that_lowers_is_not_lowered_twice(weights_dir: Path) -> None:
    x = np.zeros((1, 4, 8, 8), np.float32)
    lowered = dnnc.compile(CONV_BN, pipeline="dnn-optimize,dnn-to-onednn", weights_dir=weights_dir)
    reference = dnnc.compile(CONV_BN, weights_dir=weights_dir)
    np.testing.assert_array_equal(lowered.run([x])[0], reference.run([x])[0])


def test_onnx_model_and_path_compile_like_their_import(tmp_path: Path) -> None:
    from onnx import TensorProto, helper, save

    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Softmax", ["r"], ["y"], axis=1)],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, (2, 5))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, (2, 5))],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    save(model, tmp_path / "m.onnx")
    x = np.random.default_rng(2).standard_normal((2, 5), dtype=np.float32)
    imported = dnnc.compile(dnnc.import_onnx(model)).run([x])[0]
    np.testing.assert_array_equal(dnnc.compile(model).run([x])[0], imported)
    np.testing.assert_array_equal(dnnc.compile(tmp_path / "m.onnx").run([x])[0], imported)
    expected = np.exp(np.maximum(x, 0)) / np.exp(np.maximum(x, 0)).sum(1, keepdims=True)
    np.testing.assert_allclose(imported, expected, rtol=1e-5)


def test_a_module_source_is_left_as_it_was() -> None:
    """compile gives up its own clone's constants as it packs them (every door holds a weight
    once), never the caller's: the module prints and compiles the same afterwards."""
    weights = np.random.default_rng(3).standard_normal((8, 4, 3, 3)).astype(np.float32)
    text = CONV_BN.split("\n")
    text[1] = f"  %w = dnn.constant dense<{weights.tolist()}> : tensor<8x4x3x3xf32>"
    for line in range(2, 7):
        name = text[line].split()[0]
        text[line] = f"  {name} = dnn.constant dense<1.0> : tensor<8xf32>"
    module = parse_module("\n".join(text), "<test>", make_context())
    before = print_module(module)
    x = np.random.default_rng(4).standard_normal((1, 4, 8, 8)).astype(np.float32)
    first = dnnc.compile(module).run([x])[0]
    assert print_module(module) == before
    np.testing.assert_array_equal(dnnc.compile(module).run([x])[0], first)
