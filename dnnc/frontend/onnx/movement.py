"""Data-movement operators, built from dnn's slice, concat, reshape, transpose, gather and top_k:
Split, Tile, Pad (constant, edge, reflect, wrap), DepthToSpace, SpaceToDepth, ArgMax, ArgMin
and TopK. Their shape-like inputs (split sizes, repeats, pads, k) must be known at import; the
axes they move data along must have static sizes."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence

import numpy as np
from xdsl.ir import SSAValue

from dnnc.core import shapes
from dnnc.core.diagnostics import RunTimeValueError
from dnnc.core.kinds import BinaryAlg
from dnnc.dialects.dnn import GatherOp, ResizeOp, TopKOp, shape_of
from dnnc.dialects.dnn.data import COORDINATE_MODES, NEAREST_MODES, RESIZE_MODES
from dnnc.dialects.types import data_type_of
from dnnc.frontend.onnx.graph import Node
from dnnc.frontend.onnx.importer import Importer, Value, element_of, make_tensor_type


def _axis(imp: Importer, node: Node, rank: int, default: int) -> int:
    return imp.infer(node, shapes.normalize_axis, node.int_attr("axis", default), rank)


def _static(imp: Importer, node: Node, shape: shapes.Shape, axis: int) -> int:
    """The size of ``axis``; an import error when it is only known at run time."""
    if shape[axis] == shapes.DYNAMIC:
        raise imp.error(node, f"axis {axis} of {shapes.format_shape(shape)} must be static")
    return shape[axis]


def _ints(imp: Importer, node: Node, index: int, what: str) -> list[int]:
    return [int(v) for v in imp.require_const(node, index, what).reshape(-1)]


def _along(shape: shapes.Shape, axis: int, start: int, stop: int) -> tuple[list[int], list[int]]:
    """Slice bounds taking [start, stop) of ``axis`` and everything of the other axes."""
    begin, end = [0] * len(shape), list(shape)
    begin[axis], end[axis] = start, stop
    return begin, end


def convert_split(imp: Importer, node: Node) -> tuple[Value, ...]:
    """Split -> one dnn.slice per output: sizes from the ``split`` input (attribute before
    opset 13), else equal parts (``num_outputs`` from opset 18: the last part may be
    smaller)."""
    src = imp.tensor(node, 0)
    shape = shape_of(src)
    axis = _axis(imp, node, len(shape), 0)
    size = _static(imp, node, shape, axis)
    count = len(node.outputs)
    if imp.has_input(node, 1):
        sizes = _ints(imp, node, 1, "split")
    elif node.attr("split") is not None:
        sizes = node.ints_attr("split")
    else:
        part = math.ceil(size / count) if imp.graph.opset >= 18 else size // count
        sizes = [min(part, max(size - part * i, 0)) for i in range(count)]
    if len(sizes) != count or sum(sizes) != size or min(sizes, default=0) < 0:
        raise imp.error(
            node, f"split sizes {sizes} do not cut axis {axis} of size {size} into {count} parts"
        )
    offsets = [sum(sizes[:i]) for i in range(count)]
    return tuple(
        imp.slice(node, src, *_along(shape, axis, start, start + length))
        for start, length in zip(offsets, sizes, strict=True)
    )


def convert_tile(imp: Importer, node: Node) -> Value:
    """Tile -> dnn.concat of copies along each repeated axis."""
    result = imp.tensor(node, 0)
    repeats = _ints(imp, node, 1, "repeats")
    if len(repeats) != len(shape_of(result)) or min(repeats, default=1) < 0:
        raise imp.error(node, f"repeats {repeats} must be one count >= 0 per input axis")
    for axis, times in enumerate(repeats):
        if times == 0:
            result = imp.slice(node, result, *_along(shape_of(result), axis, 0, 0))
        elif times > 1:
            result = imp.concat(node, [result] * times, axis)
    return result


def gather(imp: Importer, node: Node, src: SSAValue, indices: Sequence[int], axis: int) -> SSAValue:
    """dnn.gather of constant ``indices`` along ``axis`` (a copy when they take everything)."""
    if list(indices) == list(range(shape_of(src)[axis])):
        return src
    array = np.asarray(indices, np.int64)
    digest = hashlib.blake2b(array.tobytes(), digest_size=4).hexdigest()
    key = f"{node.label}.indices{axis}.{digest}"
    index_value = imp.materialize(node, array, key)
    shape = imp.infer(node, shapes.gather, shape_of(src), (len(array),), axis=axis)
    return imp.emit(
        GatherOp(src, index_value, axis=axis, result_type=make_tensor_type(element_of(src), shape))
    )


def _pad_indices(mode: str, size: int, before: int, after: int) -> list[int] | None:
    """The source index of each position of an edge/reflect/wrap-padded axis (None if the
    axis is too small for the mode)."""
    inner = list(range(size))
    if mode == "edge":
        return [0] * before + inner + [size - 1] * after if size else None
    if mode == "reflect":
        if size < 2 or before >= size or after >= size:
            return None
        return inner[before:0:-1] + inner + inner[-2 : -2 - after : -1]
    if mode == "wrap":
        if size == 0 or before > size or after > size:
            return None
        return inner[size - before :] + inner + inner[:after]
    raise AssertionError(mode)


def convert_pad(imp: Importer, node: Node) -> Value:
    """Pad -> per padded axis, dnn.concat with constant blocks (mode constant) or a dnn.gather
    of the edge/reflected/wrapped indices; negative pads slice."""
    src = imp.tensor(node, 0)
    rank = len(shape_of(src))
    mode = node.str_attr("mode", "constant")
    if mode not in ("constant", "edge", "reflect", "wrap"):
        raise imp.error(node, f"mode '{mode}': valid modes are constant, edge, reflect, wrap")
    pads = _ints(imp, node, 1, "pads")
    axes = list(range(rank))
    if imp.has_input(node, 3):
        axes = [shapes.normalize_axis(a, rank) for a in _ints(imp, node, 3, "axes")]
    if len(pads) != 2 * len(axes):
        raise imp.error(node, f"pads {pads} must hold a begin and an end for each of {axes}")
    value = 0.0
    if imp.has_input(node, 2):
        value = float(imp.scalar(node, 2, "constant_value"))
    result = src
    for index, axis in enumerate(axes):
        before, after = pads[index], pads[index + len(axes)]
        shape = shape_of(result)
        size = _static(imp, node, shape, axis) if (before or after) else shape[axis]
        if before < 0 or after < 0:  # negative pads remove
            start, stop = max(-before, 0), size - max(-after, 0)
            result = imp.slice(node, result, *_along(shape, axis, start, max(start, stop)))
            before, after = max(before, 0), max(after, 0)
            shape, size = shape_of(result), shape_of(result)[axis]
        if not (before or after):
            continue
        if mode == "constant":
            result = _pad_constant(imp, node, result, axis, before, after, value)
            continue
        indices = _pad_indices(mode, size, before, after)
        if indices is None:
            raise imp.error(
                node, f"mode {mode} cannot pad axis {axis} of size {size} by ({before}, {after})"
            )
        result = gather(imp, node, result, indices, axis)
    return result


def _pad_constant(
    imp: Importer, node: Node, src: SSAValue, axis: int, before: int, after: int, value: float
) -> SSAValue:
    shape = shape_of(src)
    if shapes.DYNAMIC in shape:
        raise imp.error(
            node, f"constant padding needs a static shape, got {shapes.format_shape(shape)}"
        )
    dtype = data_type_of(element_of(src)).numpy
    blocks = []
    for count, side in ((before, "begin"), (after, "end")):
        if count:
            block_shape = [*shape[:axis], count, *shape[axis + 1 :]]
            block = np.full(block_shape, value, dtype)
            blocks.append((side, imp.materialize(node, block, f"{node.label}.pad{axis}{side}")))
    parts = [b for s, b in blocks if s == "begin"] + [src] + [b for s, b in blocks if s == "end"]
    return imp.concat(node, parts, axis)


def _nchw(imp: Importer, node: Node, shape: shapes.Shape) -> tuple[int, int, int, int]:
    """The dimensions of a [N, C, H, W] input (C, H, W static)."""
    if len(shape) != 4 or shapes.DYNAMIC in shape[1:]:
        raise imp.error(
            node,
            f"needs a [N, C, H, W] input with static C, H, W, got {shapes.format_shape(shape)}",
        )
    n, c, h, w = shape
    return n, c, h, w


def convert_depth_to_space(imp: Importer, node: Node) -> Value:
    """DepthToSpace (DCR or CRD) -> reshape, transpose, reshape."""
    src = imp.tensor(node, 0)
    block = node.int_attr("blocksize")
    n, c, h, w = _nchw(imp, node, shape_of(src))
    if block < 1 or c % (block * block):
        raise imp.error(node, f"{c} channels do not split into blocks of {block} x {block}")
    depth = c // (block * block)
    if node.str_attr("mode", "DCR") == "DCR":
        split = imp.reshape(src, (n, block, block, depth, h, w))
        moved = imp.transpose(split, (0, 3, 4, 1, 5, 2))
    else:
        split = imp.reshape(src, (n, depth, block, block, h, w))
        moved = imp.transpose(split, (0, 1, 4, 2, 5, 3))
    return imp.reshape(moved, (n, depth, h * block, w * block))


def convert_space_to_depth(imp: Importer, node: Node) -> Value:
    """SpaceToDepth (DCR, or CRD from opset 28) -> reshape, transpose, reshape."""
    src = imp.tensor(node, 0)
    block = node.int_attr("blocksize")
    n, c, h, w = _nchw(imp, node, shape_of(src))
    if block < 1 or h % block or w % block:
        raise imp.error(node, f"{h} x {w} does not split into blocks of {block} x {block}")
    split = imp.reshape(src, (n, c, h // block, block, w // block, block))
    crd = node.str_attr("mode", "DCR") == "CRD"
    moved = imp.transpose(split, (0, 1, 3, 5, 2, 4) if crd else (0, 3, 5, 1, 2, 4))
    return imp.reshape(moved, (n, c * block * block, h // block, w // block))


def top_k(
    imp: Importer, node: Node, src: SSAValue, k: int, axis: int, largest: bool, ordered: bool
) -> tuple[SSAValue, SSAValue]:
    """dnn.top_k: values and int64 indices."""
    imp.infer(node, shapes.top_k, shape_of(src), k=k, axis=axis)  # an error names the node
    op = TopKOp(src, k=k, axis=axis, largest=largest, sorted=ordered)
    imp.emit(op)
    return op.results[0], op.results[1]


def convert_top_k(imp: Importer, node: Node) -> tuple[Value, Value]:
    """TopK (K a constant input from opset 10) -> dnn.top_k."""
    src = imp.tensor(node, 0)
    axis = _axis(imp, node, len(shape_of(src)), -1)
    k = int(imp.scalar(node, 1, "K"))
    largest = bool(node.int_attr("largest", 1))
    return top_k(imp, node, src, k, axis, largest, bool(node.int_attr("sorted", 1)))


def convert_arg_extreme(imp: Importer, node: Node) -> Value:
    """ArgMax / ArgMin -> the indices of dnn.top_k with k = 1 (the first extreme). With
    ``select_last_index`` the axis is reversed first (a gather) and the index mirrored."""
    src = imp.tensor(node, 0)
    shape = shape_of(src)
    axis = _axis(imp, node, len(shape), 0)
    last = bool(node.int_attr("select_last_index", 0))
    size = _static(imp, node, shape, axis) if last else shape[axis]
    view = gather(imp, node, src, list(range(size - 1, -1, -1)), axis) if last else src
    _, indices = top_k(imp, node, view, 1, axis, node.op_type == "ArgMax", True)
    if last:
        end = np.full((1,) * len(shape), size - 1, np.int64)
        indices = imp.binary(node, BinaryAlg.SUB, imp.materialize(node, end, node.label), indices)
    if node.int_attr("keepdims", 1):
        return indices
    return imp.reshape(indices, [d for i, d in enumerate(shape_of(indices)) if i != axis])


def convert_resize(imp: Importer, node: Node) -> Value:
    """Resize (Upsample upgraded to it) with constant scales or sizes -> dnn.resize (nearest or
    linear; ``axes`` from opset 18). Sizes given: each scale is output / input."""
    src = imp.tensor(node, 0)
    shape = shape_of(src)
    rank = len(shape)
    mode = node.str_attr("mode", "nearest")
    coordinate_mode = node.str_attr("coordinate_transformation_mode", "half_pixel")
    nearest_mode = node.str_attr("nearest_mode", "round_prefer_floor")
    for what, value, valid in (
        ("mode", mode, RESIZE_MODES),
        ("coordinate_transformation_mode", coordinate_mode, COORDINATE_MODES),
        ("nearest_mode", nearest_mode, NEAREST_MODES),
    ):
        if value not in valid:
            raise imp.error(node, f"{what} '{value}' is not supported; valid: {', '.join(valid)}")
    if node.int_attr("antialias", 0):
        raise imp.error(node, "antialias 1 is not supported")
    axes = [shapes.normalize_axis(a, rank) for a in node.ints_attr("axes", list(range(rank)))]
    scales = [1.0] * rank
    sizes = list(shape)
    given_sizes = imp.const(node, 3) if imp.has_input(node, 3) else None
    given_scales = imp.const(node, 2) if imp.has_input(node, 2) else None
    if given_sizes is not None and given_sizes.size:
        policy = node.str_attr("keep_aspect_ratio_policy", "stretch")
        inputs = [_static(imp, node, shape, axis) for axis in axes]
        wanted = [int(s) for s in given_sizes.reshape(-1)]
        if policy in ("not_larger", "not_smaller"):  # one scale, the sizes rounded half up
            pick = min if policy == "not_larger" else max
            scale = pick(w / i for w, i in zip(wanted, inputs, strict=True))
            wanted = [int(i * scale + 0.5) for i in inputs]
            ratios = [scale] * len(axes)
        elif policy == "stretch":
            ratios = [w / i for w, i in zip(wanted, inputs, strict=True)]
        else:
            raise imp.error(
                node,
                f"keep_aspect_ratio_policy '{policy}' is not one of "
                "stretch, not_larger, not_smaller",
            )
        for axis, size, ratio in zip(axes, wanted, ratios, strict=True):
            sizes[axis], scales[axis] = size, ratio
    elif given_scales is not None and given_scales.size:
        for axis, scale in zip(axes, given_scales.reshape(-1), strict=True):
            scales[axis] = float(scale)
            sizes[axis] = math.floor(_static(imp, node, shape, axis) * float(scale))
    else:
        raise imp.error(
            node,
            "input 2 (scales) or 3 (sizes) must be a constant: it is computed at run time",
            RunTimeValueError,
        )
    return imp.emit(
        ResizeOp(
            src,
            sizes=sizes,
            scales=scales,
            mode=mode,
            coordinate_mode=coordinate_mode,
            nearest_mode=nearest_mode,
            cubic_coeff_a=node.float_attr("cubic_coeff_a", -0.75),
            exclude_outside=bool(node.int_attr("exclude_outside", 0)),
        )
    )
