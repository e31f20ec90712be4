"""oneDNN's int8 convolution and matmul through their primitive handlers, as the int8 fusion
will build them: run-time scales (src and dst per tensor, weights per output channel) and zero points
(DNNL_ARG_ATTR_SCALES / DNNL_ARG_ATTR_ZERO_POINTS | arg), an f32 bias already scaled by
s_src * s_wei, and s8 weights created with format ``any`` and reordered once into the
descriptor oneDNN picked (where it puts its s8-src and zero-point compensation).

Each result is checked against the quantized formula in numpy (int32 accumulation exact in
float64, then ``saturate(round(real / s_dst) + zp_dst)``) within one step: oneDNN rounds
``real * (1 / s_dst)``, which may round the other way next to a tie. The implementation is
never oneDNN's reference one (``ref:``), whatever the ISA.

Without VNNI (ONEDNN_MAX_CPU_ISA=AVX2) oneDNN multiplies u8 by s8 with vpmaddubsw, whose
s16 sums of two products saturate: an s8 src is safe (oneDNN shifts it to u8 and halves the
weights in their reorder), but a u8 src above 127 is not (measured here: answers off by up
to 11 steps in the convolution, and wrong matmul results). So u8 sources hold 0..127 there
(ORT's "reduce_range" remedy), and the fusion must not give such a CPU full-range u8.
"""

from __future__ import annotations

import numpy as np
import pytest

from dnnc.core.kinds import DataType
from dnnc.dnnl import capi
from dnnc.dnnl.objects import Engine, Memory, MemoryDesc, Primitive, PrimitiveDesc, Stream
from dnnc.dnnl.primitives import handler_for
from dnnc.target.host import isa_includes

SRC, WEI, BIAS, DST = (
    capi.DNNL_ARG_SRC,
    capi.DNNL_ARG_WEIGHTS,
    capi.DNNL_ARG_BIAS,
    capi.DNNL_ARG_DST,
)
SCALES, ZERO_POINTS = capi.DNNL_ARG_ATTR_SCALES, capi.DNNL_ARG_ATTR_ZERO_POINTS
RNG = np.random.default_rng(31)
U8_HIGH = 256 if isa_includes("avx2_vnni") or isa_includes("avx512_core_vnni") else 128
"""The end of the u8 sources: 0..127 where vpmaddubsw would saturate (module docstring)."""


def _plain(array: np.ndarray) -> Memory:
    return Memory(MemoryDesc.of_layout(array.shape, DataType.of_numpy(array.dtype)), array)


def _into(memory: Memory, desc: MemoryDesc) -> Memory:
    """``memory`` reordered into ``desc`` (a new buffer)."""
    out = Memory.empty(desc)
    pd = PrimitiveDesc.create("reorder", memory.desc, desc)
    Primitive(pd).execute(Stream.default(), {capi.DNNL_ARG_FROM: memory, capi.DNNL_ARG_TO: out})
    return out


def _run(pd: PrimitiveDesc, operands: dict[int, np.ndarray], dst_dims: tuple[int, ...]) -> tuple:
    """Execute ``pd`` on plain ``operands`` (reordered into its descriptors), with the
    scales and zero points among them; the plain dst and the implementation."""
    args: dict[int, Memory] = {}
    for arg, array in operands.items():
        memory = _plain(array)
        if arg & (SCALES | ZERO_POINTS):
            args[arg] = memory
        else:
            args[arg] = _into(memory, pd.exec_arg_desc(arg))
    dst = Memory.empty(pd.dst_desc())
    args[DST] = dst
    scratchpad = pd.scratchpad_desc()
    if scratchpad is not None and scratchpad.size_bytes:
        args[capi.DNNL_ARG_SCRATCHPAD] = Memory.empty(scratchpad)
    Primitive(pd).execute(Stream.default(), args)
    plain = Memory.empty(MemoryDesc.of_layout(dst_dims, pd.dst_desc().data_type))
    reorder = PrimitiveDesc.create("reorder", dst.desc, plain.desc)
    Primitive(reorder).execute(Stream.default(), {capi.DNNL_ARG_FROM: dst, capi.DNNL_ARG_TO: plain})
    return plain.view().reshape(dst_dims), pd.impl_info


def _scale_descs(scales: tuple[str, ...], zero_points: tuple[str, ...]) -> dict[str, MemoryDesc]:
    """Handler roles of one f32 scale or one s32 zero point each."""
    return {role: MemoryDesc.of_layout((1,), DataType.F32) for role in scales} | {
        role: MemoryDesc.of_layout((1,), DataType.S32) for role in zero_points
    }


def _requantized(real: np.ndarray, scale: float, zero: int, dtype: type) -> np.ndarray:
    info = np.iinfo(dtype)
    return np.clip(np.rint(real / scale) + zero, info.min, info.max).astype(dtype)


