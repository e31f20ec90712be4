"""The dnn ops that move, view or produce data (see docs/dialect.md).

Their results are given by the result type (``: (src type) -> result type``); the verifiers
check it against the shape functions. ``dnn.reorder`` is the only op that changes a layout
and ``dnn.cast`` the only one that changes an element type.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar, TypeGuard

from xdsl.dialects.builtin import (
    I64,
    BoolAttr,
    BytesAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    NoneAttr,
    StringAttr,
    TensorType,
    f32,
    f64,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import ConstantLike, Pure
from xdsl.utils.exceptions import VerifyException

from dnnc.core import shapes
from dnnc.core.kinds import DataType
from dnnc.core.layouts import Layout
from dnnc.core.symbols import SymbolicInt, untraced
from dnnc.dialects.dnn.base import (
    TRUE,
    DnnOp,
    i64_array,
    int_of,
    ints,
    layout_of,
    result_like,
    shape_of,
    tensor_of,
    tensor_type,
)

_UNARY_FORMAT = "$src attr-dict `:` functional-type($src, $result)"


class _UnaryOp(DnnOp):
    """One tensor in, one out; the result type is written out."""

    src = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = _UNARY_FORMAT


@irdl_op_definition
class ConcatOp(DnnOp):
    """Concatenation along ``axis`` (oneDNN ``concat``): inputs laid end to end on that axis."""

    name = "dnn.concat"
    inputs = var_operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr[I64])
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$inputs attr-dict `:` functional-type($inputs, $result)"

    def __init__(
        self, inputs: Sequence[SSAValue], *, axis: int, result_type: TensorType | None = None
    ):
        if result_type is None:
            shape = shapes.concat([shape_of(v) for v in inputs], axis=axis)
            result_type = result_like(inputs[0], shape)
        super().__init__(
            operands=[inputs],
            result_types=[result_type],
            properties={"axis": IntegerAttr(axis, i64)},
        )

    def verify_op(self) -> None:
        inferred = shapes.concat([shape_of(v) for v in self.inputs], axis=int_of(self.axis))
        self.expect_result_shape(self.result, inferred)


@irdl_op_definition
class KvAppendOp(DnnOp):
    """A key/value cache append: ``new`` laid after ``past`` along ``axis`` (values as
    ``dnn.concat`` of the two). Unlike a concat, it says that ``past`` is a cache the function
    receives as state and the result is that cache grown: a runtime may keep ``past`` in a
    buffer with room beyond its end and write only ``new`` there (dnn-recover-kv-append)."""

    name = "dnn.kv_append"
    past = operand_def(TensorType)
    new = operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr[I64])
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$past `,` $new attr-dict `:` `(` type($past) `,` type($new) `)` `->` type($result)"
    )

    def verify_op(self) -> None:
        past, new = tensor_type(self.past), tensor_type(self.new)
        if past.get_element_type() != new.get_element_type():
            raise VerifyException(
                f"past and new must have one element type, got {past.get_element_type()} "
                f"and {new.get_element_type()}"
            )
        inferred = shapes.concat([shape_of(self.past), shape_of(self.new)], axis=int_of(self.axis))
        self.expect_result_shape(self.result, inferred)


@irdl_op_definition
class SliceOp(_UnaryOp):
    """Strided window: dst[i...] = src[start + i * step ...] per dimension (oneDNN ``reorder``
    from a sub-memory descriptor when every step is 1; the reference kernel otherwise).
    ``steps`` absent means all 1.
    """

    name = "dnn.slice"
    starts = prop_def(DenseArrayBase[I64])
    ends = prop_def(DenseArrayBase[I64])
    steps = opt_prop_def(DenseArrayBase[I64])

    def __init__(
        self,
        src: SSAValue,
        *,
        starts: Sequence[int],
        ends: Sequence[int],
        steps: Sequence[int] | None = None,
        result_type: TensorType | None = None,
    ):
        if result_type is None:
            shape = shapes.slice(shape_of(src), starts=starts, ends=ends, steps=steps)
            result_type = result_like(src, shape)
        super().__init__(
            operands=[src],
            result_types=[result_type],
            properties={
                "starts": i64_array(*starts),
                "ends": i64_array(*ends),
                "steps": None if steps is None else i64_array(*steps),
            },
        )

    def verify_op(self) -> None:
        inferred = shapes.slice(
            shape_of(self.src),
            starts=ints(self.starts),
            ends=ints(self.ends),
            steps=ints(self.steps),
        )
        if not any(isinstance(d, SymbolicInt) for d in shape_of(self.result)):
            self.expect_result_shape(self.result, inferred)
            return
        with untraced():  # packed ends hold a traced size without its expression: a check
            self.expect_result_shape(self.result, inferred)  # of a copy decides nothing


@irdl_op_definition
class ReshapeOp(_UnaryOp):
    """The same elements in row-major order under a new shape (no primitive: a view of
    plain data, so both types must be plain)."""

    name = "dnn.reshape"

    def __init__(self, src: SSAValue, shape: Sequence[int]):
        """`src` (plain) viewed with `shape`."""
        element = tensor_type(src).get_element_type()
        super().__init__(operands=[src], result_types=[tensor_of(element, shape)])

    def verify_op(self) -> None:
        for name, value in (("src", self.src), ("result", self.result)):
            if not isinstance(tensor_type(value).encoding, NoneAttr):
                raise VerifyException(
                    f"{name} must have the plain layout: a reshape views plain data "
                    "(dnn.reorder to plain first)",
                )
        shapes.reshape(shape_of(self.src), shape=shape_of(self.result))


@irdl_op_definition
class TransposeOp(_UnaryOp):
    """Dimension permutation: dst dimension i is src dimension permutation[i] (oneDNN
    ``reorder`` between permuted strides). The result is in src's layout (the data moves)
    or, from an unblocked src, in ``layout_of(src).transposed(permutation)``: the same bytes
    seen with the dims permuted, a view that runs nothing (``is_view``)."""

    name = "dnn.transpose"
    permutation = prop_def(DenseArrayBase[I64])
    RESULT_LAYOUT_EXCEPTION: ClassVar[str] = (
        ", or be the src layout transposed (a view of unblocked data)"
    )

    def __init__(
        self,
        src: SSAValue,
        *,
        permutation: Sequence[int],
        result_type: TensorType | None = None,
    ):
        if result_type is None:
            shape = shapes.transpose(shape_of(src), permutation=permutation)
            result_type = result_like(src, shape)
        super().__init__(
            operands=[src],
            result_types=[result_type],
            properties={"permutation": i64_array(*permutation)},
        )

    def verify_op(self) -> None:
        inferred = shapes.transpose(shape_of(self.src), permutation=ints(self.permutation))
        self.expect_result_shape(self.result, inferred)

    def view_layout(self, src: TensorType) -> Layout | None:
        """The result layout that makes this transpose of a `src` a view, its unit dims
        outermost (None: src is blocked)."""
        layout = layout_of(src)
        if layout.is_blocked:
            return None
        shape = shapes.transpose(tuple(src.get_shape()), permutation=ints(self.permutation))
        return layout.transposed(ints(self.permutation)).units_outermost(shape)

    def allows_result_layout(self, layout: Layout, src: TensorType) -> bool:
        if layout == layout_of(src):
            return True
        shape = tuple(tensor_type(self.result).get_shape())
        return self.view_layout(src) == layout.units_outermost(shape)

    def is_view(self) -> bool:
        """Whether the result holds src's bytes as they are (class docstring)."""
        result = tensor_type(self.result)
        view = self.view_layout(tensor_type(self.src))
        return view == layout_of(result).units_outermost(tuple(result.get_shape()))


