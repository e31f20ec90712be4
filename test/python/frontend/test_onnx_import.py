"""import_onnx as a whole: GELU fusion, names, symbolic dimensions, weights, the errors users
see, and dnnc-import."""

from __future__ import annotations

import math
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import helper
from onnx_helpers import check, function, model, op_names, run_dnnc, run_onnxruntime, value_info

import dnnc
from dnnc.core.diagnostics import DnncError
from dnnc.driver.onnx_shapes import OnnxDynamicExecutable
from dnnc.frontend.onnx import import_onnx
from dnnc.frontend.onnx.converters import CONVERTERS, NEWEST_VERSIONS
from dnnc.frontend.onnx.gelu import fuse_erf_gelu
from dnnc.frontend.onnx.graph import MAX_OPSET, load_graph
from dnnc.frontend.onnx.importer import ssa_name
from dnnc.tools.import_onnx import main as dnnc_import

X = {"x": np.random.default_rng(1).standard_normal((2, 16)).astype(np.float32)}


def _gelu_nodes(order: str, sqrt2: float = math.sqrt(2.0)) -> tuple[list, dict]:
    """Decomposed erf-GELU in the orders exporters write it."""
    scale = helper.make_node("Div", ["x", "sqrt2"], ["t"])
    if order == "mul_by_inverse":
        scale = helper.make_node("Mul", ["inv_sqrt2", "x"], ["t"])
    nodes = [
        scale,
        helper.make_node("Erf", ["t"], ["e"]),
        helper.make_node("Add", ["one", "e"], ["a"]),
    ]
    nodes += {
        "torch": [
            helper.make_node("Mul", ["x", "a"], ["m"]),
            helper.make_node("Mul", ["m", "half"], ["y"]),
        ],
        "mul_by_inverse": [
            helper.make_node("Mul", ["x", "a"], ["m"]),
            helper.make_node("Mul", ["m", "half"], ["y"]),
        ],
        "half_first": [
            helper.make_node("Mul", ["x", "half"], ["m"]),
            helper.make_node("Mul", ["m", "a"], ["y"]),
        ],
        "half_times_sum": [
            helper.make_node("Mul", ["half", "a"], ["m"]),
            helper.make_node("Mul", ["m", "x"], ["y"]),
        ],
    }[order]
    constants = {
        "sqrt2": np.float32(sqrt2),
        "inv_sqrt2": np.float32(1 / math.sqrt(2.0)),
        "one": np.float32(1.0),
        "half": np.float32(0.5),
    }
    return nodes, {
        name: value for name, value in constants.items() if any(name in n.input for n in nodes)
    }


@pytest.mark.parametrize("order", ["torch", "mul_by_inverse", "half_first", "half_times_sum"])
def test_decomposed_erf_gelu_becomes_one_gelu_erf(order: str) -> None:
    nodes, constants = _gelu_nodes(order)
    module = check(model(nodes, X, initializers=constants), X)
    assert op_names(module) == ["dnn.eltwise"]
    assert "gelu_erf" in str(module)


def test_erf_outside_gelu_is_an_eltwise_erf() -> None:
    nodes, constants = _gelu_nodes("torch", sqrt2=2.0)  # not x / sqrt(2): a different function
    module = check(model(nodes, X, initializers=constants), X)
    assert "gelu_erf" not in str(module) and "dnn.eltwise erf" in str(module)


def test_gelu_with_a_shared_intermediate_is_not_fused() -> None:
    nodes, constants = _gelu_nodes("torch")
    module = check(model(nodes, X, outputs=("y", "e"), initializers=constants), X)
    assert "gelu_erf" not in str(module) and "dnn.eltwise erf" in str(module)


