"""Post-op chains: a fused op equals the composition of separate kernels (and torch)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from reference_helpers import FLOAT_DTYPES, assert_close, random_array, to_torch, torch_result

from dnnc import reference
from dnnc.core.kinds import BinaryAlg, BinaryPostOp, EltwiseAlg, EltwisePostOp, PostOp, SumPostOp

CONV_ADD_RELU = (BinaryPostOp(BinaryAlg.ADD), EltwisePostOp(EltwiseAlg.RELU))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
@pytest.mark.parametrize("addend_shape", [(2, 4, 6, 6), (1, 4, 1, 1), (1, 1, 1, 1)])
def test_conv_bias_add_relu_equals_separate_kernels_and_torch(
    rng: np.random.Generator, addend_shape: tuple[int, ...], dtype: np.dtype
) -> None:
    src = random_array(rng, (2, 3, 7, 7), dtype)
    wei = random_array(rng, (4, 3, 3, 3), dtype)
    bias = random_array(rng, (4,), dtype)
    addend = random_array(rng, addend_shape, dtype)  # full, per-channel, per-tensor
    conv_args = {"strides": (1, 1), "pads_begin": (0, 1), "pads_end": (1, 0)}
    fused = reference.conv2d(src, wei, bias, addend, post_ops=CONV_ADD_RELU, **conv_args)

    separate = reference.eltwise(
        reference.binary(reference.conv2d(src, wei, bias, **conv_args), addend, alg="add"),
        alg="relu",
    )
    assert_close(fused, separate)  # bf16: separate rounds three times, fused once
    expected = F.relu(
        F.conv2d(F.pad(to_torch(src), (1, 0, 0, 1)), to_torch(wei), to_torch(bias))
        + to_torch(addend)
    )
    assert_close(fused, torch_result(expected, dtype))


def test_post_ops_run_in_order() -> None:
    """relu then add differs from add then relu: the chain must keep its order."""
    d = np.array([-2.0, 1.0])
    p = np.array([1.0, 1.0])
    add, relu = BinaryPostOp(BinaryAlg.ADD), EltwisePostOp(EltwiseAlg.RELU)
    np.testing.assert_array_equal(reference.apply_post_ops(d, (relu, add), [p]), [1.0, 2.0])
    np.testing.assert_array_equal(reference.apply_post_ops(d, (add, relu), [p]), [0.0, 2.0])


def test_sum_post_op_scales_the_accumulated_destination(rng: np.random.Generator) -> None:
    lhs, rhs = random_array(rng, (3, 5)), random_array(rng, (5, 4))
    dst, scale = random_array(rng, (3, 4)), random_array(rng, (1, 4))
    post_ops = (SumPostOp(0.5), BinaryPostOp(BinaryAlg.MUL), EltwisePostOp(EltwiseAlg.TANH))
    fused = reference.matmul(lhs, rhs, None, dst, scale, post_ops=post_ops)
    expected = torch.tanh((to_torch(lhs) @ to_torch(rhs) + 0.5 * to_torch(dst)) * to_torch(scale))
    assert_close(fused, expected.numpy())


def test_pool_and_binary_and_inner_product_take_post_ops(rng: np.random.Generator) -> None:
    src = random_array(rng, (1, 2, 4, 4))
    clip = EltwisePostOp(EltwiseAlg.CLIP, -0.25, 0.25)
    pooled = reference.pool(src, kind="max", kernel=(2, 2), strides=(2, 2), post_ops=(clip,))
    assert_close(pooled, torch.clamp(F.max_pool2d(to_torch(src), 2), -0.25, 0.25).numpy())

    lhs, rhs, third = (random_array(rng, (2, 3)) for _ in range(3))
    fused = reference.binary(lhs, rhs, third, alg="sub", post_ops=(BinaryPostOp("max"),))
    assert_close(fused, np.maximum(lhs - rhs, third))

    wei = random_array(rng, (5, 3))
    linear = EltwisePostOp(EltwiseAlg.LINEAR, 2.0, 1.0)
    assert_close(
        reference.inner_product(lhs, wei, post_ops=(linear,)),
        (2.0 * (to_torch(lhs) @ to_torch(wei).T) + 1.0).numpy(),
    )


def test_post_ops_on_int8_saturate_once_at_the_end() -> None:
    src = np.full((1, 1, 1, 1), 100, np.int8)
    wei = np.full((1, 1, 1, 1), 2, np.int8)
    halve = EltwisePostOp(EltwiseAlg.LINEAR, 0.5, 0.0)
    # 200 does not fit s8, but the post-op halves it before the conversion.
    np.testing.assert_array_equal(reference.conv2d(src, wei, post_ops=(halve,)), [[[[100]]]])


@pytest.mark.parametrize(
    ("post_ops", "args", "message"),
    [
        ((BinaryPostOp(BinaryAlg.ADD),), [], "needs an argument"),
        ((EltwisePostOp(EltwiseAlg.RELU),), [np.zeros((2, 3))], "post-ops use 0"),
        ((BinaryPostOp(BinaryAlg.ADD),), [np.zeros((3,))], "does not broadcast"),
        ((BinaryPostOp(BinaryAlg.ADD),), [np.zeros((2, 4))], "does not broadcast"),
        ((SumPostOp(),), [np.zeros((1, 3))], "expected \\(2, 3\\)"),
    ],
)
def test_apply_post_ops_rejects_bad_arguments(
    post_ops: tuple[PostOp, ...], args: list[np.ndarray], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        reference.apply_post_ops(np.zeros((2, 3)), post_ops, args)
