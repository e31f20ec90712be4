"""The oneDNN object layer: Python objects that own oneDNN handles, on top of capi.py.

Imports go one way: executor -> this module -> capi. Every C function of capi.SIGNATURES
is reached through ``_C``, whose functions that return a ``dnnl_status_t`` pass it to
``check`` (a ctypes ``errcheck``), so no call site can forget to check: a failure raises
``DnnlError`` naming the function and the status.

Each class owns one handle and frees it exactly once, when it is garbage collected or on
``close()`` (``_Owned``: not one by one at interpreter exit). An object that another one
depends on (the engine of a memory, the memories of a bound execution) is *pinned* by it: it
stays alive as long as its dependant does, and closing it early raises instead of leaving a
dangling pointer.
Arguments that could make oneDNN read or write out of bounds (dims counts, array lengths,
buffer sizes, missing execution arguments) are validated in Python before the call.
"""

from __future__ import annotations

import ctypes
import functools
import itertools
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, ClassVar, cast

import numpy as np

from dnnc.core.kinds import (
    BinaryAlg,
    BinaryPostOp,
    DataType,
    EltwiseAlg,
    EltwisePostOp,
    LrnKind,
    PoolKind,
    PostOp,
    ReduceKind,
    SumPostOp,
    takes_argument,
)
from dnnc.core.layouts import Layout, LayoutError, parse_layout
from dnnc.dnnl import capi

Status = capi.dnnl_status_t
Query = capi.dnnl_query_t
Alg = capi.dnnl_alg_kind_t


class DnnlError(RuntimeError):
    """A oneDNN function returned a status other than ``dnnl_success``."""

    def __init__(self, function: str, status: int) -> None:
        self.function = function
        self.status = status
        try:
            status_name = Status(status).name
        except ValueError:
            status_name = f"unknown status {status}"
        super().__init__(f"{function} failed: {status_name}")


def check(status: int, function: str) -> None:
    """Raise DnnlError unless ``status`` is ``dnnl_success``."""
    if status != Status.dnnl_success:
        raise DnnlError(function, status)


def _errcheck(status: int, function: Any, arguments: tuple[Any, ...]) -> int:
    check(status, function.__name__)
    return status


def _checked(name: str) -> Any:
    function = capi.prototype(name)
    if capi.SIGNATURES[name][0] == "dnnl_status_t":
        function.errcheck = _errcheck  # type: ignore[assignment]  # typeshed's errcheck takes _CData
    return function


_C: Any = SimpleNamespace(**{name: _checked(name) for name in capi.SIGNATURES})
"""The functions of capi.SIGNATURES by their C names; status-returning ones are checked."""

_C.dnnl_set_primitive_cache_capacity(0)
# oneDNN's own primitive cache is off: dnnc keeps primitives by their full descriptors
# (dnnc.runtime's PrimitiveCache), and oneDNN 3.2's cache takes descriptors that differ only
# in the strides of size-1 dimensions for one another, handing back a primitive of another
# implementation than the descriptor's (a 1x32x1x1 convolution in nchw got the nhwc one's
# brgconv_1x1, which then ran without the scratchpad it needs: a crash).


# --- data types and algorithms ---------------------------------------------------------------

_DATA_TYPES: dict[DataType, capi.dnnl_data_type_t] = {
    data_type: capi.dnnl_data_type_t[f"dnnl_{data_type}"]
    for data_type in DataType
    if data_type.is_onednn
}
"""DataType is spelled as oneDNN spells it (kinds.py), so its names find the constants;
s64 has none, and no primitive computes on boolean."""


def to_dnnl_data_type(data_type: DataType) -> capi.dnnl_data_type_t:
    """oneDNN's constant for a data type; ValueError for s64 and boolean, on which no
    oneDNN primitive computes."""
    if data_type not in _DATA_TYPES:
        raise ValueError(
            f"data type {data_type} has no oneDNN primitives (only the reference kernels "
            "compute on it)"
        )
    return _DATA_TYPES[data_type]


def from_dnnl_data_type(value: int) -> DataType:
    """The DataType of a ``dnnl_data_type_t``; ValueError for f64, boolean or undef."""
    for data_type, dnnl_type in _DATA_TYPES.items():
        if dnnl_type == value:
            return data_type
    raise ValueError(f"oneDNN data type {value} has no dnnc equivalent")


BINARY_ALGS: Mapping[BinaryAlg, Alg] = {
    BinaryAlg.ADD: Alg.dnnl_binary_add,
    BinaryAlg.SUB: Alg.dnnl_binary_sub,
    BinaryAlg.MUL: Alg.dnnl_binary_mul,
    BinaryAlg.DIV: Alg.dnnl_binary_div,
    BinaryAlg.MAX: Alg.dnnl_binary_max,
    BinaryAlg.MIN: Alg.dnnl_binary_min,
}
POOL_ALGS: Mapping[PoolKind, Alg] = {
    PoolKind.MAX: Alg.dnnl_pooling_max,
    PoolKind.AVG_INCLUDE_PAD: Alg.dnnl_pooling_avg_include_padding,
    PoolKind.AVG_EXCLUDE_PAD: Alg.dnnl_pooling_avg_exclude_padding,
}
REDUCE_ALGS: Mapping[ReduceKind, Alg] = {
    ReduceKind.SUM: Alg.dnnl_reduction_sum,
    ReduceKind.MEAN: Alg.dnnl_reduction_mean,
    ReduceKind.MAX: Alg.dnnl_reduction_max,
    ReduceKind.MIN: Alg.dnnl_reduction_min,
    ReduceKind.MUL: Alg.dnnl_reduction_mul,
}
LRN_ALGS: Mapping[LrnKind, Alg] = {
    LrnKind.ACROSS_CHANNELS: Alg.dnnl_lrn_across_channels,
    LrnKind.WITHIN_CHANNEL: Alg.dnnl_lrn_within_channel,
}

# Algorithms whose alpha and beta are passed on as given (docs/dialect.md), ...
_ELTWISE_ALGS: dict[EltwiseAlg, Alg] = {
    EltwiseAlg.RELU: Alg.dnnl_eltwise_relu,
    EltwiseAlg.LEAKY_RELU: Alg.dnnl_eltwise_relu,
    EltwiseAlg.GELU_ERF: Alg.dnnl_eltwise_gelu_erf,
    EltwiseAlg.GELU_TANH: Alg.dnnl_eltwise_gelu_tanh,
    EltwiseAlg.TANH: Alg.dnnl_eltwise_tanh,
    EltwiseAlg.SIGMOID: Alg.dnnl_eltwise_logistic,
    EltwiseAlg.ELU: Alg.dnnl_eltwise_elu,
    EltwiseAlg.SWISH: Alg.dnnl_eltwise_swish,
    EltwiseAlg.HARDSWISH: Alg.dnnl_eltwise_hardswish,
    EltwiseAlg.HARDSIGMOID: Alg.dnnl_eltwise_hardsigmoid,
    EltwiseAlg.CLIP: Alg.dnnl_eltwise_clip,
    EltwiseAlg.EXP: Alg.dnnl_eltwise_exp,
    EltwiseAlg.LOG: Alg.dnnl_eltwise_log,
    EltwiseAlg.SQRT: Alg.dnnl_eltwise_sqrt,
    EltwiseAlg.ABS: Alg.dnnl_eltwise_abs,
    EltwiseAlg.SQUARE: Alg.dnnl_eltwise_square,
    EltwiseAlg.LINEAR: Alg.dnnl_eltwise_linear,
    EltwiseAlg.POW: Alg.dnnl_eltwise_pow,
    EltwiseAlg.MISH: Alg.dnnl_eltwise_mish,
    EltwiseAlg.ROUND: Alg.dnnl_eltwise_round,
}
# ... and those that fix them: relu6 = clip to [0, 6]; soft_relu = softplus, oneDNN's
# soft_relu with alpha 1 (oneDNN computes log(1 + e^(alpha x)) / alpha).
_FIXED_ELTWISE: dict[EltwiseAlg, tuple[Alg, float, float]] = {
    EltwiseAlg.RELU6: (Alg.dnnl_eltwise_clip, 0.0, 6.0),
    EltwiseAlg.SOFT_RELU: (Alg.dnnl_eltwise_soft_relu, 1.0, 0.0),
}


