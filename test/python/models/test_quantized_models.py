"""Models quantized by ONNX Runtime's own tools, run by dnnc and by ONNX Runtime from the same
file, and both compared with the f32 model.

The matrix: torchvision's ResNet-18, MobileNetV3-Small and EfficientNet-B0 and a 2-layer
``transformers`` BERT with its attention mask (test_real_architectures' models and exports, the
same files: random weights, BatchNorm statistics of a batch, batch 2, 64x64 images, 16 tokens,
opset 17), each quantized by ``quantize_static`` in QDQ format (MinMax on 4 random inputs,
dnnc_testing.quantized: one calibration per model) in all four variants: s8 or u8 activations
(S8S8, ORT's default, or U8S8) times per-tensor or per-channel weights; the BERT also by
``quantize_dynamic``. Asymmetric MinMax gives u8 and s8 activations the same grid (zero points
128 apart), and dnnc shifts s8 activations to u8: its S8S8 and U8S8 outputs of one granularity
were equal in every case measured. ONNX Runtime runs the two on other kernels, so its distance
from dnnc differs between them (BOUNDS gives the worse).

Cost: compiling (and running once) the 16 static files takes 30 s of CPU with the IR
verified after each of dnnc's passes, 17.5 s verified once after each pipeline (measured on
Zen 5, one thread), so this module compiles with DNNC_VERIFY_EACH=0. The IR is still verified,
after the optimization and after the lowering; a pass that breaks it fails the test with a
message naming DNNC_VERIFY_EACH=1 to find which (the lit tests and the smaller tests verify
after each pass).

Agreement, in steps of the output's grid (the scale of the DequantizeLinear giving the output:
every model here ends in a QuantizeLinear -> DequantizeLinear pair). Where two engines compute a
layer from the same integers, a value next to a rounding tie may round the other way (int32
accumulation and one requantization, as ONNX Runtime's u8 int8 kernels and dnnc's fused int8
convolutions do, against f32 arithmetic on the dequantized values, as both do elsewhere; and
dnnc's quantizing reorders add the zero point before rounding): one step of that layer, and
the next layers carry it on. Random networks amplify such flips layer by layer, the more so
per-tensor (measured: three one-step flips in ResNet-18's first block become up to 13 steps in
its last). The yardstick is ONNX Runtime against itself: its optimized run (int8 kernels) and
its unoptimized run (dequantize, f32, quantize) of the same file differ by up to 6 steps (mean
1.0) on the per-tensor U8S8 ResNet-18, 3 on the per-channel U8S8 EfficientNet-B0. So each
model and granularity bounds the largest and the mean difference by its measured figures (in
the table, natively on a VNNI CPU and under ONEDNN_MAX_CPU_ISA=AVX2, S8S8 and U8S8) with
margin; a wrong scale, zero point, bias or layout is off by tens of steps, or by the output's
range. A rounding that departs from ONNX's shows too: the per-tensor U8S8 MobileNetV3-Small,
whose results have nonzero zero points, was 4 steps (mean 0.90) from ONNX Runtime while oneDNN
added them before rounding (half to even on the shifted value), and equals it since
dnn-fuse-quantized adds them after.

Accuracy against the f32 model (ONNX Runtime's run of the unquantized file): RMS(engine - f32)
over the outputs, dnnc's at most ONNX Runtime's times 1.1. RMS, not the largest error, which is
one output's flips. The 10% are those flips again: they move an engine's RMS error by a few
percent either way (ONNX Runtime's optimized and unoptimized runs differ by 3% on EfficientNet-
B0; dnnc measured from 2% below to 6.6% above ONNX Runtime, the latter EfficientNet-B0 under
AVX2), while a real loss (a step lost, a wrong saturation) costs more. No engine is owed a bound
below ONNX Runtime's own figure: on bench/models.py's MobileNetV2 (S8S8, one input) the
quantized model computed exactly (float64, one rounding per quantize) is 1.4% further from
f32 than ONNX Runtime's run, whose near-tie roundings happen to land better there; over 48
other inputs dnnc (= exact) is 0.3% closer (S8S8) or level (U8S8). With random weights the
CNNs quantize poorly (RMS error 28% of the output's RMS for MobileNetV3-Small, 39% for
EfficientNet-B0, against 9% for ResNet-18 and 2% for BERT), so for those two the accuracy bound
says less than the agreement bound.
"""

from __future__ import annotations

import functools
import typing
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch
from conftest import Exported
from test_real_architectures import ARCHITECTURES, Architecture, export

