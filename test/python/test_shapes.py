"""dnnc.core.shapes against the shapes numpy and torch compute, plus dynamic dims and errors."""

import itertools
import re
from collections.abc import Callable

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from dnnc.core import shapes
from dnnc.core.kinds import BinaryAlg, BinaryPostOp, EltwiseAlg, EltwisePostOp, SumPostOp
from dnnc.core.shapes import DYNAMIC, ShapeError


def meta(*shape: int) -> torch.Tensor:
    """A tensor with a shape and no data (torch computes shapes only)."""
    return torch.empty(shape, device="meta")


CONV_GRID = list(
    itertools.product(
        (7, 10),  # input height (width is height + 3)
        (1, 3),  # kernel
        (1, 2),  # stride
        ((0, 0), (1, 2)),  # pads begin, end
        (1, 2),  # dilation
        (1, 2),  # groups
    )
)


@pytest.mark.parametrize(("size", "kernel", "stride", "pads", "dilation", "groups"), CONV_GRID)
def test_conv2d_matches_torch(
    size: int, kernel: int, stride: int, pads: tuple[int, int], dilation: int, groups: int
) -> None:
    src, wei = (2, 4, size, size + 3), (6, 4 // groups, kernel, kernel + 1)
    begin, end = pads
    padded = F.pad(meta(*src), (begin, end, begin, end))
    expected = F.conv2d(padded, meta(*wei), stride=stride, dilation=dilation, groups=groups)
    got = shapes.conv2d(
        src,
        wei,
        (6,),
        strides=(stride, stride),
        pads_begin=(begin, begin),
        pads_end=(end, end),
        dilations=(dilation, dilation),
        groups=groups,
    )
    assert got == tuple(expected.shape)


@pytest.mark.parametrize(("size", "kernel", "stride", "pads", "dilation", "_"), CONV_GRID)
def test_pool_matches_torch(
    size: int, kernel: int, stride: int, pads: tuple[int, int], dilation: int, _: int
) -> None:
    begin, end = pads
    src = (1, 3, size, size + 1)
    padded = F.pad(torch.zeros(src), (begin, end, begin, end))
    expected = F.max_pool2d(padded, (kernel, kernel + 1), stride=stride, dilation=dilation)
    got = shapes.pool(
        src,
        kernel=(kernel, kernel + 1),
        strides=(stride, stride),
        pads_begin=(begin, begin),
        pads_end=(end, end),
        dilations=(dilation, dilation),
    )
    assert got == tuple(expected.shape)


@pytest.mark.parametrize(
    ("lhs", "rhs"),
    [((4, 8), (8, 5)), ((3, 4, 8), (8, 5)), ((2, 1, 4, 8), (3, 8, 5)), ((4, 8), (6, 8, 5))],
)
def test_matmul_matches_numpy(lhs: tuple[int, ...], rhs: tuple[int, ...]) -> None:
    expected = (np.empty(lhs) @ np.empty(rhs)).shape
    assert shapes.matmul(lhs, rhs) == expected
    assert shapes.matmul(lhs, rhs, (1, expected[-1])) == expected


def test_inner_product_matches_torch_linear() -> None:
    src, wei = (2, 16, 4, 4), (10, 16, 4, 4)
    expected = F.linear(meta(*src).flatten(1), meta(*wei).flatten(1)).shape
    assert shapes.inner_product(src, wei, (10,)) == tuple(expected)


@pytest.mark.parametrize(
    ("lhs", "rhs"), [((2, 3), (3,)), ((2, 1, 5), (4, 1)), ((1,), (7, 1, 2)), ((), (2, 2))]
)
def test_binary_matches_numpy_broadcast(lhs: tuple[int, ...], rhs: tuple[int, ...]) -> None:
    assert shapes.binary(lhs, rhs) == np.broadcast_shapes(lhs, rhs)


@pytest.mark.parametrize("keep_dims", [True, False])
@pytest.mark.parametrize("axes", [(0,), (1, 3), (-1,), (0, -2)])
def test_reduce_matches_numpy(axes: tuple[int, ...], keep_dims: bool) -> None:
    src = (2, 3, 4, 5)
    expected = np.empty(src).sum(axis=axes, keepdims=keep_dims).shape
    assert shapes.reduce(src, axes=axes, keep_dims=keep_dims) == expected


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_concat_matches_numpy(axis: int) -> None:
    inputs = [(2, 3, 4), (2, 3, 4), (2, 3, 4)]
    expected = np.concatenate([np.empty(s) for s in inputs], axis=axis).shape
    assert shapes.concat(inputs, axis=axis) == expected


def test_slice_matches_numpy() -> None:
    src, starts, ends, steps = (5, 9, 7), (0, 2, 1), (5, 9, 6), (2, 3, 1)
    expected = np.empty(src)[tuple(slice(b, e, s) for b, e, s in zip(starts, ends, steps))].shape
    assert shapes.slice(src, starts=starts, ends=ends, steps=steps) == expected


def test_transpose_and_reshape_match_numpy() -> None:
    array = np.empty((2, 3, 4))
    assert shapes.transpose(array.shape, permutation=(2, 0, 1)) == array.transpose(2, 0, 1).shape
    assert shapes.reshape(array.shape, shape=(6, 4)) == array.reshape(6, 4).shape


@pytest.mark.parametrize("axis", [0, -1])
def test_top_k_matches_torch(axis: int) -> None:
    values, indices = torch.topk(torch.zeros(6, 10), 3, dim=axis)
    assert shapes.top_k((6, 10), k=3, axis=axis) == (tuple(values.shape), tuple(indices.shape))


def test_same_shape_ops_return_src() -> None:
    src = (2, 8, 4, 4)
    channel = (8,)
    assert shapes.batch_norm(src, channel, channel, channel, channel) == src
    assert shapes.layer_norm(src, (4,), (4,)) == src
    assert shapes.lrn(src, size=5) == src
    assert shapes.softmax(src, axis=-1) == shapes.log_softmax(src, axis=1) == src
    assert shapes.eltwise(src) == shapes.reorder(src) == shapes.cast(src) == src
    assert shapes.sum([src, src], scales=(1.0, 2.0)) == src


def test_dynamic_dims_propagate() -> None:
    assert shapes.conv2d((DYNAMIC, 3, DYNAMIC, 32), (8, 3, 3, 3), strides=(2, 2)) == (
        DYNAMIC,
        8,
        DYNAMIC,
        15,
    )
    # a dynamic channel count cannot be checked, and the result keeps the static output channels
    assert shapes.conv2d((1, DYNAMIC, 8, 8), (8, 3, 3, 3)) == (1, 8, 6, 6)
    assert shapes.matmul((DYNAMIC, 8), (8, 5)) == (DYNAMIC, 5)
    assert shapes.matmul((4, DYNAMIC), (7, 5)) == (4, 5)
    assert shapes.binary((DYNAMIC, 3), (1, 3)) == (DYNAMIC, 3)
    assert shapes.binary((1, 3), (DYNAMIC, 1)) == (DYNAMIC, 3)
    assert shapes.concat([(2, DYNAMIC), (2, 3)], axis=1) == (2, DYNAMIC)
    assert shapes.reduce((DYNAMIC, 4), axes=(1,), keep_dims=False) == (DYNAMIC,)
    assert shapes.slice((DYNAMIC, 4), starts=(0, 1), ends=(3, 4)) == (3, 3)
    assert shapes.pool((1, 4, DYNAMIC, 8), kernel=(2, 2), strides=(2, 2)) == (1, 4, DYNAMIC, 4)
    assert shapes.top_k((2, DYNAMIC), k=3) == ((2, 3), (2, 3))
    assert shapes.reshape((DYNAMIC, 4), shape=(DYNAMIC, 2, 2)) == (DYNAMIC, 2, 2)


def test_compatible_and_format() -> None:
    assert shapes.compatible((DYNAMIC, 3), (5, 3))
    assert not shapes.compatible((5, 3), (5, 4))
    assert not shapes.compatible((5,), (5, 1))
    assert shapes.format_shape((DYNAMIC, 3)) == "?x3"
    assert shapes.format_shape(()) == "scalar"


def test_post_ops_accept_onednn_broadcasts() -> None:
    dst = (1, 16, 8, 8)
    post_ops = [
        EltwisePostOp(EltwiseAlg.RELU),
        BinaryPostOp(BinaryAlg.ADD),
        BinaryPostOp(BinaryAlg.MUL),
        SumPostOp(0.5),
    ]
    shapes.post_ops(dst, post_ops, [(1, 1, 1, 1), (1, 16, 1, 1), dst])


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: shapes.conv2d((1, 6, 8, 8), (8, 2, 3, 3), groups=4), "input channels (6)"),
        (lambda: shapes.conv2d((1, 8, 8, 8), (6, 2, 3, 3), groups=4), "multiple of groups"),
        (lambda: shapes.conv2d((1, 3, 2, 2), (4, 3, 3, 3)), "exceeds the padded input"),
        (lambda: shapes.conv2d((1, 3, 8, 8), (4, 3, 3, 3), strides=(0, 1)), "strides"),
        (lambda: shapes.matmul((4, 8), (7, 5)), "K"),
        (lambda: shapes.binary((2, 3), (4,)), "do not broadcast"),
        (lambda: shapes.softmax((2, 3), axis=2), "out of range"),
        (lambda: shapes.reduce((2, 3), axes=(1, -1)), "twice"),
        (lambda: shapes.concat([(2, 3), (3, 3)], axis=1), "every dimension but axis"),
        (lambda: shapes.slice((4,), starts=(2,), ends=(1,)), "start (2) <= end (1)"),
        (lambda: shapes.reshape((2, 3), shape=(4,)), "cannot reshape"),
        (lambda: shapes.transpose((2, 3), permutation=(1, 1)), "permutation"),
        (lambda: shapes.top_k((2, 3), k=4), "exceeds"),
        (lambda: shapes.post_ops((1, 4), [BinaryPostOp(BinaryAlg.ADD)], []), "post_args"),
        (lambda: shapes.post_ops((1, 4), [BinaryPostOp(BinaryAlg.ADD)], [(4,)]), "rank"),
        (lambda: shapes.post_ops((1, 4), [SumPostOp()], [(1, 1)]), "sum post-op"),
    ],
)
def test_invalid_shapes_raise(call: Callable[[], object], message: str) -> None:
    with pytest.raises(ShapeError, match=re.escape(message)):
        call()
