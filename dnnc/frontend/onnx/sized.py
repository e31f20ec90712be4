"""Arrays an import computes from the input dimensions (while dnnc.driver.dynamic traces an
ONNX model with its ``?`` dimensions as symbols, dnnc.core.symbols).

Two kinds, kept apart:
* a *shape vector*: an ``object`` array of sizes (SymbolicInt or int) of a static length,
  from ``Shape``/``Size``, rearranged by folding.SYMBOLIC_FOLDERS; its elements size tensors
  (a Reshape target);
* a ``SizedArray``: *data* whose shape or values follow the input dimensions (position ids
  ``Range(0, seq)``, a slice of a position buffer up to ``seq``, a mask built from them).
  It holds its value for the traced signature, its shape as expressions, and how to compute
  it again for other symbol values (the same node folds on the recomputed inputs). The
  importer passes it to the function as an extra input, which dnnc.driver.onnx_shapes
  computes once per input signature: data stays data, never a constant a pass could fold.

``sized_shape`` gives a node's result shape as expressions for the node types whose shape
rule is written here (``None`` otherwise: the importer then pins the symbols to their traced
values). Comparisons in these rules (a broadcast, a clamp of a slice bound) are guards of
the trace, like any other.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from dnnc.core.symbols import SymbolicInt, Values, evaluate
from dnnc.frontend.onnx.graph import Node

Recompute = Callable[[Values], np.ndarray]


@dataclass(frozen=True)
class SizedArray:
    """Data that follows the input dimensions (module docstring)."""

    hint: np.ndarray
    """The array for the traced signature."""
    shape: tuple[int, ...]
    """Its shape, SymbolicInt where a size follows the inputs."""
    recompute: Recompute
    """The array for other symbol values."""
    function: str | None = None
    """The host shape function that computes it, as the IR writes it (dnnc.dialects.dnn.
    symbolic: ``range(start, limit, delta)``), where there is one."""

    @property
    def dtype(self) -> np.dtype:
        return self.hint.dtype


Folded = np.ndarray | SizedArray


def hint_of(value: Folded) -> np.ndarray:
    """The array for the traced signature (a shape vector's sizes as int64), no guard."""
    if isinstance(value, SizedArray):
        return value.hint
    if value.dtype != object:
        return value
    return np.array([int.__int__(v) for v in value.reshape(-1)], np.int64).reshape(value.shape)


def recompute_of(value: Folded) -> Recompute:
    """How to compute ``value`` for other symbol values."""
    if isinstance(value, SizedArray):
        return value.recompute
    if value.dtype != object:
        return lambda _: value
    flat, shape = list(value.reshape(-1)), value.shape
    return lambda v: np.array([evaluate(d, v) for d in flat], np.int64).reshape(shape)


def sizes_array(values: Sequence[int]) -> np.ndarray:
    """Sizes as an int64 array, or a shape vector (``object``) when one is an expression."""
    if any(isinstance(v, SymbolicInt) for v in values):
        array = np.empty(len(values), dtype=object)
        array[:] = list(values)
        return array
    return np.asarray(values, dtype=np.int64)


def shape_of_folded(value: Folded) -> tuple[int, ...]:
    return value.shape if isinstance(value, SizedArray) else tuple(value.shape)


def _elements(value: Folded) -> list[int] | None:
    """A shape vector's or plain integer array's elements (sizes), None for data."""
    if isinstance(value, SizedArray) or not (
        value.dtype == object or np.issubdtype(value.dtype, np.integer)
    ):
        return None
    return [v if isinstance(v, SymbolicInt) else int(v) for v in value.reshape(-1)]


def _broadcast(shapes: Sequence[tuple[int, ...]]) -> tuple[int, ...]:
    """numpy's broadcast of sizes that may be expressions (each == 1 a guard)."""
    rank = max(map(len, shapes))
    padded = [(1,) * (rank - len(s)) + tuple(s) for s in shapes]
    out = []
    for dims in zip(*padded):
        wide = [d for d in dims if not d == 1]
        out.append(wide[0] if wide else 1)
    return tuple(out)


def _clamp(bound: int, size: int) -> int:
    """An ONNX Slice bound clamped to [0, size]."""
    if bound < 0:
        bound = bound + size
    return min(max(bound, 0), size)


def _axes(node: Node, inputs: Sequence[Folded], index: int) -> list[int] | None:
    if index < len(inputs):
        return _elements(inputs[index])
    return node.ints_attr("axes") if node.attr("axes") is not None else None


ELEMENTWISE = frozenset(
    {
        "Add", "Sub", "Mul", "Div", "Mod", "Equal", "Less", "LessOrEqual", "Greater",
        "GreaterOrEqual", "And", "Or", "Xor", "Not", "Neg", "Abs", "Where", "Cast", "Identity",
        "Max", "Min", "CumSum", "Cos", "Sin",
    }
)  # fmt: skip
"""Node types whose result has the broadcast shape of their (first, for CumSum) inputs
(Cos and Sin: rotary position embeddings, cos/sin of positions from the past length)."""


def sized_shape(node: Node, inputs: Sequence[Folded]) -> tuple[int, ...] | None:
    """The result shape of ``node`` on these inputs as expressions (module docstring)."""
    shapes = [shape_of_folded(a) for a in inputs]
    op = node.op_type
    if op in ELEMENTWISE:
        return _broadcast(shapes[:1] if op == "CumSum" else shapes)
    if op == "Range":
        bounds = [_elements(a) for a in inputs]
        if any(b is None or len(b) != 1 for b in bounds):
            return None
        start, limit, delta = (b[0] for b in bounds if b is not None)
        return (max(-(-(limit - start) // delta), 0),)
    if op == "ConstantOfShape":
        sizes = _elements(inputs[0])
        return None if sizes is None else tuple(sizes)
    if op == "Expand":
        return (
            None
            if (sizes := _elements(inputs[1])) is None
            else _broadcast([shapes[0], tuple(sizes)])
        )
    if op == "Slice":
        return _slice(node, inputs, shapes[0])
    if op == "Unsqueeze":
        axes = _axes(node, inputs, 1)
        if axes is None:
            return None
        rank = len(shapes[0]) + len(axes)
        dims = iter(shapes[0])
        insert = {a % rank for a in axes}
        return tuple(1 if i in insert else next(dims) for i in range(rank))
    if op == "Squeeze":
        axes = _axes(node, inputs, 1)
        if axes is None:  # every unit axis (each == 1 a guard)
            axes = [i for i, d in enumerate(shapes[0]) if d == 1]
        drop = {a % len(shapes[0]) for a in axes}
        return tuple(d for i, d in enumerate(shapes[0]) if i not in drop)
    if op == "Gather":
        axis = node.int_attr("axis", 0) % len(shapes[0])
        return (*shapes[0][:axis], *shapes[1], *shapes[0][axis + 1 :])
    if op == "GatherElements":
        return shapes[1]
    if op == "Flatten":
        axis = node.int_attr("axis", 1) % (len(shapes[0]) or 1)
        return (math.prod(shapes[0][:axis]), math.prod(shapes[0][axis:]))
    if op == "Transpose":
        permutation = node.ints_attr("perm", list(range(len(shapes[0])))[::-1])
        return tuple(shapes[0][p] for p in permutation)
    if op == "Concat":
        axis = node.int_attr("axis") % len(shapes[0])
        return (*shapes[0][:axis], sum(s[axis] for s in shapes), *shapes[0][axis + 1 :])
    return None


def shape_function(node: Node, inputs: Sequence[Folded]) -> str | None:
    """The IR's host shape function for ``node`` on these inputs (dnnc.dialects.dnn.symbolic),
    None where it has none: a Range whose bounds are sizes."""
    bounds = [_elements(a) for a in inputs]
    if node.op_type != "Range" or any(b is None or len(b) != 1 for b in bounds):
        return None
    texts = [b[0].text if isinstance(b[0], SymbolicInt) else str(b[0]) for b in bounds if b]
    return f"range({', '.join(texts)})"


def _slice(node: Node, inputs: Sequence[Folded], shape: tuple[int, ...]) -> tuple[int, ...] | None:
    """Slice with unit steps: each sliced size is its clamped end minus its clamped start."""
    starts, ends = _elements(inputs[1]), _elements(inputs[2])
    axes = _elements(inputs[3]) if len(inputs) > 3 else None
    steps = _elements(inputs[4]) if len(inputs) > 4 else None
    if starts is None or ends is None or any(not s == 1 for s in steps or []):
        return None
    out = list(shape)
    for axis, start, end in zip(axes or range(len(starts)), starts, ends):
        size = shape[axis % len(shape)]
        out[axis % len(shape)] = max(_clamp(end, size) - _clamp(start, size), 0)
    return tuple(out)


__all__ = [
    "Folded",
    "Recompute",
    "SizedArray",
    "hint_of",
    "recompute_of",
    "shape_function",
    "shape_of_folded",
    "sized_shape",
    "sizes_array",
]
