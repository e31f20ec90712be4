"""The importer's view of an ONNX graph: loaded, shape-inferred, checked, with named nodes.

``load_graph`` accepts a path or a ``ModelProto``, checks the default-domain opset (1 to the
newest the installed onnx defines; below 11 the model is upgraded to 13 by
``onnx.version_converter``) and runs ``onnx.shape_inference`` (strict, with data
propagation). ``Graph`` keeps the nodes
in topological order (ONNX requires it) as ``Node`` wrappers, the initializers as numpy arrays
and the consumers of every value, so that graph-level rewrites (``gelu.fuse_erf_gelu``) can
replace nodes before any dnn op is emitted.
"""

from __future__ import annotations

import math
import os
from collections import defaultdict
from collections.abc import Mapping, MutableSequence, Sequence
from dataclasses import dataclass, field

import numpy as np
import onnx
from google.protobuf.message import DecodeError, Message
from onnx import helper, numpy_helper, version_converter
from onnx.external_data_helper import load_external_data_for_model

from dnnc.core.diagnostics import ModelError
from dnnc.frontend.onnx.wire import WireError, read_detached

MIN_OPSET = 1
"""The oldest default-domain opset read; models below UPGRADE_FROM are upgraded first."""
MAX_OPSET = onnx.defs.onnx_opset_version()
"""The newest opset the installed onnx defines; converters.NEWEST_VERSIONS says, op by op,
which versions of an op's semantics the importer implements."""
UPGRADE_FROM = 11
"""Models of older opsets are converted to UPGRADED_OPSET by onnx.version_converter, so that
the converters see one form of each op (Slice, Squeeze, Clip, Pad ... take attributes before)."""
UPGRADED_OPSET = 13


@dataclass
class Node:
    """One ONNX node: its proto, a label for diagnostics, and its attributes as Python values."""

    proto: onnx.NodeProto
    label: str
    """The node's name, or ``#<index> (unnamed)`` when it has none."""
    op_type: str = field(init=False)
    domain: str = field(init=False)
    inputs: tuple[str, ...] = field(init=False)
    """Input value names; an absent optional input is ``""``."""
    outputs: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        # read once (a rewrite makes a new Node, never changes a proto): every read of a
        # protobuf field builds new objects, and a BERT-base compile read these 40,000 times
        proto = self.proto
        self.op_type, self.domain = proto.op_type, proto.domain
        self.inputs, self.outputs = tuple(proto.input), tuple(proto.output)

    def attr(self, name: str, default: object = None) -> object:
        """An attribute's value (ints, floats, strings as ``str``, lists, tensors as numpy)."""
        for attribute in self.proto.attribute:
            if attribute.name == name:
                try:
                    value = helper.get_attribute_value(attribute)
                except ValueError as error:  # a type ONNX itself cannot read
                    value = None
                    reason = str(error)
                else:
                    reason = f"its type is {attribute.type}"
                if value is None:
                    raise ModelError(
                        f"node '{self.label}' ({self.op_type}): attribute "
                        f"'{name}' has no value ({reason})"
                    )
                if isinstance(value, bytes):
                    return value.decode()
                if isinstance(value, onnx.TensorProto):
                    return tensor_value(value, f"node '{self.label}' attribute '{name}'")
                return value
        return default

    def int_attr(self, name: str, default: int | None = None) -> int:
        """An integer attribute (`default` when absent; a ModelError naming the node when it
        is absent without a default or of another type). So are the others below."""
        value = self._typed(name, default, int)
        assert isinstance(value, int)
        return value

    def float_attr(self, name: str, default: float | None = None) -> float:
        """A float attribute (an integer one is converted)."""
        value = self._typed(name, default, (float, int))
        assert isinstance(value, float | int)
        return float(value)

    def str_attr(self, name: str, default: str | None = None) -> str:
        value = self._typed(name, default, str)
        assert isinstance(value, str)
        return value

    def ints_attr(self, name: str, default: Sequence[int] | None = None) -> list[int]:
        """A list-of-integers attribute."""
        value = self._typed(name, None if default is None else list(default), (list, tuple))
        assert isinstance(value, list | tuple)
        if not all(isinstance(v, int) for v in value):
            raise self._wrong_type(name, value, "a list of integers")
        return [int(v) for v in value]

    def _typed(self, name: str, default: object, kind: type | tuple[type, ...]) -> object:
        value = self.attr(name, default)
        if value is None:
            raise ModelError(
                f"node '{self.label}' ({self.op_type}): the attribute '{name}' is required"
            )
        if not isinstance(value, kind) or isinstance(value, bool):
            names = kind if isinstance(kind, tuple) else (kind,)
            raise self._wrong_type(name, value, " or ".join(k.__name__ for k in names))
        return value

    def _wrong_type(self, name: str, value: object, expected: str) -> ModelError:
        return ModelError(
            f"node '{self.label}' ({self.op_type}): attribute '{name}' is "
            f"{type(value).__name__} {value!r}; expected {expected}"
        )

    def input(self, index: int) -> str:
        """The name of input ``index``, ``""`` when absent (optional and left out)."""
        return self.inputs[index] if index < len(self.inputs) else ""


