"""bf16 rounding and the casts' saturation and rounding rules."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
import torch

from dnnc import reference
from dnnc.core.kinds import DataType

SPECIAL_BITS = np.array(
    [
        0x00000000,
        0x80000000,
        0x7F800000,
        0xFF800000,  # +-0, +-inf
        0x7F7FFFFF,
        0xFF7FFFFF,  # +-max float: rounds up to +-inf
        0x00000001,
        0x007FFFFF,
        0x00800000,  # subnormals, smallest normal
        0x3F808000,
        0x3F818000,  # ties: to even below, to even above
        0x3F807FFF,
        0x3F808001,  # just below and above a tie
        0x7FC00000,
        0x7F800001,
        0xFFFFFFFF,  # quiet NaN, signalling NaN, NaN with payload
    ],
    dtype=np.uint32,
)


def _bits_under_test(rng: np.random.Generator) -> np.ndarray:
    random_bits = rng.integers(0, 2**32, size=200_000, dtype=np.uint64).astype(np.uint32)
    return np.concatenate([SPECIAL_BITS, random_bits]).view(np.float32)


def _assert_same_bf16(actual: np.ndarray, expected: np.ndarray) -> None:
    """Bit-equal except that any NaN matches any NaN (payloads are not part of the rule)."""
    nan = np.isnan(expected)
    np.testing.assert_array_equal(np.isnan(actual), nan)
    np.testing.assert_array_equal(actual.view(np.uint32)[~nan], expected.view(np.uint32)[~nan])


def test_round_to_bf16_matches_ml_dtypes_bitwise(rng: np.random.Generator) -> None:
    x = _bits_under_test(rng)
    with np.errstate(invalid="ignore"):  # ml_dtypes warns on NaN inputs
        expected = x.astype(ml_dtypes.bfloat16).astype(np.float32)
    _assert_same_bf16(reference.round_to_bf16(x), expected)


def test_round_to_bf16_matches_torch_bitwise(rng: np.random.Generator) -> None:
    x = _bits_under_test(rng)
    expected = torch.from_numpy(x).to(torch.bfloat16).float().numpy()
    _assert_same_bf16(reference.round_to_bf16(x), expected)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1.0 + 2.0**-8, 1.0),  # tie between 1 and 1 + 2**-7: to the even mantissa
        (1.0 + 3 * 2.0**-8, 1.0 + 2.0**-6),  # tie between odd and even: up
        (1.0 + 2.0**-8 + 2.0**-20, 1.0 + 2.0**-7),  # past the tie: up
        (-(1.0 + 2.0**-8), -1.0),
    ],
)
def test_round_to_bf16_ties_to_even(value: float, expected: float) -> None:
    assert reference.round_to_bf16(np.array([value], np.float32))[0] == np.float32(expected)


def test_round_to_bf16_keeps_shape_and_nan_quiet() -> None:
    x = np.array([[np.nan, 1.0], [2.0, 0x7F800001]], np.float32)
    x[1, 1] = np.array([0x7F800001], np.uint32).view(np.float32)[0]  # signalling NaN
    rounded = reference.round_to_bf16(x)
    assert rounded.shape == (2, 2)
    assert rounded.view(np.uint32)[1, 1] & 0x00400000  # made quiet, not turned into inf
    assert np.isnan(rounded[1, 1])


@pytest.mark.parametrize(
    ("dtype", "values", "expected"),
    [
        (
            "s8",
            [0.5, 1.5, 2.5, -0.5, -1.5, 126.5, 127.5, 1e9, -129.0, -1e9],
            [0, 2, 2, 0, -2, 126, 127, 127, -128, -128],
        ),
        ("u8", [-3.0, -0.5, 0.5, 254.5, 255.5, 300.0], [0, 0, 0, 254, 255, 255]),
        ("s32", [2.5, -2.5, 3e9, -3e9], [2, -2, 2**31 - 1, -(2**31)]),
    ],
)
def test_integer_results_saturate_then_round_half_to_even(
    dtype: str, values: list[float], expected: list[int]
) -> None:
    """Computed results (a convolution writing s8) convert as oneDNN's destinations do; a
    dnn.cast follows ONNX instead (test_cast_truncates_and_wraps_as_onnx_runtime)."""
    result = reference.to_dtype(np.array(values, np.float64), dtype)
    np.testing.assert_array_equal(result, np.array(expected, dtype=result.dtype))
    assert result.dtype == np.dtype({"s8": np.int8, "u8": np.uint8, "s32": np.int32}[dtype])


def test_integer_results_of_nan_are_zero() -> None:
    np.testing.assert_array_equal(reference.to_dtype(np.array([np.nan]), "s8"), [0])


@pytest.mark.parametrize("dtype", ["s8", "u8", "s32", "s64"])
def test_integer_results_as_clip_of_nan_to_num(dtype: str) -> None:
    """to_dtype's saturation (maximum/minimum, NaN then 0) gives what the formula it replaced
    gives, np.rint(np.clip(np.nan_to_num(v, nan=0), low, high)), on halves, extremes,
    infinities and NaN: differential."""
    numpy_type = DataType(dtype).numpy
    info = np.iinfo(numpy_type)
    low, high = (np.nextafter(float(b), 0.0) for b in (info.min, info.max))
    edges = [info.min, info.max, float(info.min) - 0.5, float(info.max) + 0.5, 2.0**63, -(2.0**64)]
    special = [np.nan, np.inf, -np.inf, -0.0, 0.5, 1.5, -2.5, 1e300, -1e300]
    rng = np.random.default_rng(0)
    values = np.concatenate(
        [np.array(edges + special, np.float64), rng.normal(0, float(info.max), 200).round(1)]
    ).reshape(1, -1)
    wanted = np.rint(np.clip(np.nan_to_num(values, nan=0.0), low, high)).astype(numpy_type)
    got = reference.to_dtype(values, dtype)
    assert got.dtype == numpy_type and got.shape == values.shape
    np.testing.assert_array_equal(got, wanted)
    for value in (np.nan, -2.5, -1e300):  # rank 0
        assert reference.to_dtype(np.array(value), dtype) == wanted[0, special.index(value) + 6]


def test_cast_truncates_and_wraps_as_onnx_runtime() -> None:
    """The values ONNX Runtime gives on x86-64 (test_onnx_ops compares them live)."""
    x = np.array([-2.7, 2.7, 300.0, -300.0, np.nan, 1e10], np.float32)
    np.testing.assert_array_equal(reference.cast(x, dtype="s8"), [-2, 2, 44, -44, 0, 0])
    np.testing.assert_array_equal(reference.cast(x, dtype="u8"), [254, 2, 44, 212, 0, 0])
    np.testing.assert_array_equal(
        reference.cast(x, dtype="s32"), [-2, 2, 300, -300, -(2**31), -(2**31)]
    )
    np.testing.assert_array_equal(reference.cast(np.array([300], np.int32), dtype="s8"), [44])


def test_cast_int_to_int_wraps() -> None:
    """Two's complement, as C and ONNX Runtime (oneDNN's reorder would saturate)."""
    src = np.array([-200, -1, 0, 100, 200, 70000], np.int32)
    np.testing.assert_array_equal(reference.cast(src, dtype="u8"), [56, 255, 0, 100, 200, 112])
    np.testing.assert_array_equal(reference.cast(src, dtype="s8"), [56, -1, 0, 100, -56, 112])


@pytest.mark.parametrize("dtype", ["bf16", "f16"])
def test_cast_f32_to_half_types_rounds_like_ml_dtypes_and_numpy(
    rng: np.random.Generator, dtype: str
) -> None:
    x = rng.normal(0.0, 100.0, size=1000).astype(np.float32)
    target = {"bf16": ml_dtypes.bfloat16, "f16": np.float16}[dtype]
    result = reference.cast(x, dtype=dtype)
    assert result.dtype == np.dtype(target)
    np.testing.assert_array_equal(result.view(np.uint16), x.astype(target).view(np.uint16))


def test_cast_half_types_to_f32_is_exact(rng: np.random.Generator) -> None:
    x = rng.normal(size=100).astype(ml_dtypes.bfloat16)
    np.testing.assert_array_equal(reference.cast(x, dtype=np.float32), x.astype(np.float32))


def test_cast_accepts_every_spelling_of_the_type() -> None:
    x = np.array([1.25], np.float32)
    for spelling in ("f16", DataType.F16, np.float16, np.dtype(np.float16)):
        assert reference.cast(x, dtype=spelling).dtype == np.float16