def _conv_reference(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """3x3 convolution (padding 1, stride 1) of integer-valued float64 arrays."""
    n, _, h, width = x.shape
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    out = np.zeros((n, w.shape[0], h, width))
    for i in range(3):
        for j in range(3):
            window = padded[:, :, i : i + h, j : j + width]
            out += np.einsum("nchw,oc->nohw", window, w[:, :, i, j])
    return out


def _grouped_conv_reference(x: np.ndarray, w: np.ndarray, groups: int) -> np.ndarray:
    """``_conv_reference`` of each group of channels, concatenated."""
    inputs, outputs = x.shape[1] // groups, w.shape[0] // groups
    return np.concatenate(
        [
            _conv_reference(x[:, g * inputs : (g + 1) * inputs], w[g * outputs : (g + 1) * outputs])
            for g in range(groups)
        ],
        axis=1,
    )


@pytest.mark.parametrize(
    ("src_type", "src_zero", "groups"),
    [(np.uint8, 0, 1), (np.uint8, 120, 1), (np.int8, 0, 1), (np.int8, -7, 1), (np.int8, 3, 4)],
)
def test_int8_convolution_with_runtime_scales(src_type: type, src_zero: int, groups: int) -> None:
    low, high = (0, U8_HIGH) if src_type == np.uint8 else (-128, 128)
    x = RNG.integers(low, high, (1, 32, 8, 8)).astype(src_type)
    w = RNG.integers(-127, 128, (64, 32 // groups, 3, 3)).astype(np.int8)
    s_src, s_dst, zp_dst = np.float32(0.02), np.float32(0.5), 100
    s_wei = RNG.uniform(0.001, 0.004, 64).astype(np.float32)
    bias = RNG.normal(0.0, 2.0, 64).astype(np.float32)  # already s_src * s_wei * int32 bias
    descs = {
        "src": MemoryDesc.any(x.shape, DataType.of_numpy(src_type)),
        "weights": MemoryDesc.any(w.shape, DataType.S8),
        "bias": MemoryDesc.of_layout(bias.shape, DataType.F32),
        "dst": MemoryDesc.any((1, 64, 8, 8), DataType.U8),
        **_scale_descs(("src_scale", "dst_scale"), ("src_zero_point", "dst_zero_point")),
        "weights_scale": MemoryDesc.of_layout(s_wei.shape, DataType.F32),
    }
    params = {"pads_begin": (1, 1), "pads_end": (1, 1), "groups": groups}
    pd = handler_for("convolution", descs, params).create(Engine.default())
    operands = {
        SRC: x,
        WEI: w.reshape(groups, 64 // groups, *w.shape[1:]) if groups > 1 else w,
        BIAS: bias,
        SCALES | SRC: np.array([s_src]),
        SCALES | WEI: s_wei,
        SCALES | DST: np.array([s_dst]),
        ZERO_POINTS | SRC: np.array([src_zero], np.int32),
        ZERO_POINTS | DST: np.array([zp_dst], np.int32),
    }
    operands = {k: v.astype(np.float32) if k & SCALES else v for k, v in operands.items()}
    got, implementation = _run(pd, operands, (1, 64, 8, 8))
    assert not implementation.startswith("ref"), implementation
    accumulated = _grouped_conv_reference(
        x.astype(np.float64) - src_zero, w.astype(np.float64), groups
    )
    real = accumulated * s_src * s_wei[None, :, None, None] + bias[None, :, None, None]
    want = _requantized(real, float(s_dst), zp_dst, np.uint8)
    steps = np.abs(got.astype(np.int64) - want)
    assert steps.max() <= 1, (implementation, steps.max())


def test_int8_matmul_with_runtime_scales_and_f32_dst() -> None:
    a = RNG.integers(0, U8_HIGH, (16, 96)).astype(np.uint8)
    b = RNG.integers(-127, 128, (96, 48)).astype(np.int8)
    s_a, zp_a = np.float32(0.03), 77
    s_b = RNG.uniform(0.001, 0.004, 48).astype(np.float32)
    descs = {
        "src": MemoryDesc.of_layout(a.shape, DataType.U8),
        "weights": MemoryDesc.any(b.shape, DataType.S8),
        "dst": MemoryDesc.of_layout((16, 48), DataType.F32),
        **_scale_descs(("src_scale",), ("src_zero_point",)),
        "weights_scale": MemoryDesc.of_layout(s_b.shape, DataType.F32),
    }
    pd = handler_for("matmul", descs, {}).create(Engine.default())
    operands = {
        SRC: a,
        WEI: b,
        SCALES | SRC: np.array([s_a], np.float32),
        SCALES | WEI: s_b,
        ZERO_POINTS | SRC: np.array([zp_a], np.int32),
    }
    got, implementation = _run(pd, operands, (16, 48))
    assert not implementation.startswith("ref"), implementation
    want = (a.astype(np.float64) - zp_a) @ b.astype(np.float64) * s_a * s_b
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_per_channel_weights_scale_must_have_one_value_per_output_channel() -> None:
    descs = {
        "src": MemoryDesc.any((1, 32, 8, 8), DataType.U8),
        "weights": MemoryDesc.any((64, 32, 3, 3), DataType.S8),
        "dst": MemoryDesc.any((1, 64, 6, 6), DataType.U8),
        "weights_scale": MemoryDesc.of_layout((32,), DataType.F32),
    }
    with pytest.raises(ValueError, match=r"weights_scale \(32,\) must hold 1 value or 64 \("):
        handler_for("convolution", descs, {})