def has_binary_algorithm(alg: BinaryAlg) -> bool:
    """Whether oneDNN's binary primitive computes `alg` (pow: the reference kernel)."""
    return alg in BINARY_ALGS


def has_eltwise_algorithm(alg: EltwiseAlg) -> bool:
    """Whether oneDNN computes `alg` (the others run their numpy reference kernel)."""
    return alg in _FIXED_ELTWISE or alg in _ELTWISE_ALGS


def eltwise_algorithm(alg: EltwiseAlg, alpha: float, beta: float) -> tuple[Alg, float, float]:
    """oneDNN's (algorithm, alpha, beta) for a dnnc eltwise algorithm and its parameters
    (`alg` must be one `has_eltwise_algorithm` accepts)."""
    if alg in _FIXED_ELTWISE:
        return _FIXED_ELTWISE[alg]
    return _ELTWISE_ALGS[alg], float(alpha), float(beta)


# --- owned handles -----------------------------------------------------------------------------


class _Owned:
    """Owns one C handle and frees it exactly once; pins the object it depends on.

    The handle is freed by ``close()`` or ``__del__``, with no ``weakref.finalize``: a
    finalizer is four more objects the garbage collector tracks (finalizer, its record, its
    arguments, the pins), and every plan of a new input shape makes ~150 owned objects
    (memories, descriptors, primitives), which each full collection then walks. Objects still
    alive when the interpreter shuts down are not freed one by one: the process's memory goes
    with it (module globals, which the destroy functions' checks read, may be gone by then).
    """

    _pins: int
    """How many live objects depend on this one (it cannot be closed while any does)."""

    def __init__(
        self, handle: int, destroy: Callable[[int], object], pin: _Owned | None = None
    ) -> None:
        if pin is not None:
            pin._pins += 1
        self._pins = 0
        self._handle: int | None = handle
        self._destroy = destroy
        self._pinned = pin
        self._c_handle: ctypes.c_void_p | None = None

    @property
    def handle(self) -> int:
        """The C handle; ValueError once closed."""
        if self._handle is None:
            raise ValueError(f"this {type(self).__name__} is closed")
        return self._handle

    @property
    def c_handle(self) -> ctypes.c_void_p:
        """The handle as a ctypes pointer, made once: the bound executions of a primitive
        and a stream pass it on every run without a conversion, and share it."""
        found = self._c_handle
        if found is None:
            found = self._c_handle = ctypes.c_void_p(self.handle)
        return found

    @property
    def closed(self) -> bool:
        return self._handle is None

    def close(self) -> None:
        """Free the handle now (idempotent); ValueError while another object depends on it."""
        if self._pins:
            raise ValueError(
                f"cannot close this {type(self).__name__}: {self._pins} live objects use it"
            )
        self._free()

    def _free(self) -> None:
        handle, self._handle, self._c_handle = self._handle, None, None
        if handle is not None:
            self._destroy(handle)
            if self._pinned is not None:
                self._pinned._pins -= 1
                self._pinned = None

    def __del__(self) -> None:
        # an object whose __init__ failed has no handle; at shutdown, see the docstring
        if getattr(self, "_handle", None) is not None and not sys.is_finalizing():
            self._free()


def _borrowed_ndims(handle: int) -> int:
    """The rank of a memory descriptor owned elsewhere (0: the empty descriptor)."""
    result = ctypes.c_int()
    _C.dnnl_memory_desc_query(handle, Query.dnnl_query_ndims_s32, ctypes.byref(result))
    return result.value


def _new_handle(function: Callable[..., object], *args: object) -> int:
    """Call a ``create(&handle, args...)`` function and return the handle."""
    handle = ctypes.c_void_p()
    function(ctypes.byref(handle), *args)
    if not handle.value:
        raise DnnlError(function.__name__, Status.dnnl_runtime_error)
    return handle.value


class Engine(_Owned):
    """A CPU engine. ``Engine.default()`` is the one shared by everything unless told."""

    def __init__(self, index: int = 0) -> None:
        count = _C.dnnl_engine_get_count(capi.dnnl_engine_kind_t.dnnl_cpu)
        if not 0 <= index < count:
            raise ValueError(f"CPU engine index {index} out of range: there are {count}")
        self.index = index
        handle = _new_handle(_C.dnnl_engine_create, capi.dnnl_engine_kind_t.dnnl_cpu, index)
        super().__init__(handle, _C.dnnl_engine_destroy)

    @staticmethod
    @functools.cache
    def default() -> Engine:
        return Engine(0)


class Stream(_Owned):
    """An in-order execution stream on an engine."""

    def __init__(self, engine: Engine | None = None) -> None:
        self.engine = engine or Engine.default()
        flags = capi.dnnl_stream_flags_t.dnnl_stream_default_flags
        handle = _new_handle(_C.dnnl_stream_create, self.engine.handle, flags)
        super().__init__(handle, _C.dnnl_stream_destroy, pin=self.engine)

    @staticmethod
    @functools.cache
    def default() -> Stream:
        return Stream(Engine.default())

    def wait(self) -> None:
        _C.dnnl_stream_wait(self.handle)


# --- memory descriptors ------------------------------------------------------------------------

_Dims = ctypes.c_int64 * capi.DNNL_MAX_NDIMS
_MAX_LAYOUT_CANDIDATES = 5040


def _dims_array(values: Sequence[int], what: str) -> ctypes.Array[ctypes.c_int64]:
    """A ``dnnl_dims_t`` (always all 12 entries, so oneDNN never reads past it)."""
    values = tuple(values)
    if len(values) > capi.DNNL_MAX_NDIMS:
        raise ValueError(f"{what} has {len(values)} entries; oneDNN allows {capi.DNNL_MAX_NDIMS}")
    if not all(isinstance(v, (int, np.integer)) for v in values):
        raise TypeError(f"{what} must be integers, got {values}")
    return _Dims(*(int(v) for v in values))


def _checked_dims(dims: Sequence[int], runtime: bool = False) -> tuple[int, ...]:
    """``runtime``: a dimension may be DNNL_RUNTIME_DIM_VAL (``MemoryDesc.of_strides``)."""
    dims = tuple(int(d) for d in dims)
    if not 1 <= len(dims) <= capi.DNNL_MAX_NDIMS:
        raise ValueError(f"dims {dims}: a tensor has 1 to {capi.DNNL_MAX_NDIMS} dimensions")
    if any(d < 0 and not (runtime and d == RUNTIME) for d in dims):
        raise ValueError(f"dims {dims}: dimensions must be non-negative")
    return dims


