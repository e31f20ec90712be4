"""Which implementation oneDNN gives each primitive kind here, asked with a tiny descriptor.

For a (primitive kind, data type, layout) triple, ``implementation`` creates the primitive
descriptor of a small representative primitive of that kind (PROBES) and reads back oneDNN's
``impl_info_str``; None when oneDNN refuses it (``dnnl_unimplemented``: oneDNN 3.2 has, for
instance, no bf16 eltwise, binary or convolution below AVX-512). The data type applies to
the data roles (sources, weights, destination); bias and normalization statistics stay f32,
as oneDNN reads them; weights are given as format ``any``, as a compile asks for them.
A reorder probe converts f32 into the data type (what a ``dnn.cast`` runs).

8-bit probes ask what an int8 kernel is given: s8 weights whatever the activations' type
(oneDNN has no u8 weights), and, without a layout, 4-D activations channels-last
(INT8_LAYOUT): oneDNN 3.2's int8 convolutions and pooling run there (brgconv, jit_uni_int8,
jit_int) but only on ``ref:any`` in plain nchw or in nChw16c.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING

from dnnc.core.kinds import BinaryAlg, DataType, EltwiseAlg, LrnKind, PoolKind, ReduceKind
from dnnc.core.layouts import LayoutError, parse_layout, plain_layout

if TYPE_CHECKING:  # oneDNN is loaded on first use, not at import
    from dnnc.dnnl.objects import PrimitiveDesc


@dataclass(frozen=True)
class _Probe:
    """A representative primitive: the shape of each role, and its parameters."""

    shapes: dict[str, tuple[int, ...]]
    params: dict[str, object] = field(default_factory=dict)


_IMAGE = (1, 16, 8, 8)
_CHANNEL = (16,)
_STATISTICS = frozenset({"bias", "mean", "variance", "scale", "shift"})
"""Roles oneDNN reads in f32 whatever the data type."""

PROBES: dict[str, _Probe] = {
    "convolution": _Probe(
        {"src": _IMAGE, "weights": (16, 16, 3, 3), "bias": _CHANNEL, "dst": (1, 16, 6, 6)}
    ),
    "deconvolution": _Probe(
        {"src": _IMAGE, "weights": (16, 16, 3, 3), "bias": _CHANNEL, "dst": (1, 16, 10, 10)}
    ),
    "matmul": _Probe({"src": (16, 16), "weights": (16, 16), "dst": (16, 16)}),
    "inner_product": _Probe({"src": (4, 16), "weights": (16, 16), "dst": (4, 16)}),
    "pooling": _Probe(
        {"src": _IMAGE, "dst": (1, 16, 4, 4)},
        {"kind": PoolKind.MAX, "kernel": (2, 2), "strides": (2, 2)},
    ),
    "eltwise": _Probe({"src": _IMAGE, "dst": _IMAGE}, {"alg": EltwiseAlg.RELU}),
    "binary": _Probe({"src_0": _IMAGE, "src_1": _IMAGE, "dst": _IMAGE}, {"alg": BinaryAlg.ADD}),
    "sum": _Probe({"src_0": _IMAGE, "src_1": _IMAGE, "dst": _IMAGE}),
    "concat": _Probe({"src_0": _IMAGE, "src_1": _IMAGE, "dst": (1, 32, 8, 8)}, {"axis": 1}),
    "reorder": _Probe({"src": _IMAGE, "dst": _IMAGE}),
    "softmax": _Probe({"src": _IMAGE, "dst": _IMAGE}, {"axis": 3}),
    "batch_normalization": _Probe(
        {
            "src": _IMAGE,
            "mean": _CHANNEL,
            "variance": _CHANNEL,
            "scale": _CHANNEL,
            "shift": _CHANNEL,
            "dst": _IMAGE,
        }
    ),
    "layer_normalization": _Probe(
        {"src": (2, 8, 16), "scale": _CHANNEL, "shift": _CHANNEL, "dst": (2, 8, 16)}
    ),
    "lrn": _Probe({"src": _IMAGE, "dst": _IMAGE}, {"kind": LrnKind.ACROSS_CHANNELS, "size": 5}),
    "reduction": _Probe({"src": _IMAGE, "dst": (1, 16, 1, 1)}, {"kind": ReduceKind.SUM}),
    "resampling": _Probe({"src": _IMAGE, "dst": (1, 16, 16, 16)}),
}
"""One representative primitive per kind dnnc executes (module docstring)."""

PROBED_KINDS = tuple(PROBES)

_WEIGHTS_ANY = frozenset({"convolution", "deconvolution", "matmul", "inner_product"})
"""Kinds whose weights a compile leaves to oneDNN (format any)."""


INT8_LAYOUT = "nhwc"
"""The activations' layout of an 8-bit probe given none (module docstring)."""
_INT8 = frozenset({DataType.S8, DataType.U8})


def _role_type(kind: str, role: str, data_type: DataType) -> DataType:
    if role in _STATISTICS:
        return DataType.F32
    if role == "weights" and data_type in _INT8:
        return DataType.S8  # oneDNN's int8 weights are s8 (module docstring)
    if kind == "reorder" and role == "src":
        return DataType.F32  # a dnn.cast from f32
    return data_type


@cache
def implementation(kind: str, data_type: DataType, layout: str | None = None) -> str | None:
    """oneDNN's implementation of a small `kind` primitive computing in `data_type`, its
    sources and destination in `layout` (a format tag such as ``nhwc``; plain if None or of
    another rank; an 8-bit type without a layout: INT8_LAYOUT); None when oneDNN has none.
    ValueError for a kind without a probe."""
    if kind not in PROBES:
        raise ValueError(f"no probe for primitive kind '{kind}' (valid: {', '.join(PROBES)})")
    if layout is None and data_type in _INT8:
        layout = INT8_LAYOUT
    created = _primitive_desc(kind, PROBES[kind], data_type, layout)
    return None if created is None else created.impl_info


