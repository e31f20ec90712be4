"""The value-argument contract of a dnn function: ops that wait for some arguments' values.

dnn takes shapes, axes, bounds and scales as properties, known when the function is
compiled. A model may compute one from a graph input's *values* (ONNX Reshape's target,
Slice's starts, TopK's K given as inputs). The importer keeps such a node as it is, and
says which arguments it waits for (docs/dialect.md, "Value arguments"):

* ``dnn.deferred "onnx.Reshape"(%x, %shape) {opset = 21 : i64, source_attributes = {...}}``:
  one op of the source model (``<frontend>.<op type>``), its attributes as that model gave
  them and the opset they mean something in; results typed as far as the source knows them
  (``?`` dimensions, or unranked ``tensor<*xf32>``). No pass touches it: it has no semantics
  in dnn until the frontend converts it.
* ``{dnn.value_arg}`` (argument): the compiled function is specialized per value of this
  argument: each distinct value set becomes ``dnn.constant`` ops, constant subgraphs fold, the
  frontend converts every ``dnn.deferred`` into dnn ops, and the then ordinary function runs
  the pipeline (dnnc.driver.values).

``verify`` checks the function-level rules: a function has value arguments exactly when it
has deferred ops; such a function has static arguments only (a value becomes a constant of
its argument's type, and the deferred ops convert on static operands) and no ``dnn.symbols``;
a deferred result that is not static (a ``?`` dimension, unranked) is read only by deferred
ops and the return, so converting the deferred ops in order leaves no type to infer again.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    I64,
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    TensorType,
    UnitAttr,
    UnrankedTensorType,
    f32,
    i64,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    base,
    irdl_op_definition,
    opt_prop_def,
    prop_def,
    var_operand_def,
    var_result_def,
)
from xdsl.utils.exceptions import VerifyException

from dnnc.core import shapes
from dnnc.dialects.dnn.symbolic import SYMBOLS
from dnnc.dialects.types import DATA_TYPES

VALUE_ARG = "dnn.value_arg"
"""The argument attribute (a unit attribute) of an argument specialized on its value."""

_SOURCE_OP = re.compile(r"^[a-z][a-z0-9_]*\.[A-Za-z_][A-Za-z0-9_]*$")

AnyTensor = base(TensorType) | base(UnrankedTensorType)
"""A ranked or unranked tensor: a deferred result may be of unknown rank."""


@irdl_op_definition
class DeferredOp(IRDLOperation):
    """An op of the source model kept as it is until some argument values are known
    (module docstring)."""

    name = "dnn.deferred"
    inputs = var_operand_def(AnyTensor)
    outputs = var_result_def(AnyTensor)
    source_op = prop_def(StringAttr)
    """``<frontend>.<op type>``: ``onnx.Reshape``."""
    opset = prop_def(IntegerAttr[I64])
    """The source's version the op and its attributes mean something in (ONNX's opset)."""
    source_attributes = opt_prop_def(DictionaryAttr)
    """The source op's attributes: integers (``i64``), floats (``f32``), strings, arrays of
    each (``array<i64: ...>``, ``array<f32: ...>``, ``[strings]``) and tensors (dense)."""
    absent_inputs = opt_prop_def(DenseArrayBase)
    """The positions of the source op's optional inputs left out (ONNX's ``""``); the
    operands are the other inputs, in order."""
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$source_op `(` $inputs `)` attr-dict `:` functional-type($inputs, $outputs)"

    def __init__(
        self,
        source_op: str,
        inputs: list[SSAValue],
        result_types: list[Attribute],
        *,
        opset: int,
        source_attributes: dict[str, Attribute] | None = None,
        absent_inputs: Sequence[int] = (),
    ) -> None:
        properties: dict[str, Attribute] = {
            "source_op": StringAttr(source_op),
            "opset": IntegerAttr(opset, i64),
        }
        if source_attributes:
            properties["source_attributes"] = DictionaryAttr(source_attributes)
        if absent_inputs:
            properties["absent_inputs"] = DenseArrayBase.from_list(i64, list(absent_inputs))
        super().__init__(operands=[inputs], result_types=[result_types], properties=properties)

    @property
    def frontend(self) -> str:
        """The source model's kind: ``onnx`` of ``onnx.Reshape``."""
        return self.source_op.data.split(".", 1)[0]

    @property
    def op_type(self) -> str:
        """The op in the source model: ``Reshape`` of ``onnx.Reshape``."""
        return self.source_op.data.split(".", 1)[1]

    def verify_(self) -> None:
        if not _SOURCE_OP.match(self.source_op.data):
            raise VerifyException(
                f"source_op '{self.source_op.data}' must be <frontend>.<op type> (onnx.Reshape)"
            )
        if self.opset.value.data < 1:
            raise VerifyException(f"opset must be >= 1, got {self.opset.value.data}")
        if not self.outputs:
            raise VerifyException("a deferred op has at least one result")
        absent = list(self.absent_inputs.get_values()) if self.absent_inputs else []
        positions = len(self.inputs) + len(absent)
        integers = self.absent_inputs is None or self.absent_inputs.elt_type == i64
        if (
            not integers
            or absent != sorted(set(absent))
            or any(not 0 <= p < positions for p in absent)
        ):
            raise VerifyException(
                f"absent_inputs must be ascending distinct i64 positions below {positions} (the "
                f"operands and the absent inputs), got {absent}"
            )
        for value in (*self.inputs, *self.outputs):
            element = element_type(value)
            if element not in DATA_TYPES:
                raise VerifyException(
                    f"element type {element} is none of dnn's ({', '.join(map(str, DATA_TYPES))})"
                )
        for key, attr in (self.source_attributes.data if self.source_attributes else {}).items():
            if not _is_source_attribute(attr):
                raise VerifyException(
                    f"source attribute '{key}' is none of an i64 or f32 number, a string, an "
                    "array<i64>/array<f32>, an array of strings or a dense tensor"
                )


