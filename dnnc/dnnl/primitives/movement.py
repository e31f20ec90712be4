"""Handlers of the primitives that combine or move data: sum, concat, reorder."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from dnnc.dnnl import capi
from dnnc.dnnl.objects import MemoryDesc
from dnnc.dnnl.primitives.base import (
    Param,
    PrimitiveHandler,
    integer,
    integers,
    numbers,
    optional,
)


class _MultiSourceHandler(PrimitiveHandler):
    """Inputs src_0 .. src_<n-1> (exec arguments DNNL_ARG_MULTIPLE_SRC + i) into dst."""

    args = {"dst": capi.DNNL_ARG_DST}
    variadic = 1

    def _sources(self, descs: Mapping[str, MemoryDesc]) -> list[MemoryDesc]:
        return [descs[f"src_{i}"] for i in range(self._variadic_count())]


class SumHandler(_MultiSourceHandler):
    """dst = sum of scales[i] * src_i (scales all 1.0 when not given)."""

    kind = "sum"
    primitive = "sum"
    params_spec = {"scales": Param(optional(numbers), None)}

    def _check(self) -> None:
        count = self._variadic_count()
        if self.params["scales"] is None:
            self.params["scales"] = (1.0,) * count
        if len(self.params["scales"]) != count:
            raise self._error(f"{len(self.params['scales'])} scales for {count} inputs")

    def _arguments(self, descs: Mapping[str, MemoryDesc]) -> tuple[object, ...]:
        return (descs["dst"], self.params["scales"], self._sources(descs))


class ConcatHandler(_MultiSourceHandler):
    kind = "concat"
    primitive = "concat"
    params_spec = {"axis": Param(integer)}

    def _check(self) -> None:
        self._normalize_axis(self.descs["dst"].ndims)

    def _arguments(self, descs: Mapping[str, MemoryDesc]) -> tuple[object, ...]:
        return (descs["dst"], self.params["axis"], self._sources(descs))


_QUANTIZATION_ROLES: dict[str, tuple[int, int]] = {
    f"{side}_{what}": (attr, arg)
    for side, arg in (("src", capi.DNNL_ARG_FROM), ("dst", capi.DNNL_ARG_TO))
    for what, attr in (
        ("scale", capi.DNNL_ARG_ATTR_SCALES),
        ("zero_point", capi.DNNL_ARG_ATTR_ZERO_POINTS),
    )
}
"""Run-time quantization of a reorder, role -> (DNNL_ARG_ATTR_*, the argument it is of): a
src scale and zero point dequantize, dst = (src - zero_point) * scale; dst ones quantize,
dst = src / scale + zero_point, rounded to nearest even and saturated."""


class ReorderHandler(PrimitiveHandler):
    """src -> dst in another layout and/or data type. With ``starts``, src is read as the
    box of src at those offsets (a sub-memory; ``dnn.slice`` with steps 1); with
    ``permutation``, dst is the transpose ``dst.dims[i] = box.dims[permutation[i]]``
    (``dnn.transpose``): src's descriptor is permuted so that the copy transposes. With
    ``src_scale`` and ``src_zero_point`` (s32) it dequantizes, with the ``dst_`` ones it
    quantizes (``dnn.dequantize`` / ``dnn.quantize``): one value each, or one per index of
    dimension ``axis``."""

    kind = "reorder"
    primitive = "reorder"
    args = {
        "src": capi.DNNL_ARG_FROM,
        "dst": capi.DNNL_ARG_TO,
        **{role: attr | arg for role, (attr, arg) in _QUANTIZATION_ROLES.items()},
    }
    params_spec = {
        "permutation": Param(optional(integers), None),
        "starts": Param(optional(integers), None),
        "axis": Param(optional(integer), None),
    }
    optional = frozenset(_QUANTIZATION_ROLES)  # after params_spec: shadows optional() here
    flexible = ()

    def _quantization_masks(self) -> tuple[dict[int, int], dict[int, int]]:
        axis = self.params["axis"]
        mask = 0 if axis is None else 1 << axis
        scales: dict[int, int] = {}
        zero_points: dict[int, int] = {}
        for role, (attr, arg) in _QUANTIZATION_ROLES.items():
            if role in self.descs:
                (scales if attr == capi.DNNL_ARG_ATTR_SCALES else zero_points)[arg] = mask
        return scales, zero_points

    def _check(self) -> None:
        src, dst = self.descs["src"].dims, self.descs["dst"].dims
        if len(src) != len(dst):
            raise self._error(f"src {src} and dst {dst} differ in rank")
        permutation = self.params["permutation"]
        if permutation is not None and sorted(permutation) != list(range(len(dst))):
            raise self._error(f"parameter 'permutation' {permutation} is no permutation")
        box = self._box_dims()
        starts = self.params["starts"] or (0,) * len(src)
        if len(starts) != len(src) or any(s < 0 or s + b > n for s, b, n in zip(starts, box, src)):
            raise self._error(f"parameter 'starts' {starts}: box {box} does not fit src {src}")

    def _box_dims(self) -> tuple[int, ...]:
        """The dims of the part of src that is read: dst's, un-permuted."""
        dst, permutation = self.descs["dst"].dims, self.params["permutation"]
        if permutation is None:
            return dst
        box = [0] * len(dst)
        for i, axis in enumerate(permutation):
            box[axis] = dst[i]
        return tuple(box)

    def _arguments(self, descs: Mapping[str, MemoryDesc]) -> tuple[object, ...]:
        src = descs["src"]
        if self.params["starts"] is not None:
            src = src.submemory(self._box_dims(), self.params["starts"])
        if self.params["permutation"] is not None:
            # oneDNN renames axis i to permutation[i]: the inverse of the transpose's.
            src = src.permute_axes([int(i) for i in np.argsort(self.params["permutation"])])
        return (src, descs["dst"])
