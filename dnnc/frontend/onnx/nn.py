"""Converters of the ONNX ops with a dnn primitive of their own: Conv, pooling, normalization,
Gemm / MatMul, Softmax / LogSoftmax.

Sliding windows (Conv, MaxPool, AveragePool) share ``window_pads``: explicit pads, or
``auto_pad`` resolved against the static input size the way ONNX defines it; pooling's
``ceil_mode`` becomes extra end padding (dnn windows round down).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.ir import SSAValue

from dnnc.core import shapes
from dnnc.core.diagnostics import RunTimeShapeError
from dnnc.core.kinds import BinaryAlg, EltwiseAlg, LrnKind, PoolKind, ReduceKind
from dnnc.dialects.dnn import (
    BatchNormOp,
    Conv2DOp,
    Deconv2DOp,
    InnerProductOp,
    LayerNormOp,
    LogSoftmaxOp,
    LrnOp,
    MatmulOp,
    PoolOp,
    ReduceOp,
    SoftmaxOp,
    shape_of,
)
from dnnc.dialects.types import data_type_of
from dnnc.frontend.onnx.graph import Node
from dnnc.frontend.onnx.importer import Importer, Value, element_of, make_tensor_type

Pads = tuple[list[int], list[int]]


def _spatial(imp: Importer, node: Node, src: SSAValue, ranks: Sequence[int]) -> shapes.Shape:
    """The spatial dimensions of an [N, C, spatial...] input with one of ``ranks`` of them."""
    shape = shape_of(src)
    if len(shape) - 2 not in ranks:
        windows = " or ".join(f"{r}-D" for r in ranks)
        raise imp.error(
            node,
            f"{windows} windows are supported (an input of rank "
            f"{' or '.join(str(r + 2) for r in ranks)}), got rank {len(shape)}",
        )
    return shape[2:]


def window_pads(
    imp: Importer,
    node: Node,
    spatial: Sequence[int],
    kernel: Sequence[int],
    strides: Sequence[int],
    dilations: Sequence[int],
) -> Pads:
    """(pads_begin, pads_end) from ``pads`` or ``auto_pad`` (SAME_* needs static H, W)."""
    auto_pad = node.attr("auto_pad", "NOTSET")
    rank = len(spatial)
    if auto_pad == "VALID":
        return [0] * rank, [0] * rank
    if auto_pad == "NOTSET":
        pads = node.ints_attr("pads", [0] * 2 * rank)
        return pads[:rank], pads[rank:]
    if shapes.DYNAMIC in spatial:
        raise imp.error(node, f"auto_pad {auto_pad} needs static spatial dimensions")
    begin, end = [], []
    for size, k, s, d in zip(spatial, kernel, strides, dilations):
        total = max((math.ceil(size / s) - 1) * s + (k - 1) * d + 1 - size, 0)
        small, large = total // 2, total - total // 2
        begin.append(small if auto_pad == "SAME_UPPER" else large)
        end.append(large if auto_pad == "SAME_UPPER" else small)
    return begin, end


def convert_conv(imp: Importer, node: Node) -> Value:
    """Conv (grouped, depthwise, dilated, auto_pad, asymmetric pads; 1-D, 2-D or 3-D) ->
    dnn.conv2d."""
    return conv(imp, node, imp.tensor(node, 0), imp.tensor(node, 1), imp.optional_tensor(node, 2))


def conv(
    imp: Importer, node: Node, src: SSAValue, wei: SSAValue, bias: SSAValue | None
) -> SSAValue:
    """A Conv-like node's convolution of ``src`` by ``wei`` (and ``bias``), its window from
    the node's attributes."""
    spatial = _spatial(imp, node, src, (1, 2, 3))
    rank = len(spatial)
    strides = node.ints_attr("strides", [1] * rank)
    dilations = node.ints_attr("dilations", [1] * rank)
    pads = window_pads(imp, node, spatial, shape_of(wei)[2:], strides, dilations)
    window = _ConvWindow(strides, dilations, *pads, node.int_attr("group", 1))
    if rank == 3:
        return _conv3d(imp, node, src, wei, bias, window)
    return _conv(imp, node, src, wei, bias, window)


