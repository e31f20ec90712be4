"""Functions with value arguments: compiled once per value set of those arguments.

A dnn function whose ``dnn.deferred`` ops wait for the values of its ``dnn.value_arg``
arguments (dnnc.dialects.dnn.deferred, docs/dialect.md "Value arguments") cannot run the
pipeline as it is. ``specialize_values`` makes it an ordinary function for one value set:

1. each value argument becomes a ``dnn.constant`` of the value it is given (and leaves the
   signature);
2. constant subgraphs fold (dnn-fold-constants' evaluation of all-constant ops), so an
   operand computed from the values (a Cast, a Concat of shape pieces) is a constant too;
3. every deferred op whose operands are ready (none from a deferred op not yet converted) is
   converted by the frontend's ``convert`` (dnnc.frontend.onnx.deferred.convert_deferred;
   given by the caller, so this module knows no frontend); one whose operand is still not a
   constant (its RunTimeValueError) waits for the next round, after folding again. A round
   that converts nothing raises that error;
4. constants nothing reads any more (the values, operands a conversion read) are erased.

``ValueSpecializedExecutable`` keeps one compiled executable per value set (the values'
bytes are its key; a bounded LRU, as a DynamicExecutable keeps plans per shape): a miss
specializes and compiles (the caller's ``compile``: the pipeline, the lowering; a function
that keeps ``?`` dimensions compiles into a DynamicExecutable), a hit runs. It has the
Executable interface (inputs, outputs, run by name or in order, profile, memory_report);
``SpecializedExecutable``, the part it shares with dnnc.driver.onnx_shapes'
ShapeSpecializedExecutable (a model imported again per input shape), holds the cache.
"""

from __future__ import annotations

import threading
from abc import abstractmethod
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping, Sequence

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FunctionType,
    ModuleOp,
    TensorType,
    UnrankedTensorType,
)
from xdsl.ir import Attribute
from xdsl.pattern_rewriter import PatternRewriteWalker

from dnnc.core.diagnostics import InputError, RunTimeValueError, error_at
from dnnc.dialects.dnn import ConstantOp
from dnnc.dialects.dnn.deferred import DeferredOp, deferred_ops, value_args
from dnnc.dialects.types import data_type_of
from dnnc.driver.dynamic import DynamicExecutable
from dnnc.ir.names import input_name, input_names, output_names
from dnnc.ir.text import verify_module
from dnnc.passes.fold_constants import EvaluateConstantOp, Sources
from dnnc.runtime.executor import Executable, ShippedByRecipe
from dnnc.runtime.io_binding import TensorSpec, call_signature, chosen_outputs, ordered_inputs
from dnnc.runtime.report import MemoryReport, StepTime

Convert = Callable[[DeferredOp], None]
"""Replaces one deferred op, its value operands constants, with the dnn ops it converts to;
a RunTimeValueError when an operand it reads at compile time is not a constant yet."""

Compiled = Executable | DynamicExecutable
"""What a specialization compiles into (a DynamicExecutable when ``?`` dimensions stay)."""


def specialize_values(
    function: func.FuncOp,
    values: Sequence[np.ndarray],
    convert: Convert,
    weights_dir: str | None = None,
) -> ModuleOp:
    """A verified module holding a clone of ``function`` with its value arguments (in order)
    given ``values`` and every deferred op converted (module docstring). ``weights_dir``:
    where relative dnn.weight paths start, for folding."""
    clone = function.clone()
    block = clone.body.block
    marked = value_args(clone)
    first = block.first_op
    assert first is not None  # a function with value arguments has deferred ops
    for index, array in zip(marked, values, strict=True):
        arg = block.args[index]
        assert isinstance(arg.type, TensorType)  # a value argument is static (the verifier)
        spec = _spec(input_name(arg), arg.type)
        if array.dtype != spec.dtype or array.shape != spec.shape:
            raise InputError(f"value {array.dtype}{list(array.shape)} given for {spec}")
        constant = ConstantOp.of_bytes(arg.type, np.ascontiguousarray(array).tobytes())
        constant.location = clone.location
        constant.result.name_hint = arg.name_hint
        block.insert_op_before(constant, first)
        arg.replace_all_uses_with(constant.result)
    for index in reversed(marked):
        block.erase_arg(block.args[index])
    if clone.arg_attrs is not None:
        kept = [a for i, a in enumerate(clone.arg_attrs.data) if i not in marked]
        clone.arg_attrs = ArrayAttr[DictionaryAttr](kept)
    module = ModuleOp([clone])
    fold = PatternRewriteWalker(EvaluateConstantOp(Sources(weights_dir)))
    pending = list(deferred_ops(clone))
    while pending:
        fold.rewrite_module(module)
        blocked: RunTimeValueError | None = None
        for op in pending:
            if any(isinstance(v.owner, DeferredOp) for v in op.inputs):
                continue  # reads an op not converted yet: the next round
            try:
                convert(op)
            except RunTimeValueError as error:
                blocked = blocked or error
        left = list(deferred_ops(clone))
        if len(left) == len(pending):
            raise blocked or error_at(left[0], "no deferred op could be converted")
        pending = left
    for source in list(block.ops):  # the values, or constants a conversion read, now unread
        if isinstance(source, ConstantOp) and not source.result.uses:
            block.erase_op(source)
    returned = block.last_op
    if not isinstance(returned, func.ReturnOp):
        raise error_at(clone, "does not end with func.return")
    clone.function_type = FunctionType.from_lists(
        [a.type for a in block.args], [v.type for v in returned.operands]
    )
    verify_module(module)
    return module


