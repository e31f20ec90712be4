"""dnnc.core.arrays.transposed is np.transpose copied C-contiguous, element for element, for
every permutation of small and blocked shapes (a result's last dim larger than one block and
not a multiple of it included) and element types."""

from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np
import pytest

from dnnc.core.arrays import TRANSPOSE_BLOCK, transposed

SHAPES = [(5,), (3, 7), (2 * TRANSPOSE_BLOCK + 3, 5), (3, 2 * TRANSPOSE_BLOCK + 1, 4, 2)]
DTYPES = [np.float32, np.int64, ml_dtypes.bfloat16]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_transposed_is_numpys_transpose(shape: tuple[int, ...], dtype: type) -> None:
    array = np.random.default_rng(0).standard_normal(shape).astype(dtype) * 100
    for permutation in itertools.permutations(range(len(shape))):
        result = transposed(array, permutation)
        assert result.flags.c_contiguous and result.dtype == array.dtype
        np.testing.assert_array_equal(result, np.transpose(array, permutation))
