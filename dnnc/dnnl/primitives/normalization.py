"""Handlers of normalizations and reductions: batch and layer normalization, LRN, reduction
(forward inference)."""

from __future__ import annotations

from collections.abc import Mapping

from dnnc.core.kinds import LrnKind, ReduceKind
from dnnc.dnnl import capi
from dnnc.dnnl.objects import LRN_ALGS, REDUCE_ALGS, MemoryDesc
from dnnc.dnnl.primitives.base import (
    FORWARD_INFERENCE,
    UNARY_ARGS,
    Param,
    PrimitiveHandler,
    choice,
    integer,
    number,
)

Flags = capi.dnnl_normalization_flags_t
_EPSILON: Mapping[str, Param] = {"epsilon": Param(number, 1e-5)}


class BatchNormalizationHandler(PrimitiveHandler):
    """Global statistics: mean and variance [C] are inputs, as are scale and shift [C]."""

    kind = "batch_normalization"
    primitive = "batch_normalization_forward"
    args = {
        "src": capi.DNNL_ARG_SRC,
        "mean": capi.DNNL_ARG_MEAN,
        "variance": capi.DNNL_ARG_VARIANCE,
        "scale": capi.DNNL_ARG_SCALE,
        "shift": capi.DNNL_ARG_SHIFT,
        "dst": capi.DNNL_ARG_DST,
    }
    params_spec = _EPSILON

    def _arguments(self, descs: Mapping[str, MemoryDesc]) -> tuple[object, ...]:
        flags = Flags.dnnl_use_global_stats | Flags.dnnl_use_scale | Flags.dnnl_use_shift
        return (FORWARD_INFERENCE, descs["src"], descs["dst"], self.params["epsilon"], flags)


class LayerNormalizationHandler(PrimitiveHandler):
    """Over the last dimension, statistics computed on the fly; scale and shift optional."""

    kind = "layer_normalization"
    primitive = "layer_normalization_forward"
    args = {
        "src": capi.DNNL_ARG_SRC,
        "scale": capi.DNNL_ARG_SCALE,
        "shift": capi.DNNL_ARG_SHIFT,
        "dst": capi.DNNL_ARG_DST,
    }
    optional = frozenset({"scale", "shift"})
    params_spec = _EPSILON

    def _arguments(self, descs: Mapping[str, MemoryDesc]) -> tuple[object, ...]:
        flags = (Flags.dnnl_use_scale if "scale" in descs else 0) | (
            Flags.dnnl_use_shift if "shift" in descs else 0
        )
        return (FORWARD_INFERENCE, descs["src"], descs["dst"], None, self.params["epsilon"], flags)


_RESAMPLING_ALGS = {
    "linear": capi.dnnl_alg_kind_t.dnnl_resampling_linear,
    "nearest": capi.dnnl_alg_kind_t.dnnl_resampling_nearest,
}


class ResamplingHandler(PrimitiveHandler):
    """Linear or nearest resampling of the spatial dimensions of [N, C, spatial...] to dst's
    sizes, with oneDNN's coordinates (x + 0.5) * in / out - 0.5, edges clamped (ONNX Resize's
    half_pixel; nearest rounds them). The factors are dst / src per spatial dimension."""

    kind = "resampling"
    primitive = "resampling_forward"
    args = UNARY_ARGS
    params_spec = {"mode": Param(choice(_RESAMPLING_ALGS), "linear")}

    def _arguments(self, descs: Mapping[str, MemoryDesc]) -> tuple[object, ...]:
        src, dst = descs["src"], descs["dst"]
        factors = [o / i for o, i in zip(dst.dims[2:], src.dims[2:], strict=True)]
        return (FORWARD_INFERENCE, _RESAMPLING_ALGS[self.params["mode"]], factors, src, dst)


class LrnHandler(PrimitiveHandler):
    kind = "lrn"
    primitive = "lrn_forward"
    args = UNARY_ARGS
    params_spec = {
        "kind": Param(choice(LrnKind)),
        "size": Param(integer),
        "alpha": Param(number, 1e-4),
        "beta": Param(number, 0.75),
        "k": Param(number, 1.0),
    }

    def _check(self) -> None:
        if self.params["size"] < 1:
            raise self._error(f"parameter 'size' must be positive, got {self.params['size']}")

    def _arguments(self, descs: Mapping[str, MemoryDesc]) -> tuple[object, ...]:
        return (
            FORWARD_INFERENCE,
            LRN_ALGS[self.params["kind"]],
            descs["src"],
            descs["dst"],
            self.params["size"],
            self.params["alpha"],
            self.params["beta"],
            self.params["k"],
        )


class ReductionHandler(PrimitiveHandler):
    """dst has src's rank, the reduced dims of size 1 (keep_dims; the lowering reshapes)."""

    kind = "reduction"
    primitive = "reduction"
    args = UNARY_ARGS
    params_spec = {"kind": Param(choice(ReduceKind))}

    def _arguments(self, descs: Mapping[str, MemoryDesc]) -> tuple[object, ...]:
        # p and eps belong to the norm algorithms, which dnn.reduce does not have.
        return (REDUCE_ALGS[self.params["kind"]], descs["src"], descs["dst"], 0.0, 0.0)