def with_values(
    function: func.FuncOp,
    inputs: Mapping[str, np.ndarray],
    convert: Convert,
    weights_dir: str | None = None,
) -> func.FuncOp:
    """``function`` specialized to the values its value arguments have among ``inputs`` (by
    the caller's names: what the reference interpreter runs), or itself when it has none."""
    marked = value_args(function)
    if not marked:
        return function
    names = input_names(function)
    module = specialize_values(function, [inputs[names[i]] for i in marked], convert, weights_dir)
    specialized = module.body.block.first_op
    assert isinstance(specialized, func.FuncOp)  # the clone of function
    return specialized


class SpecializedExecutable(ShippedByRecipe):
    """Executables compiled per key of the inputs (the input shapes, some inputs' values),
    kept in a bounded LRU; the interface of an Executable around them (module docstring)."""

    def __init__(
        self,
        name: str,
        inputs: tuple[TensorSpec, ...],
        outputs: tuple[TensorSpec, ...],
        values: frozenset[str],
        max_models: int,
    ) -> None:
        self.name = name
        self.inputs = inputs
        """The inputs, ``?`` dimensions as -1 (the values' inputs included)."""
        self.outputs = outputs
        """The results as far as they are known before any specialization: -1 for a ``?``
        dimension, no dimension at all when the rank is unknown."""
        self._values = values
        """The inputs specialized on their values (each compiled executable takes the
        others)."""
        self._max = max_models
        self._models: OrderedDict[Hashable, Compiled] = OrderedDict()
        self._lock = threading.Lock()
        self.compiles = 0
        """Executables compiled so far: one per key seen (again after an eviction)."""

    def signature(self) -> str:
        return call_signature(self.name, self.inputs)

    def run(
        self,
        inputs: Mapping[str, object] | Sequence[object],
        *,
        as_dict: bool = False,
        output_names: Sequence[str] | None = None,
    ) -> list[np.ndarray] | dict[str, np.ndarray]:
        """The outputs for ``inputs`` (by name or in order), as ``Executable.run``."""
        chosen_outputs(self.outputs, output_names)  # a wrong name fails before compiling
        executable, tensors = self.specialized(inputs)
        return executable.run(tensors, as_dict=as_dict, output_names=output_names)

    def profile(
        self,
        inputs: Mapping[str, object] | Sequence[object],
        repeats: int = 10,
        *,
        alone: bool = False,
    ) -> list[StepTime]:
        """The step times of the executable compiled for these inputs (as
        ``Executable.profile``)."""
        executable, tensors = self.specialized(inputs)
        return executable.profile(tensors, repeats, alone=alone)

    def memory_report(self) -> MemoryReport:
        """The bytes of every compiled executable kept, summed (they share nothing but
        weights' files; planned and lower-bound bytes are the largest one's)."""
        with self._lock:
            reports = [e.memory_report() for e in self._models.values()]
        return MemoryReport(
            planned_bytes=max((r.planned_bytes for r in reports), default=0),
            lower_bound_bytes=max((r.lower_bound_bytes for r in reports), default=0),
            arena_bytes=sum(r.arena_bytes for r in reports),
            scratchpad_bytes=sum(r.scratchpad_bytes for r in reports),
            constant_bytes=sum(r.constant_bytes for r in reports),
        )

    def specialized(
        self, inputs: Mapping[str, object] | Sequence[object]
    ) -> tuple[Compiled, dict[str, np.ndarray]]:
        """The executable compiled for ``inputs`` (by name or in order: their shapes, the
        value inputs' values), and the inputs it takes, by name. An InputError for inputs
        that do not fit the declared ones."""
        arrays = ordered_inputs(inputs, [s.name for s in self.inputs], self.signature)
        for spec, array in zip(self.inputs, arrays, strict=True):
            fits = len(spec.shape) == array.ndim and all(
                d < 0 or d == n for d, n in zip(spec.shape, array.shape)
            )
            if array.dtype != spec.dtype or not fits:
                raise InputError(
                    f"input '{spec.name}' is {array.dtype}{list(array.shape)}; "
                    f"expected {self.signature()}"
                )
        values = {
            spec.name: array
            for spec, array in zip(self.inputs, arrays, strict=True)
            if spec.name in self._values
        }
        executable = self.plan_for(tuple(a.shape for a in arrays), values)
        tensors = {
            s.name: a for s, a in zip(self.inputs, arrays, strict=True) if s.name not in values
        }
        return executable, tensors

    def plan_for(
        self,
        shapes: tuple[tuple[int, ...], ...],
        values: Mapping[str, np.ndarray] | None = None,
    ) -> Compiled:
        """The executable of these input shapes and values of the value inputs."""
        values = values or {}
        key = self._key(shapes, values)
        with self._lock:
            executable = self._models.get(key)
            if executable is not None:
                self._models.move_to_end(key)
                return executable
            executable = self._compile_for(shapes, values)
            self.compiles += 1
            self._models[key] = executable
            if len(self._models) > self._max:
                self._models.popitem(last=False)
            return executable

    @abstractmethod
    def _key(
        self, shapes: tuple[tuple[int, ...], ...], values: Mapping[str, np.ndarray]
    ) -> Hashable:
        """What tells the compiled executables apart."""

    @abstractmethod
    def _compile_for(
        self, shapes: tuple[tuple[int, ...], ...], values: Mapping[str, np.ndarray]
    ) -> Compiled:
        """The executable of these input shapes and values."""


