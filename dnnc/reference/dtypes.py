"""Element-type handling of the reference kernels: how values enter and leave the f64 math.

Every computing kernel reads its operands as float64 (exact for f32, bf16, f16, s8, u8 and
s32 values), computes in float64, and converts the result once, with ``to_dtype``, to the
element type of its first operand. That conversion models oneDNN's destination conversion:

* f32: round to nearest even (numpy's float64 -> float32 cast).
* bf16: first to f32 as above (oneDNN accumulates in f32), then ``round_to_bf16``: round to
  nearest even on the upper 16 bits, NaN kept as a quiet NaN, overflow to infinity.
* f16: first to f32, then numpy's float32 -> float16 cast (round to nearest even, overflow
  to infinity).
* s8 / u8 / s32: saturate to the type's range, then round half to even (oneDNN's
  ``saturate`` + ``nearbyint`` under the default rounding mode); NaN becomes 0 (oneDNN
  leaves it implementation defined).
"""

from __future__ import annotations

import functools

import ml_dtypes
import numpy as np

from dnnc.core.kinds import DataType

_ROUNDING_BIAS = np.uint32(0x7FFF)
_BF16_HIGH_MASK = np.uint32(0xFFFF0000)
_QUIET_BIT = np.uint32(0x00400000)


def round_to_bf16(x: np.ndarray) -> np.ndarray:
    """f32 values rounded to the nearest bf16 value (ties to even), returned as f32.

    The bit-level rule of oneDNN's ``float2bfloat16``: add ``0x7FFF`` plus the lowest kept
    bit and truncate the low 16 bits; a NaN is kept and made quiet. Computed in one result
    array (plus a NaN mask), not one temporary per step: casting a weight of 9 MiB to bf16
    took 62 MiB more at its peak so (BERT layer compiled for bf16: 173 MiB peak RSS).
    """
    f32 = np.ascontiguousarray(x, dtype=np.float32)
    bits = f32.view(np.uint32)
    rounded = np.right_shift(bits, np.uint32(16))
    np.bitwise_and(rounded, np.uint32(1), out=rounded)  # the lowest kept bit
    np.add(rounded, _ROUNDING_BIAS, out=rounded)
    np.add(rounded, bits, out=rounded)
    np.bitwise_and(rounded, _BF16_HIGH_MASK, out=rounded)
    nan = np.isnan(f32)
    if nan.any():
        rounded[nan] = (bits[nan] | _QUIET_BIT) & _BF16_HIGH_MASK
    return rounded.view(np.float32).reshape(np.shape(x))


@functools.cache
def data_type(dtype: DataType | str | np.dtype | type) -> DataType:
    """The dnnc data type named by a DataType, its string value or a numpy dtype (each
    kernel call asks: remembered)."""
    if isinstance(dtype, str):
        return DataType(dtype)
    return DataType.of_numpy(np.dtype(dtype))


def as_f64(array: np.ndarray) -> np.ndarray:
    """The operand's values in float64 (exact for every dnnc element type but s64)."""
    return np.asarray(array).astype(np.float64)


def to_dtype(values: np.ndarray, dtype: DataType | str | np.dtype | type) -> np.ndarray:
    """float64 results converted to ``dtype`` with oneDNN's rounding (module docstring)."""
    target = data_type(dtype)
    if target in (DataType.F32, DataType.BF16, DataType.F16):
        f32 = np.asarray(values, dtype=np.float32)  # not a copy of f32 values
        if target is DataType.BF16:
            return round_to_bf16(f32).astype(ml_dtypes.bfloat16)
        return f32.astype(target.numpy)  # a copy: the caller owns the result
    if target is DataType.BOOL:
        return np.asarray(values) != 0  # NaN is true, as in C and ONNX Runtime
    low, high = _saturation_bounds(target)
    # np.maximum/np.minimum as np.clip; NaN, which they keep, then 0 (as np.nan_to_num did,
    # at a tenth of its cost: a decoding step converts a few one-element index sums)
    saturated = np.asarray(np.minimum(np.maximum(values, low), high))  # 0-d: not a scalar
    np.copyto(saturated, 0.0, where=np.isnan(saturated))
    return np.rint(saturated).astype(target.numpy)


@functools.cache
def _saturation_bounds(target: DataType) -> tuple[float, float]:
    """The largest float64 values inside an integer type's range (float(2**63 - 1) itself
    rounds up out of it)."""
    info = np.iinfo(target.numpy)
    return float(np.nextafter(float(info.min), 0.0)), float(np.nextafter(float(info.max), 0.0))
