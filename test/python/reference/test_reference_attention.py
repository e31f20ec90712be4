"""sdpa against torch's scaled_dot_product_attention: grouped heads, masks, the causal
diagonal of a query block at the end of the keys, and the NaN guard."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from dnnc import reference


def _torch(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, mask: np.ndarray | None, scale: float
) -> np.ndarray:
    """torch's SDPA in float64 with an explicit additive mask (its own is_causal aligns the
    diagonal top-left, dnn.sdpa bottom-right as a KV cache needs)."""
    tensors = [torch.from_numpy(a.astype(np.float64)) for a in (q, k, v)]
    attn_mask = None if mask is None else torch.from_numpy(mask.astype(np.float64))
    result = F.scaled_dot_product_attention(
        *tensors, attn_mask=attn_mask, scale=scale, enable_gqa=True
    )
    return result.numpy()


@pytest.mark.parametrize(
    ("heads", "kv_heads", "queries", "keys"), [(2, 2, 5, 5), (4, 2, 3, 7), (4, 1, 1, 9)]
)
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("padded", [False, True], ids=["no_mask", "padding_mask"])
def test_sdpa_matches_torch(
    rng: np.random.Generator,
    heads: int,
    kv_heads: int,
    queries: int,
    keys: int,
    causal: bool,
    padded: bool,
) -> None:
    q = rng.standard_normal((2, heads, queries, 8)).astype(np.float32)
    k = rng.standard_normal((2, kv_heads, keys, 8)).astype(np.float32)
    v = rng.standard_normal((2, kv_heads, keys, 4)).astype(np.float32)
    mask = None
    if padded:  # the first key of the second sequence is padding, as transformers masks it
        mask = np.zeros((2, 1, 1, keys), np.float32)
        mask[1, ..., 0] = np.finfo(np.float32).min
    full = np.zeros((queries, keys)) if mask is None else mask.astype(np.float64)
    if causal:
        j, i = np.meshgrid(np.arange(keys), np.arange(queries))
        full = full + np.where(j > i + keys - queries, -np.inf, 0.0)
    result = reference.sdpa(q, k, v, mask, scale=0.3, causal=causal)
    expected = _torch(q, k, v, None if not (causal or padded) else full, 0.3)
    assert result.dtype == np.float32
    np.testing.assert_allclose(result, expected, rtol=1e-5, atol=1e-6)


def test_sdpa_nan_to_zero_zeroes_fully_masked_rows(rng: np.random.Generator) -> None:
    q, k, v = (rng.standard_normal((1, 2, 3, 4)).astype(np.float32) for _ in range(3))
    mask = np.zeros((1, 1, 3, 3), np.float32)
    mask[..., 1, :] = -np.inf  # the second query sees no key
    plain = reference.sdpa(q, k, v, mask, scale=0.5)
    guarded = reference.sdpa(q, k, v, mask, scale=0.5, nan_to_zero=True)
    assert np.isnan(plain[:, :, 1]).all()
    np.testing.assert_array_equal(guarded[:, :, 1], 0.0)
    np.testing.assert_array_equal(guarded[:, :, [0, 2]], plain[:, :, [0, 2]])
