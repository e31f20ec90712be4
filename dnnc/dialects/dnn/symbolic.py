"""The symbolic-shape contract of a dnn function: `?` dimensions that carry their expressions.

An imported model's sizes may follow its input dimensions (ONNX Shape -> Gather -> Concat ->
Reshape). ``dnnc.import_onnx(model, symbolic=True)`` writes them into the IR with four
attributes (docs/dialect.md, "Symbolic dimensions"):

* ``dnn.symbols`` (function): ``[array<i64: arg, dim>, ...]``; symbol ``s<k>`` is dimension
  ``dim`` of argument ``arg``. It lists exactly the ``?`` dimensions of the arguments that are
  not shape functions, in order (the numbering dnnc.driver.dynamic gives them).
* ``dnn.guards`` (function): ``["s1 != 1", "s0 == s2", ...]``: conditions the import's
  decisions hold under; a call whose sizes break one is refused, naming it.
* ``dnn.dims`` (on a ``dnn.reshape`` with ``?`` result dimensions): one expression over the
  symbols per result dimension (an integer where the type is static): the reshape target,
  which its source's shape alone does not give.
* ``dnn.shape_function`` (argument): the argument is not the caller's but *data* computed
  per call from the symbols by a host shape function: ``range(start, limit, delta)``
  (``start, start + delta, ...`` below ``limit``, as ONNX Range; 1-d i64): position ids;
  ``true(d0, ..., dn)`` (an i1 tensor of that shape, every element true): the condition of a
  ``dnn.where`` that broadcasts a tensor to sizes computed from the symbols (ONNX Expand);
  ``sizes(e0, ..., en)`` (the 1-d i64 tensor of those values): sizes used as data (a
  sequence length in a mask's arithmetic).

Expressions are ``SymbolicInt.text``'s (dnnc.core.symbols.parse_expression). ``verify``
checks all of it; ``symbol_values`` and ``evaluate_dims`` give the sizes for one call.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    IntegerType,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import VerifyException

from dnnc.core import shapes
from dnnc.core.symbols import ExpressionError, Values, check_text, parse_expression
from dnnc.dialects.dnn.base import i64_array, shape_of

SYMBOLS = "dnn.symbols"
GUARDS = "dnn.guards"
DIMS = "dnn.dims"
SHAPE_FUNCTION = "dnn.shape_function"

_CALL = re.compile(r"^\s*(\w+)\((.*)\)\s*$")
SHAPE_FUNCTIONS = {"range": 3, "true": None, "sizes": None}
"""Host shape functions by name, and how many expressions each takes (None: any number)."""


def symbols_attr(bindings: Sequence[tuple[int, int]]) -> ArrayAttr[Attribute]:
    """``dnn.symbols`` of these (argument, dimension) pairs."""
    return ArrayAttr([i64_array(arg, dim) for arg, dim in bindings])


def texts_attr(texts: Sequence[str]) -> ArrayAttr[Attribute]:
    """``dnn.guards`` / ``dnn.dims`` of these texts."""
    return ArrayAttr([StringAttr(t) for t in texts])


def _texts(attr: Attribute | None, what: str) -> list[str] | None:
    if attr is None:
        return None
    if not isinstance(attr, ArrayAttr) or not all(isinstance(a, StringAttr) for a in attr.data):
        raise VerifyException(f"{what} must be an array of strings")
    return [a.data for a in attr.data if isinstance(a, StringAttr)]


def bindings_of(function: func.FuncOp) -> list[tuple[int, int]] | None:
    """The (argument, dimension) of each symbol; None for a function without symbols."""
    attr = function.attributes.get(SYMBOLS)
    if attr is None:
        return None
    pairs = []
    for entry in attr.data if isinstance(attr, ArrayAttr) else [attr]:
        values = entry.get_values() if isinstance(entry, DenseArrayBase) else ()
        if len(values) != 2:
            raise VerifyException(f"{SYMBOLS} must be an array of array<i64: arg, dim>")
        pairs.append((int(values[0]), int(values[1])))
    return pairs


def guards_of(function: func.FuncOp) -> list[str]:
    """The conditions of ``dnn.guards`` (none when absent)."""
    return _texts(function.attributes.get(GUARDS), GUARDS) or []


def dims_of(op: Operation) -> list[str] | None:
    """The expressions of an op's ``dnn.dims`` (None when it has none)."""
    return _texts(op.attributes.get(DIMS), DIMS)


def shape_functions(function: func.FuncOp) -> dict[int, str]:
    """The shape function of each argument that has one, by argument index."""
    found: dict[int, str] = {}
    for index, attrs in enumerate(function.arg_attrs.data if function.arg_attrs else ()):
        value = attrs.data.get(SHAPE_FUNCTION) if isinstance(attrs, DictionaryAttr) else None
        if value is not None:
            if not isinstance(value, StringAttr):
                raise VerifyException(f"argument {index}: {SHAPE_FUNCTION} must be a string")
            found[index] = value.data
    return found


def declared_arguments(function: func.FuncOp) -> list[int]:
    """The indices of the caller's arguments (those without a shape function)."""
    computed = shape_functions(function)
    return [i for i in range(len(function.body.block.args)) if i not in computed]


def dynamic_bindings(function: func.FuncOp) -> list[tuple[int, int]]:
    """The ``?`` dimensions of the caller's arguments, in order: what ``dnn.symbols`` binds."""
    args = function.body.block.args
    return [
        (index, dim)
        for index in declared_arguments(function)
        for dim, size in enumerate(shape_of(args[index]))
        if size == shapes.DYNAMIC
    ]


