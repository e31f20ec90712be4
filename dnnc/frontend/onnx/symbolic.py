"""An ONNX model with `?` input dimensions imported once, its shape arithmetic written into the
IR as expressions (dnnc.dialects.dnn.symbolic is the contract, docs/dialect.md shows it).

The import runs with every ``?`` input dimension a symbol (dnnc.core.symbols: an int with
a stand-in value, the *hint*, that keeps its expression): Shape/Size of an input give sizes,
the shape arithmetic folds into expressions (dnnc.frontend.onnx.folding.SYMBOLIC_FOLDERS),
and the types carry the expressions. Then ``write_symbols`` writes them out:
* every size that is an expression becomes ``?``; a ``dnn.reshape`` or ``dnn.slice`` with
  one keeps its result shape as ``dnn.dims`` (the slice's end on such an axis is then its
  source's size, or -1 where that is ``?`` too, the end being its start plus that size);
* data computed from the sizes (position ids: Range over sizes) is an argument with its
  ``dnn.shape_function``;
* each comparison the import made on a size (a broadcast, a size pinned to its value) is a
  condition in ``dnn.guards``; ``dnn.symbols`` binds the symbols to the input dimensions.

A size that leaves the int protocol (numpy, a packed property) loses its expression with no
guard, so the import runs twice, with two sets of hints (``HINTS`` and ``2h + 1`` of each,
which keeps their order and keeps them above 1; ``LARGE_HINTS`` when the model cannot be
imported with the first), and the two functions must be the same op for op: a difference is
a size the IR cannot express, and a ModelError that names the op. Only the first is
verified: the second, equal to it, verifies as it does.
Inputs sharing a ``dim_param`` share a hint (ONNX shape inference sees them equal).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import onnx
from xdsl.dialects import func
from xdsl.dialects.builtin import DYNAMIC_INDEX, FunctionType, ModuleOp, TensorType
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.rewriter import Rewriter

from dnnc.core import shapes
from dnnc.core.diagnostics import ModelError, RunTimeValueError, op_location
from dnnc.core.symbols import SymbolicInt, always_holds, holding, tracing
from dnnc.dialects.dnn import ReshapeOp, SliceOp, shape_of
from dnnc.dialects.dnn.base import i64_array, ints
from dnnc.dialects.dnn.symbolic import (
    DIMS,
    GUARDS,
    SYMBOLS,
    guards_of,
    shape_functions,
    symbols_attr,
    texts_attr,
)
from dnnc.frontend.onnx.graph import ModelSource, detached_model, read_model
from dnnc.ir.text import verify_module

HINTS = (3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47)
"""The first import's stand-in values of the symbols, one per distinct dimension."""
LARGE_HINTS = tuple(100 * h + 1 for h in HINTS)
"""The stand-ins tried when the model cannot be imported with ``HINTS`` (ONNX shape
inference fails: an audio model's strided convolutions leave nothing of 3 samples)."""


def _hinted(
    model: onnx.ModelProto, hints: Sequence[int]
) -> tuple[onnx.ModelProto, dict[str, tuple[int, ...]]]:
    """A copy of ``model`` (without large weights' data) whose ``?`` input dimensions are
    ``hints``, and each input's shape with symbols."""
    fixed = onnx.ModelProto()
    fixed.CopyFrom(model)
    initializers = {t.name for t in fixed.graph.initializer}
    keys: dict[object, int] = {}
    shapes: dict[str, tuple[int, ...]] = {}
    symbols = 0
    for value_info in fixed.graph.input:
        if value_info.name in initializers:
            continue
        dims: list[int] = []
        for index, dim in enumerate(value_info.type.tensor_type.shape.dim):
            if dim.HasField("dim_value"):
                dims.append(dim.dim_value)
                continue
            key = dim.dim_param or (value_info.name, index)
            if key not in keys:
                if len(keys) == len(hints):
                    raise ModelError(f"more than {len(hints)} distinct ? input dimensions")
                keys[key] = hints[len(keys)]
            dims.append(SymbolicInt.symbol(symbols, keys[key]))
            symbols += 1
            dim.Clear()
            dim.dim_value = keys[key]
        shapes[value_info.name] = tuple(dims)
    for value_info in fixed.graph.output:  # inference fills them in for the hints
        value_info.type.tensor_type.ClearField("shape")
    del fixed.graph.value_info[:]
    return fixed, shapes


def _import(
    model: onnx.ModelProto,
    weights: Mapping[str, np.ndarray],
    hints: Sequence[int],
    *,
    verify: bool = True,
) -> ModuleOp:
    """One import with hints (``_hinted``), its symbols written (``write_symbols``) and,
    if ``verify``, verified."""
    from dnnc.frontend.onnx import imported  # the package imports this module

    fixed, shapes = _hinted(model, hints)
    with tracing() as guards:
        module = imported(fixed, None, shapes, weights, writes_symbols=True)
    function = module.body.block.first_op
    assert isinstance(function, func.FuncOp)  # the importer makes one function
    count = sum(isinstance(d, SymbolicInt) for shape in shapes.values() for d in shape)
    conditions = [holding(g) for g in guards.values()]
    write_symbols(function, [c for c in conditions if not always_holds(c, count)])
    if verify:
        verify_module(module)
    return module


