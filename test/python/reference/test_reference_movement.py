"""sum, concat, slice, reshape, transpose, reorder, layouts and top_k."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
import torch
from reference_helpers import FLOAT_DTYPES, assert_close, random_array, torch_reference

from dnnc import reference
from dnnc.core.layouts import parse_layout


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
def test_sum_scales_and_adds(rng: np.random.Generator, dtype: np.dtype) -> None:
    a, b, c = (random_array(rng, (2, 3, 4), dtype) for _ in range(3))
    result = reference.sum(a, b, c, scales=[0.5, -2.0, 1.0])
    expected = torch_reference(lambda x, y, z: 0.5 * x - 2.0 * y + z, a, b, c, dtype=dtype)
    assert_close(result, expected)
    assert_close(reference.sum(a, b), torch_reference(torch.add, a, b, dtype=dtype))


def test_sum_rejects_mismatched_shapes() -> None:
    with pytest.raises(ValueError, match="shapes"):
        reference.sum(np.zeros((2, 3), np.float32), np.zeros((3, 2), np.float32))


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_concat_along_axis(rng: np.random.Generator, axis: int) -> None:
    shapes = [[2, 3, 4], [2, 3, 4]]
    shapes[1][axis] = 5
    a, b = (random_array(rng, tuple(s)) for s in shapes)
    result = reference.concat(a, b, axis=axis)
    np.testing.assert_array_equal(
        result, torch.cat([torch.from_numpy(a), torch.from_numpy(b)], dim=axis).numpy()
    )


def test_slice_with_steps_matches_numpy_basic_indexing(rng: np.random.Generator) -> None:
    src = random_array(rng, (5, 6, 7))
    result = reference.slice(src, starts=[1, 0, 2], ends=[4, 6, 7], steps=[2, 1, 3])
    np.testing.assert_array_equal(result, src[1:4:2, 0:6, 2:7:3])
    assert result.shape == (2, 6, 2)  # ceil((end - start) / step)


def test_slice_rejects_out_of_range_bounds() -> None:
    with pytest.raises(ValueError, match="does not fit"):
        reference.slice(np.zeros((3, 3), np.float32), starts=[0, 2], ends=[3, 4])


def test_reshape_and_transpose(rng: np.random.Generator) -> None:
    src = random_array(rng, (2, 3, 4))
    np.testing.assert_array_equal(reference.reshape(src, shape=[6, 4]), src.reshape(6, 4))
    np.testing.assert_array_equal(
        reference.transpose(src, permutation=[2, 0, 1]),
        torch.from_numpy(src).permute(2, 0, 1).numpy(),
    )
    with pytest.raises(ValueError, match="elements"):
        reference.reshape(src, shape=[5, 5])


def test_reorder_is_the_identity_on_logical_values(rng: np.random.Generator) -> None:
    src = random_array(rng, (2, 3), np.dtype(ml_dtypes.bfloat16))
    result = reference.reorder(src)
    assert result is not src
    np.testing.assert_array_equal(result, src)


@pytest.mark.parametrize("layout", ["nhwc", "nChw8c", "nChw16c", "OIhw16i16o"])
def test_layout_round_trip_and_physical_placement(rng: np.random.Generator, layout: str) -> None:
    shape = (2, 20, 3, 5)
    logical = random_array(rng, shape)
    physical = reference.to_layout(logical, layout)
    assert physical.shape == parse_layout(layout).physical_shape(shape)
    np.testing.assert_array_equal(reference.from_layout(physical, layout, shape), logical)


def test_blocked_layout_places_elements_and_zero_padding() -> None:
    logical = np.arange(2 * 20 * 1 * 1, dtype=np.float32).reshape(2, 20, 1, 1)
    physical = reference.to_layout(logical, "nChw16c")  # [N, C/16, H, W, 16]
    assert physical.shape == (2, 2, 1, 1, 16)
    assert physical[1, 1, 0, 0, 3] == logical[1, 19, 0, 0]  # channel 19 = block 1, lane 3
    assert not physical[:, 1, :, :, 4:].any()  # channels 20..31 are padding


@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("axis", [-1, 0, 1])
@pytest.mark.parametrize("k", [1, 3, 6])
def test_top_k_matches_torch_without_ties(
    rng: np.random.Generator, k: int, axis: int, largest: bool
) -> None:
    src = rng.permutation(6 * 7 * 8).astype(np.float32).reshape(6, 7, 8)  # distinct values
    values, indices = reference.top_k(src, k=k, axis=axis, largest=largest)
    expected = torch.topk(torch.from_numpy(src), k, dim=axis, largest=largest, sorted=True)
    np.testing.assert_array_equal(values, expected.values.numpy())
    np.testing.assert_array_equal(indices, expected.indices.numpy())
    assert indices.dtype == np.int64 and values.dtype == src.dtype


def _onnx_top_k(row: np.ndarray, k: int, largest: bool) -> list[int]:
    """The ONNX rule written plainly: best value first, equal values by lower index."""
    return sorted(range(len(row)), key=lambda i: (-row[i] if largest else row[i], i))[:k]


@pytest.mark.parametrize("dtype", [np.float32, ml_dtypes.bfloat16, np.int8, np.uint8])
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("k", [0, 1, 4, 9, 16])
def test_top_k_breaks_ties_by_lower_index(
    rng: np.random.Generator, k: int, largest: bool, dtype: type
) -> None:
    src = rng.integers(0, 4, size=(5, 16)).astype(dtype)  # many ties
    values, indices = reference.top_k(src, k=k, largest=largest)
    expected = np.array([_onnx_top_k(row.astype(np.float64), k, largest) for row in src])
    np.testing.assert_array_equal(indices, expected.reshape(5, k))
    np.testing.assert_array_equal(values, np.take_along_axis(src, indices, axis=-1))


def test_top_k_unsorted_returns_the_same_set_in_index_order(rng: np.random.Generator) -> None:
    src = rng.integers(0, 5, size=(4, 12)).astype(np.float32)
    _, sorted_indices = reference.top_k(src, k=5)
    values, indices = reference.top_k(src, k=5, sorted=False)
    np.testing.assert_array_equal(indices, np.sort(sorted_indices, axis=-1))
    np.testing.assert_array_equal(values, np.take_along_axis(src, indices, axis=-1))


def test_top_k_rejects_k_larger_than_the_axis_and_nan() -> None:
    with pytest.raises(ValueError, match="out of range"):
        reference.top_k(np.zeros((2, 3), np.float32), k=4)
    with pytest.raises(ValueError, match="NaN"):
        reference.top_k(np.array([1.0, np.nan], np.float32), k=1)