def test_gelu_fusion_keeps_the_graph_indexes_a_recount_gives() -> None:
    """fuse_erf_gelu updates the consumers, producers and Constant-node index of only the
    values the replaced nodes touch (Graph.replace_nodes): after fusing a GELU of a GELU
    whose input has another reader, one with a Constant node's 0.5, they are what a full
    recount gives, and the model still computes ONNX Runtime's values."""
    first, constants = _gelu_nodes("torch")
    second, _ = _gelu_nodes("half_first")
    for node in second:  # reads the first's y, writes y2; its 0.5 from a Constant node
        node.input[:] = [{"x": "y", "half": "half_node"}.get(i, f"{i}2") for i in node.input]
        node.output[:] = [f"{o}2" for o in node.output]
    half = helper.make_node("Constant", [], ["half_node"], value_float=0.5)
    nodes = [*first, half, *second, helper.make_node("Relu", ["x"], ["r"])]
    initializers = {**constants, "sqrt22": constants["sqrt2"], "one2": constants["one"]}
    made = model(nodes, X, outputs=("y2", "r"), initializers=initializers)
    graph = load_graph(made)
    fuse_erf_gelu(graph)
    assert [n.op_type for n in graph.nodes].count("Gelu") == 2
    fused = (dict(graph.consumers), dict(graph.producers), dict(graph._constant_nodes))
    graph.recount_consumers()
    assert fused == (dict(graph.consumers), dict(graph.producers), dict(graph._constant_nodes))
    check(made, X)


STEP = np.float32(2.0**-4)
"""The 8-bit grid of the QDQ GELU cases: 1 and 0.5 on it exactly, X's products within it."""


def _rounded_gelu(order: str, skewed: str = "") -> onnx.ModelProto:
    """The decomposed GELU as ONNX Runtime's quantize_static writes it: every intermediate
    rounded by a QuantizeLinear -> DequantizeLinear pair (int8, scale STEP), the 1 and 0.5
    DequantizeLinears of int8 constants; the pair of ``skewed`` dequantizes with twice the
    scale (no rounding: it rescales)."""
    nodes, constants = _gelu_nodes(order)
    initializers = {"s": STEP, "s2": np.float32(2 * STEP), "z": np.int8(0)}
    for name in ("one", "half"):
        if name in constants:
            initializers[f"{name}_q"] = np.int8(round(float(constants.pop(name)) / STEP))
    initializers |= constants
    rounded: list[onnx.NodeProto] = [
        helper.make_node("DequantizeLinear", [f"{c}_q", "s", "z"], [c])
        for c in ("one", "half")
        if f"{c}_q" in initializers
    ]
    for node in nodes:
        node.input[:] = [f"{i}_r" if i in ("t", "e", "a", "m") else i for i in node.input]
        rounded.append(node)
        out = node.output[0]
        if out != "y":
            scale = "s2" if out == skewed else "s"
            rounded.append(helper.make_node("QuantizeLinear", [out, "s", "z"], [f"{out}_q"]))
            rounded.append(
                helper.make_node("DequantizeLinear", [f"{out}_q", scale, "z"], [f"{out}_r"])
            )
    return model(rounded, X, initializers=initializers, opset=17)


@pytest.mark.parametrize("order", ["torch", "mul_by_inverse", "half_first", "half_times_sum"])
def test_gelu_rounded_by_quantization_pairs_becomes_one_gelu_erf(order: str) -> None:
    made = _rounded_gelu(order)
    module = import_onnx(made)
    assert op_names(module) == ["dnn.eltwise"] and "gelu_erf" in str(module)
    # The inner roundings are gone: y moves by half a step of each of them, at most.
    bound = float((np.abs(X["x"]).max() + 1) * STEP)
    theirs = run_onnxruntime(made, X)[0]
    np.testing.assert_allclose(run_dnnc(module, X)[0], theirs, rtol=0, atol=bound)


def test_gelu_through_a_rescaling_pair_is_not_fused() -> None:
    module = import_onnx(_rounded_gelu("torch", skewed="e"))
    assert "gelu_erf" not in str(module) and "dnn.eltwise erf" in str(module)


def test_unsupported_op_names_op_node_and_opset() -> None:
    boxes, scores = np.zeros((1, 4, 4), np.float32), np.zeros((1, 1, 4), np.float32)
    nms = helper.make_node("NonMaxSuppression", ["boxes", "scores"], ["y"], name="nms_1")
    with pytest.raises(DnncError) as error:
        import_onnx(model([nms], {"boxes": boxes, "scores": scores}))
    message = str(error.value)
    assert message.startswith(
        "error: unsupported ONNX op 'NonMaxSuppression' (node 'nms_1', opset 17); supported: Abs, Add,"
    )
    assert "Conv" in message and "folded at import" in message


def test_opset_out_of_range_is_an_error() -> None:
    relu = helper.make_node("Relu", ["x"], ["y"])
    newer = MAX_OPSET + 1
    with pytest.raises(
        DnncError, match=f"ONNX opset {newer} is not supported: .* opsets 1 to {MAX_OPSET}"
    ):
        import_onnx(model([relu], X, opset=newer))


