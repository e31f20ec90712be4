"""dnn-fuse-quantized, differential: a small QDQ convolution net quantized by ONNX Runtime's
``quantize_static`` (per-channel weights, s8 or u8 activations), compiled with and without
the pass, both against ONNX Runtime on the same file.

Three convolutions (3x3 + Relu, strided 3x3 + Relu, grouped 3x3 + Clip(0, 6), as ReLU6)
feed the output's DequantizeLinear. With the pass each is one int8 convolution (checked on
the plan: run-time scales bound, the implementation never ``ref:`` where dnnc.target says
oneDNN has a native int8 kernel); without it each is dequantize, f32 convolution, quantize.
On a CPU without VNNI the pass fuses none of these (dnnc.target.host.has_vnni: oneDNN's int8
convolution would saturate u8 sources under 8-bit weights and halve s8 sources' weights
there, measured here under ONEDNN_MAX_CPU_ISA=AVX2 at up to 23 and 5 output steps from ONNX
Runtime), and the test checks that; weights quantized to 7 bits (``reduce_range``) fuse
there too.

Tolerance, in steps of the output's quantization grid: ONNX Runtime accumulates in int32 and
requantizes once per layer, as the fused convolution does, so a layer's value differs only
where it lies next to a rounding tie (one step, passed on to the next layers); the bound is
one step per quantized layer (3) and a mean under 0.05. Unfused, dnnc computes in f32 from
the same integers: the same bound.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
import torch
from conftest import Exported
from onnx import TensorProto, helper, numpy_helper
from torch import nn

import dnnc
from dnnc.core.kinds import DataType
from dnnc.driver.pipelines import OptimizePipeline
from dnnc.runtime.report import StepInfo
from dnnc.target import runs_natively
from dnnc.target.host import has_vnni
from dnnc_testing import quantized

SHAPE = (1, 8, 16, 16)
LAYERS = 3
UNFUSED = ",".join(step for step in OptimizePipeline.steps if step != "dnn-fuse-quantized")


def _net(path: Path) -> None:
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(8, 32, 3, padding=1),
        nn.ReLU(),
        nn.Conv2d(32, 32, 3, stride=2, padding=1),
        nn.ReLU(),
        nn.Conv2d(32, 32, 3, padding=1, groups=4),
        nn.ReLU6(),
    )
    torch.onnx.export(
        model.eval(), (torch.randn(SHAPE),), str(path), dynamo=False, input_names=["input"]
    )


@pytest.mark.parametrize("activations", ["s8", "u8"])
def test_fused_int8_convolutions_agree_with_onnxruntime(
    exported: Exported, activations: str
) -> None:
    f32 = exported.get("qconv_net_base", _net)
    path = exported.get(
        f"qconv_net_{activations}s8",
        lambda p: quantized.static(f32, p, "input", SHAPE, activations=activations),
    )
    x = np.random.default_rng(3).standard_normal(SHAPE).astype(np.float32)
    theirs = quantized.onnxruntime_output(path, x)
    fused, unfused = dnnc.compile(str(path)), dnnc.compile(str(path), UNFUSED)
    step = quantized.output_step(path)
    assert np.unique(np.rint(theirs / step)).size > 32  # values spread over the grid

    def int8_convolutions(executable: dnnc.Executable) -> list[StepInfo]:
        return [
            s
            for s in executable.plan.step_infos
            if s.kind == "convolution" and any(o.startswith("src_scale=") for o in s.operands)
        ]

    assert not int8_convolutions(unfused)
    assert len(int8_convolutions(fused)) == (LAYERS if has_vnni() else 0)
    for executable in (fused, unfused):
        steps = np.abs(executable.run([x])[0] - theirs) / step
        assert steps.max() <= LAYERS + 0.01 and steps.mean() < 0.05, (steps.max(), steps.mean())
    if not has_vnni():
        pytest.skip("no VNNI on this CPU: these 8-bit weights are not fused (module docstring)")
    data_type = DataType.S8 if activations == "s8" else DataType.U8
    if not runs_natively("convolution", data_type):
        pytest.skip(f"oneDNN has no native {data_type} convolution on this CPU")
    for convolution in int8_convolutions(fused):
        assert not convolution.implementation.startswith("ref"), convolution.implementation


class _Blocks(nn.Module):
    """A stem and two ResNet basic blocks: one with an identity shortcut, one downsampling
    (a strided 1x1 convolution on the shortcut)."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Conv2d(8, 16, 3, padding=1)
        self.a1, self.a2 = nn.Conv2d(16, 16, 3, padding=1), nn.Conv2d(16, 16, 3, padding=1)
        self.b1 = nn.Conv2d(16, 32, 3, stride=2, padding=1)
        self.b2, self.down = nn.Conv2d(32, 32, 3, padding=1), nn.Conv2d(16, 32, 1, stride=2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.relu(self.stem(x))
        x = torch.relu(x + self.a2(torch.relu(self.a1(x))))
        return torch.relu(self.down(x) + self.b2(torch.relu(self.b1(x))))


def _blocks(path: Path) -> None:
    torch.manual_seed(0)
    torch.onnx.export(
        _Blocks().eval(), (torch.randn(SHAPE),), str(path), dynamo=False, input_names=["input"]
    )


@pytest.mark.parametrize("activations", ["s8", "u8"])
def test_residual_adds_fused_agree_with_onnxruntime(exported: Exported, activations: str) -> None:
    """Both residual adds become sum post-ops of an int8 convolution (on a VNNI CPU): with
    and without dnn-fuse-quantized against ONNX Runtime. The fused add requantizes the
    convolution's result exactly as its quantize did (eltwise post-ops), so the bound is the
    3-layer test's: one step per quantized layer (6, the adds counted) and a small mean."""
    f32 = exported.get("qconv_blocks_base", _blocks)
    path = exported.get(
        f"qconv_blocks_{activations}s8",
        lambda p: quantized.static(f32, p, "input", SHAPE, activations=activations),
    )
    x = np.random.default_rng(3).standard_normal(SHAPE).astype(np.float32)
    theirs = quantized.onnxruntime_output(path, x)
    fused, unfused = dnnc.compile(str(path)), dnnc.compile(str(path), UNFUSED)
    step = quantized.output_step(path)
    assert np.unique(np.rint(theirs / step)).size > 32
    for executable in (fused, unfused):
        steps = np.abs(executable.run([x])[0] - theirs) / step
        assert steps.max() <= 6.01 and steps.mean() < 0.05, (steps.max(), steps.mean())
    summing = [
        s
        for s in fused.plan.step_infos
        if s.kind == "convolution" and any(o.startswith("post_arg_0=") for o in s.operands)
    ]
    if not has_vnni():
        assert not summing
        pytest.skip("no VNNI on this CPU: these 8-bit weights are not fused (module docstring)")
    assert len(summing) == 2
    kinds = [s.kind for s in fused.plan.step_infos]
    first, last = kinds.index("convolution"), len(kinds) - kinds[::-1].index("convolution")
    assert set(kinds[first:last]) == {"convolution"}, kinds  # int8 from the first to the last
    for convolution in summing:
        assert not convolution.implementation.startswith("ref"), convolution.implementation


def _pools(path: Path) -> None:
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(8, 16, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(3, 2, 1),
        nn.Conv2d(16, 16, 3, padding=1),
        nn.ReLU(),
        nn.AvgPool2d(2),
        nn.Conv2d(16, 32, 1),
        nn.Flatten(),
    )
    torch.onnx.export(
        model.eval(), (torch.randn(SHAPE),), str(path), dynamo=False, input_names=["input"]
    )


def _writes_8_bits(step: StepInfo) -> bool:
    dst = next(o for o in step.operands if o.startswith("dst="))
    return dst.split(",")[0].endswith("i8")


@pytest.mark.parametrize("activations", ["s8", "u8"])
def test_pooling_and_flatten_in_int8_agree_with_onnxruntime(
    exported: Exported, activations: str
) -> None:
    """dnn-keep-int8: MaxPool, AveragePool (2x2, no padding) and Flatten between a
    dequantize and a quantize of their input's parameters (quantize_static's) run on the
    integers, on every CPU: with and without the pass against ONNX Runtime, within one step
    per quantized layer (6) and a small mean; with it, both poolings read and write int8 and
    no quantize or dequantize is left around the three."""
    f32 = exported.get("qpool_net_base", _pools)
    path = exported.get(
        f"qpool_net_{activations}s8",
        lambda p: quantized.static(f32, p, "input", SHAPE, activations=activations),
    )
    x = np.random.default_rng(3).standard_normal(SHAPE).astype(np.float32)
    theirs = quantized.onnxruntime_output(path, x)
    without = ",".join(step for step in OptimizePipeline.steps if step != "dnn-keep-int8")
    kept, unkept = dnnc.compile(str(path)), dnnc.compile(str(path), without)
    step = quantized.output_step(path)
    assert np.unique(np.rint(theirs / step)).size > 32
    for executable in (kept, unkept):
        steps = np.abs(executable.run([x])[0] - theirs) / step
        assert steps.max() <= 6.01 and steps.mean() < 0.05, (steps.max(), steps.mean())
    integer = "ui8" if activations == "u8" else "i8"

    def int8_pools(executable: dnnc.Executable) -> list[StepInfo]:
        return [
            s
            for s in executable.plan.step_infos
            if s.kind == "pooling" and all(o.split(",")[0].endswith(integer) for o in s.operands)
        ]

    assert not int8_pools(unkept)
    assert len(int8_pools(kept)) == 2

    def quantizing(executable: dnnc.Executable) -> int:
        """The quantize steps (binary divisions into 8 bits) and dequantize steps (reorders
        with a scale)."""
        return sum(
            (s.kind == "reorder" and any("_scale=" in o for o in s.operands))
            or (s.kind == "binary" and _writes_8_bits(s))
            for s in executable.plan.step_infos
        )

    assert quantizing(kept) == quantizing(unkept) - 6  # around the 3 ops
    for pool in int8_pools(kept):
        assert not pool.implementation.startswith("ref"), pool.implementation


TIES = (1, 16, 8, 8)


def _ties(path: Path) -> None:
    """A QDQ 1x1 convolution whose requantized values are whole or half numbers: u8 source
    in [0, 3] (scale 0.5), weights in [-3, 3] (scale 1 per channel), an int32 bias (scale
    0.5), result scale 1 and zero point 3 (odd). Half the values are ties; ONNX rounds them
    half to even before adding the zero point."""
    rng = np.random.default_rng(0)
    channels = TIES[1]
    initializers = {
        "xs": np.float32(0.5),
        "xz": np.uint8(0),
        "w": rng.integers(-3, 4, (channels, channels, 1, 1)).astype(np.int8),
        "ws": np.ones(channels, np.float32),
        "b": rng.integers(-20, 21, channels).astype(np.int32),
        "bs": np.full(channels, 0.5, np.float32),
        "ys": np.float32(1.0),
        "yz": np.uint8(3),
    }
    nodes = [
        helper.make_node("DequantizeLinear", ["x", "xs", "xz"], ["xf"]),
        helper.make_node("DequantizeLinear", ["w", "ws"], ["wf"], axis=0),
        helper.make_node("DequantizeLinear", ["b", "bs"], ["bf"], axis=0),
        helper.make_node("Conv", ["xf", "wf", "bf"], ["c"]),
        helper.make_node("QuantizeLinear", ["c", "ys", "yz"], ["yq"]),
        helper.make_node("DequantizeLinear", ["yq", "ys", "yz"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "ties",
        [helper.make_tensor_value_info("x", TensorProto.UINT8, TIES)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, TIES)],
        [numpy_helper.from_array(np.asarray(v), k) for k, v in initializers.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.save(model, str(path))


def test_zero_point_added_after_rounding_agrees_with_onnxruntime(exported: Exported) -> None:
    """dnn-fuse-quantized's zero-point rule: at exact ties with an odd zero point the int8
    convolution rounds as ONNX does (half to even, then the zero point), equal to ONNX
    Runtime (exact here) on every output; without the rule oneDNN adds the zero point first
    and rounds many ties the other way (one step). Fused on every CPU (a u8 source, 2-bit
    weights: exact without VNNI too)."""
    path = exported.get("qconv_ties", _ties)
    x = np.random.default_rng(1).integers(0, 4, TIES).astype(np.uint8)
    theirs = quantized.onnxruntime_output(path, x, "x")
    rule = "dnn-fuse-quantized{round-first=false}"
    without = ",".join(rule if s == "dnn-fuse-quantized" else s for s in OptimizePipeline.steps)
    ours, unruled = dnnc.compile(str(path)), dnnc.compile(str(path), without)
    for executable in (ours, unruled):
        kinds = [s.kind for s in executable.plan.step_infos]
        assert kinds.count("convolution") == 1 and "binary" not in kinds, kinds  # fused
    np.testing.assert_array_equal(ours.run([x])[0], theirs)
    steps = np.abs(unruled.run([x])[0] - theirs)
    assert steps.max() == 1 and np.mean(steps > 0) > 0.2, np.mean(steps > 0)


def _global_average(path: Path) -> None:
    """MobileNetV2's head, small: a convolution, ReLU6, a global average (quantize_static
    gives its mean other parameters than its input's), a 1x1 convolution as the classifier."""
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(8, 64, 3, padding=1),
        nn.ReLU6(),
        nn.AdaptiveAvgPool2d(1),
        nn.Conv2d(64, 32, 1),
        nn.Flatten(),
    )
    torch.onnx.export(
        model.eval(), (torch.randn(SHAPE),), str(path), dynamo=False, input_names=["input"]
    )


@pytest.mark.parametrize("activations", ["s8", "u8"])
def test_global_average_requantized_in_int8_agrees_with_onnxruntime(
    exported: Exported, activations: str
) -> None:
    """dnn-keep-int8's requantizing pooling: the GlobalAveragePool between a dequantize and a
    quantize of other parameters runs as one int8 pooling (u8 after dnn-shift-to-u8) with
    the requantization as post-ops, in place of a dequantizing reorder, an f32 pooling and a
    quantizing division; with and without the pass against ONNX Runtime, within one step per
    quantized layer (3) and a small mean, on every CPU (with VNNI the convolutions around it
    are int8 too: no step between)."""
    f32 = exported.get("qgap_net_base", _global_average)
    path = exported.get(
        f"qgap_net_{activations}s8",
        lambda p: quantized.static(f32, p, "input", SHAPE, activations=activations),
    )
    x = np.random.default_rng(3).standard_normal(SHAPE).astype(np.float32)
    theirs = quantized.onnxruntime_output(path, x)
    without = ",".join(step for step in OptimizePipeline.steps if step != "dnn-keep-int8")
    kept, unkept = dnnc.compile(str(path)), dnnc.compile(str(path), without)
    step = quantized.output_step(path)
    assert np.unique(np.rint(theirs / step)).size > 8  # values spread over the grid
    for executable in (kept, unkept):
        steps = np.abs(executable.run([x])[0] - theirs) / step
        assert steps.max() <= 3.01 and steps.mean() < 0.1, (steps.max(), steps.mean())
    pools = {
        name: [s for s in executable.plan.step_infos if s.kind == "pooling"]
        for name, executable in (("kept", kept), ("unkept", unkept))
    }
    assert [p.operands[0].split(",")[0][-3:] for p in pools["unkept"]] == ["f32"]
    (pool,) = pools["kept"]
    assert pool.operands[0].split(",")[0].endswith("i8"), pool.operands
    assert any(o.startswith("post_arg_0=1x1x1x1xf32") for o in pool.operands), pool.operands
    assert not pool.implementation.startswith("ref"), pool.implementation
    kinds = [s.kind for s in kept.plan.step_infos]
    at = kinds.index("pooling")
    if has_vnni():  # int8 from the first convolution to the second (else f32 convolutions)
        assert kinds[at - 1 : at + 2] == ["convolution", "pooling", "convolution"], kinds


def test_s8_activations_shifted_to_u8_agree_with_onnxruntime(exported: Exported) -> None:
    """dnn-shift-to-u8 on the S8S8 blocks: with and without it against ONNX Runtime (the
    bound of the residual test); with it, on a VNNI CPU, every convolution reads u8 and all
    but the first (the network's input keeps its zero point) run without a source zero point
    (after a removed Relu the s8 zero point is -128, so the u8 one is 0)."""
    f32 = exported.get("qconv_blocks_base", _blocks)
    path = exported.get(
        "qconv_blocks_s8s8", lambda p: quantized.static(f32, p, "input", SHAPE, activations="s8")
    )
    x = np.random.default_rng(3).standard_normal(SHAPE).astype(np.float32)
    theirs = quantized.onnxruntime_output(path, x)
    without = ",".join(step for step in OptimizePipeline.steps if step != "dnn-shift-to-u8")
    shifted, unshifted = dnnc.compile(str(path)), dnnc.compile(str(path), without)
    step = quantized.output_step(path)
    for executable in (shifted, unshifted):
        steps = np.abs(executable.run([x])[0] - theirs) / step
        assert steps.max() <= 6.01 and steps.mean() < 0.05, (steps.max(), steps.mean())
    if not has_vnni():
        pytest.skip("no VNNI: these 8-bit weights are not fused, no convolution reads u8")
    convolutions = [s for s in shifted.plan.step_infos if s.kind == "convolution"]
    assert len(convolutions) == 6
    assert all(c.operands[0].split(",")[0].endswith("xui8") for c in convolutions)
    with_zero_point = [c for c in convolutions if any("src_zero_point=" in o for o in c.operands)]
    assert with_zero_point == convolutions[:1], [c.operands for c in with_zero_point]


@pytest.mark.parametrize("activations", ["s8", "u8"])
def test_seven_bit_weights_fuse_on_every_cpu(exported: Exported, activations: str) -> None:
    """With ``reduce_range`` (weights in [-64, 64]) and u8 sources (s8 ones after
    dnn-shift-to-u8) oneDNN's int8 convolution is exact without VNNI too (vpmaddubsw's pair
    sums stay below 2**15): all 3 convolutions fuse on every CPU, with and without
    dnn-fuse-quantized against ONNX Runtime within the 3-layer bound, on native kernels."""
    f32 = exported.get("qconv_net_base", _net)
    path = exported.get(
        f"qconv_net_{activations}s8_7bit",
        lambda p: quantized.static(
            f32, p, "input", SHAPE, activations=activations, reduce_range=True
        ),
    )
    x = np.random.default_rng(3).standard_normal(SHAPE).astype(np.float32)
    theirs = quantized.onnxruntime_output(path, x)
    fused, unfused = dnnc.compile(str(path)), dnnc.compile(str(path), UNFUSED)
    step = quantized.output_step(path)
    for executable in (fused, unfused):
        steps = np.abs(executable.run([x])[0] - theirs) / step
        assert steps.max() <= LAYERS + 0.01 and steps.mean() < 0.05, (steps.max(), steps.mean())
    convolutions = [s for s in fused.plan.step_infos if s.kind == "convolution"]
    assert len(convolutions) == LAYERS
    assert all(any(o.startswith("src_scale=") for o in c.operands) for c in convolutions)
    assert all(c.operands[0].split(",")[0].endswith("xui8") for c in convolutions)
    for convolution in convolutions:
        assert not convolution.implementation.startswith("ref"), convolution.implementation
