"""Which kernel call each dnn op lowers to: kind, roles and parameters, as one table.

A `KernelCall` names the `onednn.primitive` kind (or `onednn.reference` kernel), the input
roles with the dnn operand each binds (a role ending in `_` enumerates a variadic operand:
`src_0`, `src_1`, ...), the output roles, and the dnn properties copied into the parameter
dictionary. Parameter values follow the runtime's conventions: enums as strings, integers as
i64, floats as f32, integer lists as array<i64>, axes non-negative, post-ops as the dnn
post-op attribute list. The role names are the runtime handlers' (dnnc/dnnl/primitives.py);
reference kernels take roles named like the dnn operands and results.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    f32,
    i1,
    i64,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import VarOperandDef

from dnnc.core.kinds import BinaryAlg, DataType, EltwiseAlg, EltwisePostOp
from dnnc.core.symbols import SymbolicInt
from dnnc.dialects.dnn import (
    BatchNormOp,
    BinaryOp,
    CastOp,
    ConcatOp,
    ConstantOp,
    Conv2DOp,
    Deconv2DOp,
    DequantizeOp,
    DnnOp,
    EltwiseOp,
    InnerProductOp,
    KernelAttr,
    KernelLibrary,
    LayerNormOp,
    LogSoftmaxOp,
    LrnOp,
    MatmulOp,
    PoolOp,
    QConv2DOp,
    QMatmulOp,
    QuantizeOp,
    ReduceOp,
    ReorderOp,
    ResizeOp,
    SliceOp,
    SoftmaxOp,
    SumOp,
    TransposeOp,
    shape_of,
)
from dnnc.dialects.dnn.base import i64_array, ints, post_ops_attr, tensor_type
from dnnc.dialects.types import DATA_TYPES, data_type_of
from dnnc.dnnl.objects import has_binary_algorithm, has_eltwise_algorithm
from dnnc.ir.decisions import inplace_requests
from dnnc.ir.weights import constant_value
from dnnc.target.post_op_rules import COMMUTATIVE

Extra = Callable[[DnnOp], dict[str, Attribute]]
"""Parameters that are not dnn properties (fixed algorithm names, filled-in defaults)."""


@dataclass(frozen=True)
class KernelCall:
    """How one dnn op runs (see the module docstring)."""

    kind: str
    ins: tuple[tuple[str, str], ...]
    params: tuple[str, ...] = ()
    outs: tuple[str, ...] = ("dst",)
    reference: bool = False
    extra: Extra = field(default=lambda op: {})
    """Parameters beyond the copied properties."""

    @cached_property
    def zero_point_roles(self) -> bool:
        """Whether a role of ``ins`` is a zero point (_without_zero_points drops constant 0s)."""
        return any(role.endswith("_zero_point") for role, _ in self.ins)


def _fixed(**values: str) -> Extra:
    """Constant string parameters (softmax's algorithm)."""
    return lambda op: {name: StringAttr(value) for name, value in values.items()}


def _sum_scales(op: DnnOp) -> dict[str, Attribute]:
    """dnn.sum's `scales` with its default (all 1.0) written out."""
    assert isinstance(op, SumOp)
    if op.scales is not None:
        return {"scales": op.scales}
    return {"scales": DenseArrayBase.from_list(f32, [1.0] * len(op.inputs))}


def _quantize_steps(op: DnnOp) -> dict[str, Attribute]:
    """dnn.quantize as ONNX computes it, in one binary primitive: src divided by the scale
    (an f32 division, as ONNX's), rounded half to even, plus the constant zero point; the
    conversion to the 8-bit destination saturates. (A reorder with a scale multiplies by
    the f32 reciprocal and adds the zero point before rounding: one step off on and near
    ties.)"""
    assert isinstance(op, QuantizeOp) and isinstance(op.zero_point.owner, ConstantOp)
    zero_point = float(constant_value(op.zero_point.owner).reshape(()))
    steps = [EltwisePostOp(EltwiseAlg.ROUND), EltwisePostOp(EltwiseAlg.LINEAR, 1.0, zero_point)]
    return {
        "alg": StringAttr(BinaryAlg.DIV),
        "post_ops": post_ops_attr(steps[: 1 + (zero_point != 0)]),
    }


KERNEL = "dnn.kernel"
"""The op attribute holding the #dnn.kernel dnn-select-kernels chose (or a pass pinned)."""

_ANCHOR_POST_ARGS = ("post_arg_", "post_args")
_ANCHOR_PARAMS = ("post_ops",)
_REORDER = KernelCall("reorder", (("src", "src"),))
_BINARY = KernelCall(
    "binary", (("src_0", "lhs"), ("src_1", "rhs"), _ANCHOR_POST_ARGS), ("alg", "post_ops")
)

_WINDOWED_INS = (("src", "src"), ("weights", "wei"), ("bias", "bias"), _ANCHOR_POST_ARGS)
_WINDOWED_PARAMS = ("strides", "pads_begin", "pads_end", "dilations", "groups", "post_ops")

CALLS: dict[type[DnnOp], KernelCall] = {
    Conv2DOp: KernelCall("convolution", _WINDOWED_INS, _WINDOWED_PARAMS),
    Deconv2DOp: KernelCall("deconvolution", _WINDOWED_INS, _WINDOWED_PARAMS),
    MatmulOp: KernelCall(
        "matmul",
        (("src", "lhs"), ("weights", "rhs"), ("bias", "bias"), _ANCHOR_POST_ARGS),
        _ANCHOR_PARAMS,
    ),
    InnerProductOp: KernelCall(
        "inner_product",
        (("src", "src"), ("weights", "wei"), ("bias", "bias"), _ANCHOR_POST_ARGS),
        _ANCHOR_PARAMS,
    ),
    PoolOp: KernelCall(
        "pooling",
        (("src", "src"), _ANCHOR_POST_ARGS),
        ("kind", "kernel", "strides", "pads_begin", "pads_end", "dilations", "post_ops"),
    ),
    BatchNormOp: KernelCall(
        "batch_normalization",
        (
            ("src", "src"),
            ("mean", "mean"),
            ("variance", "variance"),
            ("scale", "scale"),
            ("shift", "shift"),
        ),
        ("epsilon",),
    ),
    LayerNormOp: KernelCall(
        "layer_normalization",
        (("src", "src"), ("scale", "scale"), ("shift", "shift")),
        ("epsilon",),
    ),
    LrnOp: KernelCall("lrn", (("src", "src"),), ("kind", "size", "alpha", "beta", "k")),
    SoftmaxOp: KernelCall("softmax", (("src", "src"),), ("axis",), extra=_fixed(alg="accurate")),
    LogSoftmaxOp: KernelCall("softmax", (("src", "src"),), ("axis",), extra=_fixed(alg="log")),
    ReduceOp: KernelCall("reduction", (("src", "src"),), ("kind",)),
    EltwiseOp: KernelCall("eltwise", (("src", "src"),), ("alg", "alpha", "beta")),
    BinaryOp: _BINARY,
    SumOp: KernelCall("sum", (("src_", "inputs"),), extra=_sum_scales),
    ConcatOp: KernelCall("concat", (("src_", "inputs"),), ("axis",)),
    ReorderOp: _REORDER,
    CastOp: _REORDER,
    TransposeOp: KernelCall("reorder", (("src", "src"),), ("permutation",)),
    SliceOp: KernelCall("reorder", (("src", "src"),), ("starts",)),
    ResizeOp: KernelCall("resampling", (("src", "src"),), ("mode",)),
    QConv2DOp: KernelCall(
        "convolution",
        (
            ("src", "src"),
            ("weights", "wei"),
            ("bias", "bias"),
            ("src_scale", "src_scale"),
            ("src_zero_point", "src_zero_point"),
            ("weights_scale", "wei_scale"),
            ("dst_scale", "dst_scale"),
            ("dst_zero_point", "dst_zero_point"),
            _ANCHOR_POST_ARGS,
        ),
        _WINDOWED_PARAMS,
    ),
    QMatmulOp: KernelCall(
        "matmul",
        (
            ("src", "src"),
            ("weights", "wei"),
            ("bias", "bias"),
            ("src_scale", "src_scale"),
            ("src_zero_point", "src_zero_point"),
            ("weights_scale", "wei_scale"),
            ("weights_zero_point", "wei_zero_point"),
            ("dst_scale", "dst_scale"),
            ("dst_zero_point", "dst_zero_point"),
        ),
        _ANCHOR_PARAMS,
    ),
    QuantizeOp: KernelCall("binary", (("src_0", "src"), ("src_1", "scale")), extra=_quantize_steps),
    DequantizeOp: KernelCall(
        "reorder", (("src", "src"), ("src_scale", "scale"), ("src_zero_point", "zero_point"))
    ),
}
"""The oneDNN primitive call of every dnn op that has one; the others that compute (top_k,
and every op on s64 or boolean values) run their reference kernel (kernel_call)."""

_QUANTIZING_REORDER = KernelCall(
    "reorder", (("src", "src"), ("dst_scale", "scale"), ("dst_zero_point", "zero_point"))
)
"""dnn.quantize with a zero point computed at run time: a reorder with a scale, which
multiplies by its f32 reciprocal and adds the zero point before rounding."""

_SWAPPED_BINARY = KernelCall(
    "binary", (("src_0", "rhs"), ("src_1", "lhs"), _ANCHOR_POST_ARGS), ("alg", "post_ops")
)

_NOT_PARAMETERS = frozenset({"operandSegmentSizes"})


def _result_data_type(op: DnnOp) -> dict[str, Attribute]:
    """dnn.cast's target type, which its result type holds: the reference kernel's dtype."""
    return {"dtype": StringAttr(data_type_of(tensor_type(op.results[0]).get_element_type()))}


def reference_call(op: DnnOp) -> KernelCall:
    """The numpy reference kernel named like `op`, by the interpreter's contract: operands
    as roles of their own names (variadic ones enumerated), every property a parameter,
    results in definition order."""
    definition = op.get_irdl_definition()
    call = KernelCall(
        op.name.removeprefix("dnn."),
        tuple(
            (f"{name}_" if isinstance(d, VarOperandDef) else name, name)
            for name, d in definition.operands
        ),
        tuple(name for name in definition.properties if name not in _NOT_PARAMETERS),
        tuple(name for name, _ in definition.results),
        reference=True,
    )
    return replace(call, extra=_result_data_type) if isinstance(op, CastOp) else call


_REDUCING = frozenset({Conv2DOp, Deconv2DOp, MatmulOp, InnerProductOp, ReduceOp})
"""The ops that reduce over an operand dimension (which may be empty)."""


def _empty_reduction(op: DnnOp) -> bool:
    """A convolution, matmul, inner product or reduction over nothing (a zero-sized operand
    dimension) into a non-empty result: oneDNN 3.2 then writes no output at all (or, reducing,
    -FLT_MAX for a max), where the result is the reduction's identity: zeros, then bias and
    post-ops (ONNX: MatMul with K = 0 gives zeros; ReduceMax of nothing is -inf)."""
    if type(op) not in _REDUCING or 0 in shape_of(op.results[0]):
        return False
    return any(0 in shape_of(v) for v in op.operands[:2])


_ONEDNN_ELEMENTS = frozenset(t for t, d in DATA_TYPES.items() if d.is_onednn)
"""The element types oneDNN computes on (a set lookup: kernel_call asks ~3,000 times a trace)."""


def _onednn_types(op: DnnOp) -> bool:
    """Whether every value of `op` has a type oneDNN computes on (not s64, not boolean)."""
    return all(tensor_type(v).element_type in _ONEDNN_ELEMENTS for v in (*op.operands, *op.results))


def pinned_to_reference(op: DnnOp) -> bool:
    """Whether a pass pinned `op` to its reference kernel (``dnn.kernel`` with library
    ``reference``, as dnn-propagate-special-values sets it)."""
    kernel = op.attributes.get(KERNEL)
    return isinstance(kernel, KernelAttr) and kernel.library.data is KernelLibrary.REFERENCE


def _onednn_resize(op: ResizeOp) -> bool:
    """Whether oneDNN's resampling computes ``op``: N and C unchanged, 1 to 3 spatial axes,
    each scale exactly output / input (oneDNN's factor), and
    - linear with half_pixel coordinates (pytorch_half_pixel where no resized axis has size 1);
    - nearest upsampling by whole factors F with half_pixel (or pytorch_half_pixel)
      coordinates rounded either way, or asymmetric ones floored: oneDNN's nearest source
      round((x + 0.5) / F - 0.5) is then x // F, which those modes give and which never ties."""
    src, sizes, scales = shape_of(op.src), ints(op.sizes), list(op.scales.get_values())
    coordinates, mode = op.coordinate_mode.data, op.mode.data
    if not (
        3 <= len(src) <= 5
        and tuple(sizes[:2]) == src[:2]
        and all(float(s) == o / i for s, o, i in zip(scales[2:], sizes[2:], src[2:], strict=True))
    ):
        return False
    if mode == "linear":
        return coordinates == "half_pixel" or (
            coordinates == "pytorch_half_pixel" and min(sizes[2:], default=2) > 1
        )
    whole = all(o % i == 0 for o, i in zip(sizes[2:], src[2:], strict=True))
    rounded = op.nearest_mode.data in ("round_prefer_floor", "round_prefer_ceil")
    return (
        mode == "nearest"
        and whole
        and (
            (coordinates in ("half_pixel", "pytorch_half_pixel") and rounded)
            or (coordinates == "asymmetric" and op.nearest_mode.data == "floor")
        )
    )


def _integer_division(op: BinaryOp) -> bool:
    """An integer division: ONNX truncates toward zero where oneDNN's binary rounds."""
    element = tensor_type(op.lhs).get_element_type()
    return op.alg.data is BinaryAlg.DIV and data_type_of(element).numpy.kind in "iu"


def _to_integer(op: CastOp) -> bool:
    """A cast to an integer type: oneDNN's reorder rounds to nearest and saturates, where
    ONNX truncates toward zero and wraps (the reference ``cast``)."""
    return data_type_of(tensor_type(op.result).get_element_type()) in (
        DataType.S8,
        DataType.U8,
        DataType.S32,
    )


def kernel_call(op: DnnOp) -> KernelCall:
    """The call that runs `op`: the table's, except where oneDNN cannot run the case, which
    runs the op's numpy reference kernel (reference_call).

    oneDNN runs no op without an entry in CALLS, and none on s64 or boolean values; a cast to
    an integer type runs the reference kernel too (_to_integer), and so does an eltwise
    or binary algorithm oneDNN lacks (softsign, pow), an integer division, and a resize
    oneDNN's resampling does not compute (_onednn_resize). Its
    binary broadcasts only its second source, so a broadcast LHS swaps the operands of a
    commutative algorithm and falls back to the reference kernel otherwise; it writes in
    place over its first source only, so a commutative binary in place over its RHS
    (`dnn.inplace = array<i64: 1>`) swaps them too; a slice with steps is not a sub-memory,
    so it runs the reference kernel, and so does an empty reduction (_empty_reduction) and
    an op a pass pinned to its reference kernel (pinned_to_reference). Quantizing and
    dequantizing per tensor runs on oneDNN: dequantizing is a reorder with run-time scale and
    zero point (bit-exact), quantizing with a constant zero point is a binary division
    with rounding and the zero point as post-ops (_quantize_steps, exact), with a run-time
    zero point a reorder (_QUANTIZING_REORDER: a value within an f32 rounding of a tie, or
    on a tie with an odd zero point, may land one step from ONNX's); per axis, oneDNN's
    reorder takes no zero points, so the reference kernel runs it.
    """
    # exact types (CALLS is by type): `type(op) is` costs a fraction of an ABC's isinstance,
    # and a trace asks ~3,000 times
    if type(op) not in CALLS or not _onednn_types(op) or _empty_reduction(op):
        return reference_call(op)
    if pinned_to_reference(op):
        return reference_call(op)
    if type(op) is CastOp and _to_integer(op):
        return reference_call(op)
    if type(op) is EltwiseOp and not has_eltwise_algorithm(op.alg.data):
        return reference_call(op)
    if type(op) is BinaryOp:
        if not has_binary_algorithm(op.alg.data) or _integer_division(op):
            return reference_call(op)
        if shape_of(op.lhs) != shape_of(op.result):
            if op.alg.data in COMMUTATIVE and shape_of(op.rhs) == shape_of(op.result):
                return _SWAPPED_BINARY
            return reference_call(op)
        if inplace_requests(op) == [1] and op.alg.data in COMMUTATIVE:
            return _SWAPPED_BINARY
    if type(op) is ResizeOp and not _onednn_resize(op):
        return reference_call(op)
    if type(op) is SliceOp and any(s != 1 for s in ints(op.steps) or ()):
        return reference_call(op)
    if (type(op) is QuantizeOp or type(op) is DequantizeOp) and op.axis is not None:
        return reference_call(op)
    if type(op) is QuantizeOp and not isinstance(op.zero_point.owner, ConstantOp):
        return _without_zero_points(op, _QUANTIZING_REORDER)
    return _without_zero_points(op, CALLS[type(op)])


def _without_zero_points(op: DnnOp, call: KernelCall) -> KernelCall:
    """``call`` without the zero-point roles whose operand is a constant 0: oneDNN then
    creates the primitive without a zero-point attribute, which selects kernels without
    zero-point compensation (measured on Zen 4: a 1x1 int8 convolution 8% faster, a
    depthwise one 20%; only a u8 source without zero points gets ``brdgmm_dw``)."""
    if not call.zero_point_roles:
        return call
    ins = tuple(
        (role, operand)
        for role, operand in call.ins
        if not (role.endswith("_zero_point") and _constant_zero(getattr(op, operand)))
    )
    return call if ins == call.ins else replace(call, ins=ins)


def _constant_zero(value: SSAValue | None) -> bool:
    """Whether ``value`` is a dnn.constant of zeros (None: an absent optional operand)."""
    owner = None if value is None else value.owner
    return isinstance(owner, ConstantOp) and not np.any(constant_value(owner))


def _param(attr: Attribute, name: str, rank: int) -> Attribute:
    """A property as a parameter (see the module docstring); axes made non-negative."""
    if isinstance(attr, EnumAttribute):
        return StringAttr(str(attr.data))
    if isinstance(attr, IntegerAttr) and attr.type != i1:
        value = attr.value.data
        return IntegerAttr(value % rank if name == "axis" else value, i64)
    if isinstance(attr, FloatAttr):
        return FloatAttr(attr.value.data, f32)
    if name == "axes" and isinstance(attr, DenseArrayBase):
        return i64_array(*(a % rank for a in ints(attr) or ()))
    return attr


def _symbolic_ends(op: SliceOp) -> Attribute | None:
    """A unit-step slice's ends as start + result size, where a size is an expression of the
    input dimensions (dnnc.core.symbols, while dnnc.driver.dynamic traces): a packed array
    would keep only its traced value. None when no size is one."""
    sizes = shape_of(op.result)
    if not any(isinstance(n, SymbolicInt) for n in sizes) or any(
        s != 1 for s in ints(op.steps) or ()
    ):
        return None
    starts = ints(op.starts) or ()
    return ArrayAttr([IntegerAttr(s + n, i64) for s, n in zip(starts, sizes, strict=True)])


def params_of(op: DnnOp, call: KernelCall) -> dict[str, Attribute]:
    """The parameter dictionary of `op` run as `call`."""
    rank = len(shape_of(op.operands[0]))
    params: dict[str, Attribute] = {}
    for name in call.params:
        attr = getattr(op, name)
        if attr is not None:
            params[name] = _param(attr, name, rank)
    if isinstance(op, SliceOp) and "ends" in params:
        params["ends"] = _symbolic_ends(op) or params["ends"]
    return params | call.extra(op)