def _conv3d(
    imp: Importer,
    node: Node,
    src: SSAValue,
    wei: SSAValue,
    bias: SSAValue | None,
    window: _ConvWindow,
) -> SSAValue:
    """A 3-D convolution as one 2-D convolution per kernel depth k, summed: output depth i
    reads input depth i * stride + k * dilation of the depth-padded input, so the k-th
    convolution runs over the strided depth slice [k d, k d + (D' - 1) s] as a batch of
    planes [N * D', C, H, W] with the weights' k-th depth."""
    n, c, depth, h, w = _static_volume(imp, node, src)
    out_channels, _, kernel_depth, _, _ = shape_of(wei)
    stride, dilation = window.strides[0], window.dilations[0]
    begin, end = window.begin[0], window.end[0]
    dtype = data_type_of(element_of(src)).numpy
    parts = [src]
    if begin:
        zeros = np.zeros((n, c, begin, h, w), dtype)
        parts.insert(0, imp.materialize(node, zeros, f"{node.label}.depth_begin"))
    if end:
        zeros = np.zeros((n, c, end, h, w), dtype)
        parts.append(imp.materialize(node, zeros, f"{node.label}.depth_end"))
    padded = imp.concat(node, parts, 2)
    out_depth = (depth + begin + end - dilation * (kernel_depth - 1) - 1) // stride + 1
    planes = window.planes()
    total: SSAValue | None = None
    for k in range(kernel_depth):
        first = k * dilation
        starts, ends, steps = [0] * 5, list(shape_of(padded)), [1] * 5
        starts[2], ends[2], steps[2] = first, first + (out_depth - 1) * stride + 1, stride
        sliced = imp.slice(node, padded, starts, ends, steps)
        batch = imp.reshape(imp.transpose(sliced, (0, 2, 1, 3, 4)), (n * out_depth, c, h, w))
        kernel = _kernel_depth(imp, node, wei, k)
        part = _conv(imp, node, batch, kernel, bias if k == 0 else None, planes)
        total = part if total is None else imp.binary(node, BinaryAlg.ADD, total, part)
    assert total is not None  # a kernel has at least one depth
    oh, ow = shape_of(total)[2:]
    volumes = imp.reshape(total, (n, out_depth, out_channels, oh, ow))
    return imp.transpose(volumes, (0, 2, 1, 3, 4))


@dataclass(frozen=True)
class _ConvWindow:
    """A convolution's spatial parameters and groups (one entry per spatial axis)."""

    strides: Sequence[int]
    dilations: Sequence[int]
    begin: Sequence[int]
    end: Sequence[int]
    groups: int

    def planes(self) -> _ConvWindow:
        """The window of a 3-D one over (H, W): its depth entries dropped."""
        return _ConvWindow(
            self.strides[1:], self.dilations[1:], self.begin[1:], self.end[1:], self.groups
        )


def _static_volume(imp: Importer, node: Node, src: SSAValue) -> shapes.Shape:
    """The static [N, C, D, H, W] of a 3-D window's input (an error naming it otherwise)."""
    shape = shape_of(src)
    if shapes.DYNAMIC in shape:
        raise imp.error(
            node,
            f"3-D {node.op_type} needs a static input, got {shapes.format_shape(shape)}",
        )
    return shape


def _kernel_depth(imp: Importer, node: Node, wei: SSAValue, k: int) -> SSAValue:
    """Depth k of 3-D weights [O, C/groups, KD, KH, KW] as 2-D ones [O, C/groups, KH, KW]."""
    out_channels, per_group, _, kh, kw = shape_of(wei)
    starts, ends = [0] * 5, list(shape_of(wei))
    starts[2], ends[2] = k, k + 1
    return imp.reshape(imp.slice(node, wei, starts, ends), (out_channels, per_group, kh, kw))


def _conv(
    imp: Importer,
    node: Node,
    src: SSAValue,
    wei: SSAValue,
    bias: SSAValue | None,
    window: _ConvWindow,
    op: type[Conv2DOp | Deconv2DOp] = Conv2DOp,
) -> SSAValue:
    """dnn.conv2d (or ``op``, dnn.deconv2d); a 1-D window is a 2-D one over [N, C, 1, L]."""
    one_d = len(shape_of(src)) == 3
    if one_d:
        src, wei = _as_2d(imp, src), _as_2d(imp, wei)
    lead = [1] if one_d else []
    lead_pad = [0] if one_d else []
    conv = imp.infer(
        node,
        op,
        src,
        wei,
        bias,
        strides=[*lead, *window.strides],
        pads_begin=[*lead_pad, *window.begin],
        pads_end=[*lead_pad, *window.end],
        dilations=[*lead, *window.dilations],
        groups=window.groups,
    )
    result, shape = imp.emit(conv), shape_of(conv.result)
    return imp.reshape(result, (*shape[:2], shape[3])) if one_d else result


