"""dnn.qconv2d compiled (one oneDNN int8 convolution with run-time scales and zero points,
its s8 weights packed once in the primitive's own descriptor) against the reference
interpreter (dequantize, f32 conv2d, quantize): within one output step, as oneDNN rounds
``real * (1 / s_dst)``, which may land on the other side of a tie. Without VNNI an s8
source costs more: oneDNN's AVX2 kernel (``jit_uni_int8``) halves the weights in their
reorder so that vpmaddubsw's s16 pair sums cannot saturate, losing their last bit (measured
here: up to 3 steps, 0.1 on average); there the bound is 4 steps and a mean under 0.25. The
convolution runs a real kernel (not ``ref:``) wherever the host has int8 instructions
(dnnc.target)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import dnnc
from dnnc.api import find_function, load_module
from dnnc.core.kinds import DataType
from dnnc.reference.interpreter import interpret
from dnnc.target import runs_natively
from dnnc.target.host import isa_includes

RNG = np.random.default_rng(31)
VNNI = isa_includes("avx2_vnni") or isa_includes("avx512_core_vnni")


def _dense(values: np.ndarray) -> str:
    return str(values.tolist()) if values.ndim else str(values.item())


RESIDUAL_POST_OPS = (
    "#dnn.eltwise<relu>, #dnn.eltwise<linear, 20.0>, #dnn.eltwise<round>, "
    "#dnn.eltwise<clip, -125.0, 130.0>, #dnn.eltwise<linear, 0.05>, #dnn.sum<0.03, {zero}>, "
    "#dnn.eltwise<relu>"
)
"""What dnn-fuse-quantized makes of a residual block: relu, the convolution's own quantize
and dequantize (scale 0.05, zero point -3), the int8 residual's sum, relu."""


