"""The importer: walks an ONNX ``Graph`` in order and emits one dnn function.

Every ONNX value name maps to either a numpy array (known at import time: initializers,
``Constant`` nodes, and every node whose inputs are all known, which is folded with numpy
(dnnc.frontend.onnx.folding) or else ONNX's own reference evaluator, so
``Shape -> Gather -> Concat -> Reshape`` chains become constants when shapes are static) or
an SSA value of the function. A converter (``converters.CONVERTERS``,
one function per ONNX op type) reads its operands either as arrays (attributes in disguise:
shapes, axes, pads) or as tensors; an array used as a tensor is materialized once, as
``dnn.weight`` when it goes to the weights file and as ``dnn.constant`` when it is small
(fewer than ``INLINE_LIMIT`` elements), integer (shape-like), or there is no weights file.

Result shapes come from dnnc.core.shapes (the dialect's own rules); each produced value is
checked against the shape ONNX shape inference gave it, so a converter bug is reported at its
node rather than as a wrong number later. Every op a node's conversion emits is located at the
node (``loc("<node name>")``, MLIR's ``NameLoc``), the function and its return at the graph's
name: errors after the import and profile lines name them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from typing import ParamSpec, TypeVar

import numpy as np
import onnx
from onnx import helper
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ModuleOp,
    NameLoc,
    NoneAttr,
    StringAttr,
    TensorType,
    UnitAttr,
    UnknownLoc,
    UnrankedTensorType,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue

from dnnc.core import shapes
from dnnc.core.diagnostics import ModelError, RunTimeShapeError, RunTimeValueError
from dnnc.core.kinds import BinaryAlg, DataType, EltwiseAlg
from dnnc.core.symbols import SymbolicInt, evaluate, pinned, untraced
from dnnc.dialects.dnn import (
    BinaryOp,
    ConcatOp,
    ConstantOp,
    EltwiseOp,
    ReshapeOp,
    SliceOp,
    TransposeOp,
    WeightOp,
    shape_of,
)
from dnnc.dialects.dnn.deferred import VALUE_ARG, DeferredOp, is_static
from dnnc.dialects.dnn.symbolic import SHAPE_FUNCTION
from dnnc.dialects.types import element_type_of
from dnnc.frontend.onnx.deferred import SHAPE_READERS, VALUE_OPERANDS, source_attributes
from dnnc.frontend.onnx.folding import FOLDERS, SYMBOLIC_FOLDERS, symbolic_inputs
from dnnc.frontend.onnx.graph import Graph, Node, dtype_name, one_element
from dnnc.frontend.onnx.sized import (
    Folded,
    SizedArray,
    hint_of,
    recompute_of,
    shape_function,
    shape_of_folded,
    sized_shape,
    sizes_array,
)
from dnnc.ir.names import named

Value = SSAValue | np.ndarray | SizedArray
"""An ONNX value during import: known now (an array) or computed at run time (SSA)."""

Converter = Callable[["Importer", Node], "Value | tuple[Value, ...]"]
"""Emits the dnn ops of one node and returns its (first) output."""

VALUE_TYPE_NAMES = "float32, bfloat16, float16, int8, uint8, int32, int64 or bool"
"""The ONNX element types dnn tensors hold, for error messages."""

INLINE_LIMIT = 64
"""Arrays with fewer elements are written inline as dnn.constant even with a weights file."""

_WEIGHT_READERS = frozenset({"Conv", "MatMul", "Gemm"})
"""The ops whose input 1 is kept 8-bit when a DequantizeLinear of constants gives it."""
_NOT_FOLDED = frozenset(
    {
        "RandomNormal",
        "RandomUniform",
        "RandomNormalLike",
        "RandomUniformLike",
        "Bernoulli",
        "Multinomial",
    }
)
"""Ops that must not be evaluated at import time although their inputs are known."""

_SIZED_OPERANDS = frozenset({"Expand", "Slice"})
"""Ops whose converter reads an operand of sizes with their expressions (``Importer.sizes``):
with ``writes_symbols`` a node of them on a constant is converted rather than folded."""

_NAME_CHAR = re.compile(r"[^A-Za-z0-9_$.-]")
_NUMBER_SUFFIX = re.compile(r"_(\d+)$")


def ssa_name(onnx_name: str) -> str:
    """An ONNX value name as an SSA name hint that xDSL keeps as it is: characters outside
    ``[A-Za-z0-9_$.-]`` become ``_``, a leading digit gets a ``v`` prefix, and a trailing
    ``_<digits>`` (which xDSL would drop) becomes ``.<digits>`` (``input:0`` -> ``input.0``)."""
    name = _NAME_CHAR.sub("_", onnx_name) or "v"
    name = f"v{name}" if name[0].isdigit() else name
    return _NUMBER_SUFFIX.sub(r".\1", name)


def make_tensor_type(element: Attribute, shape: Sequence[int]) -> TensorType:
    """A plain tensor type (``shapes.DYNAMIC`` dimensions print as ``?``)."""
    return TensorType(element, [DYNAMIC_INDEX if d == shapes.DYNAMIC else d for d in shape])


def element_of(value: SSAValue) -> Attribute:
    """A tensor value's element type."""
    type_ = value.type
    assert isinstance(type_, TensorType)  # every dnn value is a tensor
    return type_.get_element_type()