import dnnc
from dnnc.core.kinds import DataType
from dnnc.driver.pipelines import VERIFY_EACH_VARIABLE, OptimizePipeline
from dnnc.frontend.onnx import import_onnx
from dnnc.target import runs_natively
from dnnc.target.host import has_vnni
from dnnc_testing import quantized
from dnnc_testing.model_zoo import BertLayer

MODELS = {a.name: a for a in ARCHITECTURES}
BATCH, LENGTH = 2, 16
"""The inputs of test_real_architectures' static exports (whose files these share)."""


BOUNDS: dict[tuple[str, bool], tuple[float, float]] = {
    # (model, per channel): largest / mean steps from ONNX Runtime; measured natively (VNNI),
    # then under AVX2, each the worse of S8S8 and U8S8
    ("resnet18", False): (8.0, 2.0),  # 5 / 0.90, 5 / 1.17
    ("resnet18", True): (2.0, 0.2),  # 1 / 0.05, 1 / 0.05
    ("mobilenet_v3_small", False): (
        1.0,
        0.01,
    ),  # 0 / 0, 0 / 0 (4 / 0.90 with zero points added before rounding)
    ("mobilenet_v3_small", True): (2.0, 0.2),  # 0 / 0, 0 / 0
    ("efficientnet_b0", False): (14.0, 2.6),  # 9 / 1.73, 7 / 0.94
    ("efficientnet_b0", True): (12.0, 2.5),  # 7 / 1.65, 3 / 0.34
    ("bert", False): (2.0, 0.05),  # 1 / 0.004, 1 / 0.004
    ("bert", True): (2.0, 0.05),  # 1 / 0.007, 1 / 0.007
}


@dataclass(frozen=True)
class Variant:
    """A static quantization of a model; its agreement bounds, in output steps, are its
    model's and granularity's (BOUNDS)."""

    model: str
    activations: quantized.Precision
    per_channel: bool

    @property
    def bounds(self) -> tuple[float, float]:
        """The largest and the mean difference from ONNX Runtime allowed, in output steps."""
        return BOUNDS[self.model, self.per_channel]

    def __str__(self) -> str:
        granularity = "per_channel" if self.per_channel else "per_tensor"
        return f"{self.model}-{self.activations}s8-{granularity}"


VARIANTS = [
    Variant(model, activations, per_channel)
    for model in ("resnet18", "mobilenet_v3_small", "efficientnet_b0", "bert")
    for activations in typing.get_args(quantized.Precision)
    for per_channel in (False, True)
]


SHIFTED = ("resnet18", "bert")
"""The models test_s8s8_runs_the_u8s8_steps compares."""


@pytest.fixture(autouse=True)
def _verified_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """dnnc.compile verifies the IR after each pipeline, not after each pass (module
    docstring: the cost)."""
    monkeypatch.setenv(VERIFY_EACH_VARIABLE, "0")


def _f32(exported: Exported, architecture: Architecture) -> Path:
    """test_real_architectures' static opset-17 export of the architecture (the same file)."""
    return exported.get(f"{architecture.name}-17", export(architecture, 17, False))


def _calibration(architecture: Architecture, count: int = 4) -> list[quantized.Feeds]:
    """``count`` inputs shaped like the test's with other values: images standard normal,
    token ids below the vocabulary (100), the attention mask as the test's."""
    feeds = []
    for seed in range(100, 100 + count):
        rng = np.random.default_rng(seed)
        feed = {}
        for name, array in architecture.inputs(BATCH, LENGTH).items():
            if name == "input_ids":
                feed[name] = rng.integers(0, 100, array.shape).astype(array.dtype)
            elif array.dtype == np.float32:
                feed[name] = rng.standard_normal(array.shape).astype(np.float32)
            else:
                feed[name] = array
        feeds.append(feed)
    return feeds


def _ort(path: Path, feeds: quantized.Feeds) -> np.ndarray:
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(None, dict(feeds))[0]


def _rms(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.sqrt(np.mean((a.astype(np.float64) - b) ** 2)))


@functools.cache
def _compiled(path: Path) -> dnnc.Executable:
    """dnnc's executable of a file, compiled once per session (two tests read ResNet-18's)."""
    return dnnc.compile(str(path))


def _quantized(exported: Exported, variant: Variant) -> tuple[Path, Path]:
    """The variant's file (quantized once per session) and its f32 model's."""
    architecture = MODELS[variant.model]
    f32 = _f32(exported, architecture)
    path = exported.get(
        str(variant),
        lambda p: quantized.static_from(
            f32,
            p,
            _calibration(architecture),
            activations=variant.activations,
            per_channel=variant.per_channel,
        ),
    )
    return path, f32


