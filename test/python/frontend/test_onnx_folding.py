"""The numpy folders of constant ONNX nodes (dnnc.frontend.onnx.folding) against onnx's
ReferenceEvaluator (GatherElements against ONNX Runtime in test_onnx_ops: the evaluator's
fails), and an import that needs no ReferenceEvaluator, so does not load it."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper
from onnx.reference import ReferenceEvaluator
from onnx_helpers import check, model

from dnnc.core.diagnostics import ModelError
from dnnc.frontend.onnx import import_onnx
from dnnc.frontend.onnx.folding import FOLDERS, SYMBOLIC_FOLDERS
from dnnc.frontend.onnx.graph import Node

RNG = np.random.default_rng(0)
A = RNG.standard_normal((2, 3, 4)).astype(np.float32)
B = RNG.standard_normal((2, 5, 4)).astype(np.float32)
TENSOR = numpy_helper.from_array(np.arange(6, dtype=np.int64).reshape(2, 3), "t")
ONE_INT = numpy_helper.from_array(np.array([1], np.int64), "one")
MINUS_INF = numpy_helper.from_array(np.array([-np.inf], np.float32), "minus_inf")
HALF = numpy_helper.from_array(np.array([0.5], np.float32), "half")

CASES = [
    ("Constant", {"value": TENSOR}, [], 17),
    ("Constant", {"value_float": 1.5}, [], 17),
    ("Constant", {"value_floats": [1.5, -2.0]}, [], 17),
    ("Constant", {"value_int": 7}, [], 17),
    ("Constant", {"value_ints": [3, -1, 4]}, [], 17),
    ("Identity", {}, [A], 17),
    ("Transpose", {}, [A], 17),
    ("Transpose", {"perm": [1, 0, 2]}, [A], 17),
    ("Unsqueeze", {}, [A, np.array([0, -1], np.int64)], 17),
    ("Unsqueeze", {}, [A, np.array([2], np.int64)], 17),
    ("Unsqueeze", {"axes": [-1, 1]}, [A], 11),
    ("Concat", {"axis": 1}, [A, B], 17),
    ("Concat", {"axis": -3}, [A, B[:, :3]], 17),
    ("ConstantOfShape", {}, [np.array([2, 3], np.int64)], 17),
    ("ConstantOfShape", {"value": ONE_INT}, [np.array([4], np.int64)], 17),
    ("ConstantOfShape", {"value": MINUS_INF}, [np.array([1, 2, 0], np.int64)], 17),
    ("ConstantOfShape", {"value": ONE_INT}, [np.array([], np.int64)], 17),
    ("Range", {}, [np.array(0, np.int64), np.array(7, np.int64), np.array(2, np.int64)], 17),
    ("Range", {}, [np.array(5, np.int32), np.array(-4, np.int32), np.array(-3, np.int32)], 17),
    ("Range", {}, [np.array(3, np.int64), np.array(1, np.int64), np.array(1, np.int64)], 17),
    (
        "Range",
        {},
        [np.array(0.1, np.float32), np.array(1, np.float32), np.array(0.3, np.float32)],
        17,
    ),
    ("Mul", {}, [A, B[:, :1]], 17),
    ("Mul", {}, [np.array(3, np.int64), np.array([[2], [-5]], np.int64)], 17),
    ("Mul", {}, [np.array(2.5, np.float32), np.array(4, np.float32)], 17),
]


@pytest.mark.parametrize(("op_type", "attributes", "inputs", "opset"), CASES)
def test_folder_matches_the_reference_evaluator(op_type, attributes, inputs, opset):
    names = [f"x{i}" for i in range(len(inputs))]
    proto = helper.make_node(op_type, names, ["y"], **attributes)
    folded = FOLDERS[op_type](Node(proto, "n"), *inputs)
    graph = helper.make_graph(
        [proto],
        "fold",
        [
            helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
            for n, a in zip(names, inputs)
        ],
        [helper.make_empty_tensor_value_info("y")],
    )
    made = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    (expected,) = ReferenceEvaluator(made).run(None, dict(zip(names, inputs)))
    assert folded is not None
    assert folded.dtype == np.asarray(expected).dtype
    np.testing.assert_array_equal(folded, expected)


SHAPE = np.array([2, 1, 7, 64], np.int64)
I64 = np.int64
SYMBOLIC_CASES = [
    ("Gather", {"axis": 0}, [SHAPE, np.array(2, I64)]),
    ("Gather", {"axis": 0}, [SHAPE, np.array([0, 2], I64)]),
    ("Squeeze", {}, [SHAPE[:2].reshape(2, 1)]),
    ("Squeeze", {}, [SHAPE[:1].reshape(1, 1), np.array([1], I64)]),
    ("Unsqueeze", {}, [SHAPE[2], np.array([0], I64)]),
    ("Slice", {}, [SHAPE, np.array([1], I64), np.array([100], I64)]),
    ("Slice", {}, [SHAPE, np.array([-2], I64), np.array([-1], I64), np.array([0], I64)]),
    ("Concat", {"axis": 0}, [SHAPE[:2], np.array([-1], I64)]),
    ("Cast", {"to": onnx.TensorProto.INT64}, [SHAPE]),
    ("Reshape", {}, [SHAPE, np.array([2, 2], I64)]),
    ("Add", {}, [SHAPE, np.array(3, I64)]),
    ("Sub", {}, [SHAPE, np.array(1, I64)]),
    ("Mul", {}, [SHAPE, SHAPE]),
    ("Div", {}, [SHAPE, np.array(2, I64)]),
    ("Equal", {}, [SHAPE, np.array(-1, I64)]),
    ("Where", {}, [np.array([True, False, True, False]), SHAPE, -SHAPE]),
]
"""Shape-vector folds (folding.SYMBOLIC_FOLDERS) on plain sizes: each as ONNX defines it."""


@pytest.mark.parametrize(("op_type", "attributes", "inputs"), SYMBOLIC_CASES)
def test_symbolic_folder_matches_the_reference_evaluator(op_type, attributes, inputs):
    names = [f"x{i}" for i in range(len(inputs))]
    proto = helper.make_node(op_type, names, ["y"], **attributes)
    folded = SYMBOLIC_FOLDERS[op_type](Node(proto, "n"), *inputs)
    (expected,) = ReferenceEvaluator(proto, opsets={"": 17}).run(None, dict(zip(names, inputs)))
    np.testing.assert_array_equal(np.asarray(folded), expected)


def test_a_constant_of_strings_is_left_to_the_reference_evaluator():
    proto = helper.make_node("Constant", [], ["y"], value_strings=["a"])
    assert FOLDERS["Constant"](Node(proto, "n")) is None


def _folded_weights_model() -> onnx.ModelProto:
    """y = x @ (Wt^T) + Concat(Unsqueeze(c), c2, Unsqueeze(c)) (an input twice)
    * Range(0, 6, 1) * ConstantOfShape([1, 6], 0.5): every constant input folds with numpy."""
    weight = RNG.standard_normal((6, 4)).astype(np.float32)
    nodes = [
        helper.make_node("Transpose", ["wt"], ["w"], perm=[1, 0]),
        helper.make_node("Constant", [], ["c"], value_floats=[0.5, -1.0]),
        helper.make_node("Constant", [], ["axes"], value_ints=[0]),
        helper.make_node("Unsqueeze", ["c", "axes"], ["c1"]),
        helper.make_node("Identity", ["c1"], ["c2"]),
        helper.make_node("Concat", ["c1", "c2", "c1"], ["bias3"], axis=1),
        helper.make_node("Range", ["zero", "six", "one"], ["ramp"]),
        helper.make_node("ConstantOfShape", ["shape"], ["half"], value=HALF),
        helper.make_node("Mul", ["bias3", "ramp"], ["scaled"]),
        helper.make_node("Mul", ["scaled", "half"], ["bias"]),
        helper.make_node("MatMul", ["x", "w"], ["m"]),
        helper.make_node("Add", ["m", "bias"], ["y"]),
    ]
    bounds = {n: np.array(v, np.float32) for n, v in (("zero", 0), ("six", 6), ("one", 1))}
    shape = {"shape": np.array([1, 6], np.int64)}
    return model(nodes, {"x": A[0]}, initializers={"wt": weight, **bounds, **shape})


def test_folded_constants_match_onnxruntime():
    check(_folded_weights_model(), {"x": A[0]})


def test_an_import_that_folds_only_common_nodes_does_not_load_the_reference_evaluator(tmp_path):
    path = tmp_path / "folded.onnx"
    onnx.save(_folded_weights_model(), path)
    script = "import sys, dnnc; dnnc.compile(sys.argv[1]); print('onnx.reference' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", script, str(path)], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"


def test_a_folder_error_names_the_node():
    nodes = [
        helper.make_node("Transpose", ["wt"], ["w"], perm=[0, 0], name="bad_transpose"),
        helper.make_node("Add", ["x", "w"], ["y"]),
    ]
    made = model(nodes, {"x": A[0]}, initializers={"wt": A[0]})
    with pytest.raises(ModelError, match="bad_transpose"):
        import_onnx(made)


@pytest.mark.parametrize(
    "value", [numpy_helper.from_array(np.array([1.0, 2.0], np.float32), "two"), 3]
)
def test_constant_of_shape_refuses_a_value_that_is_not_one_element(value):
    proto = helper.make_node("ConstantOfShape", ["shape"], ["y"], value=value)
    with pytest.raises(ModelError, match=r"'n' \(ConstantOfShape\): its value must be a tensor"):
        FOLDERS["ConstantOfShape"](Node(proto, "n"), np.array([2], np.int64))
