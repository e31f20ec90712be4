"""Constant ONNX nodes folded with numpy: the common ones, so that importing a model rarely
needs onnx's ReferenceEvaluator (``onnx.reference`` and its first evaluator cost 19 MiB and
45-50 ms of CPU: a sixth of a compile's memory above the interpreter's). The shape
arithmetic transformers exports fold here whole (the masks' ConstantOfShape, the position
ids' Range, the Mul of a shape: BERT, RoBERTa, GPT-2, LLaMA). ``FOLDERS[op_type](node, *inputs)``
is the node's only output, or None for a form of the node not folded here (the importer
then asks the ReferenceEvaluator). Each folder follows the ONNX operator's
definition; test_onnx_folding checks them against the ReferenceEvaluator.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import onnx

from dnnc.core.arrays import transposed
from dnnc.core.diagnostics import ModelError
from dnnc.frontend.onnx.graph import Node

Folder = Callable[..., np.ndarray | None]

_CONSTANT_LISTS = {
    "value_float": np.float32,
    "value_floats": np.float32,
    "value_int": np.int64,
    "value_ints": np.int64,
}
"""Constant's scalar and list attributes and their element types (``value`` is a tensor;
strings and sparse tensors go to the ReferenceEvaluator)."""


def _constant(node: Node) -> np.ndarray | None:
    for attribute in node.proto.attribute:
        if attribute.name == "value":
            value = node.attr("value")
            assert isinstance(value, np.ndarray)
            return value
        if attribute.name in _CONSTANT_LISTS:
            return np.array(node.attr(attribute.name), _CONSTANT_LISTS[attribute.name])
    return None


def _identity(node: Node, data: np.ndarray) -> np.ndarray:
    return data


def _transpose(node: Node, data: np.ndarray) -> np.ndarray:
    permutation = node.ints_attr("perm", list(range(data.ndim))[::-1])
    return transposed(data, permutation)


def _unsqueeze(node: Node, data: np.ndarray, axes: np.ndarray | None = None) -> np.ndarray:
    """Axes from the second input (opset 13 on) or the attribute (before)."""
    listed = node.ints_attr("axes") if axes is None else [int(a) for a in axes.reshape(-1)]
    rank = data.ndim + len(listed)
    return np.expand_dims(data, tuple(sorted(a % rank for a in listed)))


def _concat(node: Node, *inputs: np.ndarray) -> np.ndarray:
    return np.concatenate(inputs, axis=node.int_attr("axis"))


def _gather_elements(node: Node, data: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """Negative indices count from the end. (The ReferenceEvaluator's fails in onnx 1.23 with
    numpy 2, "cannot reshape array of size 1": BERT's position ids.)"""
    axis = node.int_attr("axis", 0) % data.ndim
    indices = np.where(indices < 0, indices + data.shape[axis], indices)
    return np.take_along_axis(data, indices, axis=axis)


def _constant_of_shape(node: Node, shape: np.ndarray) -> np.ndarray:
    """A tensor of ``shape`` filled with the one element of ``value`` (0.0 as float32 when
    absent), in its element type."""
    value = node.attr("value")
    if value is None:
        return np.zeros(tuple(int(d) for d in shape), np.float32)
    if not isinstance(value, np.ndarray) or value.size != 1:
        raise ModelError(
            f"node '{node.label}' (ConstantOfShape): its value must be a tensor of one element"
        )
    return np.full(tuple(int(d) for d in shape), value.reshape(-1)[0], value.dtype)


def _range(
    node: Node, start: np.ndarray, limit: np.ndarray, delta: np.ndarray
) -> np.ndarray | None:
    """``start + i * delta`` while short of ``limit``, in start's element type, computed as
    numpy's arange does (float64 for floats). float16 and bfloat16 (whose ``stash_type``
    says how to compute) are left to the ReferenceEvaluator."""
    if start.dtype.itemsize < 4 and start.dtype.kind not in "iu":
        return None
    return np.arange(start.item(), limit.item(), delta.item()).astype(start.dtype)


def _mul(node: Node, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Numpy's broadcast product (the operands share an element type: ONNX requires it)."""
    return np.asarray(np.multiply(a, b))


FOLDERS: dict[str, Folder] = {
    "Constant": _constant,
    "Identity": _identity,
    "Transpose": _transpose,
    "Unsqueeze": _unsqueeze,
    "Concat": _concat,
    "GatherElements": _gather_elements,
    "ConstantOfShape": _constant_of_shape,
    "Range": _range,
    "Mul": _mul,
}
"""ONNX op type -> its numpy folder (module docstring)."""


def _ints(array: np.ndarray | None) -> list[int]:
    return [] if array is None else [int(a) for a in array.reshape(-1)]


def _gather(node: Node, data: np.ndarray, indices: np.ndarray) -> np.ndarray:
    axis = node.int_attr("axis", 0) % data.ndim
    return np.take(data, indices.astype(np.int64), axis=axis)


def _squeeze(node: Node, data: np.ndarray, axes: np.ndarray | None = None) -> np.ndarray:
    """Axes from the second input (opset 13 on) or the attribute; none: every unit axis."""
    listed = node.ints_attr("axes", []) if axes is None else _ints(axes)
    return np.squeeze(data, tuple(a % data.ndim for a in listed) or None)


def _slice(
    node: Node,
    data: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
    axes: np.ndarray | None = None,
    steps: np.ndarray | None = None,
) -> np.ndarray:
    """Slices of a shape vector (its length is known: only its elements are symbolic)."""
    axes_list = _ints(axes) or list(range(len(_ints(starts))))
    steps_list = _ints(steps) or [1] * len(axes_list)
    index = [slice(None)] * data.ndim
    for axis, start, end, step in zip(axes_list, _ints(starts), _ints(ends), steps_list):
        index[axis % data.ndim] = slice(*slice(start, end, step).indices(data.shape[axis]))
    return data[tuple(index)]


def _cast(node: Node, data: np.ndarray) -> np.ndarray | None:
    """Casts between integer types keep the sizes; others are left to the importer."""
    to = node.int_attr("to")
    return data if to in (onnx.TensorProto.INT64, onnx.TensorProto.INT32) else None


def _reshape(node: Node, data: np.ndarray, shape: np.ndarray) -> np.ndarray:
    return data.reshape(_ints(shape))


def symbolic_inputs(op_type: str, arrays: list[np.ndarray]) -> bool:
    """Whether SYMBOLIC_FOLDERS folds a node of ``op_type`` on ``arrays``: every array holds
    integers and the shape vector it rearranges (input 0; any input of Concat and the
    arithmetic) holds sizes (``object``), its other inputs (indices, axes) plain ints."""
    if op_type not in SYMBOLIC_FOLDERS:
        return False
    if op_type == "Where":  # a plain condition choosing between sizes
        return arrays[0].dtype == np.bool_ and symbolic_inputs("Concat", arrays[1:])
    if not all(a.dtype == object or np.issubdtype(a.dtype, np.integer) for a in arrays):
        return False
    if op_type in ("Concat", "Add", "Sub", "Mul", "Div", "Equal"):
        return True
    return arrays[0].dtype == object and all(a.dtype != object for a in arrays[1:])


SYMBOLIC_FOLDERS: dict[str, Folder] = {
    "Identity": _identity,
    "Unsqueeze": _unsqueeze,
    "Concat": _concat,
    "Gather": _gather,
    "Squeeze": _squeeze,
    "Slice": _slice,
    "Cast": _cast,
    "Reshape": _reshape,
    "Add": lambda node, a, b: a + b,
    "Sub": lambda node, a, b: a - b,
    "Mul": lambda node, a, b: a * b,
    "Div": lambda node, a, b: a // b,  # sizes are >= 1: truncation is floor division
    "Equal": lambda node, a, b: np.equal(a, b).astype(np.bool_),  # each a guard
    "Where": lambda node, c, a, b: np.asarray(np.where(c, a, b)),
}
"""Folders of nodes whose inputs may hold sizes that are expressions of the input
dimensions (``object`` arrays of dnnc.core.symbols.SymbolicInt, while dnnc.driver.dynamic
traces an ONNX model): numpy's object arithmetic keeps each expression. The other inputs
are plain arrays (indices, axes); a node of another type gets its inputs pinned to their
traced values (Importer.fold)."""
