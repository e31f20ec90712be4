"""The caller's side of an executable: its inputs and outputs by name, shape and element type.

`TensorSpec` describes one input or output (as ONNX Runtime's `get_inputs()` does); the
functions here turn what a caller passes (a dict by name or a list in order, `output_names`)
into arrays and indices in signature order, with an `InputError` that quotes the signature for
anything that does not fit.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

import ml_dtypes
import numpy as np

from dnnc.core.diagnostics import InputError

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

    @property
    def nbytes(self) -> int:
        """The bytes of a static tensor of this spec."""
        return math.prod(self.shape) * np.dtype(self.dtype).itemsize


def call_signature(name: str, inputs: Sequence[TensorSpec]) -> str:
    """``@name(x: float32[?, 3, ?, ?])``: a function and its inputs as declared, as errors
    and ``signature()`` name them."""
    return f"@{name}({', '.join(map(str, inputs))})"


def ordered_inputs(
    inputs: Inputs, names: Sequence[str], signature: Callable[[], str]
) -> list[np.ndarray]:
    """The inputs (by name or in order) as arrays in the order of ``names``; InputError
    for missing or unknown names or a wrong count, quoting ``signature()`` (called only
    then)."""
    if isinstance(inputs, list | tuple):
        pass  # the common case, told apart before the abstract classes (0.2 us a run)
    elif not isinstance(inputs, Mapping | Sequence) or isinstance(inputs, str | bytes):
        raise InputError(
            f"inputs must be a dict of arrays by name or a list of arrays in order, got "
            f"{type(inputs).__name__}; expected {signature()}"
        )
    elif isinstance(inputs, Mapping):
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


def aliased_inputs(
    appends: Mapping[int, int], inputs: Sequence[np.ndarray], out: Sequence[np.ndarray] | None
) -> dict[int, int]:
    """Output index -> input index of the caches bound over the start of their output:
    for each of ``appends`` (dnnc.runtime.plan.Plan.appends), the input array is the
    output array's leading part (same first byte, same strides: with the shapes the
    signature checked, the past's slots are the present's first ones), so the append
    writes only the new slots (ONNX Runtime's past/present buffer sharing)."""
    if out is None or len(out) <= max(appends, default=-1):
        return {}
    return {
        output: given
        for output, given in appends.items()
        if isinstance(out[output], np.ndarray)
        and inputs[given].ctypes.data == out[output].ctypes.data
        and inputs[given].strides == out[output].strides
    }


def output_arrays(
    specs: Sequence[TensorSpec],
    out: Sequence[np.ndarray],
    inputs: Sequence[np.ndarray],
    aliases: Mapping[int, int] | None = None,
    bound: Sequence[np.ndarray] = (),
) -> list[np.ndarray]:
    """``out``, the caller's arrays to write the outputs into: one per output, in order, each
    a writeable C-contiguous array of that output's shape and element type, sharing no byte
    with an input or another output, except the input it is bound over (``aliases``,
    output -> input: aliased_inputs); InputError naming the first that is not. ``bound``:
    the inputs and outputs the last run bound (ExecutionContext.bound), held since: a pair
    of arrays both bound there at the same places was found apart then (or the outputs were
    new), and an array's bytes do not move, so only the pairs with a new array are compared
    (a decoding loop passes the same caches and outputs every token, two new inputs)."""
    aliases = aliases or {}
    if len(out) != len(specs):
        raise InputError(
            f"out: {len(out)} arrays given for {len(specs)} outputs "
            f"({', '.join(str(spec) for spec in specs)})"
        )
    arrays = [*inputs, *out]
    same = [len(bound) == len(arrays) and a is b for a, b in zip(arrays, bound)]
    shares = np.shares_memory
    for index, (spec, array) in enumerate(zip(specs, out, strict=True)):
        fits = (
            isinstance(array, np.ndarray)
            and array.shape == spec.shape
            and array.dtype == spec.dtype
            and array.flags.c_contiguous
            and array.flags.writeable
        )
        if not fits:
            got = f"{array.dtype}{list(array.shape)}" if isinstance(array, np.ndarray) else array
            raise InputError(
                f"out: output '{spec.name}' needs a writeable C-contiguous "
                f"{spec.dtype}{list(spec.shape)} array, got {got}"
            )
        bound_over = aliases.get(index, -1)
        position = len(inputs) + index
        others = range(position)  # the inputs, the outputs before this one
        if any(
            i != bound_over
            and not (same and same[i] and same[position])
            and shares(array, arrays[i])
            for i in others
        ):
            raise InputError(
                f"out: the array for output '{spec.name}' shares memory with an input or "
                "another output (a step could read what another one wrote)"
            )
    return list(out)


SPECIAL_VALUES_PIPELINE = "dnn-propagate-special-values,dnn-optimize"
"""The pipeline that computes NaN and infinities as ONNX Runtime does."""


def _special(array: np.ndarray, kinds: Collection[str]) -> tuple[str, np.ndarray] | None:
    """The first of ``kinds`` (``nan``, ``+inf``, ``-inf``, ``subnormal``) that the float
    ``array`` holds and where, or None."""
    if "subnormal" in kinds:
        magnitude = np.abs(array.astype(np.float32))
        tiny = float(ml_dtypes.finfo(array.dtype).smallest_normal)
        found = np.argwhere((magnitude < tiny) & (magnitude > 0))
        if found.size:
            return "subnormal", found[0]
    # NaN shows in the minimum and the maximum alike, -inf in the minimum, +inf in the
    # maximum: one reduction per end a guarded kind needs, no array allocated, so the common
    # case stays cheap (a relu's guard, NaN alone, scans the input once)
    high = "+inf" in kinds
    low = "-inf" in kinds or ("nan" in kinds and not high)
    if (not low or math.isfinite(array.min())) and (not high or math.isfinite(array.max())):
        return None
    tests: dict[str, Callable[[np.ndarray], np.ndarray]] = {
        "nan": np.isnan,
        "+inf": np.isposinf,
        "-inf": np.isneginf,
    }
    for kind, test in tests.items():
        if kind in kinds:
            found = np.argwhere(test(array))
            if found.size:
                return kind, found[0]
    return None


def check_special(
    specs: Sequence[TensorSpec], arrays: Sequence[np.ndarray], guards: Sequence[Mapping[str, str]]
) -> None:
    """InputError for the first input holding a special value it is guarded against
    (``guards``, per input: kind -> why); nothing otherwise."""
    for spec, array, guarded in zip(specs, arrays, guards, strict=True):
        if not guarded or array.size == 0:
            continue  # guards are on floating-point inputs only
        found = _special(array, guarded)
        if found is None:
            continue
        kind, where = found
        raise InputError(
            f"input '{spec.name}' holds {array[tuple(where)]} at index {where.tolist()}: "
            f"{guarded[kind]}; compile with the pipeline '{SPECIAL_VALUES_PIPELINE}' to compute "
            "NaN and infinities as ONNX Runtime does"
        )


def input_error(name: str, array: np.ndarray, signature: str) -> InputError:
    """The error for an input of the wrong element type, rank or shape."""
    got = f"{array.dtype}[{', '.join(map(str, array.shape))}]"
    return InputError(f"input '{name}' is {got}; expected {signature}")