P = ParamSpec("P")
R = TypeVar("R")


class Importer:
    """The state of one import: values by ONNX name, the function body, the weights."""

    def __init__(
        self,
        graph: Graph,
        weights_file: str | None,
        input_shapes: dict[str, tuple[int, ...]] | None = None,
        *,
        writes_symbols: bool = False,
        defers_values: bool = False,
    ) -> None:
        self.graph = graph
        self.input_shapes = input_shapes or {}
        """Shapes that replace the graph inputs' (dnnc.driver.dynamic's traced sizes)."""
        self.writes_symbols = writes_symbols
        """Whether the sizes' expressions go into the IR (dnnc.frontend.onnx.symbolic): data
        computed from the sizes is then a host shape function's argument from its source (a
        Range) on, and the nodes that read it convert as tensors, not folded."""
        self.defers_values = defers_values
        """Whether a node that waits for argument values is kept as ``dnn.deferred``
        (``_deferred``) rather than refused: the plain import's choice (the traced and
        symbolic ones take sizes, not values, from the inputs)."""
        self.value_args: set[int] = set()
        """The arguments deferred nodes wait for (``dnn.value_arg``), by index."""
        self.shape_functions: dict[int, str] = {}
        """The host shape function of each argument that has one, by argument index."""
        self.weights_file = weights_file
        self.weights: dict[str, np.ndarray] = {}
        """Arrays for the weights file, by key."""
        self.copied_bytes = 0
        """The bytes of the dnn.constant payloads this import copied (``_payload``): those
        its IR alone holds when the initializers' arrays are the caller's."""
        self.values: dict[str, Value] = dict(graph.initializers)
        self.block = Block()
        self._materialized: dict[tuple[str, int], SSAValue] = {}
        self._keys: set[str] = set()
        self.input_names: list[str] = []
        """The ONNX name of each function argument, in order."""
        self.sized_inputs: list[tuple[str, Callable[[Sequence[int]], np.ndarray]]] = []
        """The arguments after the graph inputs: SizedArrays a converter reads as tensors,
        each with how to compute it from the symbol values (dnnc.frontend.onnx.sized)."""

    # -- diagnostics --------------------------------------------------------------------------
    def where(self, node: Node) -> str:
        """``node 'name', opset N`` for messages."""
        return f"node '{node.label}', opset {self.graph.opset}"

    def error(self, node: Node, message: str, kind: type[ModelError] = ModelError) -> ModelError:
        """A user error about a node: ``ONNX Conv (node 'c1', opset 17): message``, of the
        class `kind` (a RunTimeValueError when only run time knows what the import needs)."""
        return kind(f"ONNX {node.op_type} ({self.where(node)}): {message}")

    # -- reading operands ---------------------------------------------------------------------
    def has_input(self, node: Node, index: int) -> bool:
        """Whether optional input ``index`` is given."""
        return bool(node.input(index))

    def const(self, node: Node, index: int) -> np.ndarray | None:
        """Input ``index`` if it is known at import time (None if run-time or absent)."""
        value = self.values.get(node.input(index))
        return _pinned(value) if isinstance(value, np.ndarray) else None

    def sizes(self, node: Node, index: int, what: str) -> list[int]:
        """Input ``index`` as a list of sizes, which may be expressions of the input
        dimensions (a traced shape vector: dnnc.driver.dynamic); an error as
        ``require_const`` if it is computed at run time."""
        value = self.values.get(node.input(index))
        if not isinstance(value, np.ndarray) or value.dtype != object:
            return [int(v) for v in self.require_const(node, index, what).reshape(-1)]
        return list(value.reshape(-1))

    def require_const(self, node: Node, index: int, what: str) -> np.ndarray:
        """Input ``index`` as an array; an error naming ``what`` if it is only known at run time.
        A SizedArray (data computed from the input sizes: a run-time tensor for ``const``) is
        its traced value, every symbol pinned: the converter needs it now."""
        found = self.values.get(node.input(index))
        value = self._pinned(found) if isinstance(found, SizedArray) else self.const(node, index)
        if value is None:
            raise self.error(
                node,
                f"input {index} ({what}) must be a constant: it is computed at run time",
                RunTimeValueError,
            )
        return value

    def scalar(self, node: Node, index: int, what: str) -> np.generic:
        """Input ``index`` as one number, known at import time: a 0-d or a shape-[1] tensor
        (``graph.one_element``; attributes of older opsets became such inputs when
        graph.load_graph upgraded the model). An error naming ``what`` when it is computed at
        run time or does not hold exactly one element."""
        array = self.require_const(node, index, what)
        value = one_element(array)
        if value is None:
            raise self.error(
                node,
                f"input {index} ({what}) must hold one element (a 0-d or a [1] tensor), got "
                f"shape {list(array.shape)}",
            )
        return value

    def tensor(self, node: Node, index: int, rank: int | None = None) -> SSAValue:
        """Input ``index`` as an SSA value; a constant is materialized (with ``rank``: first
        given leading 1s up to that rank, as broadcasting would)."""
        name = node.input(index)
        value = self.values.get(name)
        if value is None:
            what = f"'{name}'" if name else "(absent)"
            raise self.error(
                node,
                f"input {index} {what} is required, and no node, initializer "
                "or graph input defines it",
            )
        if isinstance(value, SSAValue):
            return value
        return self.materialize(node, value, name, rank)

    def used(self, node: Node, index: int) -> bool:
        """Whether output ``index`` of ``node`` is read by a node or is a graph output."""
        name = node.outputs[index] if index < len(node.outputs) else ""
        return bool(name) and bool(
            self.graph.consumers.get(name) or name in self.graph.output_names
        )

    def optional_tensor(self, node: Node, index: int) -> SSAValue | None:
        """Input ``index`` as an SSA value, or None when absent."""
        return self.tensor(node, index) if self.has_input(node, index) else None

    def shape(self, value: Value) -> shapes.Shape:
        """The shape of a value (``shapes.DYNAMIC`` for unknown dimensions)."""
        return shape_of(value) if isinstance(value, SSAValue) else shape_of_folded(value)

    # -- constants ----------------------------------------------------------------------------
    def materialize(
        self, node: Node, folded: Folded, key: str, rank: int | None = None
    ) -> SSAValue:
        """An array as a dnn.constant or dnn.weight, once per (key, rank); ``key`` is the ONNX
        value name (or a name made up for a computed array) and names the weight. A
        SizedArray is a function argument instead (``sized_inputs``)."""
        if isinstance(folded, SizedArray):
            return self._sized_input(node, folded, key, rank)
        if self.writes_symbols and folded.dtype == object:  # sizes used as data
            flat = self._sized_input(node, _sizes_data(folded), key, None)
            ones = (1,) * max((rank or 0) - folded.ndim, 0)
            shape = (*ones, *folded.shape)
            return flat if shape == shape_of(flat) else self.reshape(flat, shape)
        array = self._pinned(folded)
        if rank is not None and array.ndim < rank:
            array = array.reshape((1,) * (rank - array.ndim) + array.shape)
        cached = self._materialized.get((key, array.ndim))
        if cached is not None:
            return cached
        try:
            data_type = DataType.of_numpy(array.dtype)
        except ValueError:
            data_type = None
        if data_type is None:
            raise self.error(
                node,
                f"a {array.dtype} tensor computed at run time is not supported: dnn "
                f"tensors are {VALUE_TYPE_NAMES} (fold it or cast it to one of them)",
            )
        type_ = make_tensor_type(element_type_of(data_type), array.shape)
        inline = (
            self.weights_file is None
            or array.size < INLINE_LIMIT
            or np.issubdtype(array.dtype, np.integer)
        )
        if inline:
            op: Operation = ConstantOp.of_bytes(type_, self._payload(array))
        else:
            assert self.weights_file is not None  # inline otherwise
            weight_key = self._unique_key(key)
            self.weights[weight_key] = np.ascontiguousarray(array)
            op = WeightOp(self.weights_file, weight_key, type_)
        result = self.emit(op, key)
        self._materialized[(key, array.ndim)] = result
        return result

    def _payload(self, array: np.ndarray) -> bytes:
        """The bytes of a C-contiguous array: the bytes object it views (``payload_of``; a
        dnn.constant of a weight then shares its payload with every import of the model), else
        a copy (counted in ``copied_bytes``)."""
        payload = payload_of(array)
        if payload is None:
            payload = np.ascontiguousarray(array).tobytes()
            self.copied_bytes += len(payload)
        return payload

    def _sized_input(self, node: Node, sized: SizedArray, key: str, rank: int | None) -> SSAValue:
        """A SizedArray as an argument after the graph inputs, once per (key, rank)."""
        cached = self._materialized.get((key, rank or len(sized.shape)))
        if cached is not None:
            return cached
        data_type = DataType.of_numpy(sized.dtype)
        if data_type is None:
            raise self.error(node, f"a {sized.dtype} tensor computed from the input sizes")
        shape, recompute = sized.shape, sized.recompute
        if self.writes_symbols:
            return self._shape_function_input(node, sized, key, rank)
        if rank is not None and len(shape) < rank:
            ones = (1,) * (rank - len(shape))
            shape = (*ones, *shape)
            recompute = _reshaped(recompute, ones)
        arg = self.block.insert_arg(
            make_tensor_type(element_type_of(data_type), shape), len(self.block.args)
        )
        name = f"sized.{len(self.sized_inputs)}.{key}"
        arg.name_hint = ssa_name(name)
        self.input_names.append(name)
        self.sized_inputs.append((name, recompute))
        self._materialized[(key, len(shape))] = arg
        return arg

    def _shape_function_input(
        self, node: Node, sized: SizedArray, key: str, rank: int | None
    ) -> SSAValue:
        """A SizedArray as an argument computed by its host shape function
        (``dnn.shape_function``), reshaped to ``rank`` with leading 1s."""
        if sized.function is None:
            raise self.error(node, "data computed from the input sizes has no shape function")
        element = element_type_of(DataType.of_numpy(sized.dtype))
        arg = self.block.insert_arg(make_tensor_type(element, sized.shape), len(self.block.args))
        name = f"sized.{len(self.sized_inputs)}.{key}"
        arg.name_hint = ssa_name(name)
        self.shape_functions[len(self.input_names)] = sized.function
        self.input_names.append(name)
        self.sized_inputs.append((name, sized.recompute))
        value: SSAValue = arg
        if rank is not None and len(sized.shape) < rank:
            value = self.reshape(value, (1,) * (rank - len(sized.shape)) + tuple(sized.shape))
        self._materialized[(key, rank or len(sized.shape))] = value
        return value

    def _pinned(self, folded: Folded) -> np.ndarray:
        """An array for the traced signature only: a shape vector's sizes pinned to their
        traced values (``pinned``), every symbol pinned for a SizedArray (its values may
        depend on any of them); a plain array as it is."""
        if isinstance(folded, SizedArray):
            for shape in self.input_shapes.values():
                for size in shape:
                    pinned(size)
            return folded.hint
        return _pinned(folded)

    def _unique_key(self, key: str) -> str:
        candidate, suffix = key, 1
        while candidate in self._keys:
            candidate, suffix = f"{key}.{suffix}", suffix + 1
        self._keys.add(candidate)
        return candidate

    def fold(self, node: Node) -> list[Folded] | None:
        """The outputs of a node whose inputs are all known, from dnnc's numpy folders or else
        ONNX's reference evaluator (None when the node must run at run time). Inputs that
        follow the input dimensions (a traced import, dnnc.frontend.onnx.sized) give a shape
        vector, a SizedArray, or pin their symbols when the node has no shape rule."""
        known = [name for name in node.inputs if name]
        if self._quantized_weight(node):
            return None
        if node.op_type in _NOT_FOLDED or not all(
            isinstance(self.values.get(name), np.ndarray | SizedArray) for name in known
        ):
            return None
        if not known and node.op_type != "Constant":
            return None
        arrays: list[Folded] = [
            value
            for name in known
            if isinstance(value := self.values[name], np.ndarray | SizedArray)  # all: above
        ]
        plain = [a for a in arrays if isinstance(a, np.ndarray)]
        sized = any(isinstance(a, SizedArray) for a in arrays)
        symbolic = sized or any(a.dtype == object for a in arrays)
        if not symbolic:
            return list(self._evaluate(node, known, plain))
        if node.op_type in ("Shape", "Size"):  # of a SizedArray or of a shape vector
            shape = shape_of_folded(arrays[0])
            if node.op_type == "Size":
                return [sizes_array([math.prod(shape)]).reshape(())]
            end = None if node.attr("end") is None else node.int_attr("end")
            return [sizes_array(shape[node.int_attr("start", 0) : end])]
        converted = node.op_type in _SIZED_OPERANDS and arrays[0].dtype != object
        if self.writes_symbols and (sized or converted):
            return None  # data from the sizes: a tensor from its source on (writes_symbols)
        if not sized and symbolic_inputs(node.op_type, plain):
            folded = SYMBOLIC_FOLDERS[node.op_type](node, *arrays)
            if isinstance(folded, np.ndarray):
                return [folded]
            if folded is not None:  # numpy gives an object array's one element unwrapped
                return [np.asarray(folded, dtype=object)]
        result = sized_shape(node, arrays) if len(node.outputs) == 1 else None
        function = shape_function(node, arrays)
        if result is not None and (function is not None or not self.writes_symbols):
            hint = self._evaluate(node, known, [hint_of(a) for a in arrays])[0]
            if hint.shape == tuple(int.__int__(d) for d in result):
                recompute = _recompute(node, self.graph.opset, known, arrays)
                return [SizedArray(hint, result, recompute, function)]
        return list(self._evaluate(node, known, [self._pinned(a) for a in arrays]))

    def _evaluate(self, node: Node, names: list[str], arrays: list[np.ndarray]) -> list[np.ndarray]:
        """The node's outputs on plain arrays (FOLDERS, else the reference evaluator)."""
        try:
            return evaluate_node(node, self.graph.opset, names, arrays)
        except ModelError:
            raise
        except Exception as error:  # the reference evaluator raises anything; say which node
            raise self.error(node, f"cannot evaluate the constant node: {error}") from error

    def _quantized_weight(self, node: Node) -> bool:
        """A DequantizeLinear of int8 or uint8 constants, per tensor or per axis, whose every
        reader takes it as the weights of a Conv, MatMul or Gemm (input 1): kept as
        dnn.dequantize of the int8 constant, so that the weights stay 8-bit for an int8 kernel
        (dnn-fold-constants folds it where none takes them). Other weights (int4, float8,
        block-wise: no int8 kernel takes them) fold to f32 like any constant node."""
        if node.op_type != "DequantizeLinear" or node.int_attr("block_size", 0):
            return False
        weights = self.values.get(node.inputs[0])
        if not isinstance(weights, np.ndarray) or weights.dtype not in (np.int8, np.uint8):
            return False
        readers = self.graph.consumers.get(node.outputs[0], [])
        return (
            bool(readers)
            and node.outputs[0] not in self.graph.output_names
            and all(
                r.op_type in _WEIGHT_READERS
                and r.inputs[1:2] == (node.outputs[0],)
                and node.outputs[0] not in r.inputs[:1] + r.inputs[2:]
                for r in readers
            )
        )

    # -- emitting ops -------------------------------------------------------------------------
    def emit(self, op: Operation, name: str | None = None) -> SSAValue:
        """Append ``op`` to the function and return its first result."""
        self.block.add_op(op)
        result = op.results[0]
        if name is not None:
            result.name_hint = ssa_name(name)
        return result

    def eltwise(
        self, src: SSAValue, alg: EltwiseAlg, alpha: float = 0.0, beta: float = 0.0
    ) -> SSAValue:
        """``dnn.eltwise alg`` with explicit alpha and beta."""
        return self.emit(EltwiseOp(alg, src, alpha=alpha, beta=beta))

    def binary(self, node: Node, alg: BinaryAlg, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        """``dnn.binary alg`` with numpy broadcasting."""
        shape = self.infer(node, shapes.binary, shape_of(lhs), shape_of(rhs))
        return self.emit(
            BinaryOp(alg, lhs, rhs, result_type=make_tensor_type(element_of(lhs), shape))
        )

    def reshape(self, src: SSAValue, shape: Sequence[int]) -> SSAValue:
        """``dnn.reshape`` to ``shape`` (no op when the shape is already that for every
        signature). Sizes are compared with ``same_size``, which records no guard: a reshape
        whose target equals its source in some signatures only (``s0*s1`` against ``s0``,
        equal at ``s1 = 1``) is kept, and a reshape to the source's own shape is right for
        every size, where the guard ``(s0*s1) != s0`` would send batch 1 or one-token steps
        away from the symbolic import."""
        source = shape_of(src)
        if len(shape) == len(source) and all(map(shapes.same_size, shape, source)):
            return src
        return self.emit(ReshapeOp(src, shape))

    def slice(
        self,
        node: Node,
        src: SSAValue,
        starts: Sequence[int],
        ends: Sequence[int],
        steps: Sequence[int] | None = None,
    ) -> SSAValue:
        """``dnn.slice`` with one start, end (and step) per dimension (bounds in range)."""
        steps = [1] * len(starts) if steps is None else steps
        shape = self.infer(node, shapes.slice, shape_of(src), starts=starts, ends=ends, steps=steps)
        return self.emit(
            SliceOp(
                src,
                starts=starts,
                ends=ends,
                steps=steps,
                result_type=make_tensor_type(element_of(src), shape),
            )
        )

    def concat(self, node: Node, inputs: Sequence[SSAValue], axis: int) -> SSAValue:
        """``dnn.concat`` along ``axis`` (one input: itself)."""
        if len(inputs) == 1:
            return inputs[0]
        shape = self.infer(node, shapes.concat, [shape_of(v) for v in inputs], axis=axis)
        return self.emit(
            ConcatOp(inputs, axis=axis, result_type=make_tensor_type(element_of(inputs[0]), shape))
        )

    def transpose(self, src: SSAValue, permutation: Sequence[int]) -> SSAValue:
        """``dnn.transpose`` (no op for the identity permutation)."""
        if list(permutation) == list(range(len(permutation))):
            return src
        shape = shapes.transpose(shape_of(src), permutation=permutation)
        return self.emit(
            TransposeOp(
                src,
                permutation=permutation,
                result_type=make_tensor_type(element_of(src), shape),
            )
        )

    def infer(
        self,
        node: Node,
        shape_function: Callable[P, R],
        /,
        *args: P.args,
        **kwargs: P.kwargs,
    ) -> R:
        """A dnnc.core.shapes function's result (or a dnn op whose constructor infers its
        result type with one), its ShapeError reported at ``node``."""
        try:
            return shape_function(*args, **kwargs)
        except shapes.ShapeError as error:
            raise self.error(node, str(error)) from error

    # -- the walk -----------------------------------------------------------------------------
    def run(self, converters: dict[str, Converter], function_name: str) -> ModuleOp:
        """Convert the whole graph into ``func.func @function_name``."""
        for value_info in self.graph.graph.input:
            if value_info.name in self.values:
                continue  # an initializer listed as an input (old exporters): a constant
            arg = self.block.insert_arg(self._input_type(value_info), len(self.block.args))
            arg.name_hint = ssa_name(value_info.name)
            self.values[value_info.name] = arg
            self.input_names.append(value_info.name)
        last_read = {name: i for i, node in enumerate(self.graph.nodes) for name in node.inputs}
        outputs = set(self.graph.output_names)
        for index, node in enumerate(self.graph.nodes):
            self._convert(node, converters)
            for name in node.inputs:
                if last_read[name] == index and name not in outputs:
                    self._forget(name)
        results: list[SSAValue] = []
        last = self.block.last_op
        for name in self.graph.output_names:
            value = self.values[name]
            if isinstance(value, np.ndarray | SizedArray):
                value = self.materialize(self.graph.nodes[-1], value, name)
            results.append(value)
        self.block.add_op(func.ReturnOp(*results))
        graph = _name_loc(self.graph.graph.name or "graph")
        self._locate(last, graph)  # constant outputs and the return
        function = func.FuncOp(
            function_name,
            ([a.type for a in self.block.args], [r.type for r in results]),
            Region(self.block),
            arg_attrs=named(
                [
                    name if name != arg.name_hint else None
                    for name, arg in zip(self.input_names, self.block.args, strict=True)
                ],
                {i: {SHAPE_FUNCTION: StringAttr(f)} for i, f in self.shape_functions.items()}
                | {i: {VALUE_ARG: UnitAttr()} for i in self.value_args},
            ),
            res_attrs=named(self.graph.output_names),
        )
        function.location = graph
        return ModuleOp([function])

    def _forget(self, name: str) -> None:
        """Drop a constant no node reads any more: a weight folded into another array (a
        transposed MatMul weight) is not kept beside it until the import ends."""
        if isinstance(self.values.get(name), np.ndarray | SizedArray):
            del self.values[name]
            self.graph.initializers.pop(name, None)

    def _input_type(self, value_info: onnx.ValueInfoProto) -> TensorType:
        if not value_info.type.HasField("tensor_type"):
            kind = value_info.type.WhichOneof("value")
            raise ModelError(
                f"graph input '{value_info.name}' is of {kind} type: only tensors are supported"
            )
        tensor = value_info.type.tensor_type
        if not tensor.HasField("shape"):
            raise ModelError(
                f"graph input '{value_info.name}' has no shape in the model, not even a rank: "
                "give the model its input shapes (export with example inputs, or "
                "onnx.tools.update_model_dims.update_inputs_outputs_dims)"
            )
        data_type = _data_type(tensor.elem_type)
        if data_type is None:
            name = dtype_name(tensor.elem_type)
            raise ModelError(
                f"graph input '{value_info.name}' has element type {name}: dnn tensors are "
                f"{VALUE_TYPE_NAMES}"
            )
        dims = [
            d.dim_value if d.HasField("dim_value") else shapes.DYNAMIC for d in tensor.shape.dim
        ]
        return make_tensor_type(
            element_type_of(data_type), self.input_shapes.get(value_info.name, dims)
        )

    def _convert(self, node: Node, converters: dict[str, Converter]) -> None:
        if node.domain not in ("", "ai.onnx"):
            raise self.unsupported(node, converters)
        folded = self.fold(node)
        if folded is not None:
            self.values.update(zip(node.outputs, folded))
            return
        converter = converters.get(node.op_type)
        last = self.block.last_op
        early = self.defers_values and (converter is None or self._reads_pending(node))
        deferred = self._deferred(node) if early else None
        if deferred is not None:
            value: Value | tuple[Value, ...] = deferred
        elif converter is None:
            raise self.unsupported(node, converters)
        else:
            try:
                value = converter(self, node)
            except RunTimeValueError as error:
                value = deferred = self._deferred_instead(node, last, error)
        self._locate(last, _name_loc(node.label))
        values = value if isinstance(value, tuple) else (value,)
        for index, extra in enumerate(node.outputs[1:], start=1):
            if self.used(node, index) and index >= len(values):
                raise self.error(
                    node,
                    f"output '{extra}' is used, but only the first "
                    f"{'output is' if len(values) == 1 else f'{len(values)} outputs are'} "
                    "supported",
                )
        first = values[0]
        if isinstance(first, SSAValue) and deferred is None:
            self._check_shape(node, first)
            if first.name_hint is None and isinstance(first.owner, Operation):
                first.name_hint = ssa_name(node.outputs[0])
        for name, produced in zip(node.outputs, values):
            if name:
                self.values[name] = produced

    def _reads_pending(self, node: Node) -> bool:
        """Whether ``node`` reads a deferred result that is not static: no converter can take
        it (its shape comes with the values), so the node waits too."""
        values = (self.values.get(name) for name in node.inputs)
        return any(
            isinstance(v, SSAValue) and isinstance(v.owner, DeferredOp) and not is_static(v)
            for v in values
        )

    def _deferred_instead(
        self, node: Node, last: Operation | None, error: RunTimeValueError
    ) -> tuple[SSAValue, ...]:
        """``node`` as ``dnn.deferred`` after its converter said that it needs a value only
        run time knows (``error``), the ops the converter emitted dropped; ``error`` again when
        the node cannot wait (``_deferred``), or the value is a size (a RunTimeShapeError:
        the symbolic import's business)."""
        if not self.defers_values or isinstance(error, RunTimeShapeError):
            raise error
        self._drop_after(last)
        deferred = self._deferred(node)
        if deferred is None:
            raise error
        return deferred

    def _drop_after(self, last: Operation | None) -> None:
        """Erase the ops after ``last`` (all when None), and forget the constants among them."""
        dropped: list[Operation] = []
        op = self.block.last_op
        while op is not None and op is not last:
            dropped.append(op)
            op = op.prev_op
        for op in dropped:  # last first: each one's users are gone before it
            if isinstance(op, WeightOp) and op.key is not None:
                self.weights.pop(op.key.data, None)
            self.block.erase_op(op)
        gone = set(dropped)
        self._materialized = {k: v for k, v in self._materialized.items() if v.owner not in gone}

    def _deferred(self, node: Node) -> tuple[SSAValue, ...] | None:
        """``node`` kept as ``dnn.deferred`` when it waits for argument values: an operand
        its converter reads at import time (``VALUE_OPERANDS``) is computed at run time, or
        it reads a deferred result that is not static (dnnc.frontend.onnx.deferred). None
        when it does not wait, or cannot wait so: an argument has a ? dimension, or ONNX
        gives an output no dnn type, or an attribute has no dnn form (the caller raises what
        the converter said); a ModelError if it reads a deferred result that is not static."""
        operands = {
            index: value
            for index, name in enumerate(node.inputs)
            if isinstance(value := self.values.get(name), SSAValue)
        }
        read = VALUE_OPERANDS.get(node.op_type, ())
        needed = [value for index, value in operands.items() if index in read]
        pending = self._reads_pending(node)
        if not needed and not pending:
            return None
        if not all(is_static(arg) for arg in self.block.args):
            return None  # value arguments are for static functions (dnn.deferred's contract)
        sources = _value_sources(needed)
        types = [self._deferred_type(name) for name in node.outputs]
        attributes = source_attributes(node)
        if attributes is None or not types or any(t is None for t in types):
            if pending:
                raise self.error(
                    node,
                    "it reads a result known only with argument values, and cannot wait for "
                    "them: an output has no dnn type, or an attribute no dnn.deferred form",
                )
            return None
        op = DeferredOp(
            f"onnx.{node.op_type}",
            [self.tensor(node, index) for index, name in enumerate(node.inputs) if name],
            [t for t in types if t is not None],
            opset=self.graph.opset,
            source_attributes=attributes,
            absent_inputs=[index for index, name in enumerate(node.inputs) if not name],
        )
        self.block.add_op(op)
        for result, name in zip(op.outputs, node.outputs, strict=True):
            result.name_hint = ssa_name(name)
        self.value_args.update(sources)
        return tuple(op.outputs)

    def _deferred_type(self, name: str) -> Attribute | None:
        """The type of a deferred node's output, as far as ONNX shape inference knows it
        from the inputs' types: unranked for a graph output, whose declared shape is the
        exporter's values', not necessarily these (None: no dnn type, or an absent output)."""
        info = self.graph.value_infos.get(name)
        if info is None or not info.type.HasField("tensor_type"):
            return None
        tensor = info.type.tensor_type
        data_type = _data_type(tensor.elem_type)
        if data_type is None:
            return None
        element = element_type_of(data_type)
        if name in self.graph.output_names or not tensor.HasField("shape"):
            return UnrankedTensorType(element)
        dims = [
            d.dim_value if d.HasField("dim_value") else shapes.DYNAMIC for d in tensor.shape.dim
        ]
        return make_tensor_type(element, dims)

    def _locate(self, last: Operation | None, where: NameLoc) -> None:
        """Locate the ops emitted after `last` (from the first when None) at `where`."""
        op = self.block.first_op if last is None else last.next_op
        while op is not None:
            if isinstance(op.location, UnknownLoc):
                op.location = where
            op = op.next_op

    def unsupported(self, node: Node, converters: dict[str, Converter]) -> ModelError:
        """The error for an op type the importer has no converter for."""
        domain = f" of domain '{node.domain}'" if node.domain not in ("", "ai.onnx") else ""
        return ModelError(
            f"unsupported ONNX op '{node.op_type}'{domain} ({self.where(node)}); supported: "
            f"{', '.join(sorted(converters))} (any op whose inputs are all constant is "
            "folded at import)"
        )

    def _check_shape(self, node: Node, value: SSAValue) -> None:
        """The converter's shape agrees with ONNX shape inference where that is known."""
        info = self.graph.value_infos.get(node.outputs[0])
        if info is None or not info.type.tensor_type.HasField("shape"):
            return
        declared = tuple(
            d.dim_value if d.HasField("dim_value") else shapes.DYNAMIC
            for d in info.type.tensor_type.shape.dim
        )
        with untraced():  # ONNX's sizes are the traced values without their expressions
            agrees = shapes.compatible(shape_of(value), declared)
        if not agrees:
            raise self.error(
                node,
                f"the importer made shape {shapes.format_shape(shape_of(value))} where ONNX "
                f"shape inference says {shapes.format_shape(declared)}",
            )


def _value_sources(values: Sequence[SSAValue]) -> set[int]:
    """The arguments (by index) whose values reach ``values``: through every op but a
    deferred ``Shape``/``Size``, which reads only its input's shape."""
    sources: set[int] = set()
    seen: set[SSAValue] = set()
    stack = list(values)
    while stack:
        value = stack.pop()
        if value in seen:
            continue
        seen.add(value)
        if isinstance(value, BlockArgument):
            sources.add(value.index)
            continue
        owner = value.owner
        assert isinstance(owner, Operation)  # not a block argument (above)
        if isinstance(owner, DeferredOp) and owner.op_type in SHAPE_READERS:
            continue
        stack.extend(owner.operands)
    return sources


def evaluate_node(
    node: Node,
    opset: int,
    names: list[str],
    arrays: list[np.ndarray],
    evaluators: dict[int, object] | None = None,
) -> list[np.ndarray]:
    """A node's outputs on plain arrays: FOLDERS, else ONNX's reference evaluator (kept in
    ``evaluators`` for the next call when given)."""
    if node.op_type in FOLDERS:
        folded = FOLDERS[node.op_type](node, *arrays)
        if folded is not None:
            return [folded]
    from onnx.reference import ReferenceEvaluator  # 12 MiB: only what FOLDERS lacks

    cache = {} if evaluators is None else evaluators
    evaluator = cache.get(opset)
    if evaluator is None:
        evaluator = cache[opset] = ReferenceEvaluator(node.proto, opsets={"": opset})
    assert isinstance(evaluator, ReferenceEvaluator)
    return [np.asarray(r) for r in evaluator.run(None, dict(zip(names, arrays)))]


def _recompute(
    node: Node, opset: int, names: list[str], inputs: list[Folded]
) -> Callable[[Sequence[int]], np.ndarray]:
    """How a folded node's result follows the symbol values: the node again on its inputs
    computed for them (a closure over the node and its inputs only, not the importer)."""
    recomputes = [recompute_of(a) for a in inputs]
    evaluators: dict[int, object] = {}
    last: dict[tuple[int, ...], np.ndarray] = {}
    """The result for the last symbol values: a value read by several nodes is computed
    once per signature."""

    def recompute(values: Sequence[int]) -> np.ndarray:
        key = tuple(values)
        if key not in last:
            inputs = [r(values) for r in recomputes]
            last.clear()
            last[key] = evaluate_node(node, opset, names, inputs, evaluators)[0]
        return last[key]

    return recompute


def _sizes_data(sizes: np.ndarray) -> SizedArray:
    """A shape vector (sizes, some expressions) used as data: the int64 array a host shape
    function ``sizes(...)`` computes (dnnc.dialects.dnn.symbolic), flat."""
    flat = list(sizes.reshape(-1))
    texts = ", ".join(v.text if isinstance(v, SymbolicInt) else str(int(v)) for v in flat)
    return SizedArray(
        np.array([int.__int__(v) for v in flat], np.int64),
        (len(flat),),
        lambda values: np.array([evaluate(v, values) for v in flat], np.int64),
        f"sizes({texts})",
    )


def _reshaped(
    recompute: Callable[[Sequence[int]], np.ndarray], ones: tuple[int, ...]
) -> Callable[[Sequence[int]], np.ndarray]:
    """``recompute`` with leading unit dimensions."""
    return lambda values: recompute(values).reshape((*ones, *recompute(values).shape))


def _pinned(array: np.ndarray) -> np.ndarray:
    """A shape vector of traced sizes (``object``) as int64, each pinned to its traced value
    (dnnc.core.symbols.pinned); any other array as it is."""
    if array.dtype != object:
        return array
    return np.array([pinned(v) for v in array.reshape(-1)], np.int64).reshape(array.shape)


def _name_loc(name: str) -> NameLoc:
    """``loc("name")``: where an op imported from a node (or the graph) is."""
    return NameLoc(StringAttr(name), NoneAttr())


def payload_of(array: np.ndarray) -> bytes | None:
    """The very bytes object a C-contiguous array views when it views all of one (an
    initializer read by graph.load_graph or graph.detach_weights), else None."""
    base = array
    while isinstance(base, np.ndarray) and base.base is not None:
        base = base.base
    if (
        isinstance(base, bytes)
        and array.flags.c_contiguous
        and array.nbytes == len(base)
        and array.ctypes.data == np.frombuffer(base, np.uint8).ctypes.data
    ):
        return base
    return None


def _data_type(elem_type: int) -> DataType | None:
    """The dnnc data type of an ONNX element type (None when there is none)."""
    try:
        return DataType.of_numpy(np.dtype(helper.tensor_dtype_to_np_dtype(elem_type)))
    except (KeyError, TypeError, ValueError):
        return None