def _dynamic(value: SSAValue) -> TensorType | None:
    """``value``'s type with each expression as ``?``; None when it has none."""
    type_ = value.type
    if not isinstance(type_, TensorType):
        return None
    shape = list(type_.get_shape())
    if not any(isinstance(d, SymbolicInt) for d in shape):
        return None
    dims = [DYNAMIC_INDEX if isinstance(d, SymbolicInt) else d for d in shape]
    return TensorType(type_.get_element_type(), dims, type_.encoding)


def _end(end: int, size: int, source: int) -> int:
    """A slice's end as the IR writes it: on a sized axis (``size`` an expression) the
    source's size when static, else DYNAMIC (to the end of a ``?`` axis)."""
    if not isinstance(size, SymbolicInt):
        return end
    return shapes.DYNAMIC if isinstance(source, SymbolicInt) else source


def write_symbols(function: func.FuncOp, guards: Sequence[str]) -> None:
    """Write the expressions the types carry into the IR (module docstring)."""
    block = function.body.block
    computed = shape_functions(function)
    bindings = [
        (arg.index, dim)
        for arg in block.args
        if arg.index not in computed
        for dim, size in enumerate(shape_of(arg))
        if isinstance(size, SymbolicInt)  # an input's: a symbol (_hinted)
    ]
    values: list[SSAValue] = [*block.args]
    for op in block.ops:
        shape = shape_of(op.results[0]) if isinstance(op, ReshapeOp | SliceOp) else ()
        if any(isinstance(d, SymbolicInt) for d in shape):
            op.attributes[DIMS] = texts_attr(
                [d.text if isinstance(d, SymbolicInt) else str(d) for d in shape]
            )
            if isinstance(op, SliceOp):  # an end of a sized axis: the source's size, or ?
                ends = zip(ints(op.ends) or (), shape, shape_of(op.src), strict=True)
                op.ends = i64_array(*(_end(e, d, s) for e, d, s in ends))
        values.extend(op.results)
    for value in values:
        new = _dynamic(value)
        if new is not None:
            name = value.name_hint
            Rewriter.replace_value_with_new_type(value, new).name_hint = name
    returned = block.last_op
    assert isinstance(returned, func.ReturnOp)  # the importer ends the function with it
    function.function_type = FunctionType.from_lists(
        [a.type for a in block.args], [v.type for v in returned.operands]
    )
    function.attributes[SYMBOLS] = symbols_attr(bindings)
    if guards:
        function.attributes[GUARDS] = texts_attr(sorted(set(guards), key=guards.index))


def _difference(first: func.FuncOp, second: func.FuncOp) -> Operation | None:
    """The first op where two imports differ (module docstring), None when they agree."""
    if first.attributes != second.attributes or first.function_type != second.function_type:
        return first
    ops = list(first.body.block.ops), list(second.body.block.ops)
    if len(ops[0]) != len(ops[1]):
        return first
    index: dict[Operation | Block, int] = {op: i for i, op in enumerate(ops[0])}
    index |= {op: i for i, op in enumerate(ops[1])}

    def shape(op: Operation) -> tuple[object, ...]:
        operands = tuple(
            (index.get(o.owner), o.index if isinstance(o, BlockArgument) else None)
            for o in op.operands
        )
        return (op.name, op.properties, op.attributes, tuple(r.type for r in op.results), operands)

    return next((a for a, b in zip(*ops, strict=True) if shape(a) != shape(b)), None)


def import_symbolic(
    model: ModelSource, weights: Mapping[str, np.ndarray] | None = None
) -> ModuleOp:
    """The dnn module of ``model`` with its sizes as expressions (module docstring).
    ``weights``: the data of the large initializers when ``model`` holds them detached
    already (graph.load_detached, graph.detach_weights): its dnn.constants then share their
    payloads with every other import of those arrays (dnnc.driver.onnx_shapes)."""
    if weights is None:
        stripped, weights = detached_model(model)
    else:
        stripped = model if isinstance(model, onnx.ModelProto) else read_model(model)
    try:
        module = _import(stripped, weights, HINTS)
        hints: Sequence[int] = HINTS
    except RunTimeValueError:
        raise  # an operand from an input's values: no stand-in sizes help
    except ModelError:
        module = _import(stripped, weights, LARGE_HINTS)
        hints = LARGE_HINTS
    # not verified: it is used only if it equals the first, op for op (_difference: names,
    # properties, attributes, result types, operands), which is all a dnn op's verifier reads
    other = _import(stripped, weights, [2 * h + 1 for h in hints], verify=False)
    first, second = module.body.block.first_op, other.body.block.first_op
    assert isinstance(first, func.FuncOp) and isinstance(second, func.FuncOp)
    differs = _difference(first, second)
    if differs is not None:
        pinned = sorted(set(guards_of(first)) - set(guards_of(second)))
        why = f"the import pinned it, {pinned[0]}; " if pinned else ""
        raise ModelError(
            f"'{differs.name}' op a size follows the input dimensions in a way the IR cannot "
            f"write as an expression ({why}two imports with other stand-in sizes differ here): "
            "import with fixed input shapes, or compile the ONNX model (dnnc.compile traces "
            "it per input shape)",
            op_location(differs),
        )
    return module


__all__ = ["HINTS", "LARGE_HINTS", "import_symbolic", "write_symbols"]
