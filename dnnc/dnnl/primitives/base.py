"""The machinery every primitive handler shares (PaddlePaddle's "basic handler").

A handler is built from one ``onednn.primitive`` op: a MemoryDesc per role of its ins and
outs and its parameters as plain Python values. The base class checks both (ValueError
naming the kind and the bad role or parameter), builds the attribute (post-ops, user
scratchpad), creates the primitive descriptor, and derives the structural cache key, the
exec argument of every role and the layouts oneDNN prefers. A subclass states only what
differs: its primitive, its roles, its parameters, a check of its own and the C arguments.

Roles: the fixed roles of ``args``; ``src_0`` .. ``src_<n-1>`` for kinds with ``variadic``
inputs (sum, concat); ``post_arg_0`` .. ``post_arg_<m-1>`` for kinds that take ``post_ops``,
one per post-op that takes an argument (``kinds.takes_argument``), in chain order, like the
``post_args`` operands of the dnn op. A sum post-op's argument is the destination buffer
itself, so its role has a descriptor (its data type tells oneDNN the summand's type) but no
exec argument.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from dnnc.core.kinds import BinaryPostOp, EltwisePostOp, PostOp, SumPostOp, takes_argument
from dnnc.core.layouts import Layout
from dnnc.dnnl import capi
from dnnc.dnnl.objects import (
    DnnlError,
    Engine,
    MemoryDesc,
    PostOps,
    PrimitiveAttr,
    PrimitiveDesc,
    expressible,
)

FORWARD_INFERENCE = capi.dnnl_prop_kind_t.dnnl_forward_inference


# --- parameters --------------------------------------------------------------------------------


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()
"""The default of a parameter that has none: the op must give it."""


@dataclass(frozen=True)
class Param:
    """A parameter of a kind: how a plain value is checked and normalized, and its default."""

    convert: Callable[[Any], Hashable]
    """Returns the normalized, hashable value; raises TypeError or ValueError."""
    default: Any = REQUIRED


def integer(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"expected an integer, got {value!r}")
    return int(value)


def number(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"expected a number, got {value!r}")
    return float(value)


def integers(value: object) -> tuple[int, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise TypeError(f"expected a sequence of integers, got {value!r}")
    return tuple(integer(v) for v in value)


def numbers(value: object) -> tuple[float, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise TypeError(f"expected a sequence of numbers, got {value!r}")
    return tuple(number(v) for v in value)


def optional(convert: Callable[[Any], Hashable]) -> Callable[[Any], Hashable]:
    """A converter that also lets None through (a parameter that may be absent)."""
    return lambda value: None if value is None else convert(value)


def choice(options: Iterable[str]) -> Callable[[Any], str]:
    """A converter to the one of ``options`` (e.g. a StrEnum's members) equal to the value."""
    options = tuple(options)

    def convert(value: object) -> str:
        for option in options:
            if option == value:
                return option
        raise ValueError(f"{value!r} is not one of {', '.join(map(str, options))}")

    return convert


def post_op_chain(value: object) -> tuple[PostOp, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise TypeError(f"expected a sequence of post-ops, got {value!r}")
    chain = tuple(value)
    for post_op in chain:
        if not isinstance(post_op, (EltwisePostOp, BinaryPostOp, SumPostOp)):
            raise TypeError(f"not a post-op: {post_op!r}")
    return chain


POST_OPS: Mapping[str, Param] = {"post_ops": Param(post_op_chain, ())}
"""The parameter of the kinds that take post-ops (merge it into ``params_spec``)."""

UNARY_ARGS: Mapping[str, int] = {"src": capi.DNNL_ARG_SRC, "dst": capi.DNNL_ARG_DST}
"""The roles of the kinds that read one src and write dst."""


# --- descriptors -------------------------------------------------------------------------------


def reshaped(desc: MemoryDesc, dims: tuple[int, ...], layout: Layout | None) -> MemoryDesc:
    """`desc` seen with other `dims`: created in `layout` (the same bytes in the new dims)
    when given and expressible, else by oneDNN's reshape, which gives new unit dims other
    strides than a format tag does (oneDNN's fast kernels check strides exactly: 2-D
    ``BA16a64b`` matmul weights reshaped to 3-D run ``ref:any``, 1000x slower) and cannot
    split a blocked dim (grouped weights ``OIhw8i8o`` as ``gOIhw8i8o``)."""
    if layout is None or not expressible(layout):
        return desc.reshape(dims)  # format any, strides no layout describes, or no tag
    return MemoryDesc.of_layout(dims, desc.data_type, layout)


def with_rank(desc: MemoryDesc | None, rank: int) -> MemoryDesc | None:
    """The descriptor with leading dimensions of size 1 up to ``rank`` (oneDNN wants equal
    ranks where numpy broadcasts); None stays None."""
    if desc is None or desc.ndims >= rank:
        return desc
    layout = desc.layout()
    wider = None if layout is None else layout.with_leading_dims(rank - desc.ndims)
    return reshaped(desc, (1,) * (rank - desc.ndims) + desc.dims, wider)


# --- the base handler --------------------------------------------------------------------------


class PrimitiveHandler:
    """What one primitive kind needs: subclasses set the class variables and ``_arguments``
    (and, for checks beyond roles and parameter types, ``_check``)."""

    kind: ClassVar[str]
    """The ``onednn.primitive`` kind."""
    primitive: ClassVar[str]
    """The stem of its C function, ``dnnl_<primitive>_primitive_desc_create``."""
    args: ClassVar[Mapping[str, int]]
    """Fixed role -> DNNL_ARG_* exec argument."""
    optional: ClassVar[frozenset[str]] = frozenset()
    """Fixed roles that may be absent."""
    variadic: ClassVar[int] = 0
    """When positive: the kind takes roles src_0 .. src_<n-1>, at least this many."""
    params_spec: ClassVar[Mapping[str, Param]] = {}
    flexible: ClassVar[tuple[str, ...]] = ("dst",)
    """Roles that can be given as format ``any`` for oneDNN to choose the layout."""

    def __init__(self, descs: Mapping[str, MemoryDesc], params: Mapping[str, object]) -> None:
        """Check the roles and parameters; ValueError naming the kind and what is wrong."""
        self.descs: dict[str, MemoryDesc] = dict(descs)
        self.params: dict[str, Any] = self._checked_params(params)
        self.post_ops: tuple[PostOp, ...] = self.params.get("post_ops", ())
        self._check_roles()
        self._check()
        self._pd: PrimitiveDesc | None = None

    # what subclasses state

    def _check(self) -> None:
        """Kind-specific checks of descriptors and parameters (may normalize params)."""

    def _arguments(self, descs: Mapping[str, MemoryDesc]) -> tuple[object, ...]:
        """The C arguments of the primitive descriptor (PrimitiveDesc.create's ``args``)."""
        raise NotImplementedError

    # the contract

    def key(self) -> tuple[Any, ...]:
        """Structural cache key: kind, every role's descriptor key, parameters (with the
        post-ops among them)."""
        return (
            self.kind,
            tuple(sorted((role, desc.key()) for role, desc in self.descs.items())),
            tuple(sorted(self.params.items())),
        )

    def create(self, engine: Engine) -> PrimitiveDesc:
        """The primitive descriptor (user scratchpad mode), on ``engine``."""
        self._pd = self._create(self.descs, engine)
        return self._pd

    def exec_args(self, pd: PrimitiveDesc | None = None) -> dict[str, int]:
        """Role -> DNNL_ARG_* of every role the primitive reads or writes; ``scratchpad``
        when the primitive needs one (its descriptor: ``exec_descs()['scratchpad']``).

        ``pd``: the descriptor of the primitive to run, e.g. a cached one's (``desc``), as
        the cache does not call ``create`` on a hit; by default this handler's own."""
        pd = pd or self._primitive_desc()
        ids = {role: arg for role, arg in self.args.items() if role in self.descs}
        ids.update(
            {f"src_{i}": capi.DNNL_ARG_MULTIPLE_SRC + i for i in range(self._variadic_count())}
        )
        if pd.attr is not None and pd.attr.post_ops is not None:
            for j, arg in enumerate(pd.attr.post_ops.argument_ids):
                if arg is not None:
                    ids[f"post_arg_{j}"] = arg
        scratchpad = pd.scratchpad_desc()
        if scratchpad is not None and scratchpad.size_bytes > 0:
            ids["scratchpad"] = capi.DNNL_ARG_SCRATCHPAD
        return ids

    def exec_descs(self, pd: PrimitiveDesc | None = None) -> dict[str, MemoryDesc]:
        """Role -> the descriptor the memory bound to it must have (Primitive.bind checks
        equality). Differs from ``descs`` where the handler reshapes: grouped convolution
        weights (5-D), matmul and binary operands of lower rank, reorder sources with a
        permutation or starts. ``pd`` as for ``exec_args``."""
        pd = pd or self._primitive_desc()
        found = {role: pd.exec_arg_desc(arg) for role, arg in self.exec_args(pd).items()}
        return {role: desc for role, desc in found.items() if desc is not None}

    def preferred_layouts(self, engine: Engine) -> dict[str, Layout | None]:
        """The layout oneDNN picks for each flexible role given as format ``any``; None
        when the choice is no layout of the role's logical dims (e.g. blocked grouped
        weights, which only a 5-D layout describes)."""
        roles = [role for role in self.flexible if role in self.descs]
        descs = dict(self.descs)
        for role in roles:
            descs[role] = MemoryDesc.any(descs[role].dims, descs[role].data_type)
        pd = self._create(descs, engine)
        return {
            role: logical_layout(pd.exec_arg_desc(self.args[role]), self.descs[role].dims)
            for role in roles
        }

    # shared machinery

    def _create(self, descs: Mapping[str, MemoryDesc], engine: Engine) -> PrimitiveDesc:
        post_ops = None
        if self.post_ops:
            arguments = [descs[f"post_arg_{j}"] for j in range(self._post_arg_count())]
            post_ops = PostOps(self.post_ops, arguments)
        scales, zero_points = self._quantization_masks()
        attr = PrimitiveAttr(post_ops, scales_masks=scales, zero_points_masks=zero_points)
        return PrimitiveDesc.create(
            self.primitive, *self._arguments(descs), attr=attr, engine=engine
        )

    def _quantization_masks(self) -> tuple[dict[int, int], dict[int, int]]:
        """The masks of the run-time scales and zero points the primitive takes, per
        DNNL_ARG_* (PrimitiveAttr); none by default."""
        return {}, {}

    def _primitive_desc(self) -> PrimitiveDesc:
        """The descriptor of the last ``create``, else one on the default engine."""
        return self._pd or self.create(Engine.default())

    def _error(self, message: str) -> ValueError:
        return ValueError(f"{self.kind}: {message}")

    def _post_arg_count(self) -> int:
        return sum(takes_argument(p) for p in self.post_ops)

    def _variadic_count(self) -> int:
        return sum(role.startswith("src_") for role in self.descs) if self.variadic else 0

    def _checked_params(self, params: Mapping[str, object]) -> dict[str, Any]:
        unknown = sorted(set(params) - set(self.params_spec))
        if unknown:
            valid = ", ".join(self.params_spec) or "none"
            raise self._error(f"unknown parameter(s) {', '.join(unknown)} (valid: {valid})")
        checked: dict[str, Any] = {}
        for name, spec in self.params_spec.items():
            if name not in params:
                if spec.default is REQUIRED:
                    raise self._error(f"parameter '{name}' is required")
                checked[name] = spec.default
                continue
            try:
                checked[name] = spec.convert(params[name])
            except (TypeError, ValueError) as error:
                raise self._error(f"parameter '{name}': {error}") from None
        return checked

    def _check_roles(self) -> None:
        allowed = set(self.args)
        allowed.update(f"post_arg_{j}" for j in range(self._post_arg_count()))
        required = allowed - self.optional
        if self.variadic:
            count = self._variadic_count()
            if count < self.variadic:
                raise self._error(f"needs at least {self.variadic} inputs src_0, src_1, ...")
            allowed.update(f"src_{i}" for i in range(count))
        missing = sorted(required - set(self.descs))
        unknown = sorted(set(self.descs) - allowed)
        if missing or unknown:
            raise self._error(
                f"roles {sorted(self.descs)}: missing {missing}, unexpected {unknown} "
                f"(roles: {', '.join(sorted(required))}"
                + (f"; optional {', '.join(sorted(self.optional))}" if self.optional else "")
                + (", src_0 .. src_<n-1>" if self.variadic else "")
                + ")"
            )
        for role, desc in self.descs.items():
            if not isinstance(desc, MemoryDesc):
                raise self._error(f"role '{role}': expected a MemoryDesc, got {desc!r}")
        self._check_post_args()

    def _check_post_args(self) -> None:
        """A binary post-op's argument broadcasts to dst (dims 1 or dst's, same rank), a sum
        post-op's has dst's dims; oneDNN does not check the former and would read past it."""
        dst = self.descs["dst"].dims
        arguments = [p for p in self.post_ops if takes_argument(p)]
        for j, post_op in enumerate(arguments):
            dims = self.descs[f"post_arg_{j}"].dims
            fits = dims == dst or (
                isinstance(post_op, BinaryPostOp)
                and len(dims) == len(dst)
                and all(n in (1, m) for n, m in zip(dims, dst))
            )
            if not fits:
                raise self._error(
                    f"post_arg_{j} {dims} of {type(post_op).__name__} does not fit dst {dst}"
                )

    def _normalize_axis(self, rank: int) -> None:
        """Check the ``axis`` parameter against a rank and make it non-negative."""
        axis = self.params["axis"]
        if not -rank <= axis < rank:
            raise self._error(f"axis {axis} is out of range for rank {rank}")
        self.params["axis"] = axis % rank

    def _check_lengths(self, names: Sequence[str], length: int) -> None:
        """Each parameter of ``names`` has ``length`` entries (one per spatial dimension)."""
        for name in names:
            if len(self.params[name]) != length:
                raise self._error(f"parameter '{name}' {self.params[name]} needs {length} entries")


def logical_layout(chosen: MemoryDesc | None, dims: tuple[int, ...]) -> Layout | None:
    """The Layout of a queried descriptor seen with the role's logical dims, if one fits
    and ``MemoryDesc.of_layout`` can create it again (e.g. depthwise weights chosen 5-D as
    ``decbA16a`` are ``cdbA16a`` in 4-D, grouped ones as ``gOIhw8i8o`` are ``OIhw8i8o``)."""
    if chosen is None:
        return None
    layout = chosen.layout()
    if chosen.dims != dims:
        try:
            layout = chosen.reshape(dims).layout()
        except DnnlError:  # grouped weights [g, O/g, ...] blocked over O/g: merge g, O/g
            fits = chosen.dims[2:] == dims[1:] and chosen.dims[0] * chosen.dims[1] == dims[0]
            layout = layout.merge_leading(chosen.dims) if layout and fits else None
    return layout if layout is not None and expressible(layout) else None