RUNTIME = capi.DNNL_RUNTIME_DIM_VAL
"""A dimension given when the primitive runs (oneDNN 3.2: matmul's), not when it is created."""


@functools.lru_cache(maxsize=1024)  # a new input shape's descriptors ask for few layouts
def format_tag(layout: Layout) -> capi.dnnl_format_tag_t | None:
    """oneDNN's format tag for a layout, None when oneDNN has no tag for it."""
    return capi.dnnl_format_tag_t.__members__.get("dnnl_" + layout.tag)


_Structure = tuple[int, tuple[tuple[int, int], ...]]
"""A layout up to a renaming of its dims: its rank, and each inner block as (outer position
of its dim, size)."""


def _structure(
    rank: int, positions: Mapping[int, int], blocks: Sequence[tuple[int, int]]
) -> _Structure:
    """The structure of a layout whose dim d is at outer position ``positions[d]``."""
    return rank, tuple((positions[d], size) for d, size in blocks)


@functools.cache
def _tags_by_structure() -> dict[_Structure, Layout]:
    """One oneDNN format tag (as a Layout) per structure."""
    tags: dict[_Structure, Layout] = {}
    for name in capi.dnnl_format_tag_t.__members__:
        try:
            layout = parse_layout(name.removeprefix("dnnl_"))
        except LayoutError:
            continue  # format_tag_any, format_tag_last, ...
        positions = {d: i for i, d in enumerate(layout.order)}
        tags.setdefault(_structure(layout.rank, positions, layout.blocks), layout)
    return tags


@dataclass(frozen=True)
class _TagPlan:
    """How to build a layout that has no format tag of its own from one that has: create
    ``tag`` (its dims taken from ``sources``), reshape away ``unit`` (a dim of size 1 the
    tag has in addition), then permute the axes by ``permutation``."""

    tag: Layout
    sources: tuple[int | None, ...]
    """Per dim of ``tag``: the layout's dim it holds, None for the unit dim."""
    unit: int | None
    permutation: tuple[int, ...]


@functools.cache
def _tag_plan(layout: Layout) -> _TagPlan | None:
    """A plan for `layout` from a tag of the same structure under a renaming of the dims,
    or of one more dim of size 1 (oneDNN has ``decbA16a`` but no 4-D ``cdbA16a``); None
    when oneDNN has neither."""
    tags = _tags_by_structure()
    for unit_position in (None, *range(layout.rank + 1)):
        outer: list[int | None] = list(layout.order)
        if unit_position is not None:
            outer.insert(unit_position, None)
        positions = {d: i for i, d in enumerate(outer) if d is not None}
        tag = tags.get(_structure(len(outer), positions, layout.blocks))
        if tag is None:
            continue
        sources: list[int | None] = [None] * tag.rank
        for position, d in enumerate(tag.order):
            sources[d] = outer[position]
        unit = None if unit_position is None else tag.order[unit_position]
        permutation = tuple(d for d in sources if d is not None)
        return _TagPlan(tag, tuple(sources), unit, permutation)
    return None


def expressible(layout: Layout) -> bool:
    """Whether ``MemoryDesc.of_layout`` can describe `layout` (plain or not, blocked with
    a format tag or one of the same structure)."""
    return not layout.is_blocked or _tag_plan(layout) is not None