def _spec(name: str, type_: Attribute) -> TensorSpec:
    """A value's spec: -1 for a ``?`` dimension, no dimension for an unranked tensor."""
    assert isinstance(type_, TensorType | UnrankedTensorType)  # a verified dnn function's
    dims = tuple(max(d, -1) for d in type_.get_shape()) if isinstance(type_, TensorType) else ()
    return TensorSpec(name, dims, data_type_of(type_.get_element_type()).numpy)


class ValueSpecializedExecutable(SpecializedExecutable):
    """A function with value arguments, compiled once per value set (module docstring)."""

    def __init__(
        self,
        function: func.FuncOp,
        convert: Convert,
        compile_module: Callable[[ModuleOp], Compiled],
        *,
        weights_dir: str | None = None,
        max_models: int = 16,
    ) -> None:
        self._function = function
        self._convert = convert
        self._compile_module = compile_module
        self._weights_dir = weights_dir
        marked = value_args(function)
        self._names = [input_names(function)[i] for i in marked]
        args = function.body.block.args
        returned = function.function_type.outputs.data
        super().__init__(
            function.sym_name.data,
            tuple(_spec(n, a.type) for n, a in zip(input_names(function), args, strict=True)),
            tuple(_spec(n, t) for n, t in zip(output_names(function), returned, strict=True)),
            frozenset(self._names),
            max_models,
        )

    def _key(
        self, shapes: tuple[tuple[int, ...], ...], values: Mapping[str, np.ndarray]
    ) -> Hashable:
        # the value arguments are static: their dtypes and shapes are checked by run
        return tuple(values[name].tobytes() for name in self._names)

    def _compile_for(
        self, shapes: tuple[tuple[int, ...], ...], values: Mapping[str, np.ndarray]
    ) -> Compiled:
        arrays = [values[name] for name in self._names]
        module = specialize_values(self._function, arrays, self._convert, self._weights_dir)
        return self._compile_module(module)


__all__ = [
    "Convert",
    "SpecializedExecutable",
    "ValueSpecializedExecutable",
    "specialize_values",
    "with_values",
]
