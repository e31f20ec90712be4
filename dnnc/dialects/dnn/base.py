"""What every dnn op shares: tensor type rules, shape-function calls, post-op checks.

``DnnOp.verify_`` runs, in order:
1. the type rules of every operand and result: an element type of docs/dialect.md (the
   fixed type of a result in ``RESULT_TYPES``) and, if there is an encoding, a
   ``#dnn.layout`` of the tensor's rank that is not the implied plain layout;
2. the op's own rules, ``verify_op``, mostly a call of its dnnc.core.shapes function whose
   ``ShapeError`` becomes a ``VerifyException`` (dnnc-opt prefixes the op name);
3. ``verify_result_types``: results keep the first operand's element type (but those in
   ``RESULT_TYPES``) and layout (a result of another rank is plain). dnn.cast and
   dnn.reorder override it.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, ClassVar, TypedDict, TypeVar, cast, overload

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    I64,
    ArrayAttr,
    DenseArrayBase,
    Float32Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    NoneAttr,
    TensorType,
    f32,
    i64,
)
from xdsl.ir import Attribute, Operation, OpResult, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    VarOperand,
    prop_def,
)
from xdsl.utils.exceptions import VerifyException

from dnnc.core import shapes
from dnnc.core.kinds import DataType, PostOp, SumPostOp, takes_argument
from dnnc.core.layouts import Layout, plain_layout
from dnnc.dialects.dnn.attributes import LayoutAttr, PostOpAttr, post_op_attr
from dnnc.dialects.types import DATA_TYPES, element_type_of

MAX_TENSOR_BYTES = 2**47
"""The largest tensor dnn accepts: 128 TiB, the user address space of x86-64 CPUs."""

_VALUE_TYPES = ", ".join(str(t) for t in DATA_TYPES)


@contextmanager
def shape_errors() -> Iterator[None]:
    """Re-raise a dnnc.core.shapes ShapeError as a VerifyException."""
    try:
        yield
    except shapes.ShapeError as error:
        raise VerifyException(str(error)) from error


OpT = TypeVar("OpT", bound=Operation)

_inferred: ContextVar[dict[SSAValue, shapes.Shape] | None] = ContextVar(
    "dnn_inferred_shapes", default=None
)


@contextmanager
def inferring(known: dict[SSAValue, shapes.Shape]) -> Iterator[dict[SSAValue, shapes.Shape]]:
    """Run verifiers as shape inference for concrete shapes (dnnc.lowering.specialize).

    Inside the block ``shape_of`` answers from ``known`` before the types, and
    ``DnnOp.expect_result_shape`` still checks the declared shape, then writes the inferred
    one into ``known``: so ``op.verify_op()`` infers ``op``'s results with exactly the checks
    of the verifier, each ``ShapeError`` naming what is wrong.
    """
    token = _inferred.set(known)
    try:
        yield known
    finally:
        _inferred.reset(token)


def stand_in(new: OpT, old: Operation) -> OpT:
    """`new`, built to replace `old`, given `old`'s location, discardable attributes and result
    names (what a rewrite keeps of the op it rebuilds); properties both have come in `old`'s
    order, so that the rebuilt op prints as the patched one did."""
    new.location = old.location
    new.attributes |= old.attributes
    for new_result, old_result in zip(new.results, old.results):
        new_result.name_hint = old_result.name_hint
    order = {name: index for index, name in enumerate(old.properties)}
    ordered = sorted(new.properties.items(), key=lambda item: order.get(item[0], len(order)))
    new.properties.clear()
    new.properties.update(ordered)
    return new


def retyped_op(op: OpT, operands: list[SSAValue], result_type: Attribute) -> OpT:
    """A copy of the one-result `op` on `operands` with `result_type`, at `op`'s location and
    with its result's name."""
    new = type(op).create(
        operands=operands,
        result_types=[result_type],
        properties=dict(op.properties),
        attributes=dict(op.attributes),
    )
    new.location = op.location
    new.results[0].name_hint = op.results[0].name_hint
    return new


