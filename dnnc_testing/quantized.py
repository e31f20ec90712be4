"""ONNX models quantized by ONNX Runtime's own tools, as users quantize them.

``static(...)``: ``quant_pre_process`` (shape inference and graph optimization), then
``quantize_static`` in QDQ format, calibrated (MinMax) on a few seeded random inputs;
``activations``/``weights`` are ``"s8"`` or ``"u8"`` (ORT's QInt8 / QUInt8; S8S8 is its
default). ``dynamic(...)``: ``quantize_dynamic`` (s8 weights; activations quantized at run
time by DynamicQuantizeLinear, products by MatMulInteger), after the same pre-processing
(which folds the weight transposes of an export without constant folding into initializers,
the only weights quantize_dynamic quantizes).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Literal

import numpy as np
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


class RandomReader(CalibrationDataReader):
    """``batches`` seeded standard-normal inputs of one shape for one input name."""

    def __init__(self, name: str, shape: tuple[int, ...], batches: int, seed: int) -> None:
        rng = np.random.default_rng(seed)
        self._inputs: Iterator[dict[str, np.ndarray]] = iter(
            [{name: rng.standard_normal(shape).astype(np.float32)} for _ in range(batches)]
        )

    def get_next(self) -> dict[str, np.ndarray] | None:
        return next(self._inputs, None)


def static(
    model: Path,
    output: Path,
    input_name: str,
    shape: tuple[int, ...],
    *,
    activations: Precision = "s8",
    weights: Precision = "s8",
    per_channel: bool = True,
    batches: int = 8,
    seed: int = 0,
) -> Path:
    """``model`` quantized statically (QDQ) into ``output``."""
    prepared = _pre_processed(model, output)
    quantize_static(
        str(prepared),
        str(output),
        RandomReader(input_name, shape, batches, seed),
        quant_format=QuantFormat.QDQ,
        per_channel=per_channel,
        activation_type=_TYPES[activations],
        weight_type=_TYPES[weights],
    )
    prepared.unlink()
    return output


def dynamic(model: Path, output: Path) -> Path:
    """``model`` quantized dynamically (s8 weights) into ``output``."""
    prepared = _pre_processed(model, output)
    quantize_dynamic(str(prepared), str(output), weight_type=QuantType.QInt8)
    prepared.unlink()
    return output


def _pre_processed(model: Path, output: Path) -> Path:
    """``model`` after ONNX Runtime's quantization pre-processing, beside ``output``."""
    prepared = output.with_suffix(".pre.onnx")
    quant_pre_process(str(model), str(prepared))
    return prepared
