"""ONNX models whose shape arithmetic runs on `?` dimensions or on input values: a compiled
model per input shape (and per value of the inputs that shape arithmetic reads).

Exporters compute reshape targets from ``Shape`` of the input (``x.view(batch, seq, heads,
-1)``: Shape -> Gather -> Unsqueeze -> Concat -> Reshape). With a dynamic batch those values
exist only at run time, and dnn imports them as constants only. ``ShapeSpecializedExecutable``
imports the model again for each input-shape signature with those dimensions fixed — the shape
subgraphs then fold at import — and compiles it (``dnnc.compile``), as a DynamicExecutable
keeps a plan per signature; at most ``max_models`` are kept (least recently used dropped).
The same holds for graph inputs whose *values* feed an operand dnn takes only as a constant
(a Reshape's shape, Slice's starts, Tile's repeats, Resize's scales ...:
``value_inputs``): each distinct value set is compiled with those inputs turned into
initializers, so their subgraphs fold at import, as an int64 `shape` input becomes a plan per
value. It has the Executable interface: ``inputs`` / ``outputs`` with -1 for the dynamic
dimensions, ``run`` by name or in order, ``as_dict``, ``output_names``. Safe from any number of
threads: one lock guards the cache, runs go on concurrently.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import onnx

from dnnc.core.diagnostics import InputError
from dnnc.runtime.executor import Executable, ShippedByRecipe
from dnnc.runtime.io_binding import TensorSpec, chosen_outputs, ordered_inputs
from dnnc.runtime.report import MemoryReport, StepTime

Compile = Callable[[onnx.ModelProto], Executable]
"""Imports and compiles one model whose inputs are all static."""

CONSTANT_OPERANDS: dict[str, tuple[int, ...]] = {
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
"""The operands each ONNX op's converter needs at import time (shapes, axes, bounds)."""


SHAPE_READERS = frozenset({"Shape", "Size"})
"""Ops that read only their input's shape: its values are never needed (shapes are the input
shape signature's business)."""


def value_inputs(model: onnx.ModelProto) -> frozenset[str]:
    """The graph inputs whose values reach an operand of CONSTANT_OPERANDS, through any nodes
    but those of SHAPE_READERS."""
    needed: set[str] = set()
    for node in reversed(model.graph.node):  # ONNX nodes are in topological order
        needed.update(
            node.input[i] for i in CONSTANT_OPERANDS.get(node.op_type, ()) if i < len(node.input)
        )
        if needed.intersection(node.output) and node.op_type not in SHAPE_READERS:
            needed.update(node.input)
    initializers = {t.name for t in model.graph.initializer}
    return frozenset(
        v.name for v in model.graph.input if v.name in needed and v.name not in initializers
    )


def _spec(value_info: onnx.ValueInfoProto) -> TensorSpec:
    tensor = value_info.type.tensor_type
    dims = tuple(d.dim_value if d.HasField("dim_value") else -1 for d in tensor.shape.dim)
    dtype = onnx.helper.tensor_dtype_to_np_dtype(tensor.elem_type)
    return TensorSpec(value_info.name, dims, np.dtype(dtype))