def tensor_type(value: SSAValue) -> TensorType:
    """The type of a dnn operand or result (the op constraints, checked first, make it a tensor)."""
    return cast(TensorType, value.type)


def shape_of(value: SSAValue) -> shapes.Shape:
    """A value's shape with dynamic dimensions as shapes.DYNAMIC (inside ``inferring``: the
    inferred shape when there is one)."""
    known = _inferred.get()
    if known is not None and value in known:
        return known[value]
    # `type(d) is int` first: a traced size (a SymbolicInt) is never the ? marker, and
    # comparing it would cost a comparison of its expression (dnnc.core.symbols)
    return tuple(
        shapes.DYNAMIC if type(d) is int and d == DYNAMIC_INDEX else d
        for d in tensor_type(value).get_shape()
    )


def tensor_of(
    element: Attribute, shape: Sequence[int], encoding: Attribute | None = None
) -> TensorType:
    """A tensor type of `shape` (``shapes.DYNAMIC`` dimensions are ``?``), plain unless an
    `encoding` is given."""
    dims = [DYNAMIC_INDEX if d == shapes.DYNAMIC else d for d in shape]
    return TensorType(element, dims, NoneAttr() if encoding is None else encoding)


def result_like(
    src: SSAValue, shape: Sequence[int], element: Attribute | None = None
) -> TensorType:
    """The type of a result of `shape` that follows `src` (the verifier's rule): `src`'s element
    type (or `element`, for results whose type the op fixes) and, at `src`'s rank, its layout."""
    type_ = tensor_type(src)
    encoding = type_.encoding if len(shape) == type_.get_num_dims() else None
    return tensor_of(element or type_.get_element_type(), shape, encoding)


def layout_of(type_: TensorType) -> Layout:
    """The layout a tensor type's encoding gives it (plain when there is none)."""
    if isinstance(type_.encoding, LayoutAttr):
        return type_.encoding.layout
    return plain_layout(type_.get_num_dims())


@overload
def ints(attr: DenseArrayBase) -> list[int]: ...
@overload
def ints(attr: None) -> None: ...
@overload
def ints(attr: DenseArrayBase | None) -> list[int] | None: ...
def ints(attr: DenseArrayBase | None) -> list[int] | None:
    """The values of an i64 array property (None if absent)."""
    if attr is None:
        return None
    integers = cast("DenseArrayBase[IntegerType]", attr)  # dnn's array properties are i64
    return [int(v) for v in integers.get_values()]


def int_of(attr: IntegerAttr) -> int:
    """The value of an integer property."""
    return attr.value.data


def i64_array(*values: int) -> DenseArrayBase[I64]:
    """An ``array<i64: ...>`` property value."""
    return DenseArrayBase.from_list(i64, values)


def f32_attr(value: float) -> FloatAttr[Float32Type]:
    """A ``<value> : f32`` property value."""
    return FloatAttr(value, f32)


TRUE = IntegerAttr.from_bool(True)
"""The ``true`` property value (default of boolean properties)."""
FALSE = IntegerAttr.from_bool(False)
"""The ``false`` property value."""


def post_ops_of(attr: ArrayAttr[PostOpAttr]) -> list[PostOp]:
    """The dnnc.core.kinds descriptions of a post_ops property."""
    return [p.post_op for p in attr.data]


SEGMENT_SIZES = AttrSizedOperandSegments.attribute_name
"""The property of the operand segment sizes (AttrSizedOperandSegments(as_property=True))."""
_OPERAND_INDICES: dict[tuple[object, ...], dict[str, tuple[int, ...]]] = {}
"""DnnOp.operand_indices by op class, operand count and segment sizes."""


