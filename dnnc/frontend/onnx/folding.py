"""Constant ONNX nodes folded with numpy: the common ones, so that importing a model rarely
needs onnx's ReferenceEvaluator (``onnx.reference`` costs 12 MiB and 30 ms to import: a
sixth of a compile's memory above the interpreter's). ``FOLDERS[op_type](node, *inputs)``
is the node's only output, or None for a form of the node not folded here (the importer
then asks the ReferenceEvaluator). Each folder follows the ONNX operator's
definition; test_onnx_folding checks them against the ReferenceEvaluator.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from dnnc.core.arrays import transposed
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


FOLDERS: dict[str, Folder] = {
    "Constant": _constant,
    "Identity": _identity,
    "Transpose": _transpose,
    "Unsqueeze": _unsqueeze,
    "Concat": _concat,
    "GatherElements": _gather_elements,
}
"""ONNX op type -> its numpy folder (module docstring)."""
