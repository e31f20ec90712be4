"""Saved dynamic executables: a function with ``?`` dimensions (or sizes as expressions) on
disk, what ``dnnc.compile(..., save_to=DIR)`` writes for a DynamicExecutable and ``dnnc.load``
reads back (dnnc.driver.saved writes the manifest and dispatches on its ``kind``).

A DynamicExecutable is the dnn function it traces (optimized once; a symbolic one, with
``dnn.symbols``, as imported) and the program templates its traces made, each serving the
sizes its guards admit (dnnc.driver.dynamic). A saved one is the function and its weights,
each once:

- ``function.mlir``: the function as the executable traces it (its ``dnn.symbols``,
  ``dnn.dims``, guards and shape functions included), each ``dnn.constant`` of more than
  INLINE_BYTES written as ``dnn.weight "constants.npz", "c<n>"`` and each ``dnn.weight`` as
  one of ``weights.npz``;
- ``constants.npz`` and ``weights.npz``: those arrays in logical order (a trace packs them
  for the layouts it picks on this target), uncompressed;
- the manifest (dnnc.driver.saved) also names the pipelines each trace runs (optimization,
  lowering).

An ONNX model compiled from its file (an OnnxDynamicExecutable: the symbolic import's
function, and the model itself for the signatures that function cannot serve, such as a
decoder's empty past) also keeps its second route: ``model.onnx``, the model without its
large initializers' data, and the manifest's ``onnx`` entry, which names for each of those
initializers where its data is: the ``c<n>`` of ``constants.npz`` that the function's
constant shares it with, else an ``i<n>`` of ``initializers.npz``. Without a symbolic
function (the symbolic import refused the model) there is no ``function.mlir``. So
``dnnc.load`` gives the executable ``dnnc.compile`` gave, every signature included, and
each weight is on disk and in memory once.

``load`` parses the function, puts every saved constant back as the ``dnn.constant`` it was
(its payload read once from the file: the passes see the function that was saved, and the
executable keys its weights without hashing them; an ONNX model's initializers view the
same bytes) and makes a DynamicExecutable of it. No pass runs at load; as in the executable
that was saved, the pipeline runs once per template (the first shape, then shapes no
template admits). The templates are not saved: a loaded executable traces its first shape
again. The static case needs none of this (its Program is saved, dnnc.driver.saved).
"""

from __future__ import annotations

import os
import zipfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import onnx
from google.protobuf.message import DecodeError
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.rewriter import Rewriter

from dnnc.core.diagnostics import DnncError, error_at
from dnnc.dialects.dnn import ConstantOp, WeightOp
from dnnc.driver.dynamic import DynamicExecutable, DynamicOptions
from dnnc.driver.onnx_shapes import OnnxDynamicExecutable
from dnnc.driver.pipelines import parse_pipeline
from dnnc.frontend.onnx.graph import initializer_array
from dnnc.frontend.onnx.importer import payload_of
from dnnc.ir.text import make_context, parse_module, print_module, read_source, verify_module
from dnnc.ir.weights import constant_value, load_weight, save_weights
from dnnc.runtime.cache import PrimitiveCache

FUNCTION, CONSTANTS, WEIGHTS = "function.mlir", "constants.npz", "weights.npz"
MODEL, INITIALIZERS = "model.onnx", "initializers.npz"

INLINE_BYTES = 4096
"""A dnn.constant of at most this many bytes stays in function.mlir (shapes, axes, scales)."""


def write(executable: DynamicExecutable, passes: Sequence[str], path: Path) -> dict[str, object]:
    """Write the function of ``executable`` and its arrays to ``path``, and an ONNX model's
    second route (module docstring); the manifest's entries of this kind: the function's
    name and ``passes``, the texts of the pipelines its traces run, and ``onnx``."""
    entries: dict[str, object] = {"function": executable.name, "passes": list(passes)}
    if not isinstance(executable, OnnxDynamicExecutable):
        _write_function(executable.function, executable.weights_dir, path)
        return entries
    function = executable.symbolic_function
    keys = {} if function is None else _write_function(function, None, path)
    model, weights = executable.onnx_model
    (path / MODEL).write_bytes(model.SerializeToString())
    apart: dict[str, np.ndarray] = {}
    locations: dict[str, str] = {}
    for name, array in weights.items():
        payload = payload_of(array)
        key = None if payload is None else keys.get(id(payload))
        if key is None:
            key = f"i{len(apart)}"
            apart[key] = array
        locations[name] = key
    if apart:
        save_weights(path / INITIALIZERS, apart)
    entries["onnx"] = locations
    return entries


def _write_function(function: func.FuncOp, weights_dir: str | None, path: Path) -> dict[int, str]:
    """Write ``function`` and its arrays to ``path`` (module docstring); the key of each
    constant saved apart, by the id of its payload (alive with ``function``)."""
    module = ModuleOp([function.clone()])
    constants: dict[str, np.ndarray] = {}
    weights: dict[str, np.ndarray] = {}
    keys: dict[int, str] = {}
    for op in list(module.walk()):
        if isinstance(op, ConstantOp) and len(op.value.data.data) > INLINE_BYTES:
            key, arrays, file = f"c{len(constants)}", constants, CONSTANTS
            array = constant_value(op)
            keys[id(op.value.data.data)] = key
        elif isinstance(op, WeightOp):
            key, arrays, file = f"w{len(weights)}", weights, WEIGHTS
            array = load_weight(op, weights_dir)
        else:
            continue
        arrays[key] = array
        type_ = op.result.type
        assert isinstance(type_, TensorType)  # the dialect's result constraint
        Rewriter.replace_op(op, WeightOp(file, key, type_))
    (path / FUNCTION).write_text(print_module(module))
    for file, arrays in ((CONSTANTS, constants), (WEIGHTS, weights)):
        if arrays:
            save_weights(path / file, arrays)
    return keys


