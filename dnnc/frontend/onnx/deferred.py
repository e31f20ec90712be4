"""ONNX nodes that wait for graph inputs' values: kept as ``dnn.deferred``, converted later.

A converter reads some operands at import time (``VALUE_OPERANDS``: a Reshape's target,
Slice's starts, TopK's K, Resize's scales). When it asks for one that is computed at run time
from graph inputs (its RunTimeValueError) and every graph input is static, the importer drops
what the converter emitted and keeps the node as ``dnn.deferred "onnx.<op>"`` (its attributes
in ``source_attributes``, the opset, the absent optional inputs by position), marking the
inputs whose values reach those operands ``dnn.value_arg`` (dnnc.dialects.dnn.deferred states
the contract). The converter runs first, so what it refuses (an attribute it does not
implement) is still refused at import. Without a converter, Range and ConstantOfShape (folded
when their operands are known) wait the same way; a node reading a deferred result that is not
static waits too: its converter needs the shape.

``convert_deferred(op)`` converts one such op once its value operands are ``dnn.constant``s
(dnnc.driver.values substitutes the arguments' values and folds first): the node is imported
alone, as a model whose constant operands are initializers and whose other operands are graph
inputs of their types, with the converters the whole model's import uses, and the ops of
that import replace it. So a value-specialized function is what the import of the model
with those inputs as initializers makes (the route dnnc.driver.onnx_shapes takes for models
with ``?`` dimensions).
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import helper, numpy_helper
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    BytesAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    NameLoc,
    StringAttr,
    TensorType,
    f32,
    i64,
)
from xdsl.ir import Attribute

from dnnc.core.diagnostics import error_at
from dnnc.core.kinds import DataType
from dnnc.dialects.dnn import ConstantOp
from dnnc.dialects.dnn.deferred import DeferredOp, element_type, is_static
from dnnc.dialects.types import data_type_of, element_type_of
from dnnc.frontend.onnx.graph import Node
from dnnc.ir.weights import constant_value

VALUE_OPERANDS: dict[str, tuple[int, ...]] = {
    "Reshape": (1,),
    "Expand": (1,),
    "Tile": (1,),
    "Slice": (1, 2, 3, 4),
    "Squeeze": (1,),
    "Unsqueeze": (1,),
    "Pad": (1, 2, 3),
    "Split": (1,),
    "TopK": (1,),
    "CumSum": (1,),
    "Resize": (1, 2, 3),
    "Upsample": (1,),
    "ReduceSum": (1,),
    "ReduceMean": (1,),
    "ReduceMax": (1,),
    "ReduceMin": (1,),
    "ReduceSumSquare": (1,),
    "Range": (0, 1, 2),
    "ConstantOfShape": (0,),
}
"""The operands each ONNX op's converter reads at import time (shapes, axes, bounds); Range
and ConstantOfShape have no converter: they are folded, so every operand is one."""

SHAPE_READERS = frozenset({"Shape", "Size"})
"""Ops that read only their input's shape: the values of that input are never needed."""


def source_attributes(node: Node) -> dict[str, Attribute] | None:
    """A node's attributes as ``dnn.deferred`` holds them (dnnc.dialects.dnn.deferred); None
    when one has no such form (a graph, a sparse tensor, a tensor dnn has no type of)."""
    kinds = onnx.AttributeProto
    attributes: dict[str, Attribute] = {}
    for attribute in node.proto.attribute:
        if attribute.type == kinds.INT:
            attributes[attribute.name] = IntegerAttr(attribute.i, i64)
        elif attribute.type == kinds.FLOAT:
            attributes[attribute.name] = FloatAttr(attribute.f, f32)
        elif attribute.type == kinds.STRING:
            attributes[attribute.name] = StringAttr(attribute.s.decode())
        elif attribute.type == kinds.INTS:
            attributes[attribute.name] = DenseArrayBase.from_list(i64, list(attribute.ints))
        elif attribute.type == kinds.FLOATS:
            attributes[attribute.name] = DenseArrayBase.from_list(f32, list(attribute.floats))
        elif attribute.type == kinds.STRINGS:
            attributes[attribute.name] = ArrayAttr(
                [StringAttr(s.decode()) for s in attribute.strings]
            )
        elif attribute.type == kinds.TENSOR:
            array = numpy_helper.to_array(attribute.t)
            try:
                element = element_type_of(DataType.of_numpy(array.dtype))
            except ValueError:
                return None
            type_ = TensorType(element, array.shape)
            data = BytesAttr(np.ascontiguousarray(array).tobytes())
            attributes[attribute.name] = DenseIntOrFPElementsAttr(type_, data)  # type: ignore[type-var]
        else:
            return None
    return attributes


