"""The discardable attributes in which passes record decisions for later passes and the lowering.

The in-place pass writes `dnn.inplace`, dnn-buffer-fusing `dnn.implicit_concat` and
`dnn.implicit_slice`; buffer classes, kernel calls and the lowering read them.
dnn-assign-layouts writes `dnn.operand_layouts` for dnn-insert-data-transforms,
dnn-plan-memory the arena attributes for convert-dnn-to-onednn, and
dnn-propagate-special-values marks the module for the recovering passes, and
dnn-guard-special-values records which inputs the executable checks for special values."""

from xdsl.dialects.builtin import DenseArrayBase
from xdsl.ir import Operation

from dnnc.core.diagnostics import error_at
from dnnc.dialects.dnn.base import ints

INPLACE = "dnn.inplace"
"""The in-place request attribute (written by the in-place pass)."""
IMPLICIT_CONCAT = "dnn.implicit_concat"
"""On a dnn.concat: byte offsets of the inputs in the result (written by dnn-buffer-fusing)."""
IMPLICIT_SLICE = "dnn.implicit_slice"
"""On a dnn.slice: byte offset of the result in the source (written by dnn-buffer-fusing)."""
SPECIAL_VALUE_GUARDS = "dnn.special_value_guards"
"""On a function: per argument, the special values to refuse and why (written by
dnn-guard-special-values, carried by convert-dnn-to-onednn to the executor)."""
OPERAND_LAYOUTS = "dnn.operand_layouts"
"""On an op: the layout each operand is expected in (written by dnn-assign-layouts, read and
removed by dnn-insert-data-transforms)."""
PROPAGATE_SPECIAL_VALUES = "dnn.propagate_special_values"
"""On the module: dnn-propagate-special-values ran, so recovering passes leave it alone."""
ARENA_OFFSETS = "dnn.arena_offsets"
"""On an op: the arena byte offset of each result (written by dnn-plan-memory)."""
ARENA_BYTES = "dnn.arena_bytes"
"""On a function: the arena's size in bytes (written by dnn-plan-memory)."""
LOWER_BOUND_BYTES = "dnn.lower_bound_bytes"
"""On a function: the planner's lower bound on the arena size (written by dnn-plan-memory)."""


def inplace_requests(op: Operation) -> list[int]:
    """The `dnn.inplace` entries of an op (all -1 when absent); an error if malformed."""
    attr = op.attributes.get(INPLACE)
    if attr is None:
        return [-1] * len(op.results)
    entries = ints(attr) if isinstance(attr, DenseArrayBase) else None
    if entries is None or len(entries) != len(op.results):
        raise error_at(op, f"{INPLACE} must be an array<i64> with one entry per result")
    if any(not -1 <= k < len(op.operands) for k in entries):
        raise error_at(op, f"{INPLACE} entries must be -1 or an operand index, got {entries}")
    return entries
