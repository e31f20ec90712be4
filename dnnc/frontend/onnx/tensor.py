"""Converters of the ONNX ops that move data or reduce it: Flatten, Reshape, Squeeze,
Unsqueeze, Transpose, Concat, Slice, Reduce*, CumSum, Shape.

Their shape-like operands (target shapes, axes, starts / ends) must be known at import time;
``Shape`` of a statically shaped tensor is such a constant, so exporter-made shape
subgraphs fold away (``importer.Importer.fold``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from xdsl.ir import SSAValue

from dnnc.core import shapes
from dnnc.core.diagnostics import RunTimeShapeError
from dnnc.core.kinds import EltwiseAlg, ReduceKind
from dnnc.core.symbols import SymbolicInt, pinned
from dnnc.dialects.dnn import CumSumOp, GatherElementsOp, GatherNDOp, GatherOp, shape_of
from dnnc.frontend.onnx.graph import Node, one_element
from dnnc.frontend.onnx.importer import Importer, Value, element_of, make_tensor_type
from dnnc.frontend.onnx.movement import gather
from dnnc.frontend.onnx.nn import reduce
from dnnc.frontend.onnx.sized import sizes_array

REDUCE: dict[str, ReduceKind] = {
    "ReduceMean": ReduceKind.MEAN,
    "ReduceSum": ReduceKind.SUM,
    "ReduceMax": ReduceKind.MAX,
    "ReduceMin": ReduceKind.MIN,
    "ReduceSumSquare": ReduceKind.SUM,
}
"""ONNX reduction -> dnn.reduce kind (ReduceSumSquare squares its input first)."""

_AXES_AS_INPUT_SINCE = {"Squeeze": 13, "Unsqueeze": 13, "ReduceSum": 13}
"""The opset from which ``axes`` is an input, per op (18 for the other reductions)."""
"""Opset from which ``axes`` is an input rather than an attribute (18 for the other Reduce*)."""


def _axes(imp: Importer, node: Node, index: int) -> list[int] | None:
    """The ``axes`` attribute or (from the op's opset) input ``index``; None when absent."""
    if imp.graph.opset < _AXES_AS_INPUT_SINCE.get(node.op_type, 18):
        return None if node.attr("axes") is None else node.ints_attr("axes")
    if not imp.has_input(node, index):
        return None
    return [int(a) for a in imp.require_const(node, index, "axes").reshape(-1)]


def _product(dims: Sequence[int]) -> int:
    return shapes.DYNAMIC if shapes.DYNAMIC in dims else math.prod(dims)


def convert_flatten(imp: Importer, node: Node) -> Value:
    """Flatten at ``axis`` -> dnn.reshape to [prod(dims before), prod(dims from axis)]."""
    src = imp.tensor(node, 0)
    shape = shape_of(src)
    axis = node.int_attr("axis", 1)
    axis = axis + len(shape) if axis < 0 else axis
    return imp.reshape(src, (_product(shape[:axis]), _product(shape[axis:])))


def _cancelled(top: list[int], bottom: list[int]) -> tuple[list[int], list[int]]:
    """The factors of a quotient of sizes without the expressions both sides have (the
    batch and sequence of ``x.view(b, s, h, -1)``): what is left divides to a plain int."""
    rest = list(bottom)
    kept = []
    for factor in top:
        same = next(
            (
                i
                for i, other in enumerate(rest)
                if isinstance(factor, SymbolicInt) and shapes.same_size(factor, other)
            ),
            None,
        )
        if same is None:
            kept.append(factor)
        else:
            del rest[same]
    return kept, rest


def convert_reshape(imp: Importer, node: Node) -> Value:
    """Reshape with a constant target: 0 copies the input dimension (unless allowzero), -1
    takes what is left (dynamic when that is not known)."""
    src = imp.tensor(node, 0)
    shape = shape_of(src)
    target = imp.sizes(node, 1, "shape")
    allow_zero = bool(node.attr("allowzero", 0))
    dims = [shape[i] if d == 0 and not allow_zero else d for i, d in enumerate(target)]
    if target.count(-1) > 1:
        raise imp.error(node, f"the target shape {target} has more than one -1")
    if -1 in target:  # a 0 that copies a dynamic dimension is -1 in dims too
        rest = target.index(-1)
        copied = {i for i, d in enumerate(target) if d == 0 and not allow_zero}
        # the copied dimensions are in both element counts: only the others decide
        top, bottom = _cancelled(
            [d for i, d in enumerate(shape) if i not in copied],
            [d for i, d in enumerate(dims) if i != rest and i not in copied],
        )
        known, total = _product(bottom), _product(top)
        unknown = shapes.DYNAMIC in (known, total) or known == 0
        dims[rest] = shapes.DYNAMIC if unknown else total // known
    imp.infer(node, shapes.reshape, shape, shape=tuple(dims))
    return imp.reshape(src, dims)


def convert_squeeze(imp: Importer, node: Node) -> Value:
    """Squeeze -> dnn.reshape without the given (or every static unit) axes."""
    src = imp.tensor(node, 0)
    shape = shape_of(src)
    axes = _axes(imp, node, 1)
    if axes is None:
        axes = [i for i, d in enumerate(shape) if d == 1]
    drop = {imp.infer(node, shapes.normalize_axis, a, len(shape)) for a in axes}
    for axis in drop:
        if shape[axis] not in (1, shapes.DYNAMIC):
            raise imp.error(node, f"cannot squeeze axis {axis} of size {shape[axis]}")
    return imp.reshape(src, [d for i, d in enumerate(shape) if i not in drop])


def convert_unsqueeze(imp: Importer, node: Node) -> Value:
    """Unsqueeze -> dnn.reshape with unit axes inserted (axes count in the result's rank)."""
    src = imp.tensor(node, 0)
    shape = shape_of(src)
    axes = _axes(imp, node, 1)
    if axes is None:
        raise imp.error(node, "axes are required")
    rank = len(shape) + len(axes)
    insert = {imp.infer(node, shapes.normalize_axis, a, rank) for a in axes}
    dims = iter(shape)
    return imp.reshape(src, [1 if i in insert else next(dims) for i in range(rank)])


def convert_transpose(imp: Importer, node: Node) -> Value:
    """Transpose (default: reverse the dimensions) -> dnn.transpose."""
    src = imp.tensor(node, 0)
    rank = len(shape_of(src))
    permutation = node.ints_attr("perm", list(reversed(range(rank))))
    imp.infer(node, shapes.transpose, shape_of(src), permutation=permutation)
    return imp.transpose(src, permutation)


def convert_gather(imp: Importer, node: Node) -> Value:
    """Gather -> dnn.gather (embedding lookups, index selects), GatherElements ->
    dnn.gather_elements; constant indices become an inline constant, negative ones count from
    the end. A Gather of one constant index (0-d, or [1] keeping the axis) of a static shape
    (attention's q / k / v taken from one packed projection, a class token) is dnn.slice +
    dnn.reshape: a view or a strided copy, not an index lookup."""
    src = imp.tensor(node, 0)
    axis = imp.infer(node, shapes.normalize_axis, node.int_attr("axis", 0), len(shape_of(src)))
    picked = imp.const(node, 1)
    index = None if picked is None else one_element(picked)
    if node.op_type == "Gather" and picked is not None and index is not None:
        selected = _select(imp, node, src, int(index), picked.shape, axis)
        if selected is not None:
            return selected
    indices = imp.tensor(node, 1)
    elements = node.op_type == "GatherElements"
    op, infer = (
        (GatherElementsOp, shapes.gather_elements) if elements else (GatherOp, shapes.gather)
    )
    shape = imp.infer(node, infer, shape_of(src), shape_of(indices), axis=axis)
    return imp.emit(
        op(src, indices, axis=axis, result_type=make_tensor_type(element_of(src), shape))
    )


def convert_gather_nd(imp: Importer, node: Node) -> Value:
    """GatherND -> dnn.gather_nd (its ``batch_dims``); constant indices become an inline
    constant (transformers' attention masks pick their rows so, from torch's dynamo
    exporter)."""
    src, indices = imp.tensor(node, 0), imp.tensor(node, 1)
    batch_dims = node.int_attr("batch_dims", 0)
    shape = imp.infer(
        node, shapes.gather_nd, shape_of(src), shape_of(indices), batch_dims=batch_dims
    )
    return imp.emit(
        GatherNDOp(
            src,
            indices,
            batch_dims=batch_dims,
            result_type=make_tensor_type(element_of(src), shape),
        )
    )


def _select(
    imp: Importer, node: Node, src: SSAValue, index: int, kept: shapes.Shape, axis: int
) -> Value | None:
    """``src[..., index, ...]`` along ``axis`` as slice + reshape, the axis replaced by the
    index tensor's shape ``kept`` (() or (1,)); None for a dynamic shape. An index out of
    range is the error ONNX makes it."""
    shape = shape_of(src)
    if shapes.DYNAMIC in shape:
        return None  # the reshape would need run-time sizes: dnn.gather handles them
    if not -shape[axis] <= index < shape[axis]:
        raise imp.error(
            node, f"index {index} is out of range for axis {axis} of size {shape[axis]}"
        )
    start = index % shape[axis]
    begin = [start if d == axis else 0 for d in range(len(shape))]
    end = [start + 1 if d == axis else extent for d, extent in enumerate(shape)]
    return imp.reshape(imp.slice(node, src, begin, end), [*shape[:axis], *kept, *shape[axis + 1 :]])


def convert_concat(imp: Importer, node: Node) -> Value:
    """Concat -> dnn.concat."""
    inputs = [imp.tensor(node, index) for index in range(len(node.inputs))]
    axis = imp.infer(node, shapes.normalize_axis, node.int_attr("axis"), len(shape_of(inputs[0])))
    return imp.concat(node, inputs, axis)


def _clamp(index: int, size: int) -> int:
    """An ONNX slice bound: negative counts from the end, then clamped to [0, size]."""
    return min(max(index + size if index < 0 else index, 0), size)


def convert_slice(imp: Importer, node: Node) -> Value:
    """Slice with constant starts / ends / axes / steps (negative and out-of-range bounds as
    ONNX clamps them; unit-step ends may be sizes of ? dimensions, dnnc.frontend.onnx.sized)
    -> dnn.slice; an axis with a negative step -> dnn.gather of the indices
    it takes, in order (ONNX clamps such bounds as Python's ``slice.indices`` does)."""
    src = imp.tensor(node, 0)
    shape = shape_of(src)
    starts = imp.require_const(node, 1, "starts").reshape(-1)
    ends = imp.sizes(node, 2, "ends")  # expressions of the input dimensions kept (step 1)
    axes = (
        imp.require_const(node, 3, "axes").reshape(-1)
        if imp.has_input(node, 3)
        else np.arange(len(starts))
    )
    steps = (
        imp.require_const(node, 4, "steps").reshape(-1)
        if imp.has_input(node, 4)
        else np.ones(len(starts), np.int64)
    )
    begin, end, step = [0] * len(shape), list(shape), [1] * len(shape)
    reversed_axes: dict[int, list[int]] = {}
    for start, stop, axis, stride in zip(starts, ends, axes, steps):
        axis = imp.infer(node, shapes.normalize_axis, int(axis), len(shape))
        if shape[axis] == shapes.DYNAMIC:
            raise imp.error(node, f"slicing the dynamic axis {axis} is not supported")
        if stride != 1:
            stop = pinned(stop)  # an expression only for unit steps (dnn.dims of the slice)
        if stride < 0:
            taken = slice(int(start), int(stop), int(stride)).indices(shape[axis])
            reversed_axes[axis] = list(range(*taken))
            continue
        begin[axis] = _clamp(int(start), shape[axis])
        end[axis] = max(begin[axis], _clamp(stop, shape[axis]))
        step[axis] = int(stride)
    result = imp.slice(node, src, begin, end, step)
    for axis, indices in reversed_axes.items():
        result = gather(imp, node, result, indices, axis)
    return result


def convert_reduce(imp: Importer, node: Node) -> Value:
    """ReduceMean/Sum/Max/Min -> dnn.reduce (no axes: all of them, or nothing when
    noop_with_empty_axes)."""
    src = imp.tensor(node, 0)
    if node.op_type == "ReduceSumSquare":
        src = imp.eltwise(src, EltwiseAlg.SQUARE)
    axes = _axes(imp, node, 1)
    if not axes:
        if node.attr("noop_with_empty_axes", 0):
            return src
        axes = list(range(len(shape_of(src))))
    keep_dims = bool(node.attr("keepdims", 1))
    return reduce(imp, node, src, REDUCE[node.op_type], axes, keep_dims)


def convert_cumsum(imp: Importer, node: Node) -> Value:
    """CumSum -> dnn.cumsum along the axis of its second input (known at import time)."""
    src = imp.tensor(node, 0)
    axis = imp.scalar(node, 1, "the axis")
    if not isinstance(axis, np.integer):
        raise imp.error(node, f"input 1 (the axis) must be an integer, got {axis.dtype} {axis}")
    along = imp.infer(node, shapes.normalize_axis, int(axis), len(shape_of(src)))
    return imp.emit(
        CumSumOp(
            src,
            axis=along,
            exclusive=bool(node.int_attr("exclusive", 0)),
            reverse=bool(node.int_attr("reverse", 0)),
        )
    )


def convert_size(imp: Importer, node: Node) -> Value:
    """Size of a statically shaped tensor -> an int64 scalar constant."""
    shape = imp.shape(imp.values[node.input(0)])
    if shapes.DYNAMIC in shape:
        raise imp.error(
            node,
            f"the size of {shapes.format_shape(shape)} is only known at run time",
            RunTimeShapeError,
        )
    return sizes_array([math.prod(shape)]).reshape(())


def convert_shape(imp: Importer, node: Node) -> Value:
    """Shape of a statically shaped tensor -> an int64 constant (start / end from opset 15)."""
    shape = imp.shape(imp.values[node.input(0)])
    if shapes.DYNAMIC in shape:
        raise imp.error(
            node,
            f"the shape {shapes.format_shape(shape)} is only known at run time",
            RunTimeShapeError,
        )
    start = node.int_attr("start", 0)
    end = None if node.attr("end") is None else node.int_attr("end")
    return sizes_array(shape[start:end])