@dataclass
class Graph:
    """A shape-inferred ONNX graph with its default-domain opset."""

    model: onnx.ModelProto
    opset: int
    nodes: list[Node]
    initializers: dict[str, np.ndarray]
    value_infos: dict[str, onnx.ValueInfoProto]
    """Inferred and declared types of every value shape inference could type."""
    consumers: dict[str, list[Node]] = field(default_factory=dict)
    producers: dict[str, Node] = field(default_factory=dict)
    _constant_nodes: dict[str, Node] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.recount_consumers()

    @property
    def graph(self) -> onnx.GraphProto:
        return self.model.graph

    @property
    def output_names(self) -> list[str]:
        return [o.name for o in self.graph.output]

    def recount_consumers(self) -> None:
        """Rebuild ``consumers`` (and the Constant-node index) after nodes were replaced."""
        consumers: dict[str, list[Node]] = defaultdict(list)
        for node in self.nodes:
            for name in node.inputs:
                if name:
                    consumers[name].append(node)
        self.consumers = consumers
        self.producers = {name: node for node in self.nodes for name in node.outputs if name}
        self._constant_nodes = {
            node.outputs[0]: node for node in self.nodes if node.op_type == "Constant"
        }

    def replace_nodes(self, removed: Sequence[Node], new: Node) -> None:
        """Put ``new`` where the last of ``removed`` is (program order; ``last_of``) and drop
        the others; the consumers, producers and Constant-node index change for their values
        only, as ``recount_consumers`` would make them (a BERT import replaces 12 GELUs'
        nodes among 2,000: a recount each took 6 ms)."""
        order = {id(n): i for i, n in enumerate(self.nodes)}
        last = max(removed, key=lambda n: order[id(n)])  # last_of, with the order kept
        order[id(new)] = order[id(last)]
        gone = {id(n) for n in removed}
        self.nodes[order[id(last)]] = new
        self.nodes[:] = [n for n in self.nodes if id(n) not in gone]
        for node in removed:
            for name in node.outputs:
                if self.producers.get(name) is node:
                    del self.producers[name]
                if self._constant_nodes.get(name) is node:
                    del self._constant_nodes[name]
        for name in {name for n in (*removed, new) for name in n.inputs if name}:
            readers = [n for n in self.consumers.get(name, []) if id(n) not in gone]
            readers += [new] * new.inputs.count(name)
            readers.sort(key=lambda n: order[id(n)])  # stable: program order, as a recount
            if readers:
                self.consumers[name] = readers
            else:
                self.consumers.pop(name, None)
        self.producers.update((name, new) for name in new.outputs if name)

    def last_of(self, nodes: Sequence[Node]) -> Node:
        """The one of ``nodes`` that comes last in program order."""
        order = {id(n): i for i, n in enumerate(self.nodes)}
        return max(nodes, key=lambda n: order[id(n)])

    def constant(self, name: str) -> np.ndarray | None:
        """The value of an initializer or of a ``Constant`` node's output (None otherwise)."""
        if name in self.initializers:
            return self.initializers[name]
        node = self._constant_nodes.get(name)
        return None if node is None else constant_node_value(node)

    def only_consumer(self, name: str) -> Node | None:
        """The single node reading ``name`` when it is not also a graph output."""
        users = self.consumers.get(name, [])
        if len(users) != 1 or name in self.output_names:
            return None
        return users[0]