class DnnOp(IRDLOperation):
    """Base of every dnn op (see the module docstring for the verification order)."""

    RESULT_TYPES: ClassVar[dict[str, DataType]] = {}
    """Results whose element type the op fixes, whatever its operands' (top_k's indices are
    s64, a comparison's result boolean); the others follow the first operand."""

    def named_values(self) -> Iterator[tuple[str, SSAValue, bool]]:
        """Every operand and result with its name (``post_args[1]``) and whether it is a result."""
        definition = self.get_irdl_definition()
        for is_result, defs in ((False, definition.operands), (True, definition.results)):
            for name, _ in defs:
                value = getattr(self, name)
                if isinstance(value, SSAValue):
                    yield name, value, is_result
                elif value is not None:
                    for index, item in enumerate(value):
                        yield f"{name}[{index}]", item, is_result

    def operand_indices(self) -> dict[str, tuple[int, ...]]:
        """The positions in ``operands`` of each operand definition's values by name (a
        variadic one's in order; an absent optional one is not there), as named_values
        gives them. Found once per op class and operand structure (count, segment sizes):
        reading named operands unpacks the segment sizes at each access."""
        segments = self.properties.get(SEGMENT_SIZES) or self.attributes.get(SEGMENT_SIZES)
        key = (type(self), len(self.operands), segments)
        found = _OPERAND_INDICES.get(key)
        if found is None:
            positions: dict[str, list[int]] = {}
            operands = (name for name, _, is_result in self.named_values() if not is_result)
            for position, name in enumerate(operands):
                positions.setdefault(name.split("[")[0], []).append(position)
            found = _OPERAND_INDICES[key] = {n: tuple(p) for n, p in positions.items()}
        return found

    def verify_(self) -> None:
        for name, value, _ in self.named_values():
            self._verify_tensor_type(name, tensor_type(value))
        with shape_errors():
            self.verify_op()
        self.verify_result_types()

    def verify_op(self) -> None:
        """The op's own rules; every op defines them."""
        raise NotImplementedError(f"{type(self).__name__} must define verify_op")

    def _verify_tensor_type(self, name: str, type_: TensorType) -> None:
        element = type_.get_element_type()
        fixed = self.RESULT_TYPES.get(name)
        if fixed is not None:
            if DATA_TYPES.get(element) is not fixed:
                raise VerifyException(
                    f"{name} must have element type {element_type_of(fixed)}, got {element}"
                )
        elif element not in DATA_TYPES:
            raise VerifyException(
                f"{name} has element type {element}, expected one of {_VALUE_TYPES}"
            )
        static = [d for d in type_.get_shape() if d >= 0]
        size = math.prod(static) * DATA_TYPES[element].itemsize
        if size > MAX_TENSOR_BYTES:
            raise VerifyException(
                f"{name} ({shapes.format_shape(tuple(type_.get_shape()))}) holds {size} bytes, "
                f"more than the {MAX_TENSOR_BYTES} (128 TiB) a CPU can address"
            )
        encoding = type_.encoding
        if isinstance(encoding, NoneAttr):
            return
        if not isinstance(encoding, LayoutAttr):
            raise VerifyException(f"{name} has encoding {encoding}, expected a #dnn.layout or none")
        layout = encoding.layout
        if layout.rank != type_.get_num_dims():
            raise VerifyException(
                f"{name} layout {layout.name} is for rank {layout.rank} but the tensor has "
                f"rank {type_.get_num_dims()}",
            )
        if layout.is_plain:
            raise VerifyException(f"{name}: plain layout is implied: drop the encoding {encoding}")

    def first_operand(self) -> SSAValue | None:
        """The operand results follow in element type and layout (None for sources)."""
        return self.operands[0] if self.operands else None

    def verify_result_types(self) -> None:
        """Results have the first operand's element type and layout."""
        src = self.first_operand()
        if src is None:
            return
        for name, value, is_result in self.named_values():
            if not is_result:
                continue
            if name not in self.RESULT_TYPES:
                self.expect_element_type(name, value, src)
            self.expect_layout(name, value, src)

    def expect_element_type(self, name: str, value: SSAValue, src: SSAValue) -> None:
        """Only dnn.cast changes an element type."""
        got, want = tensor_type(value).get_element_type(), tensor_type(src).get_element_type()
        if got != want:
            raise VerifyException(
                f"{name} element type {got} must equal the {self.operand_name(src)} element "
                f"type {want}: only dnn.cast changes an element type",
            )

    def expect_layout(self, name: str, value: SSAValue, src: SSAValue) -> None:
        """Only dnn.reorder changes a layout; a result of another rank is plain."""
        got, want = tensor_type(value), tensor_type(src)
        if got.get_num_dims() != want.get_num_dims():
            if not isinstance(got.encoding, NoneAttr):
                raise VerifyException(
                    f"{name} layout {layout_of(got).name} must be plain: its rank differs from "
                    f"the {self.operand_name(src)} rank, and only dnn.reorder changes a layout",
                )
        elif not self.allows_result_layout(layout_of(got), want):
            raise VerifyException(
                f"{name} layout {layout_of(got).name} must equal the {self.operand_name(src)} "
                f"layout {layout_of(want).name}: only dnn.reorder changes a layout"
                f"{self.RESULT_LAYOUT_EXCEPTION}",
            )

    RESULT_LAYOUT_EXCEPTION: ClassVar[str] = ""
    """How an op that overrides allows_result_layout says what else it allows."""

    def allows_result_layout(self, layout: Layout, src: TensorType) -> bool:
        """Whether a result of the first operand's rank may be in `layout`, the first operand
        being of type `src`: only in src's layout, but for ops that say otherwise."""
        return layout == layout_of(src)

    def operand_name(self, value: SSAValue) -> str:
        """The name of one of this op's operands."""
        return next(
            name
            for name, candidate, is_result in self.named_values()
            if not is_result and candidate is value
        )

    def expect_result_shape(self, result: SSAValue, inferred: shapes.Shape) -> None:
        """The declared result shape agrees with the inferred one (dynamic dims agree with all)."""
        declared = shape_of(result)
        if not shapes.compatible(declared, inferred):
            raise VerifyException(
                f"result shape {shapes.format_shape(declared)} does not match the inferred "
                f"shape {shapes.format_shape(inferred)}",
            )
        known = _inferred.get()
        if known is not None:
            known[result] = inferred


