"""ONNX models whose shape arithmetic runs on `?` dimensions or on input values: the two
executables dnnc.compile makes of an ONNX model the plain import refuses.

Exporters compute reshape targets from ``Shape`` of the input (``x.view(batch, seq, heads,
-1)``: Shape -> Gather -> Unsqueeze -> Concat -> Reshape). With a dynamic batch those values
exist only at run time, and the plain import takes them as constants only.

``OnnxDynamicExecutable`` (a DynamicExecutable) serves a model whose shape arithmetic reads
``?`` dimensions. Where the symbolic import takes the model (dnnc.frontend.onnx.symbolic: the
sizes as expressions in the IR), it traces that function once per program template, as any
dynamic dnn function (the IR route); it re-imports the ONNX model with the signature's sizes
as symbols only for what the IR route cannot serve (the traced route: a size 0, a signature
that breaks a guard of the symbolic import, or a model that import refuses), each template
of that route checked by a second trace at its first reuse. The class docstring says why.

``ShapeSpecializedExecutable`` serves graph inputs whose *values* feed an operand dnn takes
only as a constant (a Reshape's shape, Slice's starts, Tile's repeats, Resize's scales ...:
``value_inputs``): it imports the model again for each input-shape signature and distinct
value set, those inputs turned into initializers so their subgraphs fold at import, and
compiles it (``dnnc.compile``), as a DynamicExecutable keeps a plan per signature; at most
``max_models`` are kept (least recently used dropped). The static models of that kind keep
their value inputs' nodes as ``dnn.deferred`` instead (dnnc.driver.values). It has the
Executable interface (dnnc.driver.values' SpecializedExecutable): ``inputs`` / ``outputs``
with -1 for the dynamic dimensions, ``run`` by name or in order, ``as_dict``,
``output_names``. Safe from any number of threads: one lock guards the cache, runs go on
concurrently.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Hashable, Mapping, Sequence

import numpy as np
import onnx
from xdsl.dialects import func
from xdsl.passes import ModulePass

from dnnc.core import shapes
from dnnc.core.diagnostics import InputError, remark_at
from dnnc.core.symbols import Guard, Values, parse_condition
from dnnc.dialects.dnn import symbolic
from dnnc.driver.dynamic import DynamicExecutable, DynamicOptions
from dnnc.driver.pipelines import run_passes, verify_each_pass
from dnnc.driver.values import SpecializedExecutable
from dnnc.frontend.onnx import convert_traced
from dnnc.frontend.onnx.deferred import SHAPE_READERS, VALUE_OPERANDS
from dnnc.frontend.onnx.graph import detach_weights
from dnnc.frontend.onnx.importer import payload_of
from dnnc.ir.text import make_context
from dnnc.runtime.cache import PrimitiveCache
from dnnc.runtime.executor import Executable
from dnnc.runtime.io_binding import TensorSpec
from dnnc.runtime.lowered import program_of
from dnnc.runtime.program import Program
from dnnc.runtime.template import ProgramTemplate, Signature, Sized, same_program

Compile = Callable[[onnx.ModelProto], Executable]
"""Imports and compiles one model whose inputs are all static."""


def value_inputs(model: onnx.ModelProto) -> frozenset[str]:
    """The graph inputs whose values reach an operand of VALUE_OPERANDS, through any nodes
    but those of SHAPE_READERS (dnnc.frontend.onnx.deferred)."""
    needed: set[str] = set()
    for node in reversed(model.graph.node):  # ONNX nodes are in topological order
        needed.update(
            node.input[i] for i in VALUE_OPERANDS.get(node.op_type, ()) if i < len(node.input)
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


class ShapeSpecializedExecutable(SpecializedExecutable):
    """A model compiled once per input-shape signature (module docstring)."""

    def __init__(self, model: onnx.ModelProto, compile_static: Compile, max_models: int = 8):
        self._model = model
        self._compile = compile_static
        initializers = {t.name for t in model.graph.initializer}
        outputs = model.graph.output
        if any(not o.type.tensor_type.elem_type for o in outputs):  # exporters write them
            outputs = onnx.shape_inference.infer_shapes(model).graph.output
        super().__init__(
            model.graph.name or "main",
            tuple(_spec(v) for v in model.graph.input if v.name not in initializers),
            tuple(_spec(v) for v in outputs),
            value_inputs(model),
            max_models,
        )

    def _key(
        self, shapes: tuple[tuple[int, ...], ...], values: Mapping[str, np.ndarray]
    ) -> Hashable:
        return (shapes, *(values[name].tobytes() for name in sorted(values)))

    def _compile_for(
        self, shapes: tuple[tuple[int, ...], ...], values: Mapping[str, np.ndarray]
    ) -> Executable:
        names = [s.name for s in self.inputs]
        return self._compile(_with_inputs(self._model, names, shapes, values))


def _with_inputs(
    model: onnx.ModelProto,
    names: Sequence[str],
    shapes: Sequence[tuple[int, ...]],
    values: Mapping[str, np.ndarray],
) -> onnx.ModelProto:
    """The model with the inputs ``names`` given ``shapes`` and the value inputs turned into
    initializers of ``values``."""
    fixed = onnx.ModelProto()
    fixed.CopyFrom(model)
    kept = [v for v in fixed.graph.input if v.name not in values]
    del fixed.graph.input[:]
    fixed.graph.input.extend(kept)
    fixed.graph.initializer.extend(
        onnx.numpy_helper.from_array(array, name) for name, array in values.items()
    )
    by_name = dict(zip(names, shapes, strict=True))
    for value_info in fixed.graph.input:
        shape = by_name.get(value_info.name)
        if shape is None:
            continue
        for dim, size in zip(value_info.type.tensor_type.shape.dim, shape):
            dim.Clear()
            dim.dim_value = size
    for value_info in fixed.graph.output:  # inference fills them in for the new shapes
        value_info.type.tensor_type.ClearField("shape")
    del fixed.graph.value_info[:]
    return fixed


class OnnxDynamicExecutable(DynamicExecutable):
    """An ONNX model whose shape arithmetic reads ``?`` dimensions, as program templates
    (dnnc.driver.dynamic) made by one of two routes.

    The IR route, whenever the symbolic import took the model (``function``:
    dnnc.frontend.onnx.symbolic, the module's sizes as expressions, checked by importing it
    twice with other stand-in sizes): a template is DynamicExecutable's trace of that
    function. No import and no check trace per template; a signature that breaks a guard of
    the trace (a decision of the pipeline) is traced again from the function.

    The traced route, for the signatures the IR route cannot serve, each said in a remark:
    * a size 0 (a KV-cache decoder's first step has an empty past): the symbolic import's
      expressions and guards hold for sizes >= 1 only (it leaves out conditions provable
      for those), and dnn functions have no zero-sized tensors;
    * a signature that breaks one of the import's guards (``dnn.guards``: a broadcast the
      import decided with its stand-in sizes, e.g. ``s0 == s4`` for two inputs' batches;
      sizes equal in the trace guard no ``!= 1``, dnnc.core.shapes._broadcast);
    * every signature when the symbolic import refused the model (``function`` None: a size
      pinned to its value, as T5's relative position buckets pin the sequence).
    A trace of this route imports the model with its inputs fixed to the signature's sizes
    for ONNX shape inference and to those sizes as symbols for the importer
    (dnnc.frontend.onnx.convert's ``input_shapes``): ``Shape``/``Size`` of a traced tensor
    give sizes that keep their expressions, folded through Gather, Slice, Unsqueeze,
    Squeeze, Concat, integer Cast, Reshape and + - * / into the targets of Reshape
    (importer SYMBOLIC_FOLDERS); any other use of such a size pins it to its traced value
    with a guard. Then the pipeline and the lowering run on the imported function. Because
    ONNX shape inference and the reference evaluator see only the traced values, a size
    that loses its expression there without a comparison would go unguarded: so the first
    time such a template admits another signature, that signature is traced too and the
    two Programs must agree (after that the template serves every signature its guards
    admit); a template that disagrees serves only its own sizes (``mismatches``). A
    template of either route has a guard that admits only the signatures of its route.
    """

    smallest_size = 0
    """Zero-sized inputs are traced: a KV-cache decoder's first step has a past of length 0
    (its Concat and Shape arithmetic import with the size 0, on the traced route)."""

    def __init__(
        self,
        model: onnx.ModelProto,
        passes: Sequence[ModulePass],
        *,
        function: func.FuncOp | None = None,
        options: DynamicOptions | None = None,
        cache: PrimitiveCache | None = None,
        weights: Mapping[str, np.ndarray] | None = None,
    ) -> None:
        """``function``: the symbolic import's (class docstring), None for the traced route
        only. ``weights``: the data of the large initializers when ``model`` holds them
        detached already (graph.load_detached), else they are detached from it here; the
        function's dnn.constants should hold the same arrays' bytes (import_symbolic's
        ``weights``), so both routes' templates share them."""
        self._model, self._weights = (
            detach_weights(model) if weights is None else (model, dict(weights))
        )
        """The model without its large weights' data, which a trace imports from
        ``_weights``: a trace copies the model, not 400 MB of BERT-base weights."""
        self._symbolic = function
        self.mismatches = 0
        """Templates whose reuse disagreed with a trace: pinned to their own sizes."""
        if function is not None:
            super().__init__(function, passes, (), options=options, cache=cache)
            return
        self._passes = tuple(passes)
        self._context = make_context()
        initializers = {t.name for t in model.graph.initializer}
        inputs = tuple(_spec(v) for v in model.graph.input if v.name not in initializers)
        outputs = model.graph.output
        if any(not o.type.tensor_type.elem_type for o in outputs):  # exporters write them
            outputs = onnx.shape_inference.infer_shapes(model).graph.output
        self._setup(
            model.graph.name or "main",
            inputs,
            tuple(_spec(v) for v in outputs),
            options,
            cache,
            (p for p in map(payload_of, self._weights.values()) if p is not None),
        )

    @property
    def onnx_model(self) -> tuple[onnx.ModelProto, Mapping[str, np.ndarray]]:
        """The model without its large weights' data, and that data by initializer name: what
        a trace of the traced route imports (dnnc.driver.saved_dynamic saves both)."""
        return self._model, self._weights

    @property
    def symbolic_function(self) -> func.FuncOp | None:
        """The symbolic import's function the IR route traces; None when it refused the
        model (class docstring)."""
        return self._symbolic

    def _traced_because(self, values: Values) -> str | None:
        """Why the signature of these symbol values takes the traced route (class
        docstring); None when the IR route serves it."""
        if self._symbolic is None:
            return "the symbolic import refused the model"
        if min(values, default=1) < 1:
            return "a size is 0, and the symbolic import's sizes are >= 1"
        for guard in symbolic.guards_of(self._symbolic):
            if not parse_condition(guard, values):
                return f"they break '{guard}', a condition of the symbolic import"
        return None

    def _trace(self, signature: Signature) -> ProgramTemplate:
        """A template of the signature's route (class docstring), admitting no signature of
        the other route; the IR route's needs no check."""
        template = super()._trace(signature)
        if self._symbolic is None:
            return template
        traced = self._traced_because(template.values(signature)) is not None
        route = Guard("route", lambda v: (self._traced_because(v) is not None) == traced, True)
        return dataclasses.replace(
            template, guards=(*template.guards, route), checked=template.checked or not traced
        )

    def _smallest(self, signature: Signature) -> int:
        """1 on the IR route (its templates admit no size 0: the route guard), else 0."""
        values = [signature[arg][dim] for arg, dim in self._symbols()]
        return 0 if self._traced_because(values) is not None else 1

    def _lower(self, sizes: Sequence[tuple[int, ...]]) -> tuple[Program, tuple[Sized, ...]]:
        hints = tuple(tuple(int.__int__(d) for d in shape) for shape in sizes)
        values = [hints[arg][dim] for arg, dim in self._symbols()]
        reason = self._traced_because(values)
        if reason is None:
            return super()._lower(sizes)
        if self._symbolic is not None:
            shown = ", ".join(shapes.format_shape(s) for s in hints)
            remark_at(self.name, f"input shapes {shown} traced from the ONNX model: {reason}")
        fixed = _with_inputs(self._model, self.input_names, hints, {})
        named = dict(zip(self.input_names, sizes, strict=True))
        module, sized = convert_traced(fixed, named, self._weights)
        run_passes(self._context, module, self._passes, verify_each=verify_each_pass())
        lowered = module.body.block.first_op
        assert isinstance(lowered, func.FuncOp)  # the lowering keeps the one function
        return program_of(lowered, shared=self._shared), tuple(c for _, c in sized)

    def _symbols(self) -> list[tuple[int, int]]:
        """(input, dimension) of each symbol, in order: the ``?`` input dimensions."""
        return [
            (index, dim)
            for index, declared in enumerate(self._declared)
            for dim, size in enumerate(declared)
            if size == shapes.DYNAMIC
        ]

    def _refuse(self, signature: Signature) -> None:
        for spec, shape in zip(self.inputs, signature, strict=True):
            if any(d not in (n, -1) for d, n in zip(spec.shape, shape)):
                raise InputError(
                    f"input '{spec.name}' is {spec.dtype}{list(shape)}; expected {self.signature()}"
                )

    def _checked(self, template: ProgramTemplate, signature: Signature) -> ProgramTemplate:
        """A traced-route template's first reuse is traced too (class docstring)."""
        if template.checked:
            return template
        traced = self._trace(signature)
        if same_program(template.instantiate(signature), traced.program):
            checked = dataclasses.replace(template, checked=True)
            self._templates[0] = checked  # _template_for moved the template it found first
            return checked
        self.mismatches += 1
        self._templates.remove(template)
        self._templates[:0] = [traced.pinned(), template.pinned()]
        return self._templates[0]


__all__ = ["OnnxDynamicExecutable", "ShapeSpecializedExecutable", "value_inputs"]
