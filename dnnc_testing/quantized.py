"""ONNX models quantized by ONNX Runtime's own tools, as users quantize them.

``static(...)``: ``quant_pre_process`` (shape inference and graph optimization), then
``quantize_static`` in QDQ format, calibrated (MinMax) on a few seeded random inputs
(``static_from``: on given inputs, for models whose inputs are not one float tensor);
``activations``/``weights`` are ``"s8"`` or ``"u8"`` (ORT's QInt8 / QUInt8; S8S8 is its
default). ``dynamic(...)``: ``quantize_dynamic`` (s8 weights; activations quantized at run
time by DynamicQuantizeLinear, products by MatMulInteger), after the same pre-processing
(which folds the weight transposes of an export without constant folding into initializers,
the only weights quantize_dynamic quantizes).

Both are slow on the scale of a test (seconds for a torchvision model), so what depends only on
the f32 model and the calibration inputs is done once and kept beside the f32 model: the
pre-processed model, and the calibrated ranges (ORT's ``calibration_cache_path``, keyed by a
digest of the inputs: MinMax ranges do not depend on the integer types or the granularity, so
one calibration serves S8S8 and U8S8, per-tensor and per-channel).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Literal

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper
from onnxruntime.quantization import (
    CalibrationDataReader,
    QuantFormat,
    QuantType,
    quantize_dynamic,
    quantize_static,
)
from onnxruntime.quantization.shape_inference import quant_pre_process

Precision = Literal["s8", "u8"]
_TYPES: dict[str, QuantType] = {"s8": QuantType.QInt8, "u8": QuantType.QUInt8}

Feeds = Mapping[str, np.ndarray]
"""One calibration input: an array per input name."""


class FeedsReader(CalibrationDataReader):
    """The given calibration inputs, in order."""

    def __init__(self, feeds: Iterable[Feeds]) -> None:
        self._inputs = iter([dict(f) for f in feeds])

    def get_next(self) -> dict[str, np.ndarray] | None:
        return next(self._inputs, None)


def random_feeds(name: str, shape: tuple[int, ...], batches: int, seed: int) -> list[Feeds]:
    """``batches`` seeded standard-normal inputs of one shape for one input name."""
    rng = np.random.default_rng(seed)
    return [{name: rng.standard_normal(shape).astype(np.float32)} for _ in range(batches)]


def static(
    model: Path,
    output: Path,
    input_name: str,
    shape: tuple[int, ...],
    *,
    activations: Precision = "s8",
    weights: Precision = "s8",
    per_channel: bool = True,
    reduce_range: bool = False,
    batches: int = 8,
    seed: int = 0,
) -> Path:
    """``model`` quantized statically (QDQ) into ``output``, calibrated on random inputs."""
    feeds = random_feeds(input_name, shape, batches, seed)
    return static_from(
        model,
        output,
        feeds,
        activations=activations,
        weights=weights,
        per_channel=per_channel,
        reduce_range=reduce_range,
    )


def static_from(
    model: Path,
    output: Path,
    feeds: Sequence[Feeds],
    *,
    activations: Precision = "s8",
    weights: Precision = "s8",
    per_channel: bool = True,
    reduce_range: bool = False,
) -> Path:
    """``model`` quantized statically (QDQ) into ``output``, calibrated on ``feeds``
    (``reduce_range``: 7-bit weights, ONNX Runtime's remedy for CPUs without VNNI)."""
    prepared = _pre_processed(model)
    quantize_static(
        str(prepared),
        str(output),
        FeedsReader(feeds),
        quant_format=QuantFormat.QDQ,
        per_channel=per_channel,
        reduce_range=reduce_range,
        activation_type=_TYPES[activations],
        weight_type=_TYPES[weights],
        calibration_cache_path=prepared.with_suffix(f".minmax-{_digest(feeds)}.json"),
    )
    return output


def dynamic(model: Path, output: Path) -> Path:
    """``model`` quantized dynamically (s8 weights) into ``output``."""
    quantize_dynamic(str(_pre_processed(model)), str(output), weight_type=QuantType.QInt8)
    return output


def _pre_processed(model: Path) -> Path:
    """``model`` after ONNX Runtime's quantization pre-processing, beside it (done once)."""
    prepared = model.with_suffix(".pre.onnx")
    if not prepared.exists():
        quant_pre_process(str(model), str(prepared))
    return prepared


def _digest(feeds: Sequence[Feeds]) -> str:
    """A short digest of the calibration inputs (names, types, shapes and values)."""
    digest = hashlib.sha256()
    for feed in feeds:
        for name, array in sorted(feed.items()):
            digest.update(f"{name}:{array.dtype}:{array.shape}".encode())
            digest.update(np.ascontiguousarray(array).tobytes())
    return digest.hexdigest()[:16]


def output_step(model: Path) -> float:
    """The quantization step of a QDQ model's output: the scale of the DequantizeLinear that
    produces it (what its tests count differences in)."""
    graph = onnx.load(str(model)).graph
    last = next(n for n in graph.node if n.output[0] == graph.output[0].name)
    assert last.op_type == "DequantizeLinear"
    scale = next(i for i in graph.initializer if i.name == last.input[1])
    return float(numpy_helper.to_array(scale))


def onnxruntime_output(model: Path, x: np.ndarray, name: str = "input") -> np.ndarray:
    """ONNX Runtime's first output of the one-input ``model`` on ``x``."""
    session = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"])
    return session.run(None, {name: x})[0]