def one_element(array: np.ndarray) -> np.generic | None:
    """The number a one-element array holds, whichever form it takes (a 0-d tensor, a
    shape-[1] tensor, any shape of 1s); None when it holds another number of elements. The one
    place the ONNX frontend reads an operand as a scalar (``Importer.scalar`` raises where
    one is required)."""
    return array.reshape(-1)[0] if array.size == 1 else None


def constant_node_value(node: Node) -> np.ndarray:
    """The value of a ``Constant`` node, whichever attribute holds it."""
    for name in ("value", "value_float", "value_floats", "value_int", "value_ints"):
        value = node.attr(name)
        if value is not None:
            dtype = np.float32 if name.startswith("value_float") else np.int64
            return value if isinstance(value, np.ndarray) else np.asarray(value, dtype=dtype)
    raise ModelError(f"Constant node '{node.label}' has no supported value attribute")


def default_opset(model: onnx.ModelProto) -> int | None:
    """The model's opset of the default (ai.onnx) domain, None if it imports none."""
    return next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), None)


def _upgraded(model: onnx.ModelProto, opset: int) -> onnx.ModelProto:
    """The model converted from `opset` to UPGRADED_OPSET; ModelError naming what failed."""
    try:
        return version_converter.convert_version(model, UPGRADED_OPSET)
    except (
        version_converter.ConvertError,
        RuntimeError,
        onnx.checker.ValidationError,
        ValueError,
    ) as error:
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise ModelError(
            f"cannot upgrade the model from ONNX opset {opset} to {UPGRADED_OPSET} "
            f"(onnx.version_converter: {reason}); export it at opset {UPGRADE_FROM} or newer"
        ) from error


DETACHED_BYTES = 4096
"""Initializers with more raw bytes than this leave the proto before shape inference."""

_RAW_TYPES = frozenset(
    {
        onnx.TensorProto.FLOAT,
        onnx.TensorProto.FLOAT16,
        onnx.TensorProto.BFLOAT16,
        onnx.TensorProto.INT8,
        onnx.TensorProto.UINT8,
        onnx.TensorProto.INT32,
        onnx.TensorProto.INT64,
    }
)
"""Element types whose raw_data is the little-endian array itself (not bit-packed)."""


def _detach_weights(
    model: onnx.ModelProto, owned: bool
) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """The model without the data of its large initializers, and those as read-only arrays
    over their raw bytes (no copy beyond the one out of the proto).

    Shape inference serializes the whole model to C++ and back: with ResNet-50's 98 MB of
    weights in it that was 3 more copies (a 544 MiB peak where the weights are 98 MB);
    without, it takes 12 ms. The weights leave a proto we own (a file just loaded) before
    it is copied; a caller's proto is left as it is and copied field by field without them
    (``_copy_without``: a whole copy was another 98 MB at ResNet-50's peak; a file is read
    without them in the first place: _read_detached). Small initializers stay: data
    propagation reads shapes and axes from them.
    """
    weights: dict[str, np.ndarray] = {}
    detached = [
        t
        for t in model.graph.initializer
        if t.data_type in _RAW_TYPES and len(t.raw_data) > DETACHED_BYTES
    ]
    if not detached:
        return model, weights
    if not owned:
        return _copy_without(model, detached)
    for tensor in detached:
        raw = tensor.raw_data
        tensor.ClearField("raw_data")
        weights[tensor.name] = initializer_array(tensor, raw)
    # upb frees a proto's memory with the proto only: a re-parsed copy lets the original go
    return onnx.ModelProto.FromString(model.SerializeToString()), weights


