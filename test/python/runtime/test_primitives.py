"""Every primitive handler against the reference kernels (dnnc.reference).

Each case builds descriptors for logical arrays in given layouts, gets the handler with
handler_for, acquires the primitive from a cache, binds every role of exec_args to the
physical array of its input (dnnc.core.layouts via reference.to_layout) and compares the
logical dst with the reference kernel. Tolerances: f32 compute rtol = atol = 1e-4
(relative to the result's scale: float32 accumulation order differs from float64);
bf16 one bf16 rounding step (2^-7) of the scale; data movement and integer results exact.
A case whose kind oneDNN does not implement in its data type on this target (dnnc.target:
oneDNN 3.2 has no bf16 eltwise, binary, convolution ... below AVX-512) skips, naming the
kind, the data type and the effective ISA; it runs wherever the target has it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import ml_dtypes
import numpy as np
import pytest

from dnnc import reference
from dnnc.core.kinds import (
    BinaryAlg,
    BinaryPostOp,
    DataType,
    EltwiseAlg,
    EltwisePostOp,
    LrnKind,
    PoolKind,
    ReduceKind,
    SumPostOp,
)
from dnnc.core.layouts import plain_layout
from dnnc.dnnl import capi
from dnnc.dnnl.objects import Memory, MemoryDesc, Stream
from dnnc.dnnl.primitives import handler_for
from dnnc.runtime.cache import PrimitiveCache
from dnnc.target import implementation, target_info

F32, BF16 = DataType.F32, DataType.BF16
CACHE = PrimitiveCache()
TOLERANCE = {F32: 1e-4, BF16: 2.0**-7}


def run(
    kind: str,
    inputs: Mapping[str, np.ndarray],
    dst: tuple[tuple[int, ...], DataType],
    params: Mapping[str, object] | None = None,
    layouts: Mapping[str, str] | None = None,
) -> np.ndarray:
    """Execute one primitive through its handler; the logical dst array."""
    layouts = dict(layouts or {})
    require(kind, DataType.of_numpy(next(iter(inputs.values())).dtype))
    shapes = {role: array.shape for role, array in inputs.items()} | {"dst": dst[0]}
    types = {role: DataType.of_numpy(a.dtype) for role, a in inputs.items()} | {"dst": dst[1]}
    layout = {role: layouts.get(role) or plain_layout(len(s)) for role, s in shapes.items()}
    descs = {role: MemoryDesc.of_layout(shapes[role], types[role], layout[role]) for role in shapes}
    handler = handler_for(kind, descs, params or {})
    primitive = CACHE.acquire(handler)
    exec_args, exec_descs = handler.exec_args(), handler.exec_descs()
    summand = [inputs[role] for role in inputs if role not in exec_args]  # a sum post-op's
    memories: dict[int, Memory] = {}
    for role, arg in exec_args.items():
        if role in inputs:
            physical = reference.to_layout(inputs[role], layout[role])
        elif role == "dst" and summand:
            physical = reference.to_layout(summand[0].astype(dst[1].numpy), layout["dst"])
        else:  # dst or scratchpad: garbage, so that every element must be written
            physical = np.full(exec_descs[role].size_bytes, 0x7F, np.uint8)
        memories[arg] = Memory(exec_descs[role], np.ascontiguousarray(physical))
    primitive.execute(Stream.default(), memories)
    return reference.from_layout(memories[capi.DNNL_ARG_DST].view(), layout["dst"], dst[0])


def require(kind: str, data_type: DataType) -> None:
    """Skip unless oneDNN implements `kind` in `data_type` on this target (with the reason)."""
    if implementation(kind, data_type) is None:
        info = target_info()
        pytest.skip(f"oneDNN {info.onednn_version} has no {data_type} {kind} on {info.isa}")


def assert_close(got: np.ndarray, want: np.ndarray, data_type: DataType) -> None:
    assert got.shape == want.shape and got.dtype == want.dtype
    if data_type not in TOLERANCE:
        np.testing.assert_array_equal(got, want)
        return
    want64, got64 = want.astype(np.float64), got.astype(np.float64)
    tolerance = TOLERANCE[data_type]
    scale = max(1.0, float(np.abs(want64).max()))
    np.testing.assert_allclose(got64, want64, rtol=tolerance, atol=tolerance * scale)


def random(
    shape: tuple[int, ...],
    data_type: DataType = F32,
    low: float = -1.0,
    high: float = 1.0,
    seed: int = 0,
) -> np.ndarray:
    values = np.random.default_rng(seed).uniform(low, high, shape)
    if data_type in (DataType.S8, DataType.U8, DataType.S32):
        return np.rint(values).astype(data_type.numpy)
    return reference.to_dtype(values, data_type)


@dataclass
class Case:
    """One execution: the kind, its inputs by role, dst, params, layouts and the oracle."""

    kind: str
    inputs: dict[str, np.ndarray]
    dst: tuple[int, ...]
    expected: Callable[[], np.ndarray]
    params: dict[str, object] = field(default_factory=dict)
    layouts: dict[str, str] = field(default_factory=dict)

    def check(self) -> None:
        want = self.expected()
        data_type = DataType.of_numpy(want.dtype)
        got = run(self.kind, self.inputs, (self.dst, data_type), self.params, self.layouts)
        assert_close(got, want, data_type)


# --- compute kinds: (de)convolution, matmul, inner product, pooling ----------------------------


def conv_case(
    dt: DataType,
    src: tuple[int, ...],
    wei: tuple[int, ...],
    dst: tuple[int, ...],
    layouts: dict[str, str] | None = None,
    bias: bool = True,
    post: tuple[list, list[np.ndarray]] = ([], []),
    kind: str = "convolution",
    **params: object,
) -> Case:
    """A convolution (or deconvolution) case checked against conv2d (deconv2d)."""
    kernel = reference.deconv2d if kind == "deconvolution" else reference.conv2d
    inputs = {"src": random(src, dt, seed=1), "weights": random(wei, dt, seed=2)}
    if bias:
        inputs["bias"] = random(wei[:1], F32, seed=3)
    post_ops, post_args = post
    inputs |= {f"post_arg_{j}": a for j, a in enumerate(post_args)}
    return Case(
        kind,
        inputs,
        dst,
        lambda: kernel(
            inputs["src"],
            inputs["weights"],
            inputs.get("bias"),
            *post_args,
            post_ops=post_ops,
            **params,
        ),
        params | {"post_ops": post_ops},
        layouts or {},
    )


BLOCKED16 = {"src": "nChw16c", "weights": "OIhw16i16o", "dst": "nChw16c"}
NHWC = {"src": "nhwc", "dst": "nhwc"}
RESIDUAL = random((1, 32, 8, 8), F32, seed=7)
CHANNEL = random((1, 32, 1, 1), F32, seed=8)


@pytest.mark.parametrize("dt", [F32, BF16])
@pytest.mark.parametrize(
    "make",
    [
        pytest.param(
            lambda dt: conv_case(
                dt, (1, 16, 8, 8), (32, 16, 3, 3), (1, 32, 8, 8), pads_begin=(1, 1), pads_end=(1, 1)
            ),
            id="3x3-pad",
        ),
        pytest.param(
            lambda dt: conv_case(
                dt, (2, 16, 9, 9), (32, 16, 3, 3), (2, 32, 4, 4), BLOCKED16, strides=(2, 2)
            ),
            id="nChw16c-stride2",
        ),
        pytest.param(
            lambda dt: conv_case(
                dt,
                (1, 8, 10, 10),
                (16, 2, 3, 3),
                (1, 16, 6, 6),
                NHWC | {"weights": "hwio"},
                bias=False,
                groups=4,
                dilations=(2, 2),
            ),
            id="nhwc-groups-dilated",
        ),
        pytest.param(
            lambda dt: conv_case(
                dt,
                (1, 8, 7, 7),
                (32, 8, 1, 1),
                (1, 32, 7, 7),
                {"src": "nChw8c", "dst": "nChw8c", "weights": "OIhw8i8o"},
            ),
            id="nChw8c-1x1",
        ),
        pytest.param(
            lambda dt: conv_case(
                dt,
                (1, 16, 8, 8),
                (32, 16, 3, 3),
                (1, 32, 8, 8),
                BLOCKED16,
                post=([BinaryPostOp(BinaryAlg.ADD), EltwisePostOp(EltwiseAlg.RELU)], [CHANNEL]),
                pads_begin=(1, 1),
                pads_end=(1, 1),
            ),
            id="bias-binary-add-relu",
        ),
        pytest.param(
            lambda dt: conv_case(
                dt,
                (1, 16, 8, 8),
                (32, 16, 3, 3),
                (1, 32, 8, 8),
                BLOCKED16,
                post=(
                    [
                        EltwisePostOp(EltwiseAlg.CLIP, 0.0, 6.0),
                        BinaryPostOp(BinaryAlg.MUL),
                        SumPostOp(0.5),
                    ],
                    [CHANNEL, RESIDUAL.astype(dt.numpy)],
                ),
                pads_begin=(1, 1),
                pads_end=(1, 1),
            ),
            id="clip-binary-mul-sum",
        ),
    ],
)
def test_convolution(make: Callable[[DataType], Case], dt: DataType) -> None:
    make(dt).check()


@pytest.mark.parametrize("dt", [F32, BF16])
@pytest.mark.parametrize(
    "make",
    [
        pytest.param(
            lambda dt: conv_case(
                dt,
                (1, 16, 5, 6),
                (32, 16, 4, 4),
                (1, 32, 10, 12),
                kind="deconvolution",
                strides=(2, 2),
                pads_begin=(1, 1),
                pads_end=(1, 1),
            ),
            id="4x4-stride2",
        ),
        pytest.param(
            lambda dt: conv_case(
                dt,
                (1, 8, 5, 5),
                (16, 2, 3, 3),
                (1, 16, 13, 13),
                NHWC,
                bias=False,
                kind="deconvolution",
                groups=4,
                strides=(2, 2),
                dilations=(2, 2),
            ),
            id="nhwc-groups-dilated",
        ),
        pytest.param(
            lambda dt: conv_case(
                dt,
                (1, 16, 4, 4),
                (32, 16, 3, 3),
                (1, 32, 8, 8),
                BLOCKED16,
                post=([BinaryPostOp(BinaryAlg.ADD), EltwisePostOp(EltwiseAlg.RELU)], [CHANNEL]),
                kind="deconvolution",
                strides=(2, 2),
                pads_begin=(1, 1),
                pads_end=(0, 0),
            ),
            id="output-padding-binary-relu",
        ),
        pytest.param(
            lambda dt: conv_case(
                dt,
                (1, 16, 4, 4),
                (32, 16, 3, 3),
                (1, 32, 13, 13),
                kind="deconvolution",
                strides=(3, 3),
                pads_begin=(1, 1),
                pads_end=(-2, -2),
            ),
            id="negative-end-pads",
        ),
    ],
)
def test_deconvolution(make: Callable[[DataType], Case], dt: DataType) -> None:
    """oneDNN's deconvolution computes dnn.deconv2d, pads_end down to 1 - stride included
    (the output rows no input reaches hold the bias)."""
    make(dt).check()


def matmul_case(
    dt: DataType,
    lhs: tuple[int, ...],
    rhs: tuple[int, ...],
    dst: tuple[int, ...],
    bias: tuple[int, ...] | None = None,
    post_ops: list | None = None,
    layouts: dict[str, str] | None = None,
) -> Case:
    inputs = {"src": random(lhs, dt, seed=1), "weights": random(rhs, dt, seed=2)}
    if bias is not None:
        inputs["bias"] = random(bias, F32, seed=3)
    return Case(
        "matmul",
        inputs,
        dst,
        lambda: reference.matmul(
            inputs["src"], inputs["weights"], inputs.get("bias"), post_ops=post_ops or []
        ),
        {"post_ops": post_ops or []},
        layouts or {},
    )


@pytest.mark.parametrize("dt", [F32, BF16])
@pytest.mark.parametrize(
    "make",
    [
        pytest.param(
            lambda dt: matmul_case(
                dt, (16, 32), (32, 8), (16, 8), (1, 8), [EltwisePostOp(EltwiseAlg.GELU_TANH)]
            ),
            id="2d-gelu",
        ),
        pytest.param(
            lambda dt: matmul_case(
                dt, (2, 3, 4), (4, 5), (2, 3, 5), (5,), [EltwisePostOp(EltwiseAlg.GELU_ERF)]
            ),
            id="rank-broadcast-gelu",
        ),
        pytest.param(
            lambda dt: matmul_case(dt, (2, 1, 4, 8), (3, 8, 5), (2, 3, 4, 5), (1, 5)),
            id="batch-broadcast",
        ),
        pytest.param(
            lambda dt: matmul_case(dt, (6, 12), (12, 10), (6, 10), layouts={"weights": "ba"}),
            id="transposed-weights",
        ),
    ],
)
def test_matmul(make: Callable[[DataType], Case], dt: DataType) -> None:
    make(dt).check()


@pytest.mark.parametrize("dt", [F32, BF16])
@pytest.mark.parametrize(
    "src, wei, layouts",
    [
        ((8, 32), (16, 32), {}),
        ((4, 16, 3, 3), (10, 16, 3, 3), {"src": "nChw16c", "weights": "OIhw16i16o"}),
    ],
    ids=["2d", "nChw16c"],
)
def test_inner_product(
    dt: DataType, src: tuple[int, ...], wei: tuple[int, ...], layouts: dict[str, str]
) -> None:
    inputs = {
        "src": random(src, dt, seed=1),
        "weights": random(wei, dt, seed=2),
        "bias": random(wei[:1], F32, seed=3),
    }
    post_ops = [EltwisePostOp(EltwiseAlg.RELU)]
    Case(
        "inner_product",
        inputs,
        (src[0], wei[0]),
        lambda: reference.inner_product(*inputs.values(), post_ops=post_ops),
        {"post_ops": post_ops},
        layouts,
    ).check()


@pytest.mark.parametrize("dt", [F32, BF16])
@pytest.mark.parametrize("layout", [None, "nChw16c", "nhwc"])
def test_max_pooling_ignores_nan_and_floors_windows_without_numbers(
    dt: DataType, layout: str | None
) -> None:
    """oneDNN's max pooling is the reference kernel's where a window holds a number above
    -inf: NaN never wins wherever it lies. A window of only NaN and -inf gives the lowest f32
    (-inf in bf16) where the reference gives NaN or -inf: the deviation
    dnnc.target.special_values names (dnn-propagate-special-values pins such a pool)."""
    nan, inf = np.nan, np.inf
    windows = [
        [nan, 1, 2, 3],
        [1, nan, 2, 3],
        [1, 2, 3, nan],
        [nan, nan, nan, nan],
        [-inf, -inf, -inf, -inf],
        [-inf, nan, -inf, -inf],
        [inf, nan, 1, -inf],
        [-0.0, -1, -2, -3],
    ]
    src = np.zeros((1, 16, 2, 2), dt.numpy)
    src[0, : len(windows)] = np.asarray(windows, np.float32).reshape(-1, 2, 2).astype(dt.numpy)
    params = {"kind": PoolKind.MAX, "kernel": (2, 2), "strides": (2, 2)}
    layouts = {"src": layout, "dst": layout} if layout else {}
    got = run("pooling", {"src": src}, ((1, 16, 1, 1), dt), params, layouts).reshape(-1)
    want = reference.pool(src, **params).reshape(-1)  # type: ignore[arg-type]
    numbers = np.asarray([(np.asarray(w) > -inf).any() for w in windows] + [True] * 8)
    np.testing.assert_array_equal(got[numbers], want[numbers])
    lowest = np.asarray(np.finfo(np.float32).min).astype(dt.numpy)
    np.testing.assert_array_equal(got[~numbers], lowest)


@pytest.mark.parametrize("dt", [F32, BF16])
@pytest.mark.parametrize("kind", list(PoolKind))
@pytest.mark.parametrize("layout", [None, "nChw16c", "nhwc"])
def test_pooling(dt: DataType, kind: PoolKind, layout: str | None) -> None:
    src = random((2, 16, 9, 9), dt)
    params = {
        "kind": kind,
        "kernel": [3, 3],
        "strides": [2, 2],
        "pads_begin": [1, 1],
        "pads_end": [1, 1],
    }
    layouts = {"src": layout, "dst": layout} if layout else {}
    Case(
        "pooling",
        {"src": src},
        (2, 16, 5, 5),
        lambda: reference.pool(src, **params),
        params,
        layouts,
    ).check()


@pytest.mark.parametrize("dt", [F32, BF16])
def test_pooling_with_binary_post_op(dt: DataType) -> None:
    src, channel = random((1, 32, 8, 8), dt), CHANNEL
    post_ops = [BinaryPostOp(BinaryAlg.ADD), EltwisePostOp(EltwiseAlg.RELU)]
    params = {
        "kind": PoolKind.AVG_EXCLUDE_PAD,
        "kernel": (2, 2),
        "strides": (2, 2),
        "dilations": (1, 1),
        "post_ops": post_ops,
    }
    Case(
        "pooling",
        {"src": src, "post_arg_0": channel},
        (1, 32, 4, 4),
        lambda: reference.pool(src, channel, **params),
        params,
        {"src": "nChw16c", "dst": "nChw16c"},
    ).check()


# --- element-wise kinds: eltwise, softmax, binary ----------------------------------------------

ELTWISE_CASES = [
    (EltwiseAlg.RELU, 0.0, 0.0),
    (EltwiseAlg.LEAKY_RELU, 0.1, 0.0),
    (EltwiseAlg.GELU_ERF, 0, 0),
    (EltwiseAlg.GELU_TANH, 0, 0),
    (EltwiseAlg.TANH, 0, 0),
    (EltwiseAlg.SIGMOID, 0, 0),
    (EltwiseAlg.ELU, 0.5, 0),
    (EltwiseAlg.SWISH, 1.0, 0),
    (EltwiseAlg.HARDSWISH, 1 / 6, 0.5),
    (EltwiseAlg.HARDSIGMOID, 0.2, 0.5),
    (EltwiseAlg.CLIP, -0.5, 0.5),
    (EltwiseAlg.RELU6, 0, 0),
    (EltwiseAlg.EXP, 0, 0),
    (EltwiseAlg.ABS, 0, 0),
    (EltwiseAlg.SQUARE, 0, 0),
    (EltwiseAlg.LINEAR, 2.0, -1.0),
    (EltwiseAlg.SOFT_RELU, 1.0, 0),
    (EltwiseAlg.MISH, 0, 0),
]


@pytest.mark.parametrize("dt", [F32, BF16])
@pytest.mark.parametrize("alg, alpha, beta", ELTWISE_CASES, ids=[c[0] for c in ELTWISE_CASES])
def test_eltwise(dt: DataType, alg: EltwiseAlg, alpha: float, beta: float) -> None:
    src = random((2, 20, 5, 5), dt, -3.0, 3.0)
    params = {"alg": alg, "alpha": alpha, "beta": beta}
    Case(
        "eltwise",
        {"src": src},
        src.shape,
        lambda: reference.eltwise(src, **params),
        params,
        {"src": "nChw16c", "dst": "nChw16c"},
    ).check()


@pytest.mark.parametrize("alg", [EltwiseAlg.SQRT, EltwiseAlg.LOG])
def test_eltwise_positive_domain(alg: EltwiseAlg) -> None:
    src = random((3, 7, 11), F32, 0.1, 4.0)
    Case(
        "eltwise", {"src": src}, src.shape, lambda: reference.eltwise(src, alg=alg), {"alg": alg}
    ).check()


@pytest.mark.parametrize("dt", [F32, BF16])
@pytest.mark.parametrize("alg", ["accurate", "log"])
@pytest.mark.parametrize("axis, layout", [(1, "nChw16c"), (-1, None), (0, "nhwc")])
def test_softmax(dt: DataType, alg: str, axis: int, layout: str | None) -> None:
    src = random((3, 20, 4, 6), dt, -4.0, 4.0)
    kernel = reference.softmax if alg == "accurate" else reference.log_softmax
    layouts = {"src": layout, "dst": layout} if layout else {}
    Case(
        "softmax",
        {"src": src},
        src.shape,
        lambda: kernel(src, axis=axis),
        {"axis": axis, "alg": alg},
        layouts,
    ).check()


@pytest.mark.parametrize("dt", [F32, BF16])
@pytest.mark.parametrize("alg", sorted(set(BinaryAlg) - {BinaryAlg.POW}))  # pow: reference only
@pytest.mark.parametrize(
    "lhs, rhs, layouts",
    [
        ((2, 4, 5), (4, 1), {}),
        ((2, 32, 3, 3), (2, 32, 3, 3), {"src_0": "nChw16c", "src_1": "nChw16c", "dst": "nChw16c"}),
        ((2, 32, 3, 3), (1, 32, 1, 1), {"src_0": "nhwc", "dst": "nhwc"}),
    ],
    ids=["rank-broadcast", "nChw16c", "nhwc-per-channel"],
)
def test_binary(
    dt: DataType,
    alg: BinaryAlg,
    lhs: tuple[int, ...],
    rhs: tuple[int, ...],
    layouts: dict[str, str],
) -> None:
    a, b = random(lhs, dt, seed=1), random(rhs, dt, 0.5, 2.0, seed=2)
    Case(
        "binary",
        {"src_0": a, "src_1": b},
        lhs,
        lambda: reference.binary(a, b, alg=alg),
        {"alg": alg},
        layouts,
    ).check()


def test_binary_u8_saturates() -> None:
    a = np.array([[0, 100, 200, 255]], np.uint8)
    b = np.array([[10, 100, 100, 255]], np.uint8)
    got = run("binary", {"src_0": a, "src_1": b}, ((1, 4), DataType.U8), {"alg": "add"})
    np.testing.assert_array_equal(got, [[10, 200, 255, 255]])
    np.testing.assert_array_equal(got, reference.binary(a, b, alg="add"))


def test_binary_with_post_op_chain() -> None:
    a, b, c = random((2, 16, 4, 4)), random((2, 16, 4, 4), seed=1), random((1, 16, 1, 1), seed=2)
    post_ops = [BinaryPostOp(BinaryAlg.MUL), EltwisePostOp(EltwiseAlg.TANH)]
    Case(
        "binary",
        {"src_0": a, "src_1": b, "post_arg_0": c},
        a.shape,
        lambda: reference.binary(a, b, c, alg="sub", post_ops=post_ops),
        {"alg": "sub", "post_ops": post_ops},
    ).check()


# --- sum, concat, normalizations, reduction ----------------------------------------------------


@pytest.mark.parametrize("dt", [F32, BF16])
@pytest.mark.parametrize("layout", [None, "nChw16c"])
def test_sum(dt: DataType, layout: str | None) -> None:
    inputs = [random((2, 20, 3, 3), dt, seed=i) for i in range(3)]
    scales = [1.0, 0.5, 2.0]
    layouts = {r: layout for r in ("src_0", "src_1", "src_2", "dst")} if layout else {}
    Case(
        "sum",
        {f"src_{i}": x for i, x in enumerate(inputs)},
        inputs[0].shape,
        lambda: reference.sum(*inputs, scales=scales),
        {"scales": scales},
        layouts,
    ).check()


def test_sum_default_scales() -> None:
    a, b = random((5, 7)), random((5, 7), seed=1)
    Case("sum", {"src_0": a, "src_1": b}, a.shape, lambda: reference.sum(a, b)).check()


@pytest.mark.parametrize("dt", [F32, BF16, DataType.S8])
@pytest.mark.parametrize(
    "axis, shapes",
    [(1, [(1, 16, 4, 4), (1, 8, 4, 4), (1, 16, 4, 4)]), (-1, [(2, 3, 5), (2, 3, 1)])],
)
def test_concat(dt: DataType, axis: int, shapes: list[tuple[int, ...]]) -> None:
    inputs = [random(s, dt, -100, 100, seed=i) for i, s in enumerate(shapes)]
    dst = list(shapes[0])
    dst[axis] = sum(s[axis] for s in shapes)
    Case(
        "concat",
        {f"src_{i}": x for i, x in enumerate(inputs)},
        tuple(dst),
        lambda: reference.concat(*inputs, axis=axis),
        {"axis": axis},
    ).check()


def test_concat_blocked() -> None:
    a, b = random((2, 16, 3, 3)), random((2, 32, 3, 3), seed=1)
    Case(
        "concat",
        {"src_0": a, "src_1": b},
        (2, 48, 3, 3),
        lambda: reference.concat(a, b, axis=1),
        {"axis": 1},
        {"src_0": "nChw16c", "src_1": "nhwc", "dst": "nChw16c"},
    ).check()


@pytest.mark.parametrize("dt", [F32, BF16])
@pytest.mark.parametrize("layout", [None, "nChw16c", "nhwc"])
def test_batch_normalization(dt: DataType, layout: str | None) -> None:
    src = random((2, 24, 4, 5), dt, -2, 2)
    stats = {
        "mean": random((24,), seed=1),
        "variance": random((24,), F32, 0.5, 2, seed=2),
        "scale": random((24,), seed=3),
        "shift": random((24,), seed=4),
    }
    layouts = {"src": layout, "dst": layout} if layout else {}
    Case(
        "batch_normalization",
        {"src": src, **stats},
        src.shape,
        lambda: reference.batch_norm(
            src, stats["scale"], stats["shift"], stats["mean"], stats["variance"], epsilon=1e-3
        ),
        {"epsilon": 1e-3},
        layouts,
    ).check()


@pytest.mark.parametrize("dt", [F32, BF16])
@pytest.mark.parametrize("affine", [True, False])
def test_layer_normalization(dt: DataType, affine: bool) -> None:
    src = random((2, 7, 32), dt, -3, 3)
    extra = {"scale": random((32,), seed=1), "shift": random((32,), seed=2)} if affine else {}
    Case(
        "layer_normalization",
        {"src": src, **extra},
        src.shape,
        lambda: reference.layer_norm(src, extra.get("scale"), extra.get("shift")),
        {},
    ).check()


@pytest.mark.parametrize("dt", [F32, BF16])
@pytest.mark.parametrize(
    "kind, size, layout",
    [
        (LrnKind.ACROSS_CHANNELS, 5, "nChw16c"),
        (LrnKind.ACROSS_CHANNELS, 3, None),
        (LrnKind.WITHIN_CHANNEL, 3, None),
    ],
)
def test_lrn(dt: DataType, kind: LrnKind, size: int, layout: str | None) -> None:
    src = random((2, 20, 6, 6), dt, -2, 2)
    params = {"kind": kind, "size": size, "alpha": 0.5, "beta": 0.75, "k": 2.0}
    layouts = {"src": layout, "dst": layout} if layout else {}
    Case(
        "lrn", {"src": src}, src.shape, lambda: reference.lrn(src, **params), params, layouts
    ).check()


@pytest.mark.parametrize("dt", [F32, BF16])
@pytest.mark.parametrize(
    "coordinate_mode, nearest_mode",
    [
        ("half_pixel", "round_prefer_floor"),
        ("pytorch_half_pixel", "round_prefer_ceil"),
        ("asymmetric", "floor"),
    ],
)
@pytest.mark.parametrize(
    "src_shape, dst",
    [((2, 3, 5, 7), (2, 3, 10, 21)), ((1, 4, 6), (1, 4, 24)), ((1, 2, 3, 2, 4), (1, 2, 6, 6, 4))],
)
def test_resampling_is_onnx_nearest_for_whole_upsampling_factors(
    dt: DataType,
    coordinate_mode: str,
    nearest_mode: str,
    src_shape: tuple[int, ...],
    dst: tuple[int, ...],
) -> None:
    """oneDNN's nearest resampling computes dnn.resize's nearest mode where each factor is a
    whole number and the coordinates are half_pixel rounded, or asymmetric floored
    (kernel_calls._onednn_resize)."""
    src = random(src_shape, dt, -2, 2)
    scales = [o / i for o, i in zip(dst, src_shape, strict=True)]
    expected = lambda: reference.resize(  # noqa: E731
        src,
        sizes=dst,
        scales=scales,
        mode="nearest",
        coordinate_mode=coordinate_mode,
        nearest_mode=nearest_mode,
    )
    Case("resampling", {"src": src}, dst, expected, {"mode": "nearest"}, {}).check()


@pytest.mark.parametrize("dt", [F32, BF16])
@pytest.mark.parametrize(
    "src_shape, dst",
    [((2, 3, 5, 7), (2, 3, 9, 11)), ((2, 3, 5, 7), (2, 3, 3, 4)), ((1, 4, 6), (1, 4, 13))],
)
def test_resampling_is_onnx_linear_half_pixel(
    dt: DataType, src_shape: tuple[int, ...], dst: tuple[int, ...]
) -> None:
    """oneDNN's linear resampling computes dnn.resize's linear mode with half_pixel coordinates."""
    src = random(src_shape, dt, -2, 2)
    scales = [o / i for o, i in zip(dst, src_shape, strict=True)]
    expected = lambda: reference.resize(  # noqa: E731
        src, sizes=dst, scales=scales, mode="linear", coordinate_mode="half_pixel"
    )
    Case("resampling", {"src": src}, dst, expected, {}, {}).check()


@pytest.mark.parametrize("dt", [F32, BF16])
@pytest.mark.parametrize("kind", list(ReduceKind))
@pytest.mark.parametrize("dst", [(2, 1, 4, 4), (1, 16, 1, 1), (2, 16, 4, 1)])
def test_reduction(dt: DataType, kind: ReduceKind, dst: tuple[int, ...]) -> None:
    src = random((2, 16, 4, 4), dt, 0.5, 1.5)
    axes = [i for i, (s, d) in enumerate(zip(src.shape, dst)) if s != d]
    Case(
        "reduction",
        {"src": src},
        dst,
        lambda: reference.reduce(src, kind=kind, axes=axes),
        {"kind": kind},
    ).check()


# --- reorder: layouts, data types, transpose, slice ---------------------------------------------


@pytest.mark.parametrize(
    "src_layout, dst_layout",
    [(None, "nChw16c"), ("nChw16c", "nhwc"), ("nhwc", "nChw8c"), ("nChw8c", None)],
)
def test_reorder_layouts(src_layout: str | None, dst_layout: str | None) -> None:
    src = random((2, 20, 3, 5))
    layouts = {k: v for k, v in (("src", src_layout), ("dst", dst_layout)) if v}
    Case("reorder", {"src": src}, src.shape, lambda: reference.reorder(src), {}, layouts).check()


@pytest.mark.parametrize(
    "src_type, dst_type",
    [(F32, DataType.S8), (F32, DataType.U8), (F32, BF16), (DataType.U8, F32), (DataType.S8, BF16)],
)
def test_reorder_data_types(src_type: DataType, dst_type: DataType) -> None:
    src = random((4, 16, 3, 3), src_type, -300.0, 300.0)
    got = run("reorder", {"src": src}, (src.shape, dst_type), {}, {"dst": "nChw16c"})
    # oneDNN's conversion (saturate, round to nearest): dnn.cast to integers does not use it
    want = reference.to_dtype(src.astype(np.float64), dst_type)
    np.testing.assert_array_equal(got, want)


def test_reorder_f32_to_s8_saturates_and_rounds_half_even() -> None:
    src = np.array([-1000.0, -128.5, -2.5, -0.5, 0.5, 1.5, 126.6, 1000.0], np.float32)
    got = run("reorder", {"src": src}, (src.shape, DataType.S8))
    np.testing.assert_array_equal(got, [-128, -128, -2, 0, 0, 2, 127, 127])


@pytest.mark.parametrize(
    "permutation, layout", [((2, 0, 1), None), ((1, 0), None), ((0, 2, 3, 1), "nChw16c")]
)
def test_reorder_permutation_transposes(permutation: tuple[int, ...], layout: str | None) -> None:
    src = random((2, 16, 3, 5)[: len(permutation)])
    dst = tuple(src.shape[p] for p in permutation)
    Case(
        "reorder",
        {"src": src},
        dst,
        lambda: reference.transpose(src, permutation=permutation),
        {"permutation": list(permutation)},
        {"src": layout} if layout else {},
    ).check()


@pytest.mark.parametrize("starts, dst", [((1, 0, 2), (2, 6, 3)), ((0, 3, 0), (4, 3, 8))])
def test_reorder_starts_slices(starts: tuple[int, ...], dst: tuple[int, ...]) -> None:
    src = random((4, 6, 8))
    ends = [s + d for s, d in zip(starts, dst)]
    Case(
        "reorder",
        {"src": src},
        dst,
        lambda: reference.slice(src, starts=starts, ends=ends),
        {"starts": starts},
    ).check()


def test_reorder_slice_then_transpose() -> None:
    src = random((4, 6, 8))
    starts, permutation = (1, 2, 3), (2, 0, 1)
    box = reference.slice(src, starts=starts, ends=(3, 6, 8))
    Case(
        "reorder",
        {"src": src},
        (5, 2, 4),
        lambda: reference.transpose(box, permutation=permutation),
        {"starts": starts, "permutation": permutation},
    ).check()


def test_bf16_inputs_are_bf16() -> None:
    """The harness really feeds bf16 (guards the bf16 cases above against silent f32)."""
    assert random((2, 2), BF16).dtype == ml_dtypes.bfloat16
