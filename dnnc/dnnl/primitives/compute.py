"""Handlers of the compute primitives that take post-ops: convolution, matmul, inner
product, pooling (all forward inference)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

import numpy as np

from dnnc.core.kinds import PoolKind
from dnnc.dnnl import capi
from dnnc.dnnl.objects import POOL_ALGS, MemoryDesc
from dnnc.dnnl.primitives.base import (
    FORWARD_INFERENCE,
    POST_OPS,
    UNARY_ARGS,
    Param,
    PrimitiveHandler,
    choice,
    integer,
    integers,
    reshaped,
    with_rank,
)

_WINDOW: Mapping[str, Param] = {
    "strides": Param(integers, (1, 1)),
    "pads_begin": Param(integers, (0, 0)),
    "pads_end": Param(integers, (0, 0)),
    "dilations": Param(integers, (1, 1)),
}
"""Spatial parameters of conv2d and pool (docs/dialect.md: dilation 1 = dense)."""


_QUANTIZATION_ROLES: Mapping[str, tuple[int, int]] = {
    "src_scale": (capi.DNNL_ARG_ATTR_SCALES, capi.DNNL_ARG_SRC),
    "weights_scale": (capi.DNNL_ARG_ATTR_SCALES, capi.DNNL_ARG_WEIGHTS),
    "dst_scale": (capi.DNNL_ARG_ATTR_SCALES, capi.DNNL_ARG_DST),
    "src_zero_point": (capi.DNNL_ARG_ATTR_ZERO_POINTS, capi.DNNL_ARG_SRC),
    "weights_zero_point": (capi.DNNL_ARG_ATTR_ZERO_POINTS, capi.DNNL_ARG_WEIGHTS),
    "dst_zero_point": (capi.DNNL_ARG_ATTR_ZERO_POINTS, capi.DNNL_ARG_DST),
}
"""Run-time quantization of an int8 anchor, role -> (DNNL_ARG_ATTR_*, the argument it is of):
one f32 scale (s32 zero point) per tensor for src and dst, one weights scale per tensor or
per output channel (a weights zero point: matmul only, per tensor). oneDNN computes
``dst = round((s_src * s_wei * sum((src - zp_src) * (wei - zp_wei)) + bias, post-ops) /
s_dst) + zp_dst``, saturated; the bias is f32 and already scaled."""


class _AnchorHandler(PrimitiveHandler):
    """src x weights (+ bias) -> dst with post-ops; oneDNN may choose all three layouts.
    With the roles of ``_QUANTIZATION_ROLES`` (each optional) it is an int8 primitive with
    run-time scales and zero points; the weights should then be given as format ``any``
    and reordered once into the chosen descriptor, which holds oneDNN's compensation (plain
    s8 weights send a convolution to ``ref``)."""

    args = {
        "src": capi.DNNL_ARG_SRC,
        "weights": capi.DNNL_ARG_WEIGHTS,
        "bias": capi.DNNL_ARG_BIAS,
        "dst": capi.DNNL_ARG_DST,
        **{role: attr | arg for role, (attr, arg) in _QUANTIZATION_ROLES.items()},
    }
    optional = frozenset({"bias", *_QUANTIZATION_ROLES})
    params_spec = POST_OPS
    flexible = ("src", "weights", "dst")

    def _check(self) -> None:
        super()._check()
        channels = self._output_channels()
        for role in _QUANTIZATION_ROLES:
            desc = self.descs.get(role)
            if desc is None:
                continue
            count = int(np.prod(desc.dims))
            weights = role == "weights_scale"
            if desc.ndims != 1 or count not in (1, channels if weights else 1):
                per_channel = f" or {channels} (one per output channel)" if weights else ""
                raise self._error(f"{role} {desc.dims} must hold 1 value{per_channel}")

    def _output_channels(self) -> int:
        """The number of output channels, the length of a per-channel weights scale."""
        raise NotImplementedError

    def _weights_scale_mask(self) -> int:
        """The mask of one weights scale per output channel in the weights oneDNN sees."""
        raise NotImplementedError

    def _quantization_masks(self) -> tuple[dict[int, int], dict[int, int]]:
        scales: dict[int, int] = {}
        zero_points: dict[int, int] = {}
        for role, (attr, arg) in _QUANTIZATION_ROLES.items():
            desc = self.descs.get(role)
            if desc is None:
                continue
            per_channel = role == "weights_scale" and int(np.prod(desc.dims)) > 1
            mask = self._weights_scale_mask() if per_channel else 0
            (scales if attr == capi.DNNL_ARG_ATTR_SCALES else zero_points)[arg] = mask
        return scales, zero_points


class _WindowHandler(PrimitiveHandler):
    """A sliding window over the spatial dims of src [N, C, ...]."""

    _window_params: ClassVar[tuple[str, ...]] = ()
    """Spatial parameters besides those of _WINDOW."""

    def _check(self) -> None:
        super()._check()
        spatial = self.descs["src"].ndims - 2
        self._check_lengths([*_WINDOW, *self._window_params], spatial)
        if min(self.params["strides"]) < 1 or min(self.params["dilations"]) < 1:
            raise self._error("strides and dilations must be at least 1 (1 = dense)")
        self._check_pads()

    def _check_pads(self) -> None:
        if min(self.params["pads_begin"] + self.params["pads_end"]) < 0:
            raise self._error("pads must be non-negative")

    def _dnnl_dilations(self) -> tuple[int, ...]:
        """oneDNN counts dilation from 0 (0 = dense)."""
        return tuple(d - 1 for d in self.params["dilations"])


class ConvolutionHandler(_WindowHandler, _AnchorHandler):
    """``dnn.conv2d``: weights given as logical [O, C/groups, KH, KW]; for groups > 1 the
    handler views them as oneDNN's [groups, O/groups, C/groups, KH, KW]."""

    kind = "convolution"
    primitive = "convolution_forward"
    algorithm: ClassVar[int] = capi.dnnl_alg_kind_t.dnnl_convolution_direct
    params_spec = {**_WINDOW, "groups": Param(integer, 1), **POST_OPS}

    def _check(self) -> None:
        super()._check()
        groups, out_channels = self.params["groups"], self.descs["weights"].dims[0]
        if groups < 1 or out_channels % groups:
            raise self._error(f"groups={groups} does not divide the {out_channels} outputs")

    def _output_channels(self) -> int:
        return self.descs["weights"].dims[0]

    def _weights_scale_mask(self) -> int:
        """[O, ...], or [groups, O/groups, ...] when grouped: the output channel is dim 0,
        or dims 0 and 1."""
        return 0b11 if self.params["groups"] > 1 else 0b1

    def _arguments(self, descs: Mapping[str, MemoryDesc]) -> tuple[object, ...]:
        weights, groups = descs["weights"], self.params["groups"]
        if groups > 1:
            out_channels, *rest = weights.dims
            layout = weights.layout()
            split = None if layout is None else layout.split_leading(weights.dims, groups)
            weights = reshaped(weights, (groups, out_channels // groups, *rest), split)
        return (
            FORWARD_INFERENCE,
            self.algorithm,
            descs["src"],
            weights,
            descs.get("bias"),
            descs["dst"],
            self.params["strides"],
            self._dnnl_dilations(),
            self.params["pads_begin"],
            self.params["pads_end"],
        )


class DeconvolutionHandler(ConvolutionHandler):
    """``dnn.deconv2d``: the transpose of a convolution (oneDNN ``deconvolution_forward``,
    direct algorithm), weights given as logical [O, C/groups, KH, KW] like a convolution's."""

    kind = "deconvolution"
    primitive = "deconvolution_forward"
    algorithm = capi.dnnl_alg_kind_t.dnnl_deconvolution_direct

    def _check_pads(self) -> None:
        """A negative end pad down to 1 - stride appends output rows no input reaches
        (ONNX's output_padding); oneDNN refuses anything lower."""
        strides, pads_end = self.params["strides"], self.params["pads_end"]
        if min(self.params["pads_begin"]) < 0 or any(
            pad <= -stride for pad, stride in zip(pads_end, strides)
        ):
            raise self._error(
                f"pads_begin must be non-negative and pads_end above -strides, got "
                f"pads_begin={list(self.params['pads_begin'])}, pads_end={list(pads_end)}, "
                f"strides={list(strides)}"
            )


class PoolingHandler(_WindowHandler):
    kind = "pooling"
    primitive = "pooling_forward"
    args = UNARY_ARGS
    params_spec = {
        "kind": Param(choice(PoolKind)),
        "kernel": Param(integers),
        **_WINDOW,
        **POST_OPS,
    }
    _window_params = ("kernel",)

    def _arguments(self, descs: Mapping[str, MemoryDesc]) -> tuple[object, ...]:
        return (
            FORWARD_INFERENCE,
            POOL_ALGS[self.params["kind"]],
            descs["src"],
            descs["dst"],
            self.params["strides"],
            self.params["kernel"],
            self._dnnl_dilations(),
            self.params["pads_begin"],
            self.params["pads_end"],
        )


class MatmulHandler(_AnchorHandler):
    """``dnn.matmul``: src (lhs) [..., M, K] x weights (rhs) [..., K, N]; operands and bias
    of lower rank than dst get leading 1s, then oneDNN broadcasts batch dims of size 1."""

    kind = "matmul"
    primitive = "matmul"

    def _output_channels(self) -> int:
        return self.descs["weights"].dims[-1]

    def _weights_scale_mask(self) -> int:
        """Weights [..., K, N] are seen with dst's rank: N is its last dim."""
        return 1 << (self.descs["dst"].ndims - 1)

    def _arguments(self, descs: Mapping[str, MemoryDesc]) -> tuple[object, ...]:
        rank = descs["dst"].ndims
        return tuple(with_rank(descs.get(role), rank) for role in ("src", "weights", "bias", "dst"))


class InnerProductHandler(_AnchorHandler):
    """``dnn.inner_product``: src [N, C, ...] . weights [O, C, ...] (+ bias [O]) -> [N, O]."""

    kind = "inner_product"
    primitive = "inner_product_forward"

    def _output_channels(self) -> int:
        return self.descs["weights"].dims[0]

    def _weights_scale_mask(self) -> int:
        return 0b1

    def _arguments(self, descs: Mapping[str, MemoryDesc]) -> tuple[object, ...]:
        return (FORWARD_INFERENCE, descs["src"], descs["weights"], descs.get("bias"), descs["dst"])
