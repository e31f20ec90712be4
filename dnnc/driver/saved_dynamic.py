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

``load`` parses the function, puts every saved constant back as the ``dnn.constant`` it was
(its payload read once from the file: the passes see the function that was saved, and the
executable keys its weights without hashing them) and makes a DynamicExecutable of it. No
pass runs at load; as in the executable that was saved, the pipeline runs once per template
(the first shape, then shapes no template admits). The templates are not saved: a loaded
executable traces its first shape again. The static case needs none of this (its Program
is saved, dnnc.driver.saved); an ONNX model traced per input shape has no dnn function to
save (dnnc.api refuses it with how to get one).
"""

from __future__ import annotations

import os
import zipfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.rewriter import Rewriter

from dnnc.core.diagnostics import DnncError, error_at
from dnnc.dialects.dnn import ConstantOp, WeightOp
from dnnc.driver.dynamic import DynamicExecutable, DynamicOptions
from dnnc.driver.pipelines import parse_pipeline
from dnnc.ir.text import make_context, parse_module, print_module, read_source, verify_module
from dnnc.ir.weights import constant_value, load_weight, save_weights
from dnnc.runtime.cache import PrimitiveCache

FUNCTION, CONSTANTS, WEIGHTS = "function.mlir", "constants.npz", "weights.npz"

INLINE_BYTES = 4096
"""A dnn.constant of at most this many bytes stays in function.mlir (shapes, axes, scales)."""


def write(executable: DynamicExecutable, passes: Sequence[str], path: Path) -> dict[str, object]:
    """Write the function of ``executable`` and its arrays to ``path`` (module docstring);
    the manifest's entries of this kind: the function's name and ``passes``, the texts of
    the pipelines its traces run."""
    module = ModuleOp([executable.function.clone()])
    constants: dict[str, np.ndarray] = {}
    weights: dict[str, np.ndarray] = {}
    for op in list(module.walk()):
        if isinstance(op, ConstantOp) and len(op.value.data.data) > INLINE_BYTES:
            key, arrays, file = f"c{len(constants)}", constants, CONSTANTS
            array = constant_value(op)
        elif isinstance(op, WeightOp):
            key, arrays, file = f"w{len(weights)}", weights, WEIGHTS
            array = load_weight(op, executable.weights_dir)
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
    return {"function": executable.name, "passes": list(passes)}


def load(
    path: Path,
    manifest: dict[str, object],
    *,
    cache: PrimitiveCache | None = None,
    options: DynamicOptions | None = None,
) -> DynamicExecutable:
    """The DynamicExecutable saved in ``path`` (module docstring)."""
    source = path / FUNCTION
    try:
        text = read_source(source)
    except DnncError as error:
        raise DnncError(f"'{path}' holds no dynamic function: {error.message}") from None
    module = parse_module(text, str(source), make_context())
    saved = [op for op in module.walk() if isinstance(op, WeightOp) and op.file.data == CONSTANTS]
    if saved:
        try:
            archive = zipfile.ZipFile(path / CONSTANTS)
        except (OSError, zipfile.BadZipFile) as error:
            raise DnncError(f"cannot read the constants of '{path}': {error}") from None
        with archive:
            for op in saved:
                Rewriter.replace_op(op, _restored(op, archive))
    verify_module(module)
    functions = [op for op in module.body.block.ops if isinstance(op, func.FuncOp)]
    if len(functions) != 1:
        raise DnncError(f"'{source}' holds {len(functions)} functions, not the one saved")
    passes = manifest.get("passes")
    if not (
        isinstance(passes, list) and len(passes) == 2 and all(isinstance(p, str) for p in passes)
    ):
        raise DnncError(f"'{path}' names no pipelines for its traces (its manifest's 'passes')")
    optimize, lowering = (parse_pipeline(p) for p in passes)
    return DynamicExecutable(
        functions[0],
        optimize,
        lowering,
        weights_dir=os.fspath(path),
        options=options,
        cache=cache,
    )


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