POST_ARGS_FORMAT = "(`post_args` `(` $post_args^ `:` type($post_args) `)`)?"
"""The assembly format of a post-op anchor's ``post_args``."""
ANCHOR_OPTIONS = (ParsePropInAttrDict(), AttrSizedOperandSegments(as_property=True))
"""The IRDL options of a post-op anchor with optional operands before ``post_args``."""

NO_POST_OPS: ArrayAttr[PostOpAttr] = ArrayAttr(())
"""The default of a post-op anchor's ``post_ops``: none."""


def post_ops_attr(post_ops: Sequence[PostOp]) -> ArrayAttr[PostOpAttr]:
    """The ``post_ops`` property of a chain of post-op descriptions."""
    return ArrayAttr([post_op_attr(p) for p in post_ops])


class Window(TypedDict):
    """The window of a windowed product as its constructor takes it."""

    strides: Sequence[int]
    pads_begin: Sequence[int]
    pads_end: Sequence[int]
    dilations: Sequence[int]
    groups: int


def window_of(op: Operation) -> Window:
    """The window of a conv2d, deconv2d or qconv2d, as keyword arguments of another one."""

    def array(name: str) -> list[int]:
        attr = op.properties[name]
        assert isinstance(attr, DenseArrayBase)  # a windowed product's property
        return ints(attr)

    groups = op.properties["groups"]
    assert isinstance(groups, IntegerAttr)  # a windowed product's property
    return Window(
        strides=array("strides"),
        pads_begin=array("pads_begin"),
        pads_end=array("pads_end"),
        dilations=array("dilations"),
        groups=int_of(groups),
    )