def load(
    path: Path,
    manifest: dict[str, object],
    *,
    cache: PrimitiveCache | None = None,
    options: DynamicOptions | None = None,
) -> DynamicExecutable:
    """The DynamicExecutable saved in ``path`` (module docstring)."""
    passes = manifest.get("passes")
    if not (
        isinstance(passes, list) and len(passes) == 2 and all(isinstance(p, str) for p in passes)
    ):
        raise DnncError(f"'{path}' names no pipelines for its traces (its manifest's 'passes')")
    optimize, lowering = (parse_pipeline(p) for p in passes)
    locations = manifest.get("onnx")
    if locations is None:
        function, _ = _read_function(path)
        return DynamicExecutable(
            function,
            optimize,
            lowering,
            weights_dir=os.fspath(path),
            options=options,
            cache=cache,
        )
    if not (isinstance(locations, dict) and all(isinstance(k, str) for k in locations.values())):
        raise DnncError(f"'{path}' names no place for its ONNX initializers (manifest 'onnx')")
    symbolic, payloads = _read_function(path) if (path / FUNCTION).exists() else (None, {})
    model, weights = _read_model(path, locations, payloads)
    return OnnxDynamicExecutable(
        model,
        (*optimize, *lowering),
        function=symbolic,
        options=options,
        cache=cache,
        weights=weights,
    )


def _read_function(path: Path) -> tuple[func.FuncOp, dict[str, bytes]]:
    """The function of ``path`` with its saved constants put back, and their payloads by
    key."""
    source = path / FUNCTION
    try:
        text = read_source(source)
    except DnncError as error:
        raise DnncError(f"'{path}' holds no dynamic function: {error.message}") from None
    module = parse_module(text, str(source), make_context())
    saved = [op for op in module.walk() if isinstance(op, WeightOp) and op.file.data == CONSTANTS]
    payloads: dict[str, bytes] = {}
    if saved:
        try:
            archive = zipfile.ZipFile(path / CONSTANTS)
        except (OSError, zipfile.BadZipFile) as error:
            raise DnncError(f"cannot read the constants of '{path}': {error}") from None
        with archive:
            for op in saved:
                restored = _restored(op, archive)
                payloads[op.key.data if op.key is not None else ""] = restored.value.data.data
                Rewriter.replace_op(op, restored)
    verify_module(module)
    functions = [op for op in module.body.block.ops if isinstance(op, func.FuncOp)]
    if len(functions) != 1:
        raise DnncError(f"'{source}' holds {len(functions)} functions, not the one saved")
    return functions[0], payloads


def _read_model(
    path: Path, locations: dict[str, str], payloads: dict[str, bytes]
) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """The ONNX model of ``path`` without its large initializers' data, and that data by
    name: views of the function's ``payloads`` or arrays of INITIALIZERS (module
    docstring)."""
    try:
        model = onnx.load_model_from_string((path / MODEL).read_bytes())
    except (OSError, DecodeError) as error:
        raise DnncError(f"cannot read the ONNX model of '{path}': {error}") from None
    tensors = {t.name: t for t in model.graph.initializer}
    apart: dict[str, np.ndarray] = {}
    if any(key not in payloads for key in locations.values()):
        try:
            with np.load(path / INITIALIZERS) as archive:
                apart = {key: archive[key] for key in archive.files}
        except (OSError, ValueError, zipfile.BadZipFile) as error:
            raise DnncError(f"cannot read the initializers of '{path}': {error}") from None
    weights = {}
    for name, key in locations.items():
        tensor = tensors.get(name)
        if tensor is None or (key not in payloads and key not in apart):
            raise DnncError(f"'{path}' holds no data for the initializer '{name}' ('{key}')")
        weights[name] = initializer_array(tensor, payloads[key]) if key in payloads else apart[key]
    return model, weights


def _restored(op: WeightOp, archive: zipfile.ZipFile) -> ConstantOp:
    """The dnn.constant a saved weight of CONSTANTS was: its bytes read once from the
    archive's member (an uncompressed .npy) into the payload."""
    key = op.key.data if op.key is not None else ""
    type_ = op.result.type
    assert isinstance(type_, TensorType)  # the dialect's result constraint
    try:
        with archive.open(f"{key}.npy") as member:
            version = np.lib.format.read_magic(member)
            read_header = (
                np.lib.format.read_array_header_1_0
                if version == (1, 0)
                else np.lib.format.read_array_header_2_0
            )
            shape, fortran, dtype = read_header(member)
            size = int(np.prod(shape)) * dtype.itemsize
            data = member.read(size)
    except (KeyError, OSError, ValueError, zipfile.BadZipFile) as error:
        raise error_at(op, f"cannot read saved constant '{key}': {error}") from None
    if fortran or len(data) != size or tuple(shape) != tuple(type_.get_shape()):
        raise error_at(op, f"saved constant '{key}' does not fit {type_}")
    restored = ConstantOp.of_bytes(type_, data)
    restored.location = op.location
    return restored


__all__ = ["load", "write"]