def _copy_without(
    model: onnx.ModelProto, detached: Sequence[onnx.TensorProto]
) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """A copy of ``model`` without the raw data of the initializers ``detached`` (of its
    graph), and those as arrays: their data is copied once, out of the proto."""
    skipped = {id(t) for t in detached}
    copy = onnx.ModelProto()
    _copy_fields(model, copy, skip="graph")
    _copy_fields(model.graph, copy.graph, skip="initializer")
    weights: dict[str, np.ndarray] = {}
    for tensor in model.graph.initializer:
        if id(tensor) not in skipped:
            copy.graph.initializer.add().CopyFrom(tensor)
            continue
        _copy_fields(tensor, copy.graph.initializer.add(), skip="raw_data")
        weights[tensor.name] = initializer_array(tensor, tensor.raw_data)
    return copy, weights


def _copy_fields(source: Message, target: Message, skip: str) -> None:
    """Every field set in ``source`` but ``skip``, copied into ``target``."""
    for descriptor, value in source.ListFields():
        name = descriptor.name
        if name == skip:
            continue
        if isinstance(value, MutableSequence):  # a repeated field
            getattr(target, name).extend(value)
        elif isinstance(value, Message):
            getattr(target, name).CopyFrom(value)
        else:
            setattr(target, name, value)


def detach_weights(model: onnx.ModelProto) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """A copy of ``model`` without the data of its large initializers, and those as arrays
    (``_detach_weights``): load_graph takes the two back (``weights``) without copying the
    weights again, however many times the small copy is edited and imported."""
    return _detach_weights(model, owned=False)


def load_detached(path: str | os.PathLike[str]) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """A model file as ``detach_weights(onnx.load(path))`` gives it, with the weights copied
    once (from the file into the arrays' bytes: _read_detached) instead of three times
    (parsed, copied, re-serialized: 4.7 s against 0.4 s for BERT-base's 440 MB on a busy
    machine)."""
    model, weights = _read_detached(path)
    model, detached = _detach_weights(model, owned=True)  # external data, loaded whole
    return model, weights | detached


def detached_model(model: ModelSource) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """``model`` as ``detach_weights`` gives it, its weights copied once: a file's read
    apart (load_detached), a caller's proto left unchanged."""
    if isinstance(model, onnx.ModelProto):
        return detach_weights(model)
    if isinstance(model, bytes):
        return _detach_weights(read_model(model), owned=True)
    return load_detached(model)


def initializer_array(tensor: onnx.TensorProto, raw: bytes) -> np.ndarray:
    """An initializer's raw data as a read-only array viewing those bytes."""
    dtype = np.dtype(helper.tensor_dtype_to_np_dtype(tensor.data_type))
    shape = tuple(tensor.dims)
    if len(raw) != math.prod(shape) * dtype.itemsize:
        raise ModelError(
            f"initializer '{tensor.name}' holds {len(raw)} bytes, not the "
            f"{math.prod(shape) * dtype.itemsize} of its shape {list(shape)}"
        )
    return np.frombuffer(raw, dtype).reshape(shape)


def _read_detached(path: str | os.PathLike[str]) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """A model file and its large initializers' data, read apart (dnnc.frontend.onnx.wire):
    the weights are copied once, from the file into the arrays' bytes. External data is
    loaded as onnx.load loads it (and detached by _detach_weights)."""
    what = f"ONNX model '{os.fspath(path)}'"
    try:
        stripped, raw = read_detached(path, DETACHED_BYTES)
        model = onnx.ModelProto.FromString(stripped)
        load_external_data_for_model(model, os.path.dirname(os.fspath(path)))
    except (OSError, onnx.onnx_cpp2py_export.checker.ValidationError) as error:
        raise ModelError(f"cannot read {what}: {error}") from error
    except (DecodeError, WireError) as error:
        raise ModelError(
            f"cannot read {what}: not an ONNX protobuf, or truncated ({error})"
        ) from error
    weights: dict[str, np.ndarray] = {}
    for tensor in model.graph.initializer:
        data = raw.pop(tensor.name, None)
        if data is not None and tensor.data_type in _RAW_TYPES:
            weights[tensor.name] = initializer_array(tensor, data)
        elif data is not None:
            tensor.raw_data = data  # bit-packed or 16-bit types: tensor_value reads them
    return model, weights