@pytest.mark.parametrize("opset", [6, 7, 9, 10])
def test_an_old_opset_is_upgraded_and_computes_what_onnx_runtime_does(opset: int) -> None:
    """Before opset 11 Clip, Squeeze and Slice take attributes: version_converter turns them
    into the forms the converters read."""
    nodes = [
        helper.make_node("Clip", ["x"], ["c"], min=-0.5, max=0.5),
        helper.make_node("Unsqueeze", ["c"], ["u"], axes=[0]),
        helper.make_node("Squeeze", ["u"], ["s"], axes=[0]),
        helper.make_node("Slice", ["s"], ["y"], starts=[0, 2], ends=[2, 10], axes=[0, 1])
        if opset >= 10
        else helper.make_node("Slice", ["s"], ["y"], starts=[0, 2], ends=[2, 10]),
    ]
    if opset >= 10:  # Slice-10 takes inputs already
        nodes[-1] = helper.make_node("Slice", ["s", "st", "en"], ["y"])
    made = model(
        nodes,
        X,
        opset=opset,
        initializers={"st": np.array([0, 2], np.int64), "en": np.array([2, 10], np.int64)}
        if opset >= 10
        else None,
    )
    check(made, X)


def test_a_newer_op_version_than_implemented_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(NEWEST_VERSIONS, "Relu", 6)
    relu = helper.make_node("Relu", ["x"], ["y"], name="act")
    with pytest.raises(
        DnncError,
        match=r"ONNX Relu \(node 'act', opset 17\) is Relu-14, whose "
        r"semantics dnnc does not implement \(it converts Relu up to version 6\)",
    ):
        import_onnx(model([relu], X))


def test_the_newest_opset_imports() -> None:
    """onnx defines opsets ONNX Runtime does not load yet (it stops at 26): numpy is the oracle."""
    relu = helper.make_node("Relu", ["x"], ["y"])
    (y,) = run_dnnc(import_onnx(model([relu], X, opset=MAX_OPSET)), X)
    np.testing.assert_array_equal(y, np.maximum(X["x"], 0))


def test_every_converter_states_the_newest_version_it_implements() -> None:
    """A converter without an entry, or an onnx with a newer version of an op, fails here:
    someone must read the new version's semantics and raise the entry (or refuse it)."""
    assert set(NEWEST_VERSIONS) == set(CONVERTERS)
    for op_type, newest in NEWEST_VERSIONS.items():
        assert onnx.defs.get_schema(op_type, MAX_OPSET).since_version == newest, op_type


README = Path(__file__).resolve().parents[3] / "README.md"
UNSUPPORTED_HEADING = "### Operators dnnc does not import"


def _readme_unsupported() -> list[str]:
    """The operators the README lists as not imported: ``- reason: Op, Op, ...`` lines."""
    section = README.read_text().split(UNSUPPORTED_HEADING, 1)[1].split("\n#", 1)[0]
    items = [line for line in section.splitlines() if line.startswith("- ")]
    assert items, f"no '- reason: ops' lines under '{UNSUPPORTED_HEADING}'"
    return [op for item in items for op in item.rsplit(": ", 1)[1].split(", ")]


def test_the_readme_lists_every_onnx_operator_dnnc_does_not_import() -> None:
    """Every operator of the default domain the pinned onnx defines at its newest opset is
    converted (CONVERTERS) or listed with its reason in the README, never both."""
    listed = _readme_unsupported()
    assert len(listed) == len(set(listed)), "an operator is listed twice"
    operators = {
        schema.name
        for schema in onnx.defs.get_all_schemas_with_history()
        if schema.domain == "" and not onnx.defs.get_schema(schema.name, MAX_OPSET).deprecated
    }
    assert set(listed) <= operators, f"not operators of onnx {onnx.__version__}"
    assert not set(listed) & set(CONVERTERS), "converted, yet listed as not imported"
    missing = operators - set(listed) - set(CONVERTERS)
    assert not missing, f"neither converted nor listed in the README: {sorted(missing)}"


