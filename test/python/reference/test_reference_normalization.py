"""batch_norm, layer_norm, lrn, softmax, log_softmax and reduce against torch."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from reference_helpers import FLOAT_DTYPES, assert_close, random_array, to_torch, torch_reference

from dnnc import reference
from dnnc.core.kinds import LrnKind, ReduceKind


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(2, 3), (2, 3, 5), (2, 4, 3, 5)])
def test_batch_norm_matches_torch_inference(
    rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype
) -> None:
    src = random_array(rng, shape, dtype)
    channels = (shape[1],)
    scale, shift, mean = (random_array(rng, channels, dtype) for _ in range(3))
    variance = random_array(rng, channels, dtype, 0.1, 2.0)
    result = reference.batch_norm(src, scale, shift, mean, variance, epsilon=1e-3)
    expected = torch_reference(
        lambda x, m, v, w, b: F.batch_norm(x, m, v, w, b, training=False, eps=1e-3),
        src,
        mean,
        variance,
        scale,
        shift,
        dtype=dtype,
    )
    assert_close(result, expected)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
@pytest.mark.parametrize("affine", [False, True])
@pytest.mark.parametrize("shape", [(4, 16), (2, 3, 7)])
def test_layer_norm_matches_torch(
    rng: np.random.Generator, shape: tuple[int, ...], affine: bool, dtype: np.dtype
) -> None:
    src = random_array(rng, shape, dtype, -3.0, 5.0)
    scale = random_array(rng, shape[-1:], dtype) if affine else None
    shift = random_array(rng, shape[-1:], dtype) if affine else None
    result = reference.layer_norm(src, scale, shift, epsilon=1e-5)
    torch_affine = (to_torch(scale), to_torch(shift)) if affine else (None, None)
    expected = F.layer_norm(to_torch(src), shape[-1:], *torch_affine, eps=1e-5)
    assert_close(result, expected.numpy().astype(dtype))


def _onednn_lrn_loops(
    src: np.ndarray, kind: LrnKind, size: int, alpha: float, beta: float, k: float
) -> np.ndarray:
    """oneDNN's ref_lrn written out with loops: window [i - h, i + h], h = (size - 1) // 2,
    clipped to the tensor; divided by size (across) or size * size (within)."""
    x = src.astype(np.float64)
    n, c, height, width = x.shape
    half = (size - 1) // 2
    d = np.empty_like(x)
    for b, ch, i, j in itertools.product(range(n), range(c), range(height), range(width)):
        if kind is LrnKind.ACROSS_CHANNELS:
            window = x[b, max(ch - half, 0) : ch + half + 1, i, j]
            summands = size
        else:
            window = x[b, ch, max(i - half, 0) : i + half + 1, max(j - half, 0) : j + half + 1]
            summands = size * size
        d[b, ch, i, j] = x[b, ch, i, j] / (k + alpha * np.sum(window**2) / summands) ** beta
    return d.astype(src.dtype)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
@pytest.mark.parametrize("size", [1, 3, 5])
def test_lrn_across_channels_matches_torch_for_odd_sizes(
    rng: np.random.Generator, size: int, dtype: np.dtype
) -> None:
    src = random_array(rng, (2, 7, 3, 4), dtype, -3.0, 3.0)
    result = reference.lrn(src, kind="across_channels", size=size, alpha=0.1, beta=0.75, k=2.0)
    expected = torch_reference(
        lambda x: F.local_response_norm(x, size, alpha=0.1, beta=0.75, k=2.0), src, dtype=dtype
    )
    assert_close(result, expected)


@pytest.mark.parametrize("kind", list(LrnKind))
@pytest.mark.parametrize("size", [2, 3, 4, 5])
def test_lrn_is_onednns_definition(rng: np.random.Generator, kind: LrnKind, size: int) -> None:
    src = random_array(rng, (2, 6, 5, 4), np.dtype(np.float32), -3.0, 3.0)
    result = reference.lrn(src, kind=kind, size=size, alpha=0.3, beta=0.6, k=1.5)
    assert_close(result, _onednn_lrn_loops(src, kind, size, 0.3, 0.6, 1.5))


def test_lrn_differs_from_torch_for_even_sizes(rng: np.random.Generator) -> None:
    """torch's window for size 4 is [c-2, c+1]; oneDNN's is the symmetric [c-1, c+1]."""
    src = random_array(rng, (1, 6, 2, 2), np.dtype(np.float32), -3.0, 3.0)
    result = reference.lrn(src, kind="across_channels", size=4, alpha=0.5, beta=0.75, k=1.0)
    torch_lrn = F.local_response_norm(to_torch(src), 4, alpha=0.5, beta=0.75, k=1.0).numpy()
    assert not np.allclose(result, torch_lrn, rtol=1e-3)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
@pytest.mark.parametrize("axis", [0, 1, -1, -2])
@pytest.mark.parametrize("log", [False, True])
def test_softmax_matches_torch(
    rng: np.random.Generator, axis: int, log: bool, dtype: np.dtype
) -> None:
    src = random_array(rng, (3, 4, 5), dtype, -20.0, 20.0)
    kernel, torch_fn = (
        (reference.log_softmax, F.log_softmax) if log else (reference.softmax, F.softmax)
    )
    result = kernel(src, axis=axis)
    assert_close(result, torch_reference(lambda x: torch_fn(x, dim=axis), src, dtype=dtype))


def test_softmax_rejects_an_axis_out_of_range() -> None:
    with pytest.raises(ValueError, match="out of range"):
        reference.softmax(np.zeros((2, 3), np.float32), axis=2)


def _torch_prod(x: torch.Tensor, dims: tuple[int, ...], keep: bool) -> torch.Tensor:
    """torch.prod over several dims (it takes one): innermost first, so indices stay valid."""
    for dim in sorted(dims, reverse=True):
        x = torch.prod(x, dim, keepdim=keep)
    return x


TORCH_REDUCTIONS = {
    ReduceKind.SUM: lambda x, dims, keep: torch.sum(x, dims, keepdim=keep),
    ReduceKind.MEAN: lambda x, dims, keep: torch.mean(x, dims, keepdim=keep),
    ReduceKind.MAX: lambda x, dims, keep: torch.amax(x, dims, keepdim=keep),
    ReduceKind.MIN: lambda x, dims, keep: torch.amin(x, dims, keepdim=keep),
    ReduceKind.MUL: lambda x, dims, keep: _torch_prod(x, dims, keep),
}


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
@pytest.mark.parametrize("keep_dims", [True, False])
@pytest.mark.parametrize("axes", [(1,), (-1,), (0, 2), (1, 2)])
@pytest.mark.parametrize("kind", list(ReduceKind))
def test_reduce_matches_torch(
    rng: np.random.Generator,
    kind: ReduceKind,
    axes: tuple[int, ...],
    keep_dims: bool,
    dtype: np.dtype,
) -> None:
    src = random_array(rng, (2, 3, 4), dtype, 0.5, 1.5)
    result = reference.reduce(src, kind=kind, axes=axes, keep_dims=keep_dims)
    assert result.shape == np.sum(np.zeros((2, 3, 4)), axis=axes, keepdims=keep_dims).shape
    dims = tuple(sorted(a % 3 for a in axes))
    expected = torch_reference(
        lambda x: TORCH_REDUCTIONS[kind](x, dims, keep_dims), src, dtype=dtype
    )
    assert_close(result, expected.reshape(result.shape))
