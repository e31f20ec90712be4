"""ONNX Einsum imported as transposes, reductions and one matmul, against numpy.einsum, for the
forms attention and projections use (float32; the node tests are float64 or bfloat16)."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

import dnnc

CASES = {
    "bhid,bhjd->bhij": [(2, 3, 4, 5), (2, 3, 6, 5)],
    "bhij,bhjd->bhid": [(2, 3, 4, 6), (2, 3, 6, 5)],
    "bij,bjk->bik": [(2, 4, 5), (2, 5, 3)],
    "ij,jk": [(4, 5), (5, 3)],
    "...ij,...jk->...ik": [(2, 3, 4, 5), (2, 3, 5, 6)],
    "bnd,hd->bnh": [(2, 7, 8), (6, 8)],
    "ij->ji": [(4, 5)],
    "ijk->ki": [(3, 4, 5)],
    "i,i->": [(7,), (7,)],
    "ij,kj->ikj": [(3, 4), (5, 4)],
}


def einsum_model(equation: str, shapes: list[tuple[int, ...]]) -> bytes:
    names = [f"x{i}" for i in range(len(shapes))]
    node = helper.make_node("Einsum", names, ["y"], equation=equation)
    graph = helper.make_graph(
        [node],
        "einsum",
        [
            helper.make_tensor_value_info(n, TensorProto.FLOAT, s)
            for n, s in zip(names, shapes, strict=True)
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize("equation", CASES)
def test_einsum_matches_numpy(equation: str) -> None:
    shapes = CASES[equation]
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    executable = dnnc.compile(dnnc.import_onnx(einsum_model(equation, shapes)))
    (got,) = executable.run(arrays)
    np.testing.assert_allclose(got, np.einsum(equation, *arrays), rtol=1e-4, atol=1e-4)


def test_a_diagonal_is_refused_by_name() -> None:
    with pytest.raises(dnnc.ModelError, match="repeats a label"):
        dnnc.import_onnx(einsum_model("ii->i", [(3, 3)]))