class _IndexedPick(DnnOp):
    """What gather and gather_elements share: src, integer indices, an axis; ``INFER_SHAPE``
    is the shape function of the one or the other. No oneDNN primitive: reference kernels
    only; a negative index counts from the end, one out of range is a run-time error."""

    INFER_SHAPE: ClassVar[Callable[..., shapes.Shape]]
    src = operand_def(TensorType)
    indices = operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr[I64], IntegerAttr(0, i64))
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$src `[` $indices `]` attr-dict `:` functional-type(operands, results)"

    def __init__(
        self,
        src: SSAValue,
        indices: SSAValue,
        *,
        axis: int = 0,
        result_type: TensorType | None = None,
    ):
        if result_type is None:
            shape = type(self).INFER_SHAPE(shape_of(src), shape_of(indices), axis=axis)
            result_type = result_like(src, shape)
        super().__init__(
            operands=[src, indices],
            result_types=[result_type],
            properties={"axis": IntegerAttr(axis, i64)},
        )

    def verify_op(self) -> None:
        element = tensor_type(self.indices).get_element_type()
        if element not in (i32, i64):
            raise VerifyException(f"indices have element type {element}, expected i32 or i64")
        inferred = type(self).INFER_SHAPE(
            shape_of(self.src), shape_of(self.indices), axis=int_of(self.axis)
        )
        self.expect_result_shape(self.result, inferred)