def window_properties(
    *,
    strides: Sequence[int] = (1, 1),
    pads_begin: Sequence[int] = (0, 0),
    pads_end: Sequence[int] = (0, 0),
    dilations: Sequence[int] = (1, 1),
    groups: int = 1,
    post_ops: Sequence[PostOp] = (),
) -> dict[str, Attribute]:
    """The properties of a windowed product (conv2d, deconv2d, qconv2d): its 2-D window,
    groups and post-ops."""
    return {
        "strides": i64_array(*strides),
        "pads_begin": i64_array(*pads_begin),
        "pads_end": i64_array(*pads_end),
        "dilations": i64_array(*dilations),
        "groups": IntegerAttr(groups, i64),
        "post_ops": post_ops_attr(post_ops),
    }


class PostOpAnchor(DnnOp, ABC):
    """The interface of a dnn op that takes post-ops (conv2d, deconv2d, matmul, inner_product,
    pool, binary): a ``post_ops`` property, a ``post_args`` operand list and their checks.

    An op opts in by inheriting this class (as xDSL's ``HasFolderInterface``), defines
    ``post_args = var_operand_def(TensorType)`` as its last operand (IRDL keeps operand
    order, so the interface cannot define it) and ``result``, and gives its result shape in
    ``infer_result_shape``; ``isinstance(op, PostOpAnchor)`` then types ``op.post_ops`` and
    ``op.post_args`` for the checker. Which post-ops each anchor's oneDNN primitive takes is a
    rule of dnnc.target.post_op_rules."""

    post_ops = prop_def(ArrayAttr[PostOpAttr], NO_POST_OPS)

    if TYPE_CHECKING:  # defined by each op: its last operand, and its one result
        post_args: VarOperand
        result: OpResult

    @abstractmethod
    def infer_result_shape(self) -> shapes.Shape:
        """The result shape the op's dnnc.core.shapes function gives for its operands."""

    @abstractmethod
    def with_post_ops(
        self, post_ops: Sequence[PostOp], post_args: Sequence[SSAValue]
    ) -> PostOpAnchor:
        """A new op (not inserted) like this one, its own operands, properties and result
        type, with `post_ops` and `post_args` in place of its own: built by its constructor."""

    @property
    def post_op_chain(self) -> list[PostOp]:
        """The post-ops as dnnc.core.kinds descriptions, in order."""
        return post_ops_of(self.post_ops)

    @property
    def first_post_arg(self) -> int:
        """The operand index of ``post_args[0]``: the operands before it are the op's own."""
        return len(self.operands) - len(self.post_args)

    @property
    def own_operands(self) -> list[SSAValue]:
        """The operands but the post-op arguments."""
        return list(self.operands[: self.first_post_arg])

    def sum_post_args(self) -> list[int]:
        """Indices in ``post_args`` of the arguments of ``#dnn.sum`` post-ops (dst accumulates
        them)."""
        with_args = [p for p in self.post_op_chain if takes_argument(p)]
        return [i for i, p in enumerate(with_args) if isinstance(p, SumPostOp)]

    def verify_op(self) -> None:
        self.expect_result_shape(self.result, self.infer_result_shape())
        self.verify_post_ops()

    def verify_post_ops(self) -> None:
        """Post-op arguments: count and shapes (dnnc.core.shapes.post_ops), sum args typed as the
        result."""
        kinds = self.post_op_chain
        shapes.post_ops(shape_of(self.result), kinds, [shape_of(a) for a in self.post_args])
        sums = [isinstance(p, SumPostOp) for p in kinds if takes_argument(p)]
        for index, (arg, is_sum) in enumerate(zip(self.post_args, sums)):
            if is_sum and arg.type != self.result.type:
                raise VerifyException(
                    f"post_args[{index}] of a sum post-op has type {arg.type}, expected the "
                    f"result type {self.result.type} (oneDNN accumulates into the result buffer)",
                )