def weights_layout(kind: str, shapes: dict[str, tuple[int, ...]], data_type: DataType) -> str:
    """The layout oneDNN packs the weights of a `kind` primitive of these role `shapes` into
    when it may choose (format ``any``), e.g. ``BA16a64b``; ``""`` when it keeps them plain or
    has no implementation. (oneDNN 3.2 packs matmul weights on AVX-512, not on AVX2.)"""
    created = _primitive_desc(kind, _Probe(shapes), data_type, None)
    found = None if created is None else created.weights_desc()
    layout = None if found is None else found.layout()
    return "" if layout is None or layout.is_plain else layout.name


def _primitive_desc(
    kind: str, probe: _Probe, data_type: DataType, layout: str | None
) -> PrimitiveDesc | None:
    """The primitive descriptor oneDNN creates for `probe` (module docstring), or None."""
    from dnnc.dnnl.objects import DnnlError, Engine, MemoryDesc
    from dnnc.dnnl.primitives import handler_for

    descs = {}
    for role, shape in probe.shapes.items():
        element = _role_type(kind, role, data_type)
        try:
            if role == "weights" and kind in _WEIGHTS_ANY:
                descs[role] = MemoryDesc.any(shape, element)
                continue
            chosen = parse_layout(layout) if layout and role not in _STATISTICS else None
            if chosen is None or chosen.rank != len(shape):
                chosen = plain_layout(len(shape))
            descs[role] = MemoryDesc.of_layout(shape, element, chosen)
        except (ValueError, LayoutError, DnnlError):
            return None  # oneDNN has no such data type or layout
    try:
        return handler_for(kind, descs, probe.params).create(Engine.default())
    except (ValueError, DnnlError):
        return None  # dnnl_unimplemented (or the handler refuses the combination)


def runs_natively(kind: str, data_type: DataType, layout: str | None = None) -> bool:
    """Whether oneDNN runs `kind` in `data_type` with a real kernel here (not ``ref:*``)."""
    found = implementation(kind, data_type, layout)
    return found is not None and not found.startswith("ref")


COMPUTE_KINDS = ("convolution", "matmul", "inner_product")
"""The primitive kinds that carry a network's arithmetic (what a lower precision is for)."""


NATIVE_INSTRUCTIONS: dict[DataType, tuple[str, ...]] = {
    DataType.BF16: ("avx512_core_bf16", "avx2_vnni_2"),
}
"""oneDNN ISAs with instructions that compute in a reduced type. oneDNN 3.2 also has bf16
kernels on plain avx512_core, emulating bf16 arithmetic with f32 instructions: measured on
ONEDNN_MAX_CPU_ISA=AVX512_CORE they ran ResNet blocks 4x and a BERT feed-forward layer 600x
(a ref:any matmul) slower than f32 (bench/precision.py)."""


def computes_in(data_type: DataType) -> bool:
    """Whether this CPU computes natively in `data_type`: the effective ISA has instructions
    for it (NATIVE_INSTRUCTIONS, where listed) and oneDNN runs every compute kind
    (COMPUTE_KINDS) in it with a real kernel."""
    from dnnc.target.host import isa_includes

    isas = NATIVE_INSTRUCTIONS.get(data_type)
    if isas is not None and not any(isa_includes(isa) for isa in isas):
        return False
    return all(runs_natively(kind, data_type) for kind in COMPUTE_KINDS)


@cache
def quantized_matmul(
    src: DataType,
    dst: DataType,
    shapes: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]],
    *,
    per_column: bool,
    bias: bool,
    packed: bool,
    weights_zero_point: bool,
) -> str | None:
    """oneDNN's implementation of the int8 matmul of ``src`` (u8 or s8, per-tensor scale and
    zero point) by s8 weights (per-tensor or ``per_column`` scales; a per-tensor zero point
    if ``weights_zero_point``), given as format ``any`` when ``packed`` (constants) else
    plain, with an f32 row bias if ``bias``, into ``dst`` (f32, or u8/s8 with a per-tensor
    scale and zero point), of these (src, weights, dst) ``shapes``: what a ``dnn.qmatmul``
    runs; None when oneDNN has none."""
    from dnnc.dnnl.objects import DnnlError, Engine, MemoryDesc
    from dnnc.dnnl.primitives import handler_for

    src_shape, wei_shape, dst_shape = shapes
    one_f32, one_s32 = (
        MemoryDesc.of_layout((1,), DataType.F32),
        MemoryDesc.of_layout((1,), DataType.S32),
    )
    descs = {
        "src": MemoryDesc.of_layout(src_shape, src),
        "weights": (MemoryDesc.any if packed else MemoryDesc.of_layout)(wei_shape, DataType.S8),
        "dst": MemoryDesc.of_layout(dst_shape, dst),
        "src_scale": one_f32,
        "src_zero_point": one_s32,
        "weights_scale": MemoryDesc.of_layout((wei_shape[-1] if per_column else 1,), DataType.F32),
    }
    if bias:
        descs["bias"] = MemoryDesc.of_layout((1, wei_shape[-1]), DataType.F32)
    if weights_zero_point:
        descs["weights_zero_point"] = one_s32
    if dst != DataType.F32:
        descs |= {"dst_scale": one_f32, "dst_zero_point": one_s32}
    try:
        return handler_for("matmul", descs, {}).create(Engine.default()).impl_info
    except (ValueError, DnnlError):
        return None  # dnnl_unimplemented
