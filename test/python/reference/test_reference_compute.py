"""conv2d, pool, matmul and inner_product against torch."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from reference_helpers import FLOAT_DTYPES, assert_close, random_array, to_torch, torch_result

from dnnc import reference
from dnnc.core.kinds import PoolKind

# (src shape, wei shape, strides, pads_begin, pads_end, dilations, groups)
CONV_CASES = [
    ((1, 3, 7, 7), (4, 3, 3, 3), (1, 1), (0, 0), (0, 0), (1, 1), 1),
    ((2, 4, 8, 9), (6, 4, 3, 3), (1, 1), (1, 1), (1, 1), (1, 1), 1),
    ((1, 4, 9, 8), (4, 2, 3, 2), (2, 1), (1, 0), (2, 1), (1, 1), 2),  # asymmetric pads
    ((1, 6, 10, 10), (6, 1, 3, 3), (1, 2), (2, 2), (2, 2), (2, 2), 6),  # depthwise, dilated
    ((2, 2, 5, 6), (3, 2, 1, 1), (2, 2), (0, 0), (0, 1), (1, 1), 1),  # 1x1 strided
    ((1, 8, 11, 7), (4, 4, 3, 3), (3, 2), (0, 2), (1, 0), (2, 1), 2),
]


def _torch_pad(
    x: torch.Tensor, begin: tuple[int, int], end: tuple[int, int], value: float
) -> torch.Tensor:
    """Spatial padding of an NCHW tensor; F.pad takes (W begin, W end, H begin, H end)."""
    return F.pad(x, (begin[1], end[1], begin[0], end[0]), value=value)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
@pytest.mark.parametrize("with_bias", [False, True])
@pytest.mark.parametrize(
    ("src_shape", "wei_shape", "strides", "pads_begin", "pads_end", "dilations", "groups"),
    CONV_CASES,
)
def test_conv2d_matches_torch(
    rng: np.random.Generator,
    src_shape: tuple[int, ...],
    wei_shape: tuple[int, ...],
    strides: tuple[int, int],
    pads_begin: tuple[int, int],
    pads_end: tuple[int, int],
    dilations: tuple[int, int],
    groups: int,
    with_bias: bool,
    dtype: np.dtype,
) -> None:
    src = random_array(rng, src_shape, dtype)
    wei = random_array(rng, wei_shape, dtype)
    bias = random_array(rng, wei_shape[:1], dtype) if with_bias else None
    result = reference.conv2d(
        src,
        wei,
        bias,
        strides=strides,
        pads_begin=pads_begin,
        pads_end=pads_end,
        dilations=dilations,
        groups=groups,
    )
    expected = F.conv2d(
        _torch_pad(to_torch(src), pads_begin, pads_end, 0.0),
        to_torch(wei),
        None if bias is None else to_torch(bias),
        stride=strides,
        dilation=dilations,
        groups=groups,
    )
    assert_close(result, torch_result(expected, dtype))


# (src shape, wei shape [O, C/groups, KH, KW], strides, padding, output_padding, dilations,
# groups): torch's symmetric padding p and output_padding o are pads_begin p, pads_end p - o
DECONV_CASES = [
    ((1, 3, 5, 5), (4, 3, 3, 3), (1, 1), (0, 0), (0, 0), (1, 1), 1),
    ((2, 4, 4, 5), (6, 4, 4, 4), (2, 2), (1, 1), (0, 0), (1, 1), 1),
    ((1, 4, 5, 4), (6, 2, 3, 3), (2, 3), (1, 0), (1, 2), (1, 1), 2),  # output_padding
    ((1, 6, 4, 4), (6, 1, 3, 3), (2, 2), (2, 1), (1, 0), (2, 3), 6),  # depthwise, dilated
]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
@pytest.mark.parametrize(
    ("src_shape", "wei_shape", "strides", "padding", "output_padding", "dilations", "groups"),
    DECONV_CASES,
)
def test_deconv2d_matches_torch_conv_transpose(
    rng: np.random.Generator,
    src_shape: tuple[int, ...],
    wei_shape: tuple[int, ...],
    strides: tuple[int, int],
    padding: tuple[int, int],
    output_padding: tuple[int, int],
    dilations: tuple[int, int],
    groups: int,
    dtype: np.dtype,
) -> None:
    src = random_array(rng, src_shape, dtype)
    wei = random_array(rng, wei_shape, dtype)
    bias = random_array(rng, wei_shape[:1], dtype)
    result = reference.deconv2d(
        src,
        wei,
        bias,
        strides=strides,
        pads_begin=padding,
        pads_end=tuple(p - o for p, o in zip(padding, output_padding)),
        dilations=dilations,
        groups=groups,
    )
    out_channels, per_group, kh, kw = wei_shape
    torch_weights = (  # torch's [C, O/groups, KH, KW]
        to_torch(wei)
        .reshape(groups, out_channels // groups, per_group, kh, kw)
        .transpose(1, 2)
        .reshape(groups * per_group, out_channels // groups, kh, kw)
    )
    expected = F.conv_transpose2d(
        to_torch(src),
        torch_weights,
        to_torch(bias),
        stride=strides,
        padding=padding,
        output_padding=output_padding,
        groups=groups,
        dilation=dilations,
    )
    assert_close(result, torch_result(expected, dtype))


def test_deconv2d_is_the_adjoint_of_conv2d(rng: np.random.Generator) -> None:
    """<conv2d(x, w), y> = <x, deconv2d(y, w')> with the same window (asymmetric pads too),
    w' being w [O, C/groups, ...] with the channel axes swapped per group."""
    window = {
        "strides": (2, 3),
        "pads_begin": (1, 0),
        "pads_end": (2, 1),
        "dilations": (2, 1),
        "groups": 2,
    }
    x = rng.standard_normal((2, 4, 12, 12)).astype(np.float32)  # the strides fit exactly
    w = rng.standard_normal((6, 2, 3, 4)).astype(np.float32)
    shape = reference.conv2d(x, w, **window).shape  # type: ignore[arg-type]
    y = rng.standard_normal(shape).astype(np.float32)
    swapped = w.reshape(2, 3, 2, 3, 4).transpose(0, 2, 1, 3, 4).reshape(4, 3, 3, 4)
    back = reference.deconv2d(y, swapped, **window)  # type: ignore[arg-type]
    assert back.shape == x.shape
    forward = reference.conv2d(x, w, **window)  # type: ignore[arg-type]
    assert np.isclose(np.vdot(forward, y), np.vdot(x, back), rtol=1e-5)


def test_conv2d_int8_saturates_to_the_src_type() -> None:
    src = np.full((1, 1, 2, 2), 100, np.int8)
    wei = np.ones((1, 1, 2, 2), np.int8)
    np.testing.assert_array_equal(reference.conv2d(src, wei), np.full((1, 1, 1, 1), 127, np.int8))


def test_conv2d_rejects_channels_that_do_not_fit_groups() -> None:
    with pytest.raises(ValueError, match="groups=2"):
        reference.conv2d(
            np.zeros((1, 3, 4, 4), np.float32), np.zeros((2, 3, 1, 1), np.float32), groups=2
        )


# (src shape, kernel, strides, pads_begin, pads_end, dilations)
POOL_CASES = [
    ((1, 2, 6, 6), (2, 2), (2, 2), (0, 0), (0, 0), (1, 1)),
    ((2, 3, 7, 8), (3, 3), (1, 1), (1, 1), (1, 1), (1, 1)),
    ((1, 2, 7, 7), (3, 2), (2, 1), (1, 0), (2, 1), (1, 1)),  # asymmetric pads
    ((1, 2, 9, 9), (3, 3), (2, 2), (0, 1), (1, 0), (1, 1)),
    ((1, 3, 10, 9), (2, 3), (1, 2), (2, 1), (1, 2), (2, 3)),  # dilated
]


def _torch_pool(
    kind: PoolKind,
    x: torch.Tensor,
    kernel: tuple[int, int],
    strides: tuple[int, int],
    pads_begin: tuple[int, int],
    pads_end: tuple[int, int],
    dilations: tuple[int, int],
) -> torch.Tensor:
    """torch's pooling on explicitly padded input (torch pads only symmetrically itself);
    window sums as a depthwise convolution with ones, since avg_pool2d has no dilation."""
    if kind is PoolKind.MAX:
        padded = _torch_pad(x, pads_begin, pads_end, -torch.inf)
        return F.max_pool2d(padded, kernel, strides, dilation=dilations)

    def window_sums(image: torch.Tensor) -> torch.Tensor:
        ones = torch.ones(image.shape[1], 1, *kernel)
        padded = _torch_pad(image, pads_begin, pads_end, 0.0)
        return F.conv2d(padded, ones, stride=strides, dilation=dilations, groups=image.shape[1])

    if kind is PoolKind.AVG_INCLUDE_PAD:
        return window_sums(x) / float(np.prod(kernel))
    return window_sums(x) / window_sums(torch.ones_like(x[:1, :1]))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
@pytest.mark.parametrize("kind", list(PoolKind))
@pytest.mark.parametrize(
    ("src_shape", "kernel", "strides", "pads_begin", "pads_end", "dilations"), POOL_CASES
)
def test_pool_matches_torch_on_padded_input(
    rng: np.random.Generator,
    src_shape: tuple[int, ...],
    kernel: tuple[int, int],
    strides: tuple[int, int],
    pads_begin: tuple[int, int],
    pads_end: tuple[int, int],
    dilations: tuple[int, int],
    kind: PoolKind,
    dtype: np.dtype,
) -> None:
    src = random_array(rng, src_shape, dtype, -3.0, -1.0)  # all negative: padding must not win
    result = reference.pool(
        src,
        kind=kind,
        kernel=kernel,
        strides=strides,
        pads_begin=pads_begin,
        pads_end=pads_end,
        dilations=dilations,
    )
    expected = _torch_pool(kind, to_torch(src), kernel, strides, pads_begin, pads_end, dilations)
    assert_close(result, torch_result(expected, dtype))


@pytest.mark.parametrize(
    ("kind", "count_include_pad"),
    [(PoolKind.AVG_INCLUDE_PAD, True), (PoolKind.AVG_EXCLUDE_PAD, False)],
)
def test_avg_pool_matches_torch_count_include_pad(
    rng: np.random.Generator, kind: PoolKind, count_include_pad: bool
) -> None:
    src = random_array(rng, (2, 3, 7, 6))
    result = reference.pool(
        src, kind=kind, kernel=(3, 3), strides=(2, 2), pads_begin=(1, 1), pads_end=(1, 1)
    )
    expected = F.avg_pool2d(to_torch(src), 3, 2, padding=1, count_include_pad=count_include_pad)
    assert_close(result, expected.numpy())


def test_max_pool_dilated_matches_torch(rng: np.random.Generator) -> None:
    src = random_array(rng, (1, 2, 9, 10))
    result = reference.pool(
        src,
        kind="max",
        kernel=(2, 3),
        strides=(1, 2),
        pads_begin=(1, 1),
        pads_end=(1, 1),
        dilations=(2, 2),
    )
    expected = F.max_pool2d(to_torch(src), (2, 3), (1, 2), padding=1, dilation=2)
    assert_close(result, expected.numpy())


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
@pytest.mark.parametrize(
    ("lhs_shape", "rhs_shape", "bias_shape"),
    [
        ((3, 5), (5, 4), None),
        ((3, 5), (5, 4), (1, 4)),
        ((2, 3, 5), (2, 5, 4), (2, 3, 4)),
        ((2, 1, 3, 5), (4, 5, 6), None),  # batch dims broadcast to [2, 4]
        ((1, 3, 5), (3, 5, 2), (1, 1, 2)),
    ],
)
def test_matmul_matches_torch(
    rng: np.random.Generator,
    lhs_shape: tuple[int, ...],
    rhs_shape: tuple[int, ...],
    bias_shape: tuple[int, ...] | None,
    dtype: np.dtype,
) -> None:
    lhs, rhs = random_array(rng, lhs_shape, dtype), random_array(rng, rhs_shape, dtype)
    bias = None if bias_shape is None else random_array(rng, bias_shape, dtype)
    expected = torch.matmul(to_torch(lhs), to_torch(rhs))
    if bias is not None:
        expected = expected + to_torch(bias)
    assert_close(reference.matmul(lhs, rhs, bias), torch_result(expected, dtype))


def test_matmul_rejects_mismatched_k_and_a_bias_that_would_grow_the_result() -> None:
    with pytest.raises(ValueError, match="do not multiply"):
        reference.matmul(np.zeros((2, 3), np.float32), np.zeros((4, 2), np.float32))
    with pytest.raises(ValueError, match="does not broadcast"):
        reference.matmul(
            np.zeros((2, 3), np.float32),
            np.zeros((3, 4), np.float32),
            np.zeros((5, 1, 4), np.float32),
        )


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
@pytest.mark.parametrize(("src_shape", "outputs"), [((4, 7), 3), ((2, 3, 4, 5), 6)])
def test_inner_product_matches_torch_linear(
    rng: np.random.Generator, src_shape: tuple[int, ...], outputs: int, dtype: np.dtype
) -> None:
    src = random_array(rng, src_shape, dtype)
    wei = random_array(rng, (outputs, *src_shape[1:]), dtype)
    bias = random_array(rng, (outputs,), dtype)
    expected = F.linear(to_torch(src).flatten(1), to_torch(wei).flatten(1), to_torch(bias))
    assert_close(reference.inner_product(src, wei, bias), torch_result(expected, dtype))