@irdl_op_definition
class GatherOp(_IndexedPick):
    """Entries of ``src`` along ``axis`` picked by ``indices`` (i32 or i64):
    result[i..., j..., k...] = src[i..., indices[j...], k...], as ONNX Gather (embedding
    lookups, index selects)."""

    name = "dnn.gather"
    INFER_SHAPE = staticmethod(shapes.gather)


@irdl_op_definition
class GatherElementsOp(_IndexedPick):
    """Entries of ``src`` picked one by one along ``axis`` (ONNX GatherElements):
    result[i, j, k] = src[indices[i, j, k], j, k] for axis 0, and so on; ``indices`` has src's
    rank and gives the result its shape."""

    name = "dnn.gather_elements"
    INFER_SHAPE = staticmethod(shapes.gather_elements)


@irdl_op_definition
class GatherNDOp(DnnOp):
    """Slices of ``src`` picked by index tuples (ONNX GatherND): with ``batch_dims`` b and
    indices ending in k, result[i..., j...] = src[i[:b]..., indices[i...], j...], each
    ``indices`` row (i32 or i64) naming k coordinates after the b batch axes. No oneDNN
    primitive: reference kernel only; a negative index counts from the end, one out of range
    is a run-time error."""

    name = "dnn.gather_nd"
    src = operand_def(TensorType)
    indices = operand_def(TensorType)
    result = result_def(TensorType)
    batch_dims = prop_def(IntegerAttr[I64], IntegerAttr(0, i64))
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$src `[` $indices `]` attr-dict `:` functional-type(operands, results)"

    def __init__(
        self,
        src: SSAValue,
        indices: SSAValue,
        *,
        batch_dims: int = 0,
        result_type: TensorType | None = None,
    ):
        if result_type is None:
            shape = shapes.gather_nd(shape_of(src), shape_of(indices), batch_dims=batch_dims)
            result_type = result_like(src, shape)
        super().__init__(
            operands=[src, indices],
            result_types=[result_type],
            properties={"batch_dims": IntegerAttr(batch_dims, i64)},
        )

    def verify_op(self) -> None:
        element = tensor_type(self.indices).get_element_type()
        if element not in (i32, i64):
            raise VerifyException(f"indices have element type {element}, expected i32 or i64")
        inferred = shapes.gather_nd(
            shape_of(self.src), shape_of(self.indices), batch_dims=int_of(self.batch_dims)
        )
        self.expect_result_shape(self.result, inferred)


RESIZE_MODES = ("nearest", "linear", "cubic")
COORDINATE_MODES = (
    "half_pixel",
    "half_pixel_symmetric",
    "pytorch_half_pixel",
    "align_corners",
    "asymmetric",
    "tf_half_pixel_for_nn",
)
NEAREST_MODES = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")


