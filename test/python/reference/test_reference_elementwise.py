"""eltwise and binary kernels against torch, for every algorithm of kinds.py."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from reference_helpers import FLOAT_DTYPES, assert_close, random_array, torch_reference

from dnnc import reference
from dnnc.core.kinds import BinaryAlg, EltwiseAlg

TorchFn = Callable[[torch.Tensor], torch.Tensor]

# alg -> (alpha, beta, input range, torch's definition of the same function)
ELTWISE_CASES: dict[EltwiseAlg, tuple[float, float, tuple[float, float], TorchFn]] = {
    EltwiseAlg.RELU: (0.0, 0.0, (-4, 4), F.relu),
    EltwiseAlg.LEAKY_RELU: (0.1, 0.0, (-4, 4), lambda x: F.leaky_relu(x, 0.1)),
    EltwiseAlg.GELU_ERF: (0.0, 0.0, (-4, 4), F.gelu),
    EltwiseAlg.GELU_TANH: (0.0, 0.0, (-4, 4), lambda x: F.gelu(x, approximate="tanh")),
    EltwiseAlg.TANH: (0.0, 0.0, (-4, 4), torch.tanh),
    EltwiseAlg.SIGMOID: (0.0, 0.0, (-30, 30), torch.sigmoid),
    EltwiseAlg.ELU: (0.7, 0.0, (-4, 4), lambda x: F.elu(x, 0.7)),
    EltwiseAlg.SWISH: (1.0, 0.0, (-30, 30), F.silu),
    EltwiseAlg.HARDSWISH: (1 / 6, 1 / 2, (-5, 5), F.hardswish),
    EltwiseAlg.HARDSIGMOID: (1 / 6, 1 / 2, (-5, 5), F.hardsigmoid),
    EltwiseAlg.CLIP: (-0.5, 1.5, (-4, 4), lambda x: torch.clamp(x, -0.5, 1.5)),
    EltwiseAlg.RELU6: (0.0, 0.0, (-8, 8), F.relu6),
    EltwiseAlg.EXP: (0.0, 0.0, (-4, 4), torch.exp),
    EltwiseAlg.LOG: (0.0, 0.0, (0.01, 10), torch.log),
    EltwiseAlg.SQRT: (0.0, 0.0, (0, 10), torch.sqrt),
    EltwiseAlg.ABS: (0.0, 0.0, (-4, 4), torch.abs),
    EltwiseAlg.SQUARE: (0.0, 0.0, (-4, 4), torch.square),
    EltwiseAlg.LINEAR: (2.5, -1.0, (-4, 4), lambda x: 2.5 * x - 1.0),
    EltwiseAlg.POW: (1.5, 2.5, (0, 4), lambda x: 1.5 * torch.pow(x, 2.5)),
    EltwiseAlg.SOFT_RELU: (1.0, 0.0, (-30, 30), F.softplus),
    EltwiseAlg.MISH: (0.0, 0.0, (-30, 30), F.mish),
    EltwiseAlg.ROUND: (0.0, 0.0, (-4, 4), torch.round),  # torch rounds half to even too
    EltwiseAlg.SOFTSIGN: (0.0, 0.0, (-30, 30), F.softsign),
    EltwiseAlg.ERF: (0.0, 0.0, (-4, 4), torch.erf),
    EltwiseAlg.SIN: (0.0, 0.0, (-10, 10), torch.sin),
    EltwiseAlg.COS: (0.0, 0.0, (-10, 10), torch.cos),
}

BINARY_CASES: dict[BinaryAlg, Callable[[torch.Tensor, torch.Tensor], torch.Tensor]] = {
    BinaryAlg.ADD: torch.add,
    BinaryAlg.SUB: torch.sub,
    BinaryAlg.MUL: torch.mul,
    BinaryAlg.DIV: torch.div,
    BinaryAlg.MAX: torch.maximum,
    BinaryAlg.MIN: torch.minimum,
    BinaryAlg.POW: torch.pow,
}


def test_every_algorithm_is_implemented_and_tested() -> None:
    assert set(reference.ELTWISE) == set(EltwiseAlg) == set(ELTWISE_CASES)
    assert set(reference.BINARY) == set(BinaryAlg) == set(BINARY_CASES)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
@pytest.mark.parametrize("alg", list(EltwiseAlg))
def test_eltwise_matches_torch(rng: np.random.Generator, alg: EltwiseAlg, dtype: np.dtype) -> None:
    alpha, beta, (low, high), torch_fn = ELTWISE_CASES[alg]
    src = random_array(rng, (2, 3, 4, 5), dtype, low, high)
    if alg is EltwiseAlg.ROUND:
        src.flat[:4] = [0.5, 1.5, 2.5, -0.5]  # the ties
    result = reference.eltwise(src, alg=alg, alpha=alpha, beta=beta)
    assert_close(result, torch_reference(torch_fn, src, dtype=dtype))


def test_eltwise_accepts_the_string_spelling() -> None:
    src = np.array([-1.0, 2.0], np.float32)
    np.testing.assert_array_equal(reference.eltwise(src, alg="relu", alpha=0.5), [-0.5, 2.0])


def test_soft_relu_is_onednn_v3_with_alpha() -> None:
    """oneDNN 3.x soft_relu is log(1 + e^(alpha x)) / alpha; alpha = -1 is logsigmoid."""
    src = np.linspace(-5, 5, 11, dtype=np.float32)
    result = reference.eltwise(src, alg=EltwiseAlg.SOFT_RELU, alpha=-1.0)
    assert_close(result, F.logsigmoid(torch.from_numpy(src)).numpy())


def test_eltwise_on_integers_rounds_and_saturates() -> None:
    src = np.array([-100, 50, 100], np.int8)
    result = reference.eltwise(src, alg=EltwiseAlg.LINEAR, alpha=1.5, beta=0.0)
    np.testing.assert_array_equal(result, np.array([-128, 75, 127], np.int8))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
@pytest.mark.parametrize(
    ("lhs_shape", "rhs_shape"),
    [((2, 3, 4), (2, 3, 4)), ((2, 3, 4), (1, 3, 1)), ((3, 1), (1, 4)), ((2, 3, 4), ())],
)
@pytest.mark.parametrize("alg", list(BinaryAlg))
def test_binary_matches_torch_with_broadcasting(
    rng: np.random.Generator,
    alg: BinaryAlg,
    lhs_shape: tuple[int, ...],
    rhs_shape: tuple[int, ...],
    dtype: np.dtype,
) -> None:
    lhs = random_array(rng, lhs_shape, dtype)
    rhs = random_array(rng, rhs_shape, dtype, 0.5, 2.0)  # away from 0 for div
    result = reference.binary(lhs, rhs, alg=alg)
    assert_close(result, torch_reference(BINARY_CASES[alg], lhs, rhs, dtype=dtype))