def test_swish_imports_as_one_eltwise_with_its_alpha() -> None:
    """Swish (opset 24) is oneDNN's swish, x * sigmoid(alpha * x), for any alpha."""
    swish = helper.make_node("Swish", ["x"], ["y"], alpha=0.75)
    made = model([swish], X, opset=24)
    module = import_onnx(made)
    assert op_names(module) == ["dnn.eltwise"]
    assert "swish" in str(module) and "7.500000e-01" in str(module)
    (y,) = dnnc.compile(made).run([X["x"]])
    x = X["x"]
    np.testing.assert_allclose(y, x / (1 + np.exp(-0.75 * x)), rtol=1e-5, atol=1e-6)


def test_run_time_axes_of_dynamic_size_are_an_error_naming_the_input() -> None:
    """Axes from an input of static type are a value argument (dnn.deferred); from one with
    a ? dimension, which no constant of its type can stand for, an error naming the input."""
    nodes = [helper.make_node("ReduceSum", ["x", "axes"], ["y"], name="sum")]
    made = model(nodes, X)
    made.graph.input.append(value_info("axes", ["n"], np.int64))
    with pytest.raises(
        DnncError,
        match=r"ReduceSum \(node 'sum', .*input 1 \(axes\) must be a "
        "constant: it is computed at run time",
    ):
        import_onnx(made)


def test_input_names_are_kept_exactly_and_symbolic_dims_as_dynamic() -> None:
    """The SSA name hint is a readable spelling; the name the caller uses is the model's own,
    kept as dnn.name, whatever characters it holds."""
    nodes = [
        helper.make_node("MatMul", ["input:0", "w"], ["h"]),
        helper.make_node("Relu", ["h"], ["y"]),
    ]
    made = model(nodes, {}, initializers={"w": np.eye(4, dtype=np.float32)})
    made.graph.input.append(value_info("input:0", ["batch", 4]))
    module = import_onnx(made)
    (arg,) = function(module).body.block.args
    assert arg.name_hint == ssa_name("input:0") == "input.0"
    assert (
        '(%input.0: tensor<?x4xf32> {dnn.name = "input:0"}) -> (tensor<?x4xf32> {dnn.name = "y"})'
    ) in str(module)
    x = np.arange(12, dtype=np.float32).reshape(3, 4) - 6
    (y,) = run_dnnc(module, {"input:0": x})
    np.testing.assert_array_equal(y, np.maximum(x, 0))


NAMES = ["input:0", "data_0", "logits/Softmax:0", "with space", "0starts_with_digit", "naïve·ü"]


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
def test_inputs_and_outputs_are_known_by_the_model_s_own_names(dynamic: bool) -> None:
    """As ONNX Runtime's get_inputs()/get_outputs() and run(output_names, feeds)."""
    first, second, *outputs = NAMES
    nodes = [
        helper.make_node("Add", [first, second], [outputs[0]]),
        helper.make_node("Relu", [outputs[0]], [outputs[1]]),
        helper.make_node("Neg", [first], [outputs[2]]),
        helper.make_node("Tanh", [second], [outputs[3]]),
    ]
    batch = "n" if dynamic else 2
    made = model(nodes, {}, outputs=outputs)
    made.graph.input.extend([value_info(first, [batch, 3]), value_info(second, [batch, 3])])
    executable = dnnc.compile(import_onnx(made))
    assert [(s.name, s.shape) for s in executable.inputs] == [
        (first, (-1 if dynamic else 2, 3)),
        (second, (-1 if dynamic else 2, 3)),
    ]
    assert [s.name for s in executable.outputs] == outputs
    feeds = {first: X["x"][:, :3].copy(), second: X["x"][:, 3:6].copy()}
    by_name = executable.run(feeds, as_dict=True)
    assert list(by_name) == outputs
    np.testing.assert_array_equal(by_name[outputs[2]], -feeds[first])
    chosen = executable.run(feeds, output_names=[outputs[3], outputs[1]])
    np.testing.assert_allclose(chosen[0], np.tanh(feeds[second]), rtol=1e-6)
    np.testing.assert_array_equal(chosen[1], by_name[outputs[1]])
    with pytest.raises(DnncError, match=r"output_names: unknown \['logits'\]; the outputs are "):
        executable.run(feeds, output_names=["logits"])