@irdl_op_definition
class ResizeOp(DnnOp):
    """``src`` resampled to ``sizes`` (ONNX Resize), axis by axis: output coordinate x maps to
    an input coordinate by ``coordinate_mode`` with that axis's ``scales`` entry; ``nearest``
    takes the element ``nearest_mode`` rounds it to, ``linear`` interpolates its two
    neighbours, ``cubic`` its four (``cubic_coeff_a``; ``exclude_outside`` drops those beyond
    the edge); coordinates outside the input take the edge. oneDNN's resampling runs linear
    half_pixel and nearest upsampling by whole factors (``kernel_calls._onednn_resize``), the
    reference kernel the rest."""

    name = "dnn.resize"
    src = operand_def(TensorType)
    result = result_def(TensorType)
    sizes = prop_def(DenseArrayBase[I64])
    scales = prop_def(DenseArrayBase)
    mode = prop_def(StringAttr)
    coordinate_mode = prop_def(StringAttr, StringAttr("half_pixel"))
    nearest_mode = prop_def(StringAttr, StringAttr("round_prefer_floor"))
    cubic_coeff_a = prop_def(FloatAttr, FloatAttr(-0.75, f32))
    exclude_outside = prop_def(BoolAttr, IntegerAttr.from_bool(False))
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$src attr-dict `:` functional-type($src, $result)"

    def __init__(
        self,
        src: SSAValue,
        *,
        sizes: Sequence[int],
        scales: Sequence[float],
        mode: str,
        coordinate_mode: str = "half_pixel",
        nearest_mode: str = "round_prefer_floor",
        cubic_coeff_a: float = -0.75,
        exclude_outside: bool = False,
    ):
        super().__init__(
            operands=[src],
            result_types=[result_like(src, sizes)],
            properties={
                "sizes": i64_array(*sizes),
                "scales": DenseArrayBase.from_list(f64, scales),
                "mode": StringAttr(mode),
                "coordinate_mode": StringAttr(coordinate_mode),
                "nearest_mode": StringAttr(nearest_mode),
                "cubic_coeff_a": FloatAttr(cubic_coeff_a, f32),
                "exclude_outside": IntegerAttr.from_bool(exclude_outside),
            },
        )

    def verify_op(self) -> None:
        for what, value, valid in (
            ("mode", self.mode.data, RESIZE_MODES),
            ("coordinate_mode", self.coordinate_mode.data, COORDINATE_MODES),
            ("nearest_mode", self.nearest_mode.data, NEAREST_MODES),
        ):
            if value not in valid:
                raise VerifyException(f"{what} '{value}' is not one of {', '.join(valid)}")
        rank = len(shape_of(self.src))
        sizes, scales = ints(self.sizes), list(self.scales.get_values())
        if len(sizes) != rank or len(scales) != rank:
            raise VerifyException(f"sizes and scales need {rank} entries (the source's rank)")
        if any(s < 0 for s in sizes) or any(not float(s) > 0 for s in scales):
            raise VerifyException("sizes must be >= 0 and scales > 0")
        self.expect_result_shape(self.result, tuple(sizes))


@irdl_op_definition
class TopKOp(DnnOp):
    """The k largest (or smallest) entries along ``axis`` and their i64 indices, ordered
    best first when ``sorted`` (no oneDNN primitive: reference kernel only)."""

    name = "dnn.top_k"
    RESULT_TYPES: ClassVar[dict[str, DataType]] = {"indices": DataType.S64}
    src = operand_def(TensorType)
    values = result_def(TensorType)
    indices = result_def(TensorType)
    k = prop_def(IntegerAttr[I64])
    axis = prop_def(IntegerAttr[I64], IntegerAttr(-1, i64))
    largest = prop_def(BoolAttr, TRUE)
    sorted = prop_def(BoolAttr, TRUE)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$src attr-dict `:` functional-type($src, results)"

    def __init__(
        self,
        src: SSAValue,
        *,
        k: int,
        axis: int = -1,
        largest: bool = True,
        sorted: bool = True,
    ):
        values, indices = shapes.top_k(shape_of(src), k=k, axis=axis)
        super().__init__(
            operands=[src],
            result_types=[result_like(src, values), tensor_of(i64, indices)],
            properties={
                "k": IntegerAttr(k, i64),
                "axis": IntegerAttr(axis, i64),
                "largest": IntegerAttr.from_bool(largest),
                "sorted": IntegerAttr.from_bool(sorted),
            },
        )

    def verify_op(self) -> None:
        values, indices = shapes.top_k(shape_of(self.src), k=int_of(self.k), axis=int_of(self.axis))
        self.expect_result_shape(self.values, values)
        self.expect_result_shape(self.indices, indices)


@irdl_op_definition
class ReorderOp(_UnaryOp):
    """The same logical tensor in the layout of the result type (oneDNN ``reorder``). Between
    unblocked layouts that differ only in where dims of size 1 go (``nhwc`` and ``nchw`` of a
    1xCx1x1 tensor), no byte moves: a view that runs nothing (``is_view``)."""

    name = "dnn.reorder"

    def __init__(self, src: SSAValue, result_type: TensorType):
        """`src` reordered to `result_type`, which differs from src's type in layout only."""
        super().__init__(operands=[src], result_types=[result_type])

    def verify_op(self) -> None:
        self.expect_result_shape(self.result, shapes.reorder(shape_of(self.src)))

    def verify_result_types(self) -> None:
        self.expect_element_type("result", self.result, self.src)

    def is_view(self) -> bool:
        """Whether the result holds src's bytes as they are (class docstring)."""
        result = tensor_type(self.result)
        return layout_of(tensor_type(self.src)).same_bytes(
            layout_of(result), tuple(result.get_shape())
        )


