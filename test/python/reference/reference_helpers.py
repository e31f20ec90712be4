"""Helpers of the reference-kernel tests: random data, conversion to torch, tolerances.

Tolerances (``assert_close``), chosen per result element type:
* f32: rtol 1e-5, atol 1e-5 -- torch computes in f32, the kernels in f64 then round once.
* bf16: rtol 2**-7, atol 1e-2 -- both sides round the same f32-accurate value to bf16, so
  they differ by at most one bf16 ulp (<= 2**-7 relative); atol covers results that cancel
  to near zero.
* f16: rtol 2**-10, atol 1e-3 -- likewise one f16 ulp.
* integer types: exact.
"""

from __future__ import annotations

from collections.abc import Callable

import ml_dtypes
import numpy as np
import torch

TOLERANCES: dict[np.dtype, tuple[float, float]] = {
    np.dtype(np.float32): (1e-5, 1e-5),
    np.dtype(ml_dtypes.bfloat16): (2.0**-7, 1e-2),
    np.dtype(np.float16): (2.0**-10, 1e-3),
}

TORCH_DTYPES: dict[np.dtype, torch.dtype] = {
    np.dtype(np.float32): torch.float32,
    np.dtype(ml_dtypes.bfloat16): torch.bfloat16,
    np.dtype(np.float16): torch.float16,
}

FLOAT_DTYPES = [np.dtype(np.float32), np.dtype(ml_dtypes.bfloat16), np.dtype(np.float16)]


def random_array(
    rng: np.random.Generator,
    shape: tuple[int, ...],
    dtype: np.dtype = FLOAT_DTYPES[0],
    low: float = -2.0,
    high: float = 2.0,
) -> np.ndarray:
    """Uniform values in [low, high), rounded to ``dtype``."""
    return rng.uniform(low, high, size=shape).astype(np.float32).astype(dtype)


def to_torch(array: np.ndarray) -> torch.Tensor:
    """The array as an f32 torch tensor (exact for every float type we test)."""
    return torch.from_numpy(np.asarray(array).astype(np.float32))


def torch_result(tensor: torch.Tensor, dtype: np.dtype) -> np.ndarray:
    """An f32 torch result rounded to ``dtype`` the way torch rounds (nearest even)."""
    if dtype in TORCH_DTYPES:
        tensor = tensor.to(TORCH_DTYPES[dtype]).float()
    return tensor.detach().numpy().astype(dtype)


def assert_close(actual: np.ndarray, expected: np.ndarray) -> None:
    """Same dtype and shape, values within the dtype's tolerance (module docstring)."""
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    if actual.dtype in TOLERANCES:
        rtol, atol = TOLERANCES[actual.dtype]
        np.testing.assert_allclose(
            actual.astype(np.float64), expected.astype(np.float64), rtol=rtol, atol=atol
        )
    else:
        np.testing.assert_array_equal(actual, expected)


def torch_reference(
    fn: Callable[..., torch.Tensor], *arrays: np.ndarray, dtype: np.dtype
) -> np.ndarray:
    """``fn`` on the arrays as f32 torch tensors, its result rounded to ``dtype``."""
    return torch_result(fn(*(to_torch(a) for a in arrays)), dtype)