def test_weights_path_writes_large_arrays_and_keeps_small_ones_inline(tmp_path: Path) -> None:
    weights = {"w": np.ones((8, 16), np.float32), "b": np.ones(8, np.float32)}
    gemm = helper.make_node("Gemm", ["x", "w", "b"], ["y"], transB=1)
    module = import_onnx(model([gemm], X, initializers=weights), weights_path=tmp_path / "m.npz")
    text = str(module)
    assert f'dnn.weight "{tmp_path / "m.npz"}", "w"' in text
    assert "dnn.constant dense<1.000000e+00> : tensor<8xf32>" in text
    with np.load(tmp_path / "m.npz") as archive:
        assert archive.files == ["w"]
    (y,) = run_dnnc(module, X)
    np.testing.assert_allclose(y, X["x"] @ weights["w"].T + 1, rtol=1e-6)


def test_dnnc_import_writes_ir_and_weights_beside_it(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    weights = {"w": np.ones((8, 16), np.float32)}
    gemm = helper.make_node("Gemm", ["x", "w"], ["y"], transB=1)
    path = tmp_path / "m.onnx"
    path.write_bytes(model([gemm], X, initializers=weights).SerializeToString())
    dnnc_import([str(path), "-o", str(tmp_path / "out.mlir")])
    assert 'dnn.weight "out.npz", "w" : tensor<8x16xf32>' in (tmp_path / "out.mlir").read_text()
    assert (tmp_path / "out.npz").is_file()
    with pytest.raises(SystemExit) as exit_:
        dnnc_import([str(tmp_path / "missing.onnx")])
    assert exit_.value.code == 1
    assert "error: cannot read ONNX model" in capsys.readouterr().err


def test_shape_arithmetic_on_a_dynamic_batch_is_traced_once(tmp_path: Path) -> None:
    """y = reshape(x, [Shape(x)[0], -1]): the target is an expression of the batch, which
    the symbolic import writes into the IR, so one trace serves every batch."""
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "zero"], ["n"], axis=0),
        helper.make_node("Unsqueeze", ["n", "axes"], ["n1"]),
        helper.make_node("Concat", ["n1", "minus_one"], ["target"], axis=0),
        helper.make_node("Reshape", ["x", "target"], ["r"]),
        helper.make_node("Relu", ["r"], ["y"]),
    ]
    made = model(
        nodes,
        {},
        initializers={
            "zero": np.array(0, np.int64),
            "axes": np.array([0], np.int64),
            "minus_one": np.array([-1], np.int64),
        },
    )
    made.graph.input.append(value_info("x", ["batch", 2, 3]))
    onnx.save(made, tmp_path / "m.onnx")
    executable = dnnc.compile(tmp_path / "m.onnx")
    assert [(s.name, s.shape) for s in executable.inputs] == [("x", (-1, 2, 3))]
    for batch in (2, 3, 2):
        x = np.arange(batch * 6, dtype=np.float32).reshape(batch, 2, 3) - 5
        (y,) = executable.run({"x": x})
        np.testing.assert_array_equal(y, np.maximum(x.reshape(batch, 6), 0))
    assert isinstance(executable, OnnxDynamicExecutable)
    stats = executable.stats()
    assert (stats.traces, stats.misses, stats.hits) == (1, 2, 1)  # batch 2 came back
    with pytest.raises(DnncError, match=r"input 'x' is float32\[2, 3, 3\]; expected"):
        executable.run([np.zeros((2, 3, 3), np.float32)])
    again = pickle.loads(pickle.dumps(executable))  # ships as its recipe, as other executables
    np.testing.assert_array_equal(
        again.run([np.ones((1, 2, 3), np.float32)])[0], np.ones((1, 6), np.float32)
    )


def test_imported_ir_is_the_same_whatever_the_hash_seed(tmp_path: Path) -> None:
    """Names the importer makes (here the constant indices of the dnn.gather a reversing Slice
    becomes) do not depend on Python's hash randomization: two processes print the same IR."""
    bounds = {
        name: np.array([value], np.int64)
        for name, value in (("starts", -1), ("ends", -(2**62)), ("axes", 1), ("steps", -1))
    }
    reversed_model = model(
        [helper.make_node("Slice", ["x", "starts", "ends", "axes", "steps"], ["y"])],
        {"x": np.ones((2, 3), np.float32)},
        initializers=bounds,
    )
    path = tmp_path / "reverse.onnx"
    onnx.save(reversed_model, path)
    printed = [
        subprocess.run(
            [sys.executable, "-m", "dnnc.tools.import_onnx", str(path)],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2")
    ]
    assert "dnn.gather" in printed[0]
    assert printed[0] == printed[1]