def is_view(op: Operation) -> TypeGuard[ReshapeOp | TransposeOp | ReorderOp]:
    """Whether `op` runs nothing, its result being its source's bytes seen with another type:
    a dnn.reshape, or a dnn.transpose or dnn.reorder that moves no byte."""
    return isinstance(op, ReshapeOp) or (isinstance(op, TransposeOp | ReorderOp) and op.is_view())


@irdl_op_definition
class CastOp(_UnaryOp):
    """The same tensor converted to the result's element type, rounding to nearest even and
    saturating to integer ranges (oneDNN ``reorder`` between data types)."""

    name = "dnn.cast"

    def __init__(self, src: SSAValue, element: Attribute):
        """`src` converted to the element type `element`."""
        type_ = tensor_type(src)
        result_type = TensorType(element, type_.get_shape(), type_.encoding)
        super().__init__(operands=[src], result_types=[result_type])

    def verify_op(self) -> None:
        self.expect_result_shape(self.result, shapes.cast(shape_of(self.src)))

    def verify_result_types(self) -> None:
        self.expect_layout("result", self.result, self.src)


@irdl_op_definition
class ConstantOp(DnnOp):
    """A tensor given inline: ``dnn.constant dense<...> : tensor<...>`` (no primitive).

    The value's type is the result type, layout included; the elements are in logical order.
    """

    name = "dnn.constant"
    result = result_def(TensorType)
    value = prop_def(DenseIntOrFPElementsAttr)
    traits = traits_def(Pure(), ConstantLike())

    def __init__(self, value: DenseIntOrFPElementsAttr):
        super().__init__(result_types=[value.type], properties={"value": value})

    @classmethod
    def of_bytes(cls, type_: TensorType, data: bytes) -> ConstantOp:
        """A constant of `type_` whose elements are `data` (row-major, in the element type)."""
        # xDSL's stub wants a tensor type with a static element type; any dnn one is valid
        return cls(DenseIntOrFPElementsAttr(type_, BytesAttr(data)))  # type: ignore[arg-type]

    def verify_op(self) -> None:
        if self.value.type != self.result.type:
            raise VerifyException(
                f"value type {self.value.type} must equal the result type {self.result.type}",
            )

    @classmethod
    def parse(cls, parser: Parser) -> ConstantOp:
        start = parser.pos
        value = parser.parse_attribute()
        if not isinstance(value, DenseIntOrFPElementsAttr):
            parser.raise_error(
                "dnn.constant expects a dense<...> : tensor<...> value", start, parser.pos
            )
        attributes: dict[str, Attribute] = dict(parser.parse_optional_attr_dict())
        op = cls(value)
        op.attributes |= attributes
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attribute(self.value)
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class WeightOp(DnnOp):
    """A tensor loaded once from a file: ``file`` is a path relative to the IR file, ``key``
    the array's name in an ``.npz`` (absent for ``.npy``). No primitive."""

    name = "dnn.weight"
    result = result_def(TensorType)
    file = prop_def(StringAttr)
    key = opt_prop_def(StringAttr)
    traits = traits_def(Pure())
    assembly_format = "$file (`,` $key^)? attr-dict `:` type($result)"

    def __init__(self, file: str, key: str | None, result_type: TensorType):
        super().__init__(
            result_types=[result_type],
            properties={"file": StringAttr(file), "key": None if key is None else StringAttr(key)},
        )

    def verify_op(self) -> None:
        suffix = self.file.data.rsplit(".", 1)[-1]
        if suffix not in ("npz", "npy") or (suffix == "npz") != (self.key is not None):
            raise VerifyException(
                f"file '{self.file.data}' with {'a' if self.key else 'no'} key: expected an "
                ".npz file and a key, or an .npy file and no key",
            )


DATA_OPS: tuple[type[DnnOp], ...] = (
    ConcatOp,
    KvAppendOp,
    SliceOp,
    ReshapeOp,
    TransposeOp,
    GatherOp,
    GatherElementsOp,
    GatherNDOp,
    ResizeOp,
    TopKOp,
    ReorderOp,
    CastOp,
    ConstantOp,
    WeightOp,
)
"""The data-movement and source ops, in docs/dialect.md order."""
