"""Data of the source ops: ``dnn.weight`` arrays loaded from files, ``dnn.constant`` values.

``dnn.weight "w.npz", "conv1.wei"`` names an array in an ``.npz`` archive (or a whole
``.npy`` file when there is no key). A relative path is resolved against an explicit base
directory when one is given, else against the directory of the IR file the op was parsed
from (its ``FileLineColLoc``), else against the current directory. Arrays are read-only and
shared by every user while one holds them (a weak cache: nothing keeps an array alive after
its last user, e.g. a weight the executor packed).

Each op checks what it gets against its result type: the shape exactly, the element type
exactly (``np.save`` writes ``ml_dtypes.bfloat16`` arrays as 2-byte voids, which are taken
as bf16). Any problem is a DnncError located at the op.
"""

from __future__ import annotations

import os
import threading
import weakref
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

import numpy as np
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FileLineColLoc,
    Float32Type,
    TensorType,
)

from dnnc.core.diagnostics import error_at
from dnnc.core.kinds import DataType
from dnnc.dialects.dnn import ConstantOp, WeightOp
from dnnc.dialects.types import data_type_of


def save_weights(path: str | os.PathLike[str], arrays: Mapping[str, np.ndarray]) -> None:
    """Write `arrays` as the ``.npz`` file dnn.weight ops read by key."""
    np.savez(path, **cast(dict[str, Any], arrays))  # numpy's stub types **kwds as its options


def numpy_dtype(type_: TensorType) -> np.dtype:
    """The numpy dtype of a tensor type's elements (ml_dtypes.bfloat16 for bf16)."""
    return data_type_of(type_.get_element_type()).numpy


def weight_path(op: WeightOp, base_dir: str | os.PathLike[str] | None = None) -> Path:
    """Where a dnn.weight's file is (module docstring: base directory, IR file, cwd)."""
    path = Path(op.file.data)
    if path.is_absolute():
        return path
    if base_dir is None and isinstance(op.location, FileLineColLoc):
        source = Path(op.location.filename.data)
        if source.is_file():
            base_dir = source.parent
    return Path(base_dir if base_dir is not None else Path.cwd()) / path


_LOADED: weakref.WeakValueDictionary[tuple[Path, str | None, int], np.ndarray] = (
    weakref.WeakValueDictionary()
)
"""Loaded arrays while something still uses them: passes and executables share one copy,
and an array nobody holds (a weight the executor packed into a layout of its own) is freed,
not kept beside its packed copy."""
_LOADED_LOCK = threading.Lock()


def _load(path: Path, key: str | None, modified_ns: int) -> np.ndarray:
    """The array stored at (path, key), read-only; OSError / KeyError / ValueError if absent.
    ``modified_ns`` keys _LOADED, so that a rewritten file is read again."""
    with _LOADED_LOCK:
        array = _LOADED.get((path, key, modified_ns))
    if array is not None:
        return array
    if key is None:
        array = np.load(path, allow_pickle=False)
    else:
        with np.load(path, allow_pickle=False) as archive:
            array = archive[key]
    array.setflags(write=False)
    with _LOADED_LOCK:
        return _LOADED.setdefault((path, key, modified_ns), array)


def load_weight(op: WeightOp, base_dir: str | os.PathLike[str] | None = None) -> np.ndarray:
    """The read-only array of a dnn.weight, checked against its result type."""
    path = weight_path(op, base_dir).resolve()
    key = op.key.data if op.key is not None else None
    where = f"'{path}'" + (f" (key '{key}')" if key is not None else "")
    try:
        array = _load(path, key, path.stat().st_mtime_ns)
    except KeyError:
        with np.load(path, allow_pickle=False) as archive:
            keys = ", ".join(sorted(archive.files)) or "none"
        raise error_at(op, f"weight file '{path}' has no array '{key}' (keys: {keys})") from None
    except OSError as error:
        raise error_at(op, f"cannot read weight file {where}: {error.strerror or error}") from None
    except (ValueError, zipfile.BadZipFile) as error:
        raise error_at(op, f"weight file {where} is not a valid numpy file: {error}") from None
    type_ = op.result.type
    assert isinstance(type_, TensorType)  # the dialect's operand constraint
    return _checked(op, array, type_, where)


def _checked(op: WeightOp, array: np.ndarray, type_: TensorType, where: str) -> np.ndarray:
    dtype = numpy_dtype(type_)
    if dtype == DataType.BF16.numpy and array.dtype == np.dtype("V2"):
        array = array.view(dtype)
    if array.dtype != dtype:
        raise error_at(
            op,
            f"weight {where} has element type {array.dtype}, the result type {type_} needs {dtype}",
        )
    shape = tuple(type_.get_shape())
    if array.shape != shape:
        raise error_at(
            op, f"weight {where} has shape {array.shape}, the result type {type_} needs {shape}"
        )
    return array


def constant_value(op: ConstantOp) -> np.ndarray:
    """The read-only array of a dnn.constant, in logical order."""
    type_ = op.result.type
    assert isinstance(type_, TensorType)  # the dialect's operand constraint
    shape = tuple(type_.get_shape())
    flat = np.frombuffer(op.value.data.data, dtype=numpy_dtype(type_))
    if flat.size == 1 and flat.size != int(np.prod(shape)):
        flat = np.full(shape, flat[0])  # a splat stored once
        flat.setflags(write=False)
    return flat.reshape(shape)


COLLECTED_BYTES = 8 << 20
"""Garbage holding more constant bytes than this is worth a full collection where it is known
to be in reference cycles (xDSL ops: a cloned source module, a failed import's partial IR):
0.04 s after ResNet-50's import, 0.3 s in a large test process, more than a small model's
bytes are worth."""

_RELEASED = DenseIntOrFPElementsAttr.from_list(TensorType(Float32Type(), [0]), [])


def release_payload(op: ConstantOp) -> None:
    """Drop a dnn.constant's data now: its value becomes an empty tensor, so the op no longer
    verifies. For an op erased (xDSL ops are in reference cycles with their results: an erased
    op's data would stay until a full garbage collection, ResNet-50's replaced weights 98 MB)
    or a function nobody reads again (dnnc.runtime.lowered's consume)."""
    op.properties["value"] = _RELEASED


def source_value(
    op: ConstantOp | WeightOp, base_dir: str | os.PathLike[str] | None = None
) -> np.ndarray:
    """The data of a source op: a dnn.constant's value or a dnn.weight's loaded array."""
    if isinstance(op, ConstantOp):
        return constant_value(op)
    return load_weight(op, base_dir)
