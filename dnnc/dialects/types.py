"""Element types of tensors and memories, and their dnnc data types (kinds.DataType).

`i8` is oneDNN's s8 (MLIR's signless integers are signed in every ML dialect), `ui8` is u8,
`i32` is s32, `i64` is s64 and `i1` is boolean; oneDNN computes on neither of the last two,
so ops on them run reference kernels (lowering.kernel_calls).
"""

from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    IntegerType,
    Signedness,
)
from xdsl.ir import Attribute
from xdsl.utils.exceptions import VerifyException

from dnnc.core.kinds import DataType

_ELEMENT_TYPES: dict[DataType, Attribute] = {
    DataType.F32: Float32Type(),
    DataType.BF16: BFloat16Type(),
    DataType.F16: Float16Type(),
    DataType.S8: IntegerType(8),
    DataType.U8: IntegerType(8, Signedness.UNSIGNED),
    DataType.S32: IntegerType(32),
    DataType.S64: IntegerType(64),
    DataType.BOOL: IntegerType(1),
}
DATA_TYPES: dict[Attribute, DataType] = {t: d for d, t in _ELEMENT_TYPES.items()}
"""Element types the dialects accept and the oneDNN data type of each."""


def data_type_of(element_type: Attribute) -> DataType:
    """The data type of an element type; VerifyException naming the valid ones otherwise."""
    try:
        return DATA_TYPES[element_type]
    except KeyError:
        valid = ", ".join(str(t) for t in _ELEMENT_TYPES.values())
        raise VerifyException(
            f"element type {element_type} is not supported (valid: {valid})"
        ) from None


def element_type_of(data_type: DataType) -> Attribute:
    """The builtin element type that spells a data type in the IR."""
    return _ELEMENT_TYPES[data_type]