def _is_source_attribute(attr: Attribute) -> bool:
    if isinstance(attr, IntegerAttr):
        return attr.type == i64
    if isinstance(attr, FloatAttr):
        return attr.type == f32
    if isinstance(attr, DenseArrayBase):
        return attr.elt_type in (i64, f32)
    if isinstance(attr, ArrayAttr):
        return all(isinstance(a, StringAttr) for a in attr.data)
    return isinstance(attr, StringAttr | DenseIntOrFPElementsAttr)


def element_type(value: SSAValue) -> Attribute:
    """The element type of a ranked or unranked tensor value."""
    type_ = value.type
    assert isinstance(type_, TensorType | UnrankedTensorType)  # the op's constraint
    return type_.get_element_type()


def is_static(value: SSAValue) -> bool:
    """Whether a value's type is a ranked tensor without ``?`` dimensions."""
    type_ = value.type
    return isinstance(type_, TensorType) and shapes.DYNAMIC not in (
        shapes.DYNAMIC if d < 0 else d for d in type_.get_shape()
    )


def value_args(function: func.FuncOp) -> list[int]:
    """The indices of the arguments marked ``dnn.value_arg``, in order."""
    found = []
    for index, attrs in enumerate(function.arg_attrs.data if function.arg_attrs else ()):
        value = attrs.data.get(VALUE_ARG) if isinstance(attrs, DictionaryAttr) else None
        if value is not None:
            if not isinstance(value, UnitAttr):
                raise VerifyException(f"argument {index}: {VALUE_ARG} is a unit attribute")
            found.append(index)
    return found


def deferred_ops(function: func.FuncOp) -> Iterator[DeferredOp]:
    """The function's deferred ops, in order."""
    return (op for op in function.body.block.ops if isinstance(op, DeferredOp))


def verify(function: func.FuncOp) -> None:
    """The function-level rules of the module docstring; a VerifyException otherwise."""
    if not function.body.blocks:
        return
    marked = value_args(function)
    deferred = list(deferred_ops(function))
    if deferred and not marked:
        raise VerifyException(
            f"'{deferred[0].name}' {deferred[0].source_op.data} waits for argument values, "
            f"but no argument is marked {VALUE_ARG}"
        )
    if marked and not deferred:
        raise VerifyException(f"{VALUE_ARG} on argument {marked[0]}, but no dnn.deferred op waits")
    if marked and SYMBOLS in function.attributes:
        raise VerifyException(f"{VALUE_ARG} and {SYMBOLS} do not mix")
    for arg in function.body.block.args if marked else ():
        if not is_static(arg):
            raise VerifyException(
                f"argument {arg.index} is of type {arg.type}: a function with {VALUE_ARG} "
                "arguments has static arguments only"
            )
    for op in deferred:
        for result in op.outputs:
            if is_static(result):
                continue
            for use in result.uses:
                if not isinstance(use.operation, DeferredOp | func.ReturnOp):
                    raise VerifyException(
                        f"'{use.operation.name}' reads a dnn.deferred result of type "
                        f"{result.type}: only deferred ops and the return read one that is "
                        "not static"
                    )


__all__ = [
    "VALUE_ARG",
    "DeferredOp",
    "deferred_ops",
    "element_type",
    "is_static",
    "value_args",
    "verify",
]
