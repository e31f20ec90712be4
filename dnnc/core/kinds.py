"""The vocabulary shared by the dialect, the reference kernels and the runtime.

Each enum is the one spelling of a choice (an eltwise algorithm, a pooling kind, a data
type); the dialect wraps them as attributes, the reference kernels implement them in numpy
and the runtime maps them to oneDNN's constants. Post-ops are plain frozen dataclasses so
that all three layers describe a fused chain the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
from xdsl.utils.str_enum import StrEnum  # what xDSL enum attributes require (stdlib-compatible)


class DataType(StrEnum):
    """Element types, spelled as oneDNN spells them (``dnnl_f32`` ...)."""

    F32 = "f32"
    BF16 = "bf16"
    F16 = "f16"
    S8 = "s8"
    U8 = "u8"
    S32 = "s32"
    S64 = "s64"
    """64-bit integers (token ids, positions, indices, shapes): oneDNN 3.2 has no primitive
    for them, so only reference kernels compute on them."""
    BOOL = "boolean"
    """Booleans (masks, comparison results), one byte each: reference kernels only."""

    @property
    def is_onednn(self) -> bool:
        """Whether oneDNN's primitives compute in this type (s64 and boolean: no)."""
        return self not in (DataType.S64, DataType.BOOL)

    @property
    def numpy(self) -> np.dtype:
        return _numpy_dtype(self)

    @property
    def mlir(self) -> str:
        """The element type as MLIR spells it (``i8`` for s8, ``i1`` for boolean)."""
        return _MLIR.get(self, self.value)

    @property
    def itemsize(self) -> int:
        return self.numpy.itemsize

    @staticmethod
    def of_numpy(dtype: np.dtype) -> DataType:
        """The data type of a numpy dtype; ValueError naming the valid ones otherwise."""
        for data_type, numpy_type in _NUMPY.items():
            if np.dtype(numpy_type) == dtype:
                return data_type
        if dtype.name == "bfloat16":  # ml_dtypes' (loaded already, if an array has it)
            return DataType.BF16
        valid = ", ".join(str(t.numpy) for t in DataType)
        raise ValueError(f"numpy dtype {dtype} has no dnnc data type (valid: {valid})")


_MLIR: dict[DataType, str] = {
    DataType.S8: "i8",
    DataType.U8: "ui8",
    DataType.S32: "i32",
    DataType.S64: "i64",
    DataType.BOOL: "i1",
}


@cache
def _numpy_dtype(data_type: DataType) -> np.dtype:
    """The numpy dtype of a data type: bf16 is ml_dtypes', imported on first use (2.5 MiB that
    a process running f32 models, a loaded one, does without)."""
    if data_type is DataType.BF16:
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(_NUMPY[data_type])


_NUMPY: dict[DataType, type] = {
    DataType.F32: np.float32,
    DataType.F16: np.float16,
    DataType.S8: np.int8,
    DataType.U8: np.uint8,
    DataType.S32: np.int32,
    DataType.S64: np.int64,
    DataType.BOOL: np.bool_,
}


class EltwiseAlg(StrEnum):
    """Element-wise algorithms with oneDNN's ``eltwise_*`` semantics (see docs/dialect.md)."""

    RELU = "relu"
    LEAKY_RELU = "leaky_relu"
    GELU_ERF = "gelu_erf"
    GELU_TANH = "gelu_tanh"
    TANH = "tanh"
    SIGMOID = "sigmoid"
    ELU = "elu"
    SWISH = "swish"
    HARDSWISH = "hardswish"
    HARDSIGMOID = "hardsigmoid"
    CLIP = "clip"
    RELU6 = "relu6"
    EXP = "exp"
    LOG = "log"
    SQRT = "sqrt"
    ABS = "abs"
    SQUARE = "square"
    LINEAR = "linear"
    POW = "pow"
    SOFT_RELU = "soft_relu"
    MISH = "mish"
    ROUND = "round"
    SOFTSIGN = "softsign"
    ERF = "erf"
    SIN = "sin"
    COS = "cos"


class BinaryAlg(StrEnum):
    """Binary algorithms (oneDNN ``binary_*``), with numpy broadcasting in the dialect."""

    ADD = "add"
    SUB = "sub"
    MUL = "mul"
    DIV = "div"
    MAX = "max"
    MIN = "min"
    POW = "pow"


class CompareAlg(StrEnum):
    """Element-wise comparisons (ONNX Equal, Less, LessOrEqual, Greater, GreaterOrEqual)."""

    EQ = "eq"
    NE = "ne"
    LT = "lt"
    LE = "le"
    GT = "gt"
    GE = "ge"


class LogicalAlg(StrEnum):
    """Element-wise logic on booleans (ONNX And, Or, Xor)."""

    AND = "and"
    OR = "or"
    XOR = "xor"


class PoolKind(StrEnum):
    MAX = "max"
    AVG_INCLUDE_PAD = "avg_include_pad"
    AVG_EXCLUDE_PAD = "avg_exclude_pad"


class ReduceKind(StrEnum):
    SUM = "sum"
    MEAN = "mean"
    MAX = "max"
    MIN = "min"
    MUL = "mul"


class LrnKind(StrEnum):
    ACROSS_CHANNELS = "across_channels"
    WITHIN_CHANNEL = "within_channel"


@dataclass(frozen=True)
class EltwisePostOp:
    """``d = eltwise(d)``."""

    alg: EltwiseAlg
    alpha: float = 0.0
    beta: float = 0.0


@dataclass(frozen=True)
class BinaryPostOp:
    """``d = d <alg> p`` with ``p`` the next post-op argument, broadcast to ``d``."""

    alg: BinaryAlg


@dataclass(frozen=True)
class SumPostOp:
    """``d = d + scale * (p - zero_point)`` with ``p`` the next post-op argument, shaped exactly
    like ``d`` (a zero point only for an 8-bit ``p``: an int8 residual)."""

    scale: float = 1.0
    zero_point: int = 0


PostOp = EltwisePostOp | BinaryPostOp | SumPostOp


def takes_argument(post_op: PostOp) -> bool:
    """Whether a post-op consumes the next of the op's post-op arguments."""
    return not isinstance(post_op, EltwisePostOp)
