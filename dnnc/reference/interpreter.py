"""Run a ``dnn`` function op by op with the numpy reference kernels: the test oracle.

``interpret`` evaluates every op in program order on logical arrays (layouts in the types
are ignored: a layout belongs to a buffer, not to a value). How an op becomes a kernel call
is decided in one place, ``kernel_and_arguments``, by the contract of docs/dialect.md: the kernel is
the ``dnnc.reference`` function named like the op, operands go positionally in
definition order (an absent optional operand as None, variadic ones spread), and every
property becomes the keyword argument of the same name (``property_values``). Only
``dnn.reshape`` and ``dnn.cast`` take a keyword from their result type (the new shape, the
new element type). Sources (``dnn.constant``, ``dnn.weight``) come from
``dnnc.ir.weights``. ``compare`` measures an executed result against the oracle's with
the tolerance of its element type (dnnc-run --check and the tests use it).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    TensorType,
)
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue

from dnnc import reference
from dnnc.core import shapes
from dnnc.core.diagnostics import DnncError, error_at
from dnnc.core.kinds import DataType
from dnnc.dialects.dnn import (
    CastOp,
    ConstantOp,
    DnnOp,
    ReshapeOp,
    WeightOp,
    shape_of,
)
from dnnc.dialects.dnn.attention import ATTENTION_OPS
from dnnc.dialects.dnn.compute import COMPUTE_OPS
from dnnc.dialects.dnn.data import DATA_OPS
from dnnc.dialects.dnn.logic import LOGIC_OPS
from dnnc.dialects.dnn.quant import QUANT_OPS, QConv2DOp, QMatmulOp
from dnnc.ir.values import attribute_value
from dnnc.ir.weights import numpy_dtype, source_value

Kernel = Callable[..., np.ndarray | tuple[np.ndarray, ...]]

_SOURCES = (ConstantOp, WeightOp)
_NOT_KERNEL_PROPERTIES = frozenset({"operandSegmentSizes"})

KERNELS: dict[type[DnnOp], Kernel] = {
    op: getattr(reference, op.name.removeprefix("dnn."))
    for op in (*COMPUTE_OPS, *ATTENTION_OPS, *DATA_OPS, *LOGIC_OPS, *QUANT_OPS)
    if op not in _SOURCES
}
"""The reference kernel of every computing dnn op: the function named like the op."""

_FROM_RESULT_TYPE: dict[type[DnnOp], Callable[[TensorType], dict[str, object]]] = {
    ReshapeOp: lambda t: {"shape": tuple(t.get_shape())},
    CastOp: lambda t: {"dtype": numpy_dtype(t)},
    QConv2DOp: lambda t: {"dtype": numpy_dtype(t)},
    QMatmulOp: lambda t: {"dtype": numpy_dtype(t)},
}
"""Keyword arguments that come from the result type rather than from a property."""


def property_values(properties: Mapping[str, Attribute]) -> dict[str, object]:
    """Every property as a keyword argument of the same name."""
    return {
        name: attribute_value(attr)
        for name, attr in properties.items()
        if name not in _NOT_KERNEL_PROPERTIES
    }


def kernel_and_arguments(op: DnnOp) -> tuple[Kernel, list[SSAValue | None], dict[str, object]]:
    """The kernel, the positional operands (None for an absent optional one) and the keyword
    arguments that evaluate ``op`` (module docstring)."""
    kernel = KERNELS.get(type(op))
    if kernel is None:
        raise error_at(op, "has no reference kernel")
    operands: list[SSAValue | None] = []
    for name, _ in op.get_irdl_definition().operands:
        value = getattr(op, name)
        if value is None or isinstance(value, SSAValue):
            operands.append(value)
        else:
            operands.extend(value)
    kwargs = property_values(op.properties)
    extra = _FROM_RESULT_TYPE.get(type(op))
    if extra is not None:
        result_type = op.results[0].type
        assert isinstance(result_type, TensorType)  # the dialect's result constraint
        kwargs |= extra(result_type)
    return kernel, operands, kwargs


def interpret(
    function: func.FuncOp,
    inputs: Sequence[np.ndarray],
    *,
    weights_dir: str | os.PathLike[str] | None = None,
) -> list[np.ndarray]:
    """The results of a dnn function on ``inputs`` (positional), computed op by op with the
    reference kernels; ``weights_dir`` resolves dnn.weight files (dnnc.ir.weights)."""
    block = function.body.block
    if len(inputs) != len(block.args):
        raise DnncError(
            f"@{function.sym_name.data} takes {len(block.args)} inputs, {len(inputs)} given"
        )
    values: dict[SSAValue, np.ndarray] = {}
    for arg, array in zip(block.args, inputs):
        values[arg] = _checked_input(function, arg, np.asarray(array))
    for op in block.ops:
        if isinstance(op, func.ReturnOp):
            return [values[v] for v in op.arguments]
        values.update(zip(op.results, _evaluate(op, values, weights_dir)))
    raise error_at(function, "has no func.return")


def _evaluate(
    op: Operation,
    values: Mapping[SSAValue, np.ndarray],
    weights_dir: str | os.PathLike[str] | None,
) -> tuple[np.ndarray, ...]:
    if isinstance(op, _SOURCES):
        return (source_value(op, weights_dir),)
    if not isinstance(op, DnnOp):
        raise error_at(op, "is not a dnn op: the interpreter runs dnn functions only")
    kernel, operands, kwargs = kernel_and_arguments(op)
    args = [None if v is None else values[v] for v in operands]
    try:
        results = kernel(*args, **kwargs)
    except ValueError as error:
        raise error_at(op, f"reference kernel failed: {error}") from error
    results = results if isinstance(results, tuple) else (results,)
    for result, array in zip(op.results, results, strict=True):
        _expect_type(op, result, array)
    return results


def _checked_input(function: func.FuncOp, arg: BlockArgument, array: np.ndarray) -> np.ndarray:
    type_ = arg.type
    assert isinstance(type_, TensorType)  # dnn functions take tensors
    if array.dtype != numpy_dtype(type_) or not shapes.compatible(shape_of(arg), array.shape):
        raise error_at(
            function,
            f"input {arg.index} is {array.dtype}{list(array.shape)}, expected {type_}",
        )
    return array


def _expect_type(op: Operation, result: SSAValue, array: np.ndarray) -> None:
    """A kernel result agrees with the IR's result type (else the oracle itself is wrong)."""
    type_ = result.type
    assert isinstance(type_, TensorType)  # dnn results are tensors
    if array.dtype != numpy_dtype(type_) or not shapes.compatible(shape_of(result), array.shape):
        raise error_at(
            op, f"reference kernel gave {array.dtype}{list(array.shape)}, the IR says {type_}"
        )