class ShapeSpecializedExecutable(ShippedByRecipe):
    """A model compiled once per input-shape signature (module docstring)."""

    def __init__(self, model: onnx.ModelProto, compile_static: Compile, max_models: int = 8):
        self._model = model
        self._compile = compile_static
        self._max = max_models
        self._values = value_inputs(model)
        """Inputs specialized on their values (module docstring)."""
        initializers = {t.name for t in model.graph.initializer}
        self.inputs = tuple(_spec(v) for v in model.graph.input if v.name not in initializers)
        outputs = model.graph.output
        if any(not o.type.tensor_type.elem_type for o in outputs):  # exporters write them
            outputs = onnx.shape_inference.infer_shapes(model).graph.output
        self.outputs = tuple(_spec(v) for v in outputs)
        self.name = model.graph.name or "main"
        self._models: OrderedDict[tuple[object, ...], Executable] = OrderedDict()
        self._lock = threading.Lock()
        self.compiles = 0
        """Models compiled so far: one per input-shape signature seen (and not evicted)."""

    def signature(self) -> str:
        return f"@{self.name}({', '.join(map(str, self.inputs))})"

    def run(
        self,
        inputs: Mapping[str, object] | Sequence[object],
        *,
        as_dict: bool = False,
        output_names: Sequence[str] | None = None,
    ) -> list[np.ndarray] | dict[str, np.ndarray]:
        """The outputs for ``inputs`` (by name or in order), as ``Executable.run``."""
        arrays = ordered_inputs(inputs, [s.name for s in self.inputs], self.signature)
        for spec, array in zip(self.inputs, arrays):
            fits = len(spec.shape) == array.ndim and all(
                d < 0 or d == n for d, n in zip(spec.shape, array.shape)
            )
            if array.dtype != spec.dtype or not fits:
                raise InputError(
                    f"input '{spec.name}' is {array.dtype}{list(array.shape)}; "
                    f"expected {self.signature()}"
                )
        chosen_outputs(self.outputs, output_names)  # a wrong name fails before compiling
        executable, tensors = self._specialized(arrays)
        return executable.run(tensors, as_dict=as_dict, output_names=output_names)

    def profile(
        self,
        inputs: Mapping[str, object] | Sequence[object],
        repeats: int = 10,
        *,
        alone: bool = False,
    ) -> list[StepTime]:
        """The step times of the model compiled for these inputs (as ``Executable.profile``)."""
        arrays = ordered_inputs(inputs, [s.name for s in self.inputs], self.signature)
        executable, tensors = self._specialized(arrays)
        return executable.profile(tensors, repeats, alone=alone)

    def memory_report(self) -> MemoryReport:
        """The bytes of every compiled model kept, summed (they share nothing but weights'
        files; planned and lower-bound bytes are the largest model's)."""
        with self._lock:
            reports = [e.memory_report() for e in self._models.values()]
        return MemoryReport(
            planned_bytes=max((r.planned_bytes for r in reports), default=0),
            lower_bound_bytes=max((r.lower_bound_bytes for r in reports), default=0),
            arena_bytes=sum(r.arena_bytes for r in reports),
            scratchpad_bytes=sum(r.scratchpad_bytes for r in reports),
            constant_bytes=sum(r.constant_bytes for r in reports),
        )

    def _specialized(self, arrays: Sequence[np.ndarray]) -> tuple[Executable, list[np.ndarray]]:
        """The executable of these inputs' shapes and values, and the inputs it takes."""
        values = {
            spec.name: np.asarray(array)
            for spec, array in zip(self.inputs, arrays, strict=True)
            if spec.name in self._values
        }
        executable = self.plan_for(tuple(a.shape for a in arrays), values)
        tensors = [a for s, a in zip(self.inputs, arrays, strict=True) if s.name not in values]
        return executable, tensors

    def plan_for(
        self,
        shapes: tuple[tuple[int, ...], ...],
        values: Mapping[str, np.ndarray] | None = None,
    ) -> Executable:
        """The executable of these input shapes (and values of the value inputs)."""
        values = values or {}
        key = (shapes, *(values[name].tobytes() for name in sorted(values)))
        with self._lock:
            executable = self._models.get(key)
            if executable is not None:
                self._models.move_to_end(key)
                return executable
            executable = self._compile(self._fixed(shapes, values))
            self.compiles += 1
            self._models[key] = executable
            if len(self._models) > self._max:
                self._models.popitem(last=False)
            return executable

    def _fixed(
        self, shapes: tuple[tuple[int, ...], ...], values: Mapping[str, np.ndarray]
    ) -> onnx.ModelProto:
        """The model with every input's dimensions set to ``shapes`` and the value inputs
        turned into initializers of ``values``."""
        model = onnx.ModelProto()
        model.CopyFrom(self._model)
        kept = [v for v in model.graph.input if v.name not in values]
        del model.graph.input[:]
        model.graph.input.extend(kept)
        model.graph.initializer.extend(
            onnx.numpy_helper.from_array(array, name) for name, array in values.items()
        )
        by_name = {spec.name: shape for spec, shape in zip(self.inputs, shapes)}
        for value_info in model.graph.input:
            shape = by_name.get(value_info.name)
            if shape is None:
                continue
            for dim, size in zip(value_info.type.tensor_type.shape.dim, shape):
                dim.Clear()
                dim.dim_value = size
        for value_info in model.graph.output:  # inference fills them in for the new shapes
            value_info.type.tensor_type.ClearField("shape")
        del model.graph.value_info[:]
        return model


def names_a_run_time_shape(message: str) -> bool:
    """Whether an import error is one ShapeSpecializedExecutable is for: a shape known only
    at run time, or an operand that must be constant computed from a graph input."""
    return "is only known at run time" in message or "must be a constant" in message


__all__ = ["ShapeSpecializedExecutable", "names_a_run_time_shape", "value_inputs"]
