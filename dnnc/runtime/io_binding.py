"""The caller's side of an executable: its inputs and outputs by name, shape and element type.

`TensorSpec` describes one input or output (as ONNX Runtime's `get_inputs()` does); the
functions here turn what a caller passes (a dict by name or a list in order, `output_names`)
into arrays and indices in signature order, with an `InputError` that quotes the signature for
anything that does not fit.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from dnnc.core.diagnostics import InputError
from dnnc.core.kinds import DataType

Inputs = Mapping[str, object] | Sequence[object]
"""What `run` takes: arrays by input name, or in signature order."""


@dataclass(frozen=True)
class TensorSpec:
    """One input or output of an Executable (a DynamicExecutable's ``?`` dims are -1)."""

    name: str
    shape: tuple[int, ...]
    dtype: np.dtype

    def __str__(self) -> str:
        dims = ", ".join("?" if d < 0 else str(d) for d in self.shape)
        return f"{self.name}: {self.dtype}[{dims}]"


def ordered_inputs(
    inputs: Inputs, names: Sequence[str], signature: Callable[[], str]
) -> list[np.ndarray]:
    """The inputs (by name or in order) as arrays in the order of ``names``; InputError
    for missing or unknown names or a wrong count, quoting ``signature()`` (called only
    then)."""
    if not isinstance(inputs, Mapping | Sequence) or isinstance(inputs, str | bytes):
        raise InputError(
            f"inputs must be a dict of arrays by name or a list of arrays in order, got "
            f"{type(inputs).__name__}; expected {signature()}"
        )
    if isinstance(inputs, Mapping):
        if set(inputs) != set(names):
            missing = sorted(set(names) - set(inputs))
            unknown = sorted(set(map(str, inputs)) - set(names))
            raise InputError(
                f"inputs: missing {missing}, unknown {unknown}; expected {signature()}"
            )
        return [np.asarray(inputs[name]) for name in names]
    values = list(inputs)
    if len(values) != len(names):
        raise InputError(f"{len(values)} inputs given; expected {signature()}")
    return [np.asarray(value) for value in values]


def chosen_outputs(specs: Sequence[TensorSpec], names: Sequence[str] | None) -> list[int]:
    """The indices of the outputs named (all, in order, when ``names`` is None); InputError
    naming the unknown ones and the valid names."""
    if names is None:
        return list(range(len(specs)))
    index = {spec.name: i for i, spec in enumerate(specs)}
    unknown = [name for name in names if name not in index]
    if unknown or isinstance(names, str):
        raise InputError(
            f"output_names: unknown {unknown or [names]}; the outputs are "
            f"{[spec.name for spec in specs]} (a list of them)"
        )
    return [index[name] for name in names]


_FLOATS = frozenset({DataType.F32, DataType.BF16, DataType.F16})

SPECIAL_VALUES_PIPELINE = "dnn-propagate-special-values,dnn-optimize"
"""The pipeline that computes NaN and infinities as ONNX Runtime does."""


def check_finite(
    specs: Sequence[TensorSpec], arrays: Sequence[np.ndarray], masks: Sequence[str], name: str
) -> None:
    """InputError for the first floating-point input holding NaN or an infinity when the
    kernels of function ``name`` drop them (``masks``: where and how); nothing otherwise."""
    if not masks:
        return
    for spec, array in zip(specs, arrays, strict=True):
        if array.size == 0 or DataType.of_numpy(array.dtype) not in _FLOATS:
            continue
        if math.isfinite(array.min()) and math.isfinite(array.max()):
            continue  # two reductions, no array allocated: the common case stays cheap
        where = tuple(int(i) for i in np.argwhere(~np.isfinite(array))[0])
        more = f" and {len(masks) - 1} more" if len(masks) > 1 else ""
        raise InputError(
            f"input '{spec.name}' holds {array[where]} at index {list(where)}: the oneDNN "
            f"kernels of @{name} would not carry it as ONNX does ({masks[0]}{more}); "
            f"compile with the pipeline '{SPECIAL_VALUES_PIPELINE}' to compute NaN and "
            "infinities as ONNX Runtime does"
        )


def input_error(name: str, array: np.ndarray, signature: str) -> InputError:
    """The error for an input of the wrong element type, rank or shape."""
    got = f"{array.dtype}[{', '.join(map(str, array.shape))}]"
    return InputError(f"input '{name}' is {got}; expected {signature}")