def _onnx_attribute(name: str, attr: Attribute) -> onnx.AttributeProto:
    """The ONNX attribute a ``source_attributes`` entry came from (``source_attributes``)."""
    kinds = onnx.AttributeProto
    if isinstance(attr, IntegerAttr):
        return helper.make_attribute(name, attr.value.data, attr_type=kinds.INT)
    if isinstance(attr, FloatAttr):
        return helper.make_attribute(name, attr.value.data, attr_type=kinds.FLOAT)
    if isinstance(attr, StringAttr):
        return helper.make_attribute(name, attr.data, attr_type=kinds.STRING)
    if isinstance(attr, DenseArrayBase):
        values = list(attr.get_values())
        kind = kinds.FLOATS if attr.elt_type == f32 else kinds.INTS
        return helper.make_attribute(name, values, attr_type=kind)
    if isinstance(attr, ArrayAttr):
        strings = [a.data for a in attr.data if isinstance(a, StringAttr)]
        return helper.make_attribute(name, strings, attr_type=kinds.STRINGS)
    assert isinstance(attr, DenseIntOrFPElementsAttr)  # the verifier allows nothing else
    type_ = attr.type
    assert isinstance(type_, TensorType)
    array = np.frombuffer(attr.data.data, data_type_of(type_.get_element_type()).numpy)
    tensor = numpy_helper.from_array(array.reshape(tuple(type_.get_shape())))
    return helper.make_attribute(name, tensor, attr_type=kinds.TENSOR)


def _label(op: DeferredOp) -> str:
    """The node's name in messages: its location's (the importer puts it there)."""
    return op.location.desc.data if isinstance(op.location, NameLoc) else op.op_type


def _one_node_model(op: DeferredOp) -> tuple[onnx.ModelProto, list[int]]:
    """The op as an ONNX model of one node: its constant operands are initializers, the
    others graph inputs (their indices returned, in order) of their types."""
    absent = set(op.absent_inputs.get_values()) if op.absent_inputs else set()
    operands = iter(enumerate(op.inputs))
    names: list[str] = []
    inputs, initializers, kept = [], [], []
    for position in range(len(op.inputs) + len(absent)):
        if position in absent:
            names.append("")
            continue
        index, value = next(operands)
        name = f"input{position}"
        names.append(name)
        if isinstance(value.owner, ConstantOp):
            initializers.append(numpy_helper.from_array(constant_value(value.owner), name))
            continue
        type_ = value.type
        if not is_static(value):
            raise error_at(op, f"operand {index} is of type {type_}: it must be static by now")
        assert isinstance(type_, TensorType)  # is_static
        element = helper.np_dtype_to_tensor_dtype(data_type_of(type_.get_element_type()).numpy)
        inputs.append(helper.make_tensor_value_info(name, element, type_.get_shape()))
        kept.append(index)
    outputs = [f"output{i}" for i in range(len(op.outputs))]
    node = helper.make_node(op.op_type, names, outputs, name=_label(op))
    attributes = op.source_attributes.data if op.source_attributes else {}
    node.attribute.extend(_onnx_attribute(k, v) for k, v in attributes.items())
    graph = helper.make_graph(
        [node],
        _label(op),
        inputs,
        [helper.make_empty_tensor_value_info(o) for o in outputs],
        initializers,
    )
    opset = helper.make_opsetid("", op.opset.value.data)
    return helper.make_model(graph, opset_imports=[opset]), kept


def convert_deferred(op: DeferredOp) -> None:
    """Replace ``op`` with the dnn ops its node converts to (module docstring). A
    RunTimeValueError when an operand its converter reads is not yet a ``dnn.constant``; a
    DnncError naming the node for anything else its converter refuses."""
    from dnnc.frontend.onnx import imported  # the package imports the importer, which us

    if op.frontend != "onnx":
        raise error_at(op, f"'{op.source_op.data}': the ONNX frontend converts onnx.* ops only")
    model, kept = _one_node_model(op)
    module = imported(model, None)
    function = module.body.block.first_op
    assert isinstance(function, func.FuncOp)  # the importer makes one function
    body = function.body.block
    for arg, index in zip(body.args, kept, strict=True):
        arg.replace_all_uses_with(op.inputs[index])
    returned = body.last_op
    assert isinstance(returned, func.ReturnOp)  # the importer ends the function with it
    block = op.parent_block()
    assert block is not None  # a function's op
    moved = list(body.ops)[:-1]
    for inner in moved:
        inner.detach()
        inner.location = op.location
        block.insert_op_before(inner, op)
    results = list(returned.operands)
    returned.drop_all_references()  # its function is dropped: no use of ours may stay
    for old, new in zip(op.outputs, results, strict=True):
        if (is_static(old) and old.type != new.type) or element_type(old) != element_type(new):
            raise error_at(
                op, f"converted to a result of type {new.type} where the model says {old.type}"
            )
        if new.owner in moved:  # not an operand passed through (a no-op reduction)
            new.name_hint = old.name_hint
        old.replace_all_uses_with(new)
    block.erase_op(op)


__all__ = ["SHAPE_READERS", "VALUE_OPERANDS", "convert_deferred", "source_attributes"]