def convert_conv_transpose(imp: Importer, node: Node) -> Value:
    """ConvTranspose (1-D, 2-D or 3-D; groups, dilations, pads, output_padding, output_shape,
    auto_pad) -> dnn.deconv2d (oneDNN deconvolution). ONNX's weights [C, O/groups, k...] are
    oneDNN's [O, C/groups, k...] with the channel axes swapped per group (reshape and
    transpose, folded when the weights are constant); output_padding extends the end, which
    dnn.deconv2d writes as a negative end pad."""
    src = imp.tensor(node, 0)
    spatial = _spatial(imp, node, src, (1, 2, 3))
    rank = len(spatial)
    weights = imp.tensor(node, 1)
    groups = node.int_attr("group", 1)
    kernel = list(shape_of(weights)[2:])
    strides = node.ints_attr("strides", [1] * rank)
    dilations = node.ints_attr("dilations", [1] * rank)
    extra = node.ints_attr("output_padding", [0] * rank)
    begin, end = _conv_transpose_pads(imp, node, spatial, kernel, strides, dilations, extra)
    end = [e - o for e, o in zip(end, extra, strict=True)]
    if min(begin) < 0 or any(e <= -s for e, s in zip(end, strides, strict=True)):
        raise imp.error(
            node,
            f"output size needs pads_begin {begin} and pads_end {end} (after output_padding "
            f"{extra}): supported are pads_begin >= 0 and pads_end > -strides {strides}",
        )
    in_channels, out_per_group = shape_of(weights)[:2]
    per_group = imp.reshape(weights, (groups, in_channels // groups, out_per_group, *kernel))
    swapped = imp.transpose(per_group, (0, 2, 1, *range(3, 3 + rank)))
    wei = imp.reshape(swapped, (groups * out_per_group, in_channels // groups, *kernel))
    window = _ConvWindow(strides, dilations, begin, end, groups)
    bias = imp.optional_tensor(node, 2)
    if rank == 3:
        return _conv_transpose3d(imp, node, src, wei, bias, window)
    return _conv(imp, node, src, wei, bias, window, Deconv2DOp)


def _conv_transpose3d(
    imp: Importer,
    node: Node,
    src: SSAValue,
    wei: SSAValue,
    bias: SSAValue | None,
    window: _ConvWindow,
) -> SSAValue:
    """A 3-D transposed convolution as one 2-D one per kernel depth k, summed: input depth i
    adds to output depth i * stride + k * dilation - pad. The k-th runs over the input's depth
    planes as a batch [N * D, C, H, W] with the weights' k-th depth; its planes are spread
    stride apart (zeros between), shifted by k * dilation and summed over k; the depth pads
    crop the sum (a negative end pad appends zero planes), and the bias comes last."""
    n, c, depth, h, w = _static_volume(imp, node, src)
    out_channels, _, kernel_depth, _, _ = shape_of(wei)
    stride, dilation = window.strides[0], window.dilations[0]
    planes = imp.reshape(imp.transpose(src, (0, 2, 1, 3, 4)), (n * depth, c, h, w))
    spread = (depth - 1) * stride + 1
    full = spread + (kernel_depth - 1) * dilation
    dtype = data_type_of(element_of(src)).numpy
    total: SSAValue | None = None
    for k in range(kernel_depth):
        kernel = _kernel_depth(imp, node, wei, k)
        part = _conv(imp, node, planes, kernel, None, window.planes(), Deconv2DOp)
        oh, ow = shape_of(part)[2:]
        features = out_channels * oh * ow
        rows = imp.reshape(part, (n, depth, 1, features))
        if stride > 1:
            gaps = np.zeros((n, depth, stride - 1, features), dtype)
            gap = imp.materialize(node, gaps, f"{node.label}.depth_gaps")
            rows = imp.reshape(imp.concat(node, [rows, gap], 2), (n, depth * stride, features))
            rows = imp.slice(node, rows, [0, 0, 0], [n, spread, features])
        else:
            rows = imp.reshape(rows, (n, depth, features))
        before, after = k * dilation, full - spread - k * dilation
        parts = [rows]
        for size, at in ((before, 0), (after, 1)):
            if size:
                zeros = imp.materialize(
                    node, np.zeros((n, size, features), dtype), f"{node.label}.depth_{at}_{size}"
                )
                parts.insert(0 if at == 0 else len(parts), zeros)
        placed = imp.concat(node, parts, 1) if len(parts) > 1 else rows
        total = placed if total is None else imp.binary(node, BinaryAlg.ADD, total, placed)
    assert total is not None  # a kernel has at least one depth
    begin, end = window.begin[0], window.end[0]
    if end < 0:
        padding = np.zeros((n, -end, features), dtype)
        tail = imp.materialize(node, padding, f"{node.label}.depth_end")
        total = imp.concat(node, [total, tail], 1)
        full, end = full - end, 0
    out_depth = full - begin - end
    total = imp.slice(node, total, [0, begin, 0], [n, begin + out_depth, features])
    volumes = imp.reshape(total, (n, out_depth, out_channels, oh, ow))
    result = imp.transpose(volumes, (0, 2, 1, 3, 4))
    if bias is not None:
        result = imp.binary(
            node, BinaryAlg.ADD, result, imp.reshape(bias, (1, out_channels, 1, 1, 1))
        )
    return result


def _conv_transpose_pads(
    imp: Importer,
    node: Node,
    spatial: Sequence[int],
    kernel: Sequence[int],
    strides: Sequence[int],
    dilations: Sequence[int],
    extra: Sequence[int],
) -> Pads:
    """ConvTranspose's (pads_begin, pads_end) of the full output (output_padding included):
    explicit ``pads``, or split from ``output_shape`` / ``auto_pad`` SAME_* (static spatial
    dimensions), the larger half at the end for SAME_UPPER, at the beginning otherwise."""
    rank = len(spatial)
    auto_pad = node.str_attr("auto_pad", "NOTSET")
    wanted = node.attr("output_shape")
    if wanted is None and auto_pad not in ("SAME_UPPER", "SAME_LOWER"):
        if auto_pad == "VALID":
            return [0] * rank, [0] * rank
        pads = node.ints_attr("pads", [0] * 2 * rank)
        return pads[:rank], pads[rank:]
    if shapes.DYNAMIC in spatial:
        raise imp.error(node, "output_shape and auto_pad SAME_* need static spatial dimensions")
    target = (
        node.ints_attr("output_shape")[-rank:]
        if wanted is not None
        else [i * s for i, s in zip(spatial, strides, strict=True)]
    )
    full = [
        s * (i - 1) + d * (k - 1) + 1 + o
        for s, i, k, d, o in zip(strides, spatial, kernel, dilations, extra, strict=True)
    ]
    totals = [f - t for f, t in zip(full, target, strict=True)]
    upper = auto_pad == "SAME_UPPER"
    begin = [t // 2 if upper else t - t // 2 for t in totals]
    return begin, [t - b for t, b in zip(totals, begin, strict=True)]


def _as_2d(imp: Importer, value: SSAValue) -> SSAValue:
    """[A, B, L] as [A, B, 1, L]."""
    a, b, length = shape_of(value)
    return imp.reshape(value, (a, b, 1, length))


def _ceil_pads_end(
    imp: Importer,
    node: Node,
    spatial: Sequence[int],
    kernel: Sequence[int],
    strides: Sequence[int],
    dilations: Sequence[int],
    pads: Pads,
) -> list[int]:
    """End padding that makes the floor formula give ONNX's ceil_mode size (a last window
    starting in the end padding is dropped, as ONNX and PyTorch do)."""
    begin, end = pads
    if shapes.DYNAMIC in spatial:
        raise imp.error(node, "ceil_mode needs static spatial dimensions")
    new_end = []
    for size, k, s, d, b, e in zip(spatial, kernel, strides, dilations, begin, end):
        extent = d * (k - 1) + 1
        out = math.ceil((size + b + e - extent) / s) + 1
        if (out - 1) * s >= size + b:
            out -= 1
        new_end.append(max(e, (out - 1) * s + extent - size - b))
    return new_end


def convert_pool(imp: Importer, node: Node) -> Value:
    """MaxPool / AveragePool -> dnn.pool (count_include_pad picks the average kind). A 1-D
    window pools [N, C, 1, L]; a 3-D one is two 2-D pools, over (H, W) then over D: a box window
    is separable, for max and for both averages (every (H, W) window of one position holds as
    many elements, padding counted or not, at each depth)."""
    src = imp.tensor(node, 0)
    spatial = _spatial(imp, node, src, (1, 2, 3))
    rank = len(spatial)
    kernel = node.ints_attr("kernel_shape")
    strides = node.ints_attr("strides", [1] * rank)
    dilations = node.ints_attr("dilations", [1] * rank)
    if node.attr("storage_order", 0) != 0:
        raise imp.error(node, "storage_order 1 (column-major indices) is not supported")
    pads = window_pads(imp, node, spatial, kernel, strides, dilations)
    if node.op_type == "MaxPool":
        kind = PoolKind.MAX
    elif node.attr("count_include_pad", 0):
        kind = PoolKind.AVG_INCLUDE_PAD
    else:
        kind = PoolKind.AVG_EXCLUDE_PAD
    begin, end = pads
    if node.attr("ceil_mode", 0):
        ceil_end = _ceil_pads_end(imp, node, spatial, kernel, strides, dilations, pads)
        if kind is PoolKind.AVG_INCLUDE_PAD and ceil_end != end:
            raise imp.error(
                node,
                "ceil_mode with count_include_pad would count the extra end padding "
                "ONNX leaves out of the divisor: not supported",
            )
        end = ceil_end
    windows = [_Window(*w) for w in zip(kernel, strides, begin, end, dilations, strict=True)]
    if rank == 2:
        return _pool2d(imp, node, src, kind, windows[0], windows[1])
    shape = shape_of(src)
    if rank == 1:
        pooled = _pool2d(imp, node, _as_2d(imp, src), kind, _Window(), windows[0])
        return imp.reshape(pooled, (*shape[:2], shape_of(pooled)[3]))
    if shapes.DYNAMIC in shape[1:]:
        raise imp.error(
            node, f"3-D pooling needs static C, D, H, W, got {shapes.format_shape(shape)}"
        )
    n, c, d, h, w = shape
    planes = _pool2d(imp, node, imp.reshape(src, (n, c * d, h, w)), kind, windows[1], windows[2])
    oh, ow = shape_of(planes)[2:]
    columns = imp.reshape(planes, (n, c, d, oh * ow))
    pooled = _pool2d(imp, node, columns, kind, windows[0], _Window())
    return imp.reshape(pooled, (n, c, shape_of(pooled)[2], oh, ow))


@dataclass(frozen=True)
class _Window:
    """One spatial axis of a pooling window (the default: the identity)."""

    kernel: int = 1
    stride: int = 1
    begin: int = 0
    end: int = 0
    dilation: int = 1


def _pool2d(
    imp: Importer, node: Node, src: SSAValue, kind: PoolKind, height: _Window, width: _Window
) -> SSAValue:
    pool = imp.infer(
        node,
        PoolOp,
        kind,
        src,
        kernel=[height.kernel, width.kernel],
        strides=[height.stride, width.stride],
        pads_begin=[height.begin, width.begin],
        pads_end=[height.end, width.end],
        dilations=[height.dilation, width.dilation],
    )
    return imp.emit(pool)


def reduce(
    imp: Importer,
    node: Node,
    src: SSAValue,
    kind: ReduceKind,
    axes: Sequence[int],
    keep_dims: bool,
) -> SSAValue:
    """dnn.reduce of ``src`` over ``axes``."""
    shape = imp.infer(node, shapes.reduce, shape_of(src), axes=axes, keep_dims=keep_dims)
    return imp.emit(
        ReduceOp(
            kind,
            src,
            axes=axes,
            keep_dims=keep_dims,
            result_type=make_tensor_type(element_of(src), shape),
        )
    )


def convert_global_pool(imp: Importer, node: Node) -> Value:
    """GlobalAveragePool / GlobalMaxPool -> dnn.reduce mean / max over every spatial axis; of
    a static image (whatever the batch and channels) -> dnn.pool average / max with the image
    as its window, which runs in the layout its producer writes (a reduction reads plain: a
    reorder first) and takes a 1x1 image, which oneDNN's reduction refuses (nothing reduced)."""
    src = imp.tensor(node, 0)
    shape = shape_of(src)
    if len(shape) == 4 and shapes.DYNAMIC not in shape[2:]:
        height, width = shape[2:]
        whole = (_Window(height, height), _Window(width, width))
        pool = PoolKind.AVG_INCLUDE_PAD if node.op_type == "GlobalAveragePool" else PoolKind.MAX
        return _pool2d(imp, node, src, pool, *whole)
    kind = ReduceKind.MEAN if node.op_type == "GlobalAveragePool" else ReduceKind.MAX
    return reduce(imp, node, src, kind, list(range(2, len(shape))), keep_dims=True)


def convert_batch_norm(imp: Importer, node: Node) -> Value:
    """BatchNormalization (inference) -> dnn.batch_norm."""
    if node.attr("training_mode", 0):
        raise imp.error(node, "training_mode 1 is not supported (inference only)")
    operands = [imp.tensor(node, index) for index in range(5)]
    shape = imp.infer(node, shapes.batch_norm, *(shape_of(v) for v in operands))
    return imp.emit(
        BatchNormOp(
            *operands,
            epsilon=node.float_attr("epsilon", 1e-5),
            result_type=make_tensor_type(element_of(operands[0]), shape),
        )
    )


def _flatten_to(imp: Importer, node: Node, shape: shapes.Shape, axis: int) -> tuple[int, ...]:
    """``shape`` with the dimensions from ``axis`` on multiplied into one (they must be
    static: a `?` one is a RunTimeShapeError, so dnnc.compile traces the model with its sizes
    as symbols, dnnc.driver.onnx_shapes)."""
    inner = shape[axis:]
    if shapes.DYNAMIC in inner:
        raise imp.error(
            node,
            f"dimensions {axis}.. of {shapes.format_shape(shape)} must be static: their "
            "product is only known at run time",
            RunTimeShapeError,
        )
    return (*shape[:axis], math.prod(inner))


def convert_layer_norm(imp: Importer, node: Node) -> Value | tuple[Value, ...]:
    """LayerNormalization -> dnn.layer_norm; normalizing several trailing axes flattens
    them into one around the op. The optional Mean and InvStdDev outputs, when read, are
    computed beside it: mean, and (mean((x - mean)^2) + epsilon)^-0.5 over the normalized
    axes, kept as 1s (oneDNN's inference layer norm does not return its statistics)."""
    src = imp.tensor(node, 0)
    shape = shape_of(src)
    axis = imp.infer(node, shapes.normalize_axis, node.int_attr("axis", -1), len(shape))
    flat = _flatten_to(imp, node, shape, axis)
    if len(flat) == 1:
        flat = (1, *flat)  # axis 0 normalizes everything: oneDNN's layer norm needs rank 2
    channels = flat[-1]
    scale = imp.reshape(imp.tensor(node, 1), (channels,))
    shift = imp.optional_tensor(node, 2)
    shift = None if shift is None else imp.reshape(shift, (channels,))
    flat_src = imp.reshape(src, flat)
    imp.infer(node, shapes.layer_norm, flat, (channels,), None if shift is None else (channels,))
    epsilon = node.float_attr("epsilon", 1e-5)
    result = imp.emit(LayerNormOp(flat_src, scale, shift, epsilon=epsilon))
    normalized = imp.reshape(result, shape)
    if not (imp.used(node, 1) or imp.used(node, 2)):
        return normalized
    kept = tuple(shape[:axis]) + (1,) * (len(shape) - axis)
    last = [len(flat) - 1]  # the normalized axes, flattened into the last
    mean = reduce(imp, node, flat_src, ReduceKind.MEAN, last, keep_dims=True)
    centered = imp.binary(node, BinaryAlg.SUB, flat_src, mean)
    variance = reduce(
        imp, node, imp.eltwise(centered, EltwiseAlg.SQUARE), ReduceKind.MEAN, last, keep_dims=True
    )
    shifted = imp.eltwise(variance, EltwiseAlg.LINEAR, 1.0, epsilon)
    inv_std = imp.eltwise(shifted, EltwiseAlg.POW, 1.0, -0.5)
    return normalized, imp.reshape(mean, kept), imp.reshape(inv_std, kept)


def convert_softmax(imp: Importer, node: Node) -> Value:
    """Softmax / LogSoftmax -> dnn.softmax / dnn.log_softmax. Before opset 13 ONNX coerces the
    input to 2-D at ``axis`` (default 1): the op then runs on that flattened view."""
    src = imp.tensor(node, 0)
    shape = shape_of(src)
    legacy = imp.graph.opset < 13
    axis = imp.infer(
        node, shapes.normalize_axis, node.int_attr("axis", 1 if legacy else -1), len(shape)
    )
    op_class = SoftmaxOp if node.op_type == "Softmax" else LogSoftmaxOp
    view = src
    if legacy and axis != len(shape) - 1:
        view = imp.reshape(src, _flatten_to(imp, node, shape, axis))
        axis = len(shape_of(view)) - 1
    result = imp.emit(op_class(view, axis=axis))
    return imp.reshape(result, shape)


def convert_lrn(imp: Importer, node: Node) -> Value:
    """LRN -> dnn.lrn across channels, ``k`` = ONNX's ``bias``. ONNX sums over channels
    [c - floor((size-1)/2), c + ceil((size-1)/2)]: oneDNN's symmetric window for an odd size;
    an even size (an asymmetric window) is refused."""
    size = node.int_attr("size")
    if size < 1 or size % 2 == 0:
        raise imp.error(
            node,
            f"size {size}: only odd sizes are supported (ONNX's window for "
            "an even size is asymmetric, oneDNN's symmetric)",
        )
    src = imp.tensor(node, 0)
    if len(shape_of(src)) != 4:
        raise imp.error(node, f"a rank-{len(shape_of(src))} input: dnn.lrn takes NCHW")
    return imp.emit(
        LrnOp(
            LrnKind.ACROSS_CHANNELS,
            src,
            size=size,
            alpha=node.float_attr("alpha", 1e-4),
            beta=node.float_attr("beta", 0.75),
            k=node.float_attr("bias", 1.0),
        )
    )


def matmul(imp: Importer, node: Node, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
    """dnn.matmul of two values of rank >= 2."""
    shape = imp.infer(node, shapes.matmul, shape_of(lhs), shape_of(rhs))
    return imp.emit(MatmulOp(lhs, rhs, result_type=make_tensor_type(element_of(lhs), shape)))


def convert_matmul(imp: Importer, node: Node) -> Value:
    """MatMul -> dnn.matmul. A 1-D operand is a row (lhs) or column (rhs) vector whose unit
    dimension is dropped from the result, as numpy.matmul does; an N-D lhs times a 2-D rhs
    (a linear layer over a sequence) is one 2-D product over the flattened rows, so oneDNN
    sees a plain GEMM rather than a broadcast batch of them."""
    return matmul_nd(imp, node, imp.tensor(node, 0), imp.tensor(node, 1))


def matmul_nd(imp: Importer, node: Node, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
    """numpy.matmul of ``lhs`` and ``rhs`` of any ranks (see convert_matmul)."""
    lhs_shape, rhs_shape = shape_of(lhs), shape_of(rhs)
    if len(lhs_shape) == 1:
        lhs = imp.reshape(lhs, (1, *lhs_shape))
    if len(rhs_shape) == 1:
        rhs = imp.reshape(rhs, (*rhs_shape, 1))
    rows = lhs_shape[:-1]
    if len(lhs_shape) > 2 and len(rhs_shape) == 2 and shapes.DYNAMIC not in rows:
        lhs = imp.reshape(lhs, (math.prod(rows), lhs_shape[-1]))
    result = matmul(imp, node, lhs, rhs)
    shape = shape_of(result)
    if len(lhs_shape) > 2 and len(rhs_shape) == 2:
        shape = (*rows, shape[-1])
    if len(rhs_shape) == 1:
        shape = shape[:-1]
    if len(lhs_shape) == 1:
        shape = (*shape[:-2], shape[-1]) if len(rhs_shape) != 1 else shape[:-1]
    return imp.reshape(result, shape)


def _inner_product_operands(
    imp: Importer, node: Node, alpha: float, beta: float
) -> tuple[SSAValue, SSAValue | None] | None:
    """The [N, K] weights and [N] bias (alpha and beta folded in) when a Gemm is an inner
    product: A not transposed, B constant, C absent or a constant row vector."""
    b = imp.const(node, 1)
    if node.attr("transA", 0) or b is None:
        return None
    trans_b = bool(node.attr("transB", 0))
    weights = b if trans_b else b.T
    outputs = weights.shape[0]
    c = imp.const(node, 2)
    if imp.has_input(node, 2) and (
        c is None or c.size not in (1, outputs) or (c.ndim == 2 and c.shape[0] != 1) or c.ndim > 2
    ):
        return None
    unchanged = trans_b and alpha == 1.0
    wei = imp.materialize(
        node,
        np.ascontiguousarray(weights * np.asarray(alpha, weights.dtype)),
        node.input(1) if unchanged else f"{node.input(1)}.gemm",
    )
    if c is None:
        return wei, None
    vector = np.broadcast_to(c.reshape(-1), (outputs,)) * np.asarray(beta, c.dtype)
    unchanged = beta == 1.0 and c.shape == (outputs,)
    key = node.input(2) if unchanged else f"{node.input(2)}.gemm"
    return wei, imp.materialize(node, np.ascontiguousarray(vector), key)


def convert_gemm(imp: Importer, node: Node) -> Value:
    """Gemm: alpha * A' @ B' + beta * C. As a dnn.inner_product when it is one (see
    ``_inner_product_operands``), else a dnn.matmul with transposes, scaling and an add."""
    alpha, beta = node.float_attr("alpha", 1.0), node.float_attr("beta", 1.0)
    src = imp.tensor(node, 0)
    inner_product = _inner_product_operands(imp, node, alpha, beta)
    if inner_product is not None:
        wei, bias = inner_product
        shape = imp.infer(
            node,
            shapes.inner_product,
            shape_of(src),
            shape_of(wei),
            None if bias is None else shape_of(bias),
        )
        return imp.emit(
            InnerProductOp(src, wei, bias, result_type=make_tensor_type(element_of(src), shape))
        )
    lhs = imp.transpose(src, [1, 0] if node.attr("transA", 0) else [0, 1])
    rhs = imp.transpose(imp.tensor(node, 1), [1, 0] if node.attr("transB", 0) else [0, 1])
    result = matmul(imp, node, lhs, rhs)
    if alpha != 1.0:
        result = imp.eltwise(result, EltwiseAlg.LINEAR, alpha, 0.0)
    if not imp.has_input(node, 2):
        return result
    bias = imp.tensor(node, 2, rank=2)
    if beta != 1.0:
        bias = imp.eltwise(bias, EltwiseAlg.LINEAR, beta, 0.0)
    return imp.binary(node, BinaryAlg.ADD, result, bias)


def _normalized_last(imp: Importer, node: Node, src: SSAValue, epsilon: float) -> SSAValue:
    """dnn.layer_norm over the last axis, without scale or shift."""
    imp.infer(node, shapes.layer_norm, shape_of(src))
    return imp.emit(LayerNormOp(src, epsilon=epsilon))


def _per_channel(imp: Importer, node: Node, index: int, rank: int) -> SSAValue:
    """Input ``index`` ([C]) as [1, C, 1, ...] for a channel-wise binary with rank ``rank``."""
    channels = imp.tensor(node, index)
    return imp.reshape(channels, (1, shape_of(channels)[0], *([1] * (rank - 2))))


def convert_instance_norm(imp: Importer, node: Node) -> Value:
    """InstanceNormalization -> the spatial axes flattened, dnn.layer_norm over them, then the
    per-channel scale and bias as binary ops."""
    src = imp.tensor(node, 0)
    shape = shape_of(src)
    if len(shape) < 3:
        raise imp.error(node, f"needs [N, C, spatial...], got {shapes.format_shape(shape)}")
    flat = _flatten_to(imp, node, shape, 2)
    normalized = imp.reshape(
        _normalized_last(imp, node, imp.reshape(src, flat), node.float_attr("epsilon", 1e-5)),
        shape,
    )
    scaled = imp.binary(node, BinaryAlg.MUL, normalized, _per_channel(imp, node, 1, len(shape)))
    return imp.binary(node, BinaryAlg.ADD, scaled, _per_channel(imp, node, 2, len(shape)))


def convert_group_norm(imp: Importer, node: Node) -> Value:
    """GroupNormalization -> [N, G, C/G * spatial], dnn.layer_norm over the last axis, then the
    affine: per channel (scale and bias of [C], opset 21) or per group (of [G], opset 18)."""
    src = imp.tensor(node, 0)
    shape = shape_of(src)
    groups = node.int_attr("num_groups")
    if len(shape) < 3 or shapes.DYNAMIC in shape[1:] or groups < 1 or shape[1] % groups:
        raise imp.error(
            node,
            f"{groups} groups of {shapes.format_shape(shape)}: needs [N, C, spatial...] "
            "with static C and spatial sizes and C a multiple of num_groups",
        )
    grouped = (shape[0], groups, math.prod(shape[1:]) // groups)
    epsilon = node.float_attr("epsilon", 1e-5)
    normalized = _normalized_last(imp, node, imp.reshape(src, grouped), epsilon)
    if shape_of(imp.tensor(node, 1))[0] == shape[1]:  # per channel
        result = imp.reshape(normalized, shape)
        rank = len(shape)
    else:  # per group, in the grouped view
        result, rank = normalized, 3
    scaled = imp.binary(node, BinaryAlg.MUL, result, _per_channel(imp, node, 1, rank))
    shifted = imp.binary(node, BinaryAlg.ADD, scaled, _per_channel(imp, node, 2, rank))
    return imp.reshape(shifted, shape)


def convert_prelu(imp: Importer, node: Node) -> Value:
    """PRelu(x, slope) = relu(x) + slope * min(x, 0) (the slope broadcasts to x; a NaN or
    infinite slope makes a positive x NaN where ONNX gives x: slopes are weights)."""
    src = imp.tensor(node, 0)
    slope = imp.tensor(node, 1, len(shape_of(src)))
    negative = imp.eltwise(src, EltwiseAlg.CLIP, -math.inf, 0.0)
    scaled = imp.binary(node, BinaryAlg.MUL, negative, slope)
    return imp.binary(node, BinaryAlg.ADD, imp.eltwise(src, EltwiseAlg.RELU), scaled)
