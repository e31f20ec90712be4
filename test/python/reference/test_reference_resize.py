"""dnn.resize's reference kernel against torch.nn.functional.interpolate, for the modes both
define the same way, and ONNX's own formulas for the rest (onnx.reference)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

from dnnc import reference

SRC = np.random.default_rng(0).standard_normal((2, 3, 5, 7)).astype(np.float32)


@pytest.mark.parametrize(
    "size, mode, coordinate_mode, torch_options",
    [
        ((9, 11), "linear", "half_pixel", {"mode": "bilinear", "align_corners": False}),
        ((9, 11), "linear", "align_corners", {"mode": "bilinear", "align_corners": True}),
        ((3, 4), "linear", "pytorch_half_pixel", {"mode": "bilinear", "align_corners": False}),
        ((10, 14), "nearest", "asymmetric", {"mode": "nearest"}),
        ((9, 11), "cubic", "half_pixel", {"mode": "bicubic", "align_corners": False}),
    ],
)
def test_resize_matches_torch(
    size: tuple[int, int], mode: str, coordinate_mode: str, torch_options: dict[str, object]
) -> None:
    sizes = (2, 3, *size)
    scales = [o / i for o, i in zip(sizes, SRC.shape, strict=True)]
    got = reference.resize(
        SRC,
        sizes=sizes,
        scales=scales,
        mode=mode,
        coordinate_mode=coordinate_mode,
        nearest_mode="floor",
    )
    expected = F.interpolate(torch.from_numpy(SRC), size=size, **torch_options).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "nearest_mode", ["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"]
)
@pytest.mark.parametrize("coordinate_mode", ["half_pixel", "asymmetric", "align_corners"])
def test_nearest_matches_onnx(nearest_mode: str, coordinate_mode: str) -> None:
    sizes = [2, 3, 8, 5]
    node = helper.make_node(
        "Resize",
        ["x", "", "", "sizes"],
        ["y"],
        mode="nearest",
        coordinate_transformation_mode=coordinate_mode,
        nearest_mode=nearest_mode,
    )
    graph = helper.make_graph(
        [node],
        "g",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, SRC.shape),
            helper.make_tensor_value_info("sizes", TensorProto.INT64, [4]),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
    (expected,) = ReferenceEvaluator(model).run(None, {"x": SRC, "sizes": np.array(sizes)})
    scales = [o / i for o, i in zip(sizes, SRC.shape, strict=True)]
    got = reference.resize(
        SRC,
        sizes=sizes,
        scales=scales,
        mode="nearest",
        coordinate_mode=coordinate_mode,
        nearest_mode=nearest_mode,
    )
    np.testing.assert_array_equal(got, expected)