def _graph(
    src: str, dst: str, groups: int, src_zero: int, per_channel: bool, residual: bool = False
) -> str:
    """A qconv2d of a 1x16x8x8 ``src`` into 32 channels of ``dst`` (3x3, padding 1), relu;
    with ``residual``, a second argument of ``dst``'s type is added as a sum post-op
    (RESIDUAL_POST_OPS)."""
    weights = RNG.integers(-127, 128, (32, 16 // groups, 3, 3))
    scales = RNG.uniform(0.001, 0.004, 32 if per_channel else ()).astype(np.float32)
    scale_type = "tensor<32xf32>" if per_channel else "tensor<f32>"
    bias = RNG.normal(0.0, 0.5, 32).astype(np.float32)
    w_type = f"tensor<32x{16 // groups}x3x3xi8>"
    types = (
        f"(tensor<1x16x8x8x{src}>, {w_type}, tensor<f32>, tensor<{src}>, {scale_type}, "
        f"tensor<f32>, tensor<{dst}>, tensor<32xf32>) -> tensor<1x32x8x8x{dst}>"
    )
    result = f"tensor<1x32x8x8x{dst}>"
    post_ops, post_args, argument = "#dnn.eltwise<relu>", "", ""
    if residual:
        post_ops = RESIDUAL_POST_OPS.format(zero=5 if dst == "ui8" else -5)
        post_args, argument = f"post_args(%r : {result}) ", f", %r: {result}"
    return f"""
func.func @f(%x: tensor<1x16x8x8x{src}>{argument}) -> {result} {{
  %w = dnn.constant dense<{_dense(weights)}> : {w_type}
  %ss = dnn.constant dense<0.02> : tensor<f32>
  %sz = dnn.constant dense<{src_zero}> : tensor<{src}>
  %ws = dnn.constant dense<{_dense(scales)}> : {scale_type}
  %ds = dnn.constant dense<0.05> : tensor<f32>
  %dz = dnn.constant dense<{3 if dst == "ui8" else -3}> : tensor<{dst}>
  %b = dnn.constant dense<{_dense(bias)}> : tensor<32xf32>
  %y = dnn.qconv2d %x, %w, %ss, %sz, %ws, %ds, %dz, %b {post_args}{{pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>, groups = {groups} : i64, post_ops = [{post_ops}]}} : {types}
  func.return %y : tensor<1x32x8x8x{dst}>
}}"""


@pytest.mark.parametrize(
    ("src", "dst", "groups", "src_zero", "per_channel"),
    [
        ("ui8", "ui8", 1, 100, True),
        ("ui8", "i8", 1, 0, False),
        ("i8", "ui8", 1, -5, True),
        ("i8", "i8", 4, 7, True),
    ],
)
def test_qconv2d_runs_one_int8_convolution(
    src: str, dst: str, groups: int, src_zero: int, per_channel: bool
) -> None:
    text = _graph(src, dst, groups, src_zero, per_channel)
    dtype = np.uint8 if src == "ui8" else np.int8
    # u8 above 127 saturates vpmaddubsw without VNNI (test_int8_primitives.py)
    low, high = (0, 256 if VNNI else 128) if src == "ui8" else (-128, 128)
    x = RNG.integers(low, high, (1, 16, 8, 8)).astype(dtype)
    executable = dnnc.compile(text)
    got = executable.run([x])[0]
    module, _ = load_module(text)
    want = interpret(find_function(module, None), [x])[0]
    assert got.dtype == want.dtype
    steps = np.abs(got.astype(np.int64) - want.astype(np.int64))
    halved = src == "i8" and not VNNI
    assert steps.max() <= (4 if halved else 1), steps.max()
    assert steps.mean() < 0.25, steps.mean()
    assert len(np.unique(want)) > 32  # results spread over the range, not saturated
    (convolution,) = [s for s in executable.plan.step_infos if s.kind == "convolution"]
    # a constant-0 zero point is left out of the primitive (kernels without compensation)
    assert any(o.startswith("src_zero_point=") for o in convolution.operands) == (src_zero != 0)
    if not runs_natively("convolution", DataType.U8 if src == "ui8" else DataType.S8):
        pytest.skip(f"oneDNN has no native {src} convolution here: {convolution.implementation}")
    assert not convolution.implementation.startswith("ref"), convolution.implementation


@pytest.mark.parametrize(("src", "dst"), [("i8", "i8"), ("ui8", "ui8")])
def test_qconv2d_with_int8_residual(src: str, dst: str) -> None:
    """The residual's sum post-op (its own scale and zero point, read from the result's
    buffer) after the requantizing eltwise post-ops, as the reference computes them, on a
    native kernel wherever oneDNN has one."""
    text = _graph(src, dst, 1, 3, True, residual=True)
    dtype = np.uint8 if src == "ui8" else np.int8
    info = np.iinfo(dtype)
    x = RNG.integers(info.min, info.max + 1 if VNNI else 128, (1, 16, 8, 8)).astype(dtype)
    r = RNG.integers(info.min, info.max + 1, (1, 32, 8, 8)).astype(dtype)
    executable = dnnc.compile(text)
    got = executable.run([x, r])[0]
    module, _ = load_module(text)
    want = interpret(find_function(module, None), [x, r])[0]
    steps = np.abs(got.astype(np.int64) - want.astype(np.int64))
    assert steps.max() <= (4 if src == "i8" and not VNNI else 1), steps.max()
    assert steps.mean() < 0.25, steps.mean()
    assert len(np.unique(want)) > 32
    zero = np.full_like(r, 5 if dst == "ui8" else -5)  # the sum's zero point: adds 0
    alone = interpret(find_function(module, None), [x, zero])[0]
    assert np.abs(want.astype(np.int64) - alone).max() > 8  # the residual counts
    (convolution,) = [s for s in executable.plan.step_infos if s.kind == "convolution"]
    if not runs_natively("convolution", DataType.U8 if src == "ui8" else DataType.S8):
        pytest.skip(f"oneDNN has no native {src} convolution here: {convolution.implementation}")
    assert not convolution.implementation.startswith("ref"), convolution.implementation


def test_saved_qconv2d_packs_its_weights_again_when_loaded(tmp_path: Path) -> None:
    """A saved model keeps int8 weights logical (their packed form holds oneDNN's
    compensation, which no saved layout names) and the loaded plan packs them again."""
    text = _graph("i8", "ui8", 1, -5, True)
    x = RNG.integers(-128, 128, (1, 16, 8, 8)).astype(np.int8)
    compiled = dnnc.compile(text, save_to=tmp_path / "model")
    loaded = dnnc.load(tmp_path / "model")
    np.testing.assert_array_equal(loaded.run([x])[0], compiled.run([x])[0])