def _compared(path: Path, f32: Path, feeds: quantized.Feeds) -> tuple[np.ndarray, ...]:
    """dnnc's, ONNX Runtime's and the f32 model's outputs on ``feeds``; the f32 ones O(1)
    (a tolerance relative to outputs near 0 would test nothing)."""
    ours = _compiled(path).run(dict(feeds))[0]
    theirs, reference = _ort(path, feeds), _ort(f32, feeds)
    assert reference.std() > 0.05 and np.abs(reference).max() > 0.3, "degenerate outputs"
    return ours, theirs, reference


@pytest.mark.parametrize(
    "variant",
    [
        pytest.param(v, id=str(v), marks=[pytest.mark.slow] if v.model == "efficientnet_b0" else [])
        for v in VARIANTS
    ],
)
def test_static_qdq_agrees_with_onnxruntime(exported: Exported, variant: Variant) -> None:
    path, f32 = _quantized(exported, variant)
    feeds = MODELS[variant.model].inputs(BATCH, LENGTH)
    ours, theirs, reference = _compared(path, f32, feeds)
    steps = np.abs(ours - theirs) / quantized.output_step(path)
    print(f"{variant}: {steps.max():.1f} / {steps.mean():.3f} steps", end="; ")
    print(f"RMS from f32: dnnc {_rms(ours, reference):.4f}, ORT {_rms(theirs, reference):.4f}")
    largest, mean = variant.bounds
    assert steps.max() <= largest and steps.mean() <= mean
    assert _rms(ours, reference) <= 1.1 * _rms(theirs, reference)


@pytest.mark.parametrize(
    "variant",
    [v for v in VARIANTS if v.activations == "s8" and v.per_channel and v.model in SHIFTED],
    ids=str,
)
def test_s8s8_runs_the_u8s8_steps(exported: Exported, variant: Variant) -> None:
    """dnn-shift-to-u8 reaches every s8 activation the U8S8 file has as u8: the S8S8 file's
    steps are the U8S8 file's (kind, operand types and layouts, oneDNN implementation,
    thread count), so neither runs a slower kernel or one reorder more (ONNX Runtime runs
    S8S8 2.2x slower than U8S8 on bench/models.py's MobileNetV2; dnnc runs them as one
    program). A CNN and a transformer, per channel (the shift reads no weight): the
    executables are test_static_qdq_agrees_with_onnxruntime's where the same worker compiled
    them, else two compiles more (MobileNetV3-Small and EfficientNet-B0 passed too)."""
    u8 = Variant(variant.model, "u8", variant.per_channel)
    plans = [_compiled(_quantized(exported, v)[0]).plan.step_infos for v in (variant, u8)]
    s8s8, u8s8 = ([(s.kind, s.operands, s.implementation, s.threads) for s in p] for p in plans)
    assert s8s8 == u8s8


@pytest.mark.parametrize("variant", [v for v in VARIANTS if v.model == "resnet18"], ids=str)
def test_resnet18_int8_kernels_are_native(exported: Exported, variant: Variant) -> None:
    """On a CPU with VNNI every Conv of ResNet-18 is one oneDNN int8 convolution (run-time
    scales bound), and no int8 primitive (convolution, matmul, inner product) runs oneDNN's
    reference or plain-gemm implementation, per-tensor weights (mask 0) and per-channel."""
    if not has_vnni():
        pytest.skip("no VNNI on this CPU: dnn-fuse-quantized fuses nothing (int8 kernels saturate)")
    data_type = DataType.S8 if variant.activations == "s8" else DataType.U8
    if not runs_natively("convolution", data_type):
        pytest.skip(f"oneDNN has no native {data_type} convolution on this CPU")
    path, _ = _quantized(exported, variant)
    convolutions = sum(n.op_type == "Conv" for n in onnx.load(str(path)).graph.node)
    int8 = [
        s
        for s in _compiled(path).plan.step_infos
        if any(o.startswith("src_scale=") for o in s.operands)
    ]
    assert sum(s.kind == "convolution" for s in int8) == convolutions == 20
    for step in int8:
        assert not step.implementation.startswith(("ref", "gemm:")), (
            step.kind,
            step.implementation,
        )


@pytest.mark.slow
def test_resnet18_int8_passes_with_and_without_agree_with_onnxruntime(exported: Exported) -> None:
    """The S8S8 per-tensor ResNet-18 compiled without the int8 passes (dnn-shift-to-u8,
    dnn-keep-int8, dnn-fuse-quantized: f32 compute between quantization reorders) and with
    them: each within the variant's bounds of ONNX Runtime, and of each other."""
    variant = VARIANTS[0]
    assert (variant.model, variant.activations) == ("resnet18", "s8")
    path, _ = _quantized(exported, variant)
    feeds = MODELS[variant.model].inputs(BATCH, LENGTH)
    passes = {"dnn-shift-to-u8", "dnn-keep-int8", "dnn-fuse-quantized"}
    without = ",".join(step for step in OptimizePipeline.steps if step not in passes)
    ours = _compiled(path).run(dict(feeds))[0]
    plain = dnnc.compile(str(path), without).run(dict(feeds))[0]
    theirs, step = _ort(path, feeds), quantized.output_step(path)
    largest, mean = variant.bounds
    for a, b in ((ours, theirs), (plain, theirs), (ours, plain)):
        steps = np.abs(a - b) / step
        assert steps.max() <= largest and steps.mean() <= mean