class MemoryDesc(_Owned):
    """An owned ``dnnl_memory_desc_t``: logical dims, data type and physical format.

    Build one with ``of_layout``, ``of_strides``, ``any`` or ``copy_of`` (a copy of a
    descriptor owned by someone else, e.g. returned by a query). Immutable; equality is
    oneDNN's ``dnnl_memory_desc_equal``, and ``key()`` is a structural tuple for cache keys.
    """

    def __init__(self, handle: int) -> None:
        """Take ownership of a descriptor handle created for this object."""
        super().__init__(handle, _C.dnnl_memory_desc_destroy)
        self._key: tuple[Any, ...] | None = None
        # asked once (immutable): each Memory, bind and key reads them; plain attributes, as
        # a cached_property's instance dict is one more object per descriptor to collect
        self._ndims: int | None = None
        self._data_type: DataType | None = None
        self._format_kind: capi.dnnl_format_kind_t | None = None
        self._size_bytes: int | None = None
        self._dims: tuple[int, ...] | None = None

    @classmethod
    def of_layout(
        cls, dims: Sequence[int], data_type: DataType, layout: Layout | str | None = None
    ) -> MemoryDesc:
        """A descriptor in a layout, given as a Layout or a name (``nChw16c``; plain
        row-major when None); LayoutError when it is no layout, does not fit the dims, or is
        blocked in a way no oneDNN format tag describes, even under a renaming of the dims
        or with a dim of size 1 more (``expressible``)."""
        dims = _checked_dims(dims)
        if isinstance(layout, str):
            layout = parse_layout(layout)
        if layout is None:
            layout = Layout(tuple(range(len(dims))))
        if layout.rank != len(dims):
            raise LayoutError(
                f"layout '{layout.name}' is for rank {layout.rank}, dims {dims} have rank "
                f"{len(dims)}"
            )
        tag = format_tag(layout)
        if tag is not None:
            return cls._with_tag(dims, data_type, tag)
        if not layout.is_blocked:
            return cls.of_strides(dims, data_type, layout.strides(dims))
        plan = _tag_plan(layout)
        if plan is None:
            raise LayoutError(f"layout '{layout.name}' has no oneDNN format tag")
        tag_dims = [1 if d is None else dims[d] for d in plan.sources]
        tag = format_tag(plan.tag)
        if tag is None:
            raise LayoutError(f"layout '{layout.name}' has no oneDNN format tag")
        desc = cls._with_tag(tag_dims, data_type, tag)
        if plan.unit is not None:
            desc = desc.reshape(tag_dims[: plan.unit] + tag_dims[plan.unit + 1 :])
        return desc.permute_axes(plan.permutation)

    @classmethod
    def _with_tag(
        cls, dims: Sequence[int], data_type: DataType, tag: capi.dnnl_format_tag_t
    ) -> MemoryDesc:
        return cls(
            _new_handle(
                _C.dnnl_memory_desc_create_with_tag,
                len(dims),
                _dims_array(dims, "dims"),
                to_dnnl_data_type(data_type),
                tag,
            )
        )

    @classmethod
    def of_strides(
        cls, dims: Sequence[int], data_type: DataType, strides: Sequence[int]
    ) -> MemoryDesc:
        """A plain (unblocked) descriptor with element strides per logical dimension; a
        dimension may be ``RUNTIME`` (a matmul's rows: the memory bound when it runs gives
        them, ``admits``)."""
        dims = _checked_dims(dims, runtime=True)
        if len(strides) != len(dims):
            raise ValueError(f"strides {tuple(strides)} do not match dims {dims}")
        return cls(
            _new_handle(
                _C.dnnl_memory_desc_create_with_strides,
                len(dims),
                _dims_array(dims, "dims"),
                to_dnnl_data_type(data_type),
                _dims_array(strides, "strides"),
            )
        )

    @classmethod
    def any(cls, dims: Sequence[int], data_type: DataType) -> MemoryDesc:
        """Format ``any``: lets a primitive descriptor choose the layout."""
        any_tag = capi.dnnl_format_tag_t.dnnl_format_tag_any
        return cls._with_tag(_checked_dims(dims), data_type, any_tag)

    @classmethod
    def copy_of(cls, handle: int) -> MemoryDesc:
        """An owned copy of a descriptor owned elsewhere (valid only during the call)."""
        if not handle:
            raise ValueError("cannot copy a null memory descriptor")
        return cls(_new_handle(_C.dnnl_memory_desc_clone, handle))

    def submemory(self, dims: Sequence[int], offsets: Sequence[int]) -> MemoryDesc:
        """The descriptor of a box of this one (same format, offset into the same buffer)."""
        dims = _checked_dims(dims)
        if len(dims) != self.ndims or len(offsets) != self.ndims:
            raise ValueError(
                f"submemory dims {dims} / offsets {tuple(offsets)} need rank {self.ndims}"
            )
        if any(o < 0 or o + d > n for o, d, n in zip(offsets, dims, self.dims)):
            raise ValueError(f"submemory {dims} at {tuple(offsets)} exceeds {self.dims}")
        return MemoryDesc(
            _new_handle(
                _C.dnnl_memory_desc_create_submemory,
                self.handle,
                _dims_array(dims, "dims"),
                _dims_array(offsets, "offsets"),
            )
        )

    def reshape(self, dims: Sequence[int]) -> MemoryDesc:
        """The same memory seen with other dims (oneDNN decides whether that is possible)."""
        dims = _checked_dims(dims)
        return MemoryDesc(
            _new_handle(
                _C.dnnl_memory_desc_reshape, self.handle, len(dims), _dims_array(dims, "dims")
            )
        )

    def permute_axes(self, permutation: Sequence[int]) -> MemoryDesc:
        """The same memory with logical axis i renamed permutation[i]."""
        if sorted(permutation) != list(range(self.ndims)):
            raise ValueError(f"{tuple(permutation)} is not a permutation of {self.ndims} axes")
        array = (ctypes.c_int * self.ndims)(*permutation)
        return MemoryDesc(_new_handle(_C.dnnl_memory_desc_permute_axes, self.handle, array))

    # queries

    def _query(self, what: Query, result: ctypes._SimpleCData) -> Any:
        _C.dnnl_memory_desc_query(self.handle, what, ctypes.byref(result))
        return result.value

    def _query_dims(self, what: Query, count: int) -> tuple[int, ...]:
        pointer = ctypes.POINTER(ctypes.c_int64)()
        _C.dnnl_memory_desc_query(self.handle, what, ctypes.byref(pointer))
        return tuple(pointer[:count]) if pointer else ()

    @property
    def ndims(self) -> int:
        if self._ndims is None:
            self._ndims = self._query(Query.dnnl_query_ndims_s32, ctypes.c_int())
        return self._ndims

    @property
    def dims(self) -> tuple[int, ...]:
        if self._dims is None:  # a handler's checks and a plan's queries read them often
            self._dims = self._query_dims(Query.dnnl_query_dims, self.ndims)
        return self._dims

    @property
    def padded_dims(self) -> tuple[int, ...]:
        return self._query_dims(Query.dnnl_query_padded_dims, self.ndims)

    @property
    def padded_offsets(self) -> tuple[int, ...]:
        return self._query_dims(Query.dnnl_query_padded_offsets, self.ndims)

    @property
    def data_type(self) -> DataType:
        if self._data_type is None:
            code = self._query(Query.dnnl_query_data_type, ctypes.c_int())
            self._data_type = from_dnnl_data_type(code)
        return self._data_type

    @property
    def format_kind(self) -> capi.dnnl_format_kind_t:
        if self._format_kind is None:
            code = self._query(Query.dnnl_query_format_kind, ctypes.c_int())
            self._format_kind = capi.dnnl_format_kind_t(code)
        return self._format_kind

    @property
    def submemory_offset(self) -> int:
        """Elements from the buffer start to this (sub-)memory's origin."""
        return self._query(Query.dnnl_query_submemory_offset_s64, ctypes.c_int64())

    @property
    def is_blocked(self) -> bool:
        """Format kind ``dnnl_blocked`` (strides and inner blocks known), not any/opaque."""
        return self.format_kind == capi.dnnl_format_kind_t.dnnl_blocked

    @property
    def strides(self) -> tuple[int, ...]:
        """Element strides of the outer blocks per logical dim; () unless blocked."""
        return self._query_dims(Query.dnnl_query_strides, self.ndims) if self.is_blocked else ()

    @property
    def inner_blocks(self) -> tuple[tuple[int, int], ...]:
        """Inner blocks (logical dim, size), outermost first; () unless blocked."""
        if not self.is_blocked:
            return ()
        return self._blocks(self._query(Query.dnnl_query_inner_nblks_s32, ctypes.c_int()))

    def _blocks(self, count: int) -> tuple[tuple[int, int], ...]:
        """The ``count`` inner blocks (``inner_blocks``) of a blocked descriptor."""
        if not count:
            return ()
        sizes = self._query_dims(Query.dnnl_query_inner_blks, count)
        indices = self._query_dims(Query.dnnl_query_inner_idxs, count)
        return tuple(zip(indices, sizes))

    @property
    def size_bytes(self) -> int:
        """Bytes a buffer for this descriptor needs (0 for format any)."""
        if self._size_bytes is None:
            self._size_bytes = int(_C.dnnl_memory_desc_get_size(self.handle))
        return self._size_bytes

    @property
    def extent_bytes(self) -> int:
        """Bytes from a buffer's start that this descriptor addresses: ``size_bytes``,
        except for a sub-memory, whose size oneDNN reports as 0: its offset plus the reach
        of its box in the parent's strides."""
        size = self.size_bytes
        if size or not self.is_blocked or 0 in self.dims:
            return size
        block_product = dict.fromkeys(range(self.ndims), 1)
        for dim, block in self.inner_blocks:
            block_product[dim] *= block
        reach = self.submemory_offset + int(np.prod([b for _, b in self.inner_blocks]))
        for dim, (padded, stride) in enumerate(zip(self.padded_dims, self.strides)):
            reach += (-(-padded // block_product[dim]) - 1) * stride
        return reach * self.data_type.itemsize

    def layout(self) -> Layout | None:
        """The dnnc Layout this descriptor is, or None (not blocked, a sub-memory, padded
        offsets, or strides that no format tag produces). Where several layouts describe it
        (outer dims of one block), the first that ``of_layout`` can create again: a 3x8
        ``BA16a64b`` has the strides of ``AB16a64b`` too, which no format tag names."""
        if not self.is_blocked or self.submemory_offset or any(self.padded_offsets):
            return None
        dims, strides, blocks = self.dims, self.strides, self.inner_blocks
        found = [
            candidate
            for candidate in (Layout(order, blocks) for order in _orders_by_stride(strides))
            if candidate.padded_shape(dims) == self.padded_dims
            and candidate.strides(dims) == strides
        ]
        return next((c for c in found if expressible(c)), found[0] if found else None)

    def key(self) -> tuple[Any, ...]:
        """Everything that identifies the descriptor, as plain values (for cache keys).
        The size is included because it also covers oneDNN's hidden extra buffers."""
        if self._key is None:  # each query once (a new input shape keys its new descriptors)
            ndims = self.ndims
            format_kind = self.format_kind
            blocked = format_kind == capi.dnnl_format_kind_t.dnnl_blocked
            blocks = self._query(Query.dnnl_query_inner_nblks_s32, ctypes.c_int()) if blocked else 0
            self._key = (
                self.dims,
                self.data_type.value,
                format_kind.value,
                self._query_dims(Query.dnnl_query_padded_dims, ndims),
                self._query_dims(Query.dnnl_query_padded_offsets, ndims),
                self.submemory_offset,
                self._query_dims(Query.dnnl_query_strides, ndims) if blocked else (),
                self._blocks(blocks),
                self.size_bytes,
            )
        return self._key

    def admits(self, other: MemoryDesc) -> bool:
        """Whether a memory of ``other`` may be bound where this descriptor is expected: equal
        descriptors, or this one with ``RUNTIME`` dimensions and ``other`` its instance (the
        same element type and format, each ``RUNTIME`` dimension or stride any value, the
        others equal)."""
        if self is other or self == other:
            return True
        mine, theirs = self.key(), other.key()
        dims, strides = mine[0], mine[6]
        if RUNTIME not in dims or len(dims) != len(theirs[0]):
            return False
        fits = all(d in (RUNTIME, e) for d, e in zip(dims, theirs[0]))
        fits &= all(s in (RUNTIME, t) for s, t in zip(strides, theirs[6]))
        same_format = mine[1:3] == theirs[1:3] and len(strides) == len(theirs[6]) and not theirs[5]
        return fits and same_format and not mine[7] and not theirs[7]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MemoryDesc):
            return NotImplemented
        return bool(_C.dnnl_memory_desc_equal(self.handle, other.handle))

    def __hash__(self) -> int:
        return hash(self.key())

    def __repr__(self) -> str:
        layout = self.layout()
        where = layout.name if layout else f"{self.format_kind.name}, strides {self.strides}"
        return f"MemoryDesc({'x'.join(map(str, self.dims))}x{self.data_type}, {where})"


def _orders_by_stride(strides: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    """Outer-to-inner dimension orders consistent with the strides: sorted by stride,
    every arrangement of equal strides (dims of size 1), ascending dims first."""
    groups = [
        [d for d in range(len(strides)) if strides[d] == s]
        for s in sorted(set(strides), reverse=True)
    ]
    arrangements = [list(itertools.permutations(group)) for group in groups]
    if np.prod([len(a) for a in arrangements]) > _MAX_LAYOUT_CANDIDATES:
        return
    for choice in itertools.product(*arrangements):
        yield tuple(itertools.chain.from_iterable(choice))


# --- memory ------------------------------------------------------------------------------------

_ALIGNMENT = 64
_BYTE = np.dtype(np.uint8)
"""A byte arena's element type."""


class Memory(_Owned):
    """A ``dnnl_memory_t``: a descriptor bound, without copying, to bytes of a numpy array.

    The array must be C-contiguous and of the descriptor's element type, or uint8 (a byte
    arena, then ``offset`` says where in it); the descriptor's bytes must fit from
    ``offset``. The memory keeps the array alive.
    """

    def __init__(
        self,
        desc: MemoryDesc,
        buffer: np.ndarray,
        offset: int = 0,
        engine: Engine | None = None,
    ) -> None:
        if desc.format_kind in (
            capi.dnnl_format_kind_t.dnnl_format_kind_any,
            capi.dnnl_format_kind_t.dnnl_format_kind_undef,
        ):
            raise ValueError(f"{desc!r} has no concrete format: memory needs one")
        self.desc = desc
        self.engine = engine or Engine.default()
        pointer = self._checked_pointer(buffer, offset)
        handle = _new_handle(_C.dnnl_memory_create, desc.handle, self.engine.handle, pointer)
        super().__init__(handle, _C.dnnl_memory_destroy, pin=self.engine)
        self._bind(buffer, offset)

    @classmethod
    def empty(cls, desc: MemoryDesc, engine: Engine | None = None) -> Memory:
        """A memory over a new, 64-byte aligned, uninitialized buffer of the desc's size."""
        raw = np.empty(desc.size_bytes + _ALIGNMENT, dtype=np.uint8)
        start = -raw.ctypes.data % _ALIGNMENT
        return cls(desc, raw[start : start + desc.size_bytes], 0, engine)

    def _checked_pointer(self, buffer: np.ndarray, offset: int) -> int | None:
        """The address of ``buffer``'s byte ``offset``, after the checks of the class
        docstring (run for every output of every run: the descriptor's element type and
        extent are read once per memory, and the address of a writeable array of a numpy
        type is read through the buffer protocol, 0.4 us, not ``ndarray.ctypes``, 1.4 us)."""
        if not isinstance(buffer, np.ndarray):
            raise TypeError(f"a memory binds a numpy array, got {type(buffer).__name__}")
        if not buffer.flags.c_contiguous:
            raise ValueError("a memory needs a C-contiguous array (use np.ascontiguousarray)")
        element, needed = self._element
        dtype = buffer.dtype
        if dtype is not element and dtype is not _BYTE and dtype not in (element, _BYTE):
            raise ValueError(
                f"array of {dtype} for a {self.desc.data_type} memory: expected "
                f"{element} (or uint8 for a byte arena)"
            )
        if offset < 0 or offset + needed > buffer.nbytes:
            raise ValueError(
                f"array too small: {self.desc!r} needs {needed} bytes at offset {offset}, "
                f"the array has {buffer.nbytes}"
            )
        if not needed:
            return None
        if buffer.flags.writeable and dtype.isbuiltin == 1:  # exports a writeable buffer
            return ctypes.addressof(ctypes.c_char.from_buffer(buffer.data)) + offset
        return buffer.ctypes.data + offset  # read-only, or a type of a library (bf16)

    @functools.cached_property
    def _element(self) -> tuple[np.dtype, int]:
        """The descriptor's numpy element type and extent in bytes (it never changes)."""
        return self.desc.data_type.numpy, self.desc.extent_bytes

    def _bind(self, buffer: np.ndarray, offset: int) -> None:
        self.buffer = buffer
        self.offset = offset
        self.writeable = bool(buffer.flags.writeable)

    def set_data_handle(self, buffer: np.ndarray, offset: int = 0) -> None:
        """Rebind to other bytes (same checks as the constructor), without a new memory."""
        pointer = self._checked_pointer(buffer, offset)
        _C.dnnl_memory_set_data_handle(self.handle, pointer)
        self._bind(buffer, offset)

    @property
    def data_pointer(self) -> int:
        """The address oneDNN reads and writes (queried from oneDNN)."""
        pointer = ctypes.c_void_p()
        _C.dnnl_memory_get_data_handle(self.handle, ctypes.byref(pointer))
        return pointer.value or 0

    def view(self) -> np.ndarray:
        """The bound bytes as a flat array of the element type (the physical array)."""
        raw = self.buffer.reshape(-1).view(np.uint8)
        return raw[self.offset : self.offset + self.desc.size_bytes].view(self.desc.data_type.numpy)


# --- attributes --------------------------------------------------------------------------------


def post_op_arg(index: int) -> int:
    """Exec argument id of the operand of binary post-op number ``index`` of a chain."""
    return capi.DNNL_ARG_ATTR_MULTIPLE_POST_OP(index) | capi.DNNL_ARG_SRC_1


class PostOps(_Owned):
    """A ``dnnl_post_ops_t`` built from kinds.PostOp values.

    ``argument_descs`` has one descriptor per post-op that takes an argument
    (kinds.takes_argument), in order: a binary's operand, a sum's summand (whose data type
    oneDNN is told; the summand itself is the destination buffer, so it gets no exec id).
    """

    def __init__(
        self, post_ops: Sequence[PostOp], argument_descs: Sequence[MemoryDesc] = ()
    ) -> None:
        self.post_ops = tuple(post_ops)
        self.argument_descs = tuple(argument_descs)
        expected = sum(takes_argument(p) for p in self.post_ops)
        if len(self.argument_descs) != expected:
            raise ValueError(
                f"{expected} post-ops take an argument, {len(self.argument_descs)} "
                "argument descriptors given"
            )
        super().__init__(_new_handle(_C.dnnl_post_ops_create), _C.dnnl_post_ops_destroy)
        descs = iter(self.argument_descs)
        ids: list[int | None] = []
        for index, post_op in enumerate(self.post_ops):
            if isinstance(post_op, EltwisePostOp):
                alg, alpha, beta = eltwise_algorithm(post_op.alg, post_op.alpha, post_op.beta)
                _C.dnnl_post_ops_append_eltwise(self.handle, alg, alpha, beta)
            elif isinstance(post_op, BinaryPostOp):
                _C.dnnl_post_ops_append_binary(
                    self.handle, BINARY_ALGS[post_op.alg], next(descs).handle
                )
                ids.append(post_op_arg(index))
            elif isinstance(post_op, SumPostOp):
                data_type = to_dnnl_data_type(next(descs).data_type)
                _C.dnnl_post_ops_append_sum(
                    self.handle, post_op.scale, post_op.zero_point, data_type
                )
                ids.append(None)
            else:
                raise TypeError(f"not a post-op: {post_op!r}")
        self.argument_ids: tuple[int | None, ...] = tuple(ids)
        """Exec id of each argument (None for a sum's summand), aligned with argument_descs."""

    def __len__(self) -> int:
        return _C.dnnl_post_ops_len(self.handle)

    def key(self) -> tuple[Any, ...]:
        return (self.post_ops, tuple(d.key() for d in self.argument_descs))


class PrimitiveAttr(_Owned):
    """A ``dnnl_primitive_attr_t``. The scratchpad mode defaults to *user*: the caller
    passes the scratchpad (``PrimitiveDesc.scratchpad_desc()``) as DNNL_ARG_SCRATCHPAD.
    ``scales_masks`` / ``zero_points_masks``: per DNNL_ARG_* the mask of run-time scales
    (f32, passed as ``DNNL_ARG_ATTR_SCALES | arg``) and zero points (s32, passed as
    ``DNNL_ARG_ATTR_ZERO_POINTS | arg``): 0 for one value, bit d for one per index of dim d."""

    def __init__(
        self,
        post_ops: PostOps | None = None,
        *,
        scales_masks: Mapping[int, int] | None = None,
        zero_points_masks: Mapping[int, int] | None = None,
        fpmath_mode: capi.dnnl_fpmath_mode_t = capi.dnnl_fpmath_mode_t.dnnl_fpmath_mode_strict,
        scratchpad_mode: capi.dnnl_scratchpad_mode_t = (
            capi.dnnl_scratchpad_mode_t.dnnl_scratchpad_mode_user
        ),
    ) -> None:
        super().__init__(_new_handle(_C.dnnl_primitive_attr_create), _C.dnnl_primitive_attr_destroy)
        self.post_ops = post_ops
        self.scales_masks = dict(scales_masks or {})
        self.zero_points_masks = dict(zero_points_masks or {})
        self.fpmath_mode = capi.dnnl_fpmath_mode_t(fpmath_mode)
        self.scratchpad_mode = capi.dnnl_scratchpad_mode_t(scratchpad_mode)
        if post_ops is not None:
            _C.dnnl_primitive_attr_set_post_ops(self.handle, post_ops.handle)
        for arg, mask in self.scales_masks.items():
            _C.dnnl_primitive_attr_set_scales_mask(self.handle, arg, mask)
        for arg, mask in self.zero_points_masks.items():
            _C.dnnl_primitive_attr_set_zero_points_mask(self.handle, arg, mask)
        _C.dnnl_primitive_attr_set_fpmath_mode(self.handle, self.fpmath_mode)
        _C.dnnl_primitive_attr_set_scratchpad_mode(self.handle, self.scratchpad_mode)

    @property
    def user_scratchpad(self) -> bool:
        return self.scratchpad_mode == capi.dnnl_scratchpad_mode_t.dnnl_scratchpad_mode_user

    def key(self) -> tuple[Any, ...]:
        return (
            self.post_ops.key() if self.post_ops else (),
            tuple(sorted(self.scales_masks.items())),
            tuple(sorted(self.zero_points_masks.items())),
            self.fpmath_mode.value,
            self.scratchpad_mode.value,
        )


# --- primitive descriptors and primitives ------------------------------------------------------

# Parameters that PrimitiveDesc.create fills itself rather than taking from the caller.
_ENGINE, _ATTR, _COUNT = "dnnl_engine_t", "const_dnnl_primitive_attr_t", "int n"
_DESC_ARRAY, _FLOAT_ARRAY = "const_dnnl_memory_desc_t const *", "const float *"


_parameter_type = functools.cache(capi.parameter_type)
"""capi.parameter_type, read once per declaration (each primitive descriptor created reads
each of its parameters' types twice)."""


def _convert(declaration: str, value: object) -> object:
    """A caller's Python value as the ctypes argument of a parameter declaration."""
    c_type = _parameter_type(declaration)
    if c_type == "const_dnnl_memory_desc_t":
        if value is not None and not isinstance(value, MemoryDesc):
            raise TypeError(f"{declaration}: expected a MemoryDesc or None, got {value!r}")
        return value.handle if value is not None else None
    if c_type == _DESC_ARRAY:
        descs = list(value) if isinstance(value, Iterable) else []
        if not descs or not all(isinstance(d, MemoryDesc) for d in descs):
            raise TypeError(f"{declaration}: expected a non-empty sequence of MemoryDesc")
        return (ctypes.c_void_p * len(descs))(*(d.handle for d in descs))
    if c_type == _FLOAT_ARRAY:
        if not isinstance(value, Iterable):
            raise TypeError(f"{declaration}: expected a sequence of numbers, got {value!r}")
        floats = [float(v) for v in value]
        return (ctypes.c_float * len(floats))(*floats)
    if c_type == "const dnnl_dims_t":
        if not isinstance(value, Iterable):
            raise TypeError(f"{declaration}: expected a sequence of ints, got {value!r}")
        return _dims_array(tuple(value), declaration)
    if c_type == "float":
        if not isinstance(value, (int, float)):
            raise TypeError(f"{declaration}: expected a number, got {value!r}")
        return float(value)
    if not isinstance(value, (int, np.integer)):
        raise TypeError(f"{declaration}: expected an integer, got {value!r}")
    return int(value)


class PrimitiveDesc(_Owned):
    """An owned ``dnnl_primitive_desc_t`` (one implementation chosen, queryable)."""

    _empty: ClassVar[tuple[PrimitiveDesc | None, int] | None] = None
    """Where oneDNN's empty descriptor is (what ``query_md`` finds for an argument the
    primitive does not take, one shared descriptor for most), and the clone of the first
    descriptor queried that answered it, kept for the process: its answer's address cannot
    then become another descriptor's, so a query answering it is empty without asking its
    rank (most of ``expected_args``' candidates: one C call each instead of two). (None, 0)
    when that clone answered no empty descriptor."""
    _empty_lock = threading.Lock()

    def __init__(
        self, handle: int, primitive: str, attr: PrimitiveAttr | None, engine: Engine
    ) -> None:
        """Take ownership of a primitive descriptor handle created for this object."""
        super().__init__(handle, _C.dnnl_primitive_desc_destroy, pin=engine)
        self.primitive = primitive
        self.attr = attr
        self.engine = engine
        self._queried: dict[tuple[int, int], MemoryDesc | None] = {}
        """query_md's answers, kept until the implementation changes (next_impl): a cached
        primitive's descriptors are read again by every plan that binds it. Keyed by plain
        ints: a key holding the query's enum member is one more object for the garbage
        collector to track, ~20 per primitive (``expected_args``' candidates)."""
        self._expected: dict[int, MemoryDesc] | None = None
        """expected_args' answer, kept as ``_queried`` is (every bind of the primitive
        asks)."""

    @classmethod
    def create(
        cls,
        primitive: str,
        *args: object,
        attr: PrimitiveAttr | None = None,
        engine: Engine | None = None,
    ) -> PrimitiveDesc:
        """Call ``dnnl_<primitive>_primitive_desc_create`` with the caller's arguments.

        ``args`` are the C parameters in the header's order, leaving out the result, the
        engine(s), ``attr`` (None: library defaults, including library-managed scratchpad)
        and the count ``n`` (the length of the arrays). MemoryDesc or None for descriptors,
        sequences for arrays and dims, numbers for the rest. E.g.
        ``PrimitiveDesc.create("reorder", src_desc, dst_desc)``.
        """
        function_name = f"dnnl_{primitive}_primitive_desc_create"
        if function_name not in capi.SIGNATURES:
            known = sorted(
                n.removeprefix("dnnl_").removesuffix("_primitive_desc_create")
                for n in capi.SIGNATURES
                if n.endswith("_primitive_desc_create")
            )
            raise ValueError(f"unknown primitive '{primitive}': one of {', '.join(known)}")
        engine = engine or Engine.default()
        declarations = capi.SIGNATURES[function_name][1][1:]
        taken = [
            d for d in declarations if _parameter_type(d) not in (_ENGINE, _ATTR) and d != _COUNT
        ]
        if len(args) != len(taken):
            names = ", ".join(capi.parameter_name(d) for d in taken)
            raise TypeError(f"{function_name} takes ({names}): {len(args)} arguments given")
        supplied = dict(zip(taken, args))
        converted = {d: _convert(d, v) for d, v in supplied.items()}
        lengths = {
            len(cast(Sequence[object], supplied[d]))  # _convert took it as one
            for d in taken
            if _parameter_type(d) in (_DESC_ARRAY, _FLOAT_ARRAY)
        }
        if len(lengths) > 1:
            raise ValueError(f"{function_name}: the arrays differ in length ({sorted(lengths)})")
        c_args: list[object] = []
        for declaration in declarations:
            c_type = _parameter_type(declaration)
            if c_type == _ENGINE:
                c_args.append(engine.handle)
            elif c_type == _ATTR:
                c_args.append(attr.handle if attr is not None else None)
            elif declaration == _COUNT:
                c_args.append(lengths.pop())
            else:
                c_args.append(converted[declaration])
        handle = _new_handle(getattr(_C, function_name), *c_args)
        return cls(handle, primitive, attr, engine)

    def next_impl(self) -> bool:
        """Switch to the next implementation; False (and unchanged) when none is left."""
        try:
            _C.dnnl_primitive_desc_next_impl(self.handle)
        except DnnlError as error:
            if error.status == Status.dnnl_last_impl_reached:
                return False
            raise
        self._queried.clear()
        self._expected = None
        return True

    def clone(self) -> PrimitiveDesc:
        handle = _new_handle(_C.dnnl_primitive_desc_clone, self.handle)
        return PrimitiveDesc(handle, self.primitive, self.attr, self.engine)

    def query_md(self, what: Query, index: int = 0) -> MemoryDesc | None:
        """A copy of a queried memory descriptor (one per query: descriptors are
        immutable); None when the primitive has none there."""
        key = (int(what), index)
        if key not in self._queried:
            handle = _C.dnnl_primitive_desc_query_md(self.handle, what, index)
            # most queries (expected_args' candidates) find oneDNN's empty descriptor: known
            # by its address, else by its rank read in place; copy only one that is there
            empty = PrimitiveDesc._empty or self._learn_empty()
            present = handle and handle != empty[1] and _borrowed_ndims(handle)
            self._queried[key] = MemoryDesc.copy_of(handle) if present else None
        return self._queried[key]

    def _learn_empty(self) -> tuple[PrimitiveDesc | None, int]:
        """``_empty``, found by querying a clone of this descriptor for an argument no
        forward primitive takes."""
        with PrimitiveDesc._empty_lock:
            if PrimitiveDesc._empty is None:
                clone = self.clone()
                handle = _C.dnnl_primitive_desc_query_md(
                    clone.handle, Query.dnnl_query_exec_arg_md, capi.DNNL_ARG_DIFF_SRC_3
                )
                empty = handle and not _borrowed_ndims(handle)
                PrimitiveDesc._empty = (clone, handle) if empty else (None, 0)
            return PrimitiveDesc._empty

    def query_s32(self, what: Query) -> int:
        result = ctypes.c_int()
        _C.dnnl_primitive_desc_query(self.handle, what, 0, ctypes.byref(result))
        return result.value

    def query_s64(self, what: Query) -> int:
        result = ctypes.c_int64()
        _C.dnnl_primitive_desc_query(self.handle, what, 0, ctypes.byref(result))
        return result.value

    @property
    def memory_consumption(self) -> int:
        """Bytes a primitive created from this descriptor holds itself (oneDNN's
        estimate: packed constants, tables; without the user scratchpad)."""
        return self.query_s64(Query.dnnl_query_memory_consumption_s64)

    def src_desc(self, index: int = 0) -> MemoryDesc | None:
        return self.query_md(Query.dnnl_query_src_md, index)

    def weights_desc(self, index: int = 0) -> MemoryDesc | None:
        return self.query_md(Query.dnnl_query_weights_md, index)

    def dst_desc(self, index: int = 0) -> MemoryDesc | None:
        return self.query_md(Query.dnnl_query_dst_md, index)

    def scratchpad_desc(self) -> MemoryDesc | None:
        """What the scratchpad argument must be (user scratchpad mode); None if unneeded."""
        return self.query_md(Query.dnnl_query_scratchpad_md)

    def exec_arg_desc(self, arg: int) -> MemoryDesc | None:
        """The descriptor the primitive expects for exec argument ``arg``; None if unused."""
        return self.query_md(Query.dnnl_query_exec_arg_md, arg)

    @property
    def impl_info(self) -> str:
        """The implementation's name (``jit:avx512_core``, ``ref:any`` ...)."""
        result = ctypes.c_char_p()
        _C.dnnl_primitive_desc_query(
            self.handle, Query.dnnl_query_impl_info_str, 0, ctypes.byref(result)
        )
        return (result.value or b"").decode()

    def expected_args(self) -> dict[int, MemoryDesc]:
        """Every exec argument this primitive reads or writes, with its descriptor (asked
        once per implementation: ``Primitive.bind`` reads it for each step it binds)."""
        if self._expected is None:
            self._expected = self._expected_args()
        return self._expected

    def _expected_args(self) -> dict[int, MemoryDesc]:
        candidates = [
            capi.DNNL_ARG_SRC_0,
            capi.DNNL_ARG_SRC_1,
            capi.DNNL_ARG_SRC_2,
            capi.DNNL_ARG_SRC_3,
            capi.DNNL_ARG_DST_0,
            capi.DNNL_ARG_DST_1,
            capi.DNNL_ARG_DST_2,
            capi.DNNL_ARG_WEIGHTS_0,
            capi.DNNL_ARG_WEIGHTS_1,
            capi.DNNL_ARG_WEIGHTS_2,
            capi.DNNL_ARG_WEIGHTS_3,
            capi.DNNL_ARG_BIAS,
            capi.DNNL_ARG_MEAN,
            capi.DNNL_ARG_VARIANCE,
            capi.DNNL_ARG_SCALE,
            capi.DNNL_ARG_SHIFT,
            capi.DNNL_ARG_WORKSPACE,
            capi.DNNL_ARG_SCRATCHPAD,
        ]
        inputs = self.query_s32(Query.dnnl_query_num_of_inputs_s32)
        candidates += [capi.DNNL_ARG_MULTIPLE_SRC + i for i in range(inputs)]
        if self.attr is not None and self.attr.post_ops is not None:
            candidates += [i for i in self.attr.post_ops.argument_ids if i is not None]
        if self.primitive.endswith("normalization_forward"):
            # oneDNN reports the scale/shift descriptor whether or not the flags use them
            # (dnnl_query_flags is an unsigned, read here through the same-sized int).
            flags = self.query_s32(Query.dnnl_query_flags)
            unused = {
                capi.DNNL_ARG_SCALE: capi.dnnl_normalization_flags_t.dnnl_use_scale,
                capi.DNNL_ARG_SHIFT: capi.dnnl_normalization_flags_t.dnnl_use_shift,
            }
            candidates = [a for a in candidates if a not in unused or flags & unused[a]]
        found = {arg: self.exec_arg_desc(arg) for arg in candidates}
        return {arg: desc for arg, desc in found.items() if desc is not None}


_OUTPUT_ARGS = frozenset(
    {
        capi.DNNL_ARG_DST_0,
        capi.DNNL_ARG_DST_1,
        capi.DNNL_ARG_DST_2,
        capi.DNNL_ARG_WORKSPACE,
        capi.DNNL_ARG_SCRATCHPAD,
    }
)


class Primitive(_Owned):
    """A created primitive, ready to execute."""

    VALIDATED = 16
    """How many argument sets a primitive remembers having validated (``bind``)."""

    def __init__(self, desc: PrimitiveDesc) -> None:
        self.desc = desc
        self._validated: dict[tuple[tuple[int, int, bool], ...], tuple[object, ...]] = {}
        handle = _new_handle(_C.dnnl_primitive_create, desc.handle)
        super().__init__(handle, _C.dnnl_primitive_destroy, pin=desc.engine)

    def execute(self, stream: Stream, args: Mapping[int, Memory]) -> None:
        """Validate the arguments and run once (for the hot path, ``bind`` once instead)."""
        self.bind(args, stream)()

    def bind(self, args: Mapping[int, Memory], stream: Stream | None = None) -> BoundExecution:
        """Validate the arguments against the primitive descriptor and freeze them.

        Every argument the primitive uses must be given, with exactly the descriptor it
        expects, and outputs must be writeable; otherwise ValueError (never a crash in C).
        The primitive remembers the last ``VALIDATED`` argument sets it validated (each
        argument's descriptor object, kept alive, and writeability): memories of the very
        same descriptors for the same arguments (an execution context binding the steps of
        one kind) are not validated again.
        """
        descs = tuple(getattr(memory, "desc", None) for memory in args.values())
        seen = tuple(
            (arg, id(desc), getattr(memory, "writeable", False))
            for (arg, memory), desc in zip(args.items(), descs)
        )
        if self._validated.get(seen) != descs:
            self._check(args)
            if len(self._validated) >= self.VALIDATED:
                self._validated.clear()
            self._validated[seen] = descs
        return BoundExecution(self, stream or Stream.default(), args)

    def _check(self, args: Mapping[int, Memory]) -> None:
        """``bind``'s validation."""
        expected = self.desc.expected_args()
        attr = self.desc.attr
        quantization = {
            capi.DNNL_ARG_ATTR_SCALES | arg: DataType.F32
            for arg in (attr.scales_masks if attr is not None else {})
        } | {
            capi.DNNL_ARG_ATTR_ZERO_POINTS | arg: DataType.S32
            for arg in (attr.zero_points_masks if attr is not None else {})
        }
        for arg, memory in args.items():
            if not isinstance(memory, Memory):
                raise TypeError(f"argument {arg}: expected a Memory, got {type(memory).__name__}")
            if arg in quantization:
                if memory.desc.data_type != quantization[arg]:
                    kind = "scales" if arg & capi.DNNL_ARG_ATTR_SCALES else "zero points"
                    raise ValueError(f"{kind} argument {arg} must be {quantization[arg]}")
                continue
            want = expected.get(arg) or self.desc.exec_arg_desc(arg)
            if want is None:
                raise ValueError(f"{self.desc.primitive} takes no argument {arg}")
            if memory.desc is not want and not want.admits(memory.desc):
                raise ValueError(
                    f"{self.desc.primitive} argument {arg}: memory is {memory.desc!r}, the "
                    f"primitive expects {want!r}"
                )
            if arg in _OUTPUT_ARGS and not memory.writeable:
                raise ValueError(f"{self.desc.primitive} argument {arg}: array is read-only")
        missing = sorted((set(expected) | set(quantization)) - set(args))
        if missing:
            raise ValueError(f"{self.desc.primitive}: missing arguments {missing}")


class BoundExecution(functools.partial):
    """One primitive with frozen arguments: calling it is one ``dnnl_primitive_execute``
    (status checked) on a ctypes argument array built once, with no Python frame of its
    own (a ``functools.partial`` of the checked C function). Pins the primitive, the stream
    and the memories; rebinding a memory with ``set_data_handle`` is fine."""

    __slots__ = ("_pinned",)  # no instance dict: one object fewer per bound step
    _pinned: tuple[_Owned, ...]

    def __new__(
        cls, primitive: Primitive, stream: Stream, args: Mapping[int, Memory]
    ) -> BoundExecution:
        array = (capi.dnnl_exec_arg_t * len(args))()
        # fields set in place: an array made from structures keeps a dict per element (and
        # one of them), objects the garbage collector tracks for as long as the step lives
        for index, (arg, memory) in enumerate(args.items()):
            array[index].arg = arg
            array[index].memory = memory.handle
        self = super().__new__(
            cls,
            _C.dnnl_primitive_execute,
            primitive.c_handle,
            stream.c_handle,
            len(args),
            array,
        )
        self._pinned = (primitive, stream, *args.values())
        for pinned in self._pinned:
            pinned._pins += 1
        return self

    def __del__(self) -> None:
        for pinned in self._pinned:
            pinned._pins -= 1