def _call(text: str) -> tuple[str, list[str]]:
    match = _CALL.match(text)
    if match is None or match.group(1) not in SHAPE_FUNCTIONS:
        raise ExpressionError(
            f"'{text}' is not a shape function: expected one of "
            + ", ".join(f"{name}(...)" for name in SHAPE_FUNCTIONS)
        )
    name, arguments = match.group(1), [a.strip() for a in match.group(2).split(",")]
    if SHAPE_FUNCTIONS[name] not in (None, len(arguments)):
        raise ExpressionError(f"'{text}': {name} takes {SHAPE_FUNCTIONS[name]} expressions")
    return name, arguments


def shape_function_shape(text: str, values: Values) -> tuple[int, ...]:
    """The shape of a shape function's result for ``values`` (SymbolicInts: expressions)."""
    name, arguments = _call(text)
    sizes = [parse_expression(t, values) for t in arguments]
    if name == "true":
        return tuple(sizes)
    if name == "sizes":
        return (len(sizes),)
    lo, hi, step = sizes
    return (max(-(-(hi - lo) // step), 0),)


def shape_function_compute(text: str) -> Callable[[Values], np.ndarray]:
    """The host function computing a shape function's array from the symbol values."""
    name, arguments = _call(text)

    def sizes(values: Values) -> list[int]:
        return [parse_expression(t, values) for t in arguments]

    if name == "true":
        return lambda values: np.ones(sizes(values), np.bool_)
    if name == "sizes":
        return lambda values: np.array(sizes(values), np.int64)
    return lambda values: np.arange(*sizes(values), dtype=np.int64)


def _shape_function_type(text: str, arg_type: Attribute) -> bool:
    """Whether an argument of ``arg_type`` can hold the result of shape function ``text``."""
    name, arguments = _call(text)
    if not isinstance(arg_type, TensorType):
        return False
    element = arg_type.get_element_type()
    width = element.width.data if isinstance(element, IntegerType) else None
    if name == "true":
        return width == 1 and len(arg_type.get_shape()) == len(arguments)
    return width == 64 and len(arg_type.get_shape()) == 1


def symbol_values(function: func.FuncOp, input_shapes: Sequence[shapes.Shape]) -> list[int]:
    """Each symbol's value for these shapes of every argument (``dnn.symbols``)."""
    return [input_shapes[arg][dim] for arg, dim in bindings_of(function) or ()]


def evaluate_dims(op: Operation, values: Values) -> tuple[int, ...] | None:
    """The result shape an op's ``dnn.dims`` gives for ``values`` (None without one)."""
    dims = dims_of(op)
    return None if dims is None else tuple(parse_expression(d, values) for d in dims)


def verify(function: func.FuncOp) -> None:
    """The contract of the module docstring; a VerifyException (from the function, or from
    the op whose ``dnn.dims`` breaks it) otherwise."""
    bindings = bindings_of(function)
    count = len(bindings or ())
    functions = shape_functions(function)
    if bindings is None:
        if functions or function.attributes.get(GUARDS) is not None:
            raise VerifyException(f"{GUARDS} and {SHAPE_FUNCTION} need {SYMBOLS}")
    elif bindings != dynamic_bindings(function):
        want = ", ".join(f"array<i64: {a}, {d}>" for a, d in dynamic_bindings(function))
        raise VerifyException(
            f"{SYMBOLS} must bind every ? dimension of the caller's arguments, in order: [{want}]"
        )
    declared = declared_arguments(function)
    if declared != list(range(len(declared))):
        raise VerifyException(f"the arguments with a {SHAPE_FUNCTION} must come last")
    try:
        for guard in guards_of(function):
            check_text(guard, count, condition=True)
        for index, text in functions.items():
            for argument in _call(text)[1]:
                check_text(argument, count)
            if not _shape_function_type(text, function.body.block.args[index].type):
                raise VerifyException(
                    f"argument {index}: {SHAPE_FUNCTION} range(...) and sizes(...) give a 1-d i64 "
                    "tensor, "
                    "true(d0, ..., dn) an i1 tensor of rank n + 1"
                )
    except ExpressionError as error:
        raise VerifyException(str(error)) from None
    for op in function.body.block.ops:
        dims = dims_of(op)
        if dims is None:
            continue
        if bindings is None:
            raise VerifyException(f"'{op.name}' has {DIMS}: the function needs {SYMBOLS}")
        _verify_dims(op, dims, count)


def _verify_dims(op: Operation, dims: list[str], count: int) -> None:
    declared = shape_of(op.results[0]) if len(op.results) == 1 else None
    where = f"'{op.name}' {DIMS}"
    if declared is None or len(declared) != len(dims):
        raise VerifyException(f"{where} must hold one expression per dimension of its result")
    for dim, (text, size) in enumerate(zip(dims, declared, strict=True)):
        try:
            check_text(text, count)
        except ExpressionError as error:
            raise VerifyException(f"{where}[{dim}]: {error}") from None
        if size != shapes.DYNAMIC and not (text.strip().isdigit() and int(text) == size):
            raise VerifyException(f"{where}[{dim}] is '{text}' for a static size {size}")


__all__ = [
    "DIMS",
    "GUARDS",
    "SHAPE_FUNCTION",
    "SYMBOLS",
    "bindings_of",
    "declared_arguments",
    "dims_of",
    "dynamic_bindings",
    "evaluate_dims",
    "guards_of",
    "shape_function_compute",
    "shape_function_shape",
    "shape_functions",
    "symbol_values",
    "symbols_attr",
    "texts_attr",
    "verify",
]