TOLERANCES: dict[np.dtype, tuple[float, float]] = {
    np.dtype(np.float32): (1e-4, 1e-4),
    DataType.BF16.numpy: (2.0**-7, 1e-2),
    np.dtype(np.float16): (2.0**-10, 1e-3),
}
"""(rtol, atol) per float element type for comparing an executed result with the oracle's.
oneDNN computes in f32 with other summation orders and approximations of transcendental
functions, the oracle in float64 rounded once, so f32 allows 1e-4; bf16 and f16 one ulp of
the type (and an atol for results that cancel). atol is scaled by max(1, max |expected|):
errors of a sum are relative to its terms, not to a result near zero. Integers: exact."""


@dataclass(frozen=True)
class Comparison:
    """How far an executed result is from the oracle's."""

    max_abs_error: float
    max_rel_error: float
    """max |actual - expected| / |expected| over the elements where expected != 0."""
    mismatches: int
    """Elements outside the tolerance (every element if dtype or shape differ)."""

    @property
    def ok(self) -> bool:
        return self.mismatches == 0


def compare(actual: np.ndarray, expected: np.ndarray) -> Comparison:
    """Compare with the tolerance of the expected element type (TOLERANCES); NaN matches NaN."""
    if actual.dtype != expected.dtype or actual.shape != expected.shape:
        return Comparison(float("inf"), float("inf"), max(actual.size, expected.size, 1))
    # 1-D views, as arithmetic on rank-0 arrays gives scalars, which take no masks
    a, e = actual.astype(np.float64).reshape(-1), expected.astype(np.float64).reshape(-1)
    with np.errstate(invalid="ignore"):
        error = np.abs(a - e)
    error[(a == e) | (np.isnan(a) & np.isnan(e))] = 0.0  # equal infinities, NaN for NaN
    error[np.isnan(error)] = np.inf  # NaN against a number, or opposite infinities
    rtol, atol = TOLERANCES.get(expected.dtype, (0.0, 0.0))
    finite = np.isfinite(e)
    scale = max(1.0, float(np.abs(e[finite]).max(initial=0.0)))
    allowed = atol * scale + rtol * np.where(finite, np.abs(e), 0.0)
    bad = int(np.count_nonzero(error > allowed))
    measured = finite & (e != 0)
    relative = error[measured] / np.abs(e[measured])
    return Comparison(float(error.max(initial=0.0)), float(relative.max(initial=0.0)), bad)