def test_bert_dynamic_agrees_with_onnxruntime(exported: Exported) -> None:
    """No output grid: the activations are quantized at run time by a formula both engines
    compute exactly and the int32 products are exact, so the results agree to f32 rounding."""
    architecture = MODELS["bert"]
    f32 = _f32(exported, architecture)
    path = exported.get("bert-17-dynamic-quantized", lambda p: quantized.dynamic(f32, p))
    types = {n.op_type for n in onnx.load(str(path)).graph.node}
    assert {"DynamicQuantizeLinear", "MatMulInteger"} <= types
    ours, theirs, reference = _compared(path, f32, architecture.inputs(BATCH, LENGTH))
    np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-4)
    assert _rms(ours, reference) <= 1.1 * _rms(theirs, reference)


SEQUENCE = (1, 16, 64)


def _bert_layer(path: Path) -> None:
    """bench/models.py's BERT layer, small: opset 17 and no constant folding, as the bench
    exports it. The GELU is the decomposed erf form (opset 20 has a Gelu node), which
    quantize_static rounds inside."""
    torch.manual_seed(0)
    torch.onnx.export(
        BertLayer(hidden=64, heads=4, ffn=256).eval(),
        (torch.randn(SEQUENCE),),
        str(path),
        dynamo=False,
        input_names=["input"],
        opset_version=17,
        do_constant_folding=False,
    )


def test_bert_layer_static_qdq_gelu_recovered_agrees_with_onnxruntime(exported: Exported) -> None:
    f32 = exported.get("bert_small_int8_base", _bert_layer)
    path = exported.get(
        "bert_small_qdq_s8s8", lambda p: quantized.static(f32, p, "input", SEQUENCE)
    )
    assert "Erf" in {n.op_type for n in onnx.load(str(path)).graph.node}
    text = str(import_onnx(onnx.load(str(path))))
    assert "gelu_erf" in text and "dnn.eltwise erf" not in text  # oneDNN runs the GELU
    x = np.random.default_rng(5).standard_normal(SEQUENCE).astype(np.float32)
    ours, theirs, reference = _compared(path, f32, {"input": x})
    assert _rms(reference, np.zeros_like(reference)) == pytest.approx(1.0, rel=0.01)
    # The output is the f32 LayerNorm's (no grid): within 0.1 of ONNX Runtime's (measured
    # 0.053; 0.053 too with the GELU's inner roundings kept) and as close to f32.
    assert np.abs(ours - theirs).max() <= 0.1
    assert _rms(ours, reference) <= 1.1 * _rms(theirs, reference)


def test_bert_layer_dynamic_agrees_with_onnxruntime(exported: Exported) -> None:
    """The bench's export (no constant folding: quantize_dynamic finds the weights only
    after the pre-processing folds their transposes), compiled with dnn-share-dynamic-quantize
    (4 dynamic quantizations: q, k and v share one) and without it (6, one per
    MatMulInteger): both agree with ONNX Runtime, and with each other exactly."""
    f32 = exported.get("bert_small_int8_base", _bert_layer)
    path = exported.get("bert_small_dynamic", lambda p: quantized.dynamic(f32, p))
    types = [n.op_type for n in onnx.load(str(path)).graph.node]
    assert types.count("DynamicQuantizeLinear") == 6 and "MatMulInteger" in types
    x = np.random.default_rng(5).standard_normal(SEQUENCE).astype(np.float32)
    ours, theirs, reference = _compared(path, f32, {"input": x})
    np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-4)
    assert _rms(ours, reference) <= 1.1 * _rms(theirs, reference)
    unshared = ",".join(s for s in OptimizePipeline.steps if s != "dnn-share-dynamic-quantize")
    plain = dnnc.compile(str(path), unshared)
    np.testing.assert_allclose(plain.run({"input": x})[0], theirs, rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(plain.run({"input": x})[0], ours)
    counts = [
        sum(s.kind == "dynamic_quantize" for s in e.plan.step_infos)
        for e in (_compiled(path), plain)
    ]
    assert counts == [4, 6]