def tensor_value(tensor: onnx.TensorProto, what: str) -> np.ndarray:
    """A TensorProto's array; ModelError naming `what` when its data do not make one."""
    try:
        return numpy_helper.to_array(tensor)
    except (ValueError, TypeError, KeyError) as error:
        raise ModelError(f"{what} cannot be read as a tensor: {error}") from error


def dtype_name(elem_type: int) -> str:
    """ONNX's name of a tensor element type (``FLOAT``), or its number if ONNX has none."""
    try:
        return helper.tensor_dtype_to_string(elem_type)
    except (KeyError, ValueError):
        return f"element type {elem_type}"


ModelSource = str | os.PathLike[str] | bytes | onnx.ModelProto
"""An ONNX model: a file path, the serialized bytes (as ONNX Runtime takes them), or a proto."""


def model_bytes(model: ModelSource) -> int:
    """The size of a model: its file's (external data aside), its bytes', its proto's."""
    if isinstance(model, onnx.ModelProto):
        return model.ByteSize()
    if isinstance(model, bytes):
        return len(model)
    return os.path.getsize(model)


def read_model(model: str | os.PathLike[str] | bytes) -> onnx.ModelProto:
    """The proto of a model file or of serialized bytes; ModelError when unreadable."""
    what = "ONNX model bytes" if isinstance(model, bytes) else f"ONNX model '{os.fspath(model)}'"
    try:
        if isinstance(model, bytes):
            return onnx.ModelProto.FromString(model)
        return onnx.load(os.fspath(model))
    except (OSError, onnx.onnx_cpp2py_export.checker.ValidationError) as error:
        raise ModelError(f"cannot read {what}: {error}") from error
    except DecodeError as error:
        raise ModelError(
            f"cannot read {what}: not an ONNX protobuf, or truncated ({error})"
        ) from error


def load_graph(model: ModelSource, weights: Mapping[str, np.ndarray] | None = None) -> Graph:
    """The shape-inferred graph of a model file, bytes or proto; ModelError for unusable
    models. ``weights``: the data of initializers the proto holds without it (a model from
    ``detach_weights``, the proto then the caller's to edit)."""
    owned = not isinstance(model, onnx.ModelProto) or weights is not None
    weights = dict(weights or {})
    if isinstance(model, str | os.PathLike):
        model, weights = _read_detached(model)
    elif isinstance(model, bytes):
        model = read_model(model)
    elif not isinstance(model, onnx.ModelProto):
        raise ModelError(
            f"an ONNX model is a path, bytes or an onnx.ModelProto, got {type(model).__name__}"
        )
    assert isinstance(model, onnx.ModelProto)  # loaded above when it was a path
    opset = default_opset(model)
    if opset is None or not MIN_OPSET <= opset <= MAX_OPSET:
        raise ModelError(
            f"ONNX opset {opset} is not supported: the importer handles opsets "
            f"{MIN_OPSET} to {MAX_OPSET} of the default domain"
        )
    model, detached = _detach_weights(model, owned)
    weights |= detached
    if opset < UPGRADE_FROM:
        model, opset = _upgraded(model, opset), UPGRADED_OPSET
    try:
        model = onnx.shape_inference.infer_shapes(model, strict_mode=True, data_prop=True)
    except onnx.shape_inference.InferenceError as error:
        raise ModelError(f"ONNX shape inference failed: {error}") from error
    graph = model.graph
    nodes = [
        Node(proto, proto.name or f"#{index} (unnamed)") for index, proto in enumerate(graph.node)
    ]
    initializers = {
        t.name: weights[t.name] if t.name in weights else tensor_value(t, f"initializer '{t.name}'")
        for t in graph.initializer
    }
    value_infos = {v.name: v for v in (*graph.input, *graph.value_info, *graph.output)}
    return Graph(model, opset, nodes, initializers, value_infos)
