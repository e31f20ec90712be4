"""Compiled models on disk: what ``dnnc.compile(..., save_to=DIR)`` writes and ``dnnc.load``
reads, in the manner of OpenVINO's model cache and ONNX Runtime's saved optimized models.

A saved model is a directory:

- ``manifest.json``: the format version, the target it was compiled for (oneDNN version and
  effective ISA: packed weights and kernel choices are theirs), the function's name;
- ``model.mlir``: the lowered function (onednn dialect), every constant it binds turned into
  ``dnn.weight "constants.npz", "c<n>"``;
- ``constants.npz`` (uncompressed, each array's data on a page boundary): each ``c<n>`` as
  the executor binds it, weights already packed in the layout oneDNN chose on that target, so
  loading packs nothing, and maps rather than reads them.

``load`` refuses, naming both sides, a directory of another format version or one compiled
for another oneDNN version or ISA (compile again there: the packed layouts would not fit).
Loading parses the small lowered IR, reads the constants and creates the primitives; no pass
runs.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import mmap
import os
import shutil
import struct
import tempfile
import zipfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Operation

from dnnc.core.diagnostics import DnncError
from dnnc.ir.dnn import ConstantOp, WeightOp
from dnnc.ir.onednn import ConstantOp as MemoryConstantOp
from dnnc.ir.text import make_context, parse_module, verify_module
from dnnc.runtime.cache import PrimitiveCache
from dnnc.runtime.constants import PackedConstants, constant_key
from dnnc.runtime.executor import Executable
from dnnc.runtime.plan import aligned_bytes
from dnnc.target import effective_isa, onednn_version

FORMAT = 1
"""The version of the directory layout; a directory of another version is refused."""

MANIFEST, MODEL, CONSTANTS = "manifest.json", "model.mlir", "constants.npz"


def target_identity() -> dict[str, str]:
    """What a saved model depends on: the oneDNN version and the effective ISA."""
    return {"onednn": onednn_version(), "isa": effective_isa()}


def cache_entry(cache_dir: str | os.PathLike[str], material: Sequence[bytes]) -> Path:
    """The directory of ``cache_dir`` that holds the model compiled from ``material`` (what
    identifies the source and the options) on this target: a SHA-256 of both."""
    digest = hashlib.sha256(json.dumps([FORMAT, target_identity()]).encode())
    for part in material:
        digest.update(hashlib.sha256(part).digest())
    return Path(cache_dir) / digest.hexdigest()[:32]


def save(function: func.FuncOp, executable: Executable, directory: str | os.PathLike[str]) -> None:
    """Write the lowered ``function`` that ``executable`` was built from, and the constants
    as ``executable`` binds them, to ``directory``, atomically: written beside it, then
    renamed (a directory already there is replaced), so that concurrent workers filling one
    cache never read half a model."""
    target = Path(directory)
    target.parent.mkdir(parents=True, exist_ok=True)
    path = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        _write(function, executable, path)
        if target.is_dir():
            shutil.rmtree(target, ignore_errors=True)
        try:
            path.rename(target)
        except OSError:
            if not (target / MANIFEST).is_file():
                raise
            # another process saved the same model at the same moment: keep its copy
    finally:
        shutil.rmtree(path, ignore_errors=True)


def _write(function: func.FuncOp, executable: Executable, path: Path) -> None:
    """The three files of the module docstring, in ``path``."""
    saved = function.clone()
    original_of = dict(zip(saved.walk(), function.walk(), strict=True))
    arrays: dict[str, np.ndarray] = {}
    for wrapper in [op for op in saved.walk() if isinstance(op, MemoryConstantOp)]:
        source = wrapper.tensor.owner
        assert isinstance(source, Operation)  # the verifier: it wraps a dnn.constant/weight
        name = f"c{len(arrays)}"
        arrays[name] = executable.constant_data(original_of[source], wrapper.result.type)
        _replace_source(wrapper, source, name)
    for op in [op for op in saved.walk() if isinstance(op, ConstantOp | WeightOp)]:
        if not op.result.uses:
            op.detach()
            op.erase()
    module = ModuleOp([saved])
    verify_module(module)
    _write_arrays(path / CONSTANTS, arrays)
    (path / MODEL).write_text(str(module) + "\n")
    manifest = {"format": FORMAT, "function": saved.sym_name.data, **target_identity()}
    (path / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")


def _replace_source(wrapper: MemoryConstantOp, source: object, name: str) -> None:
    """Point one onednn.constant at its own entry of constants.npz."""
    assert isinstance(source, ConstantOp | WeightOp)  # what onednn.constant wraps
    weight = WeightOp.build(
        result_types=[source.result.type],
        properties={"file": StringAttr(CONSTANTS), "key": StringAttr(name)},
    )
    block = source.parent_block()
    assert block is not None  # sources are ops of the function's body
    block.insert_op_before(weight, source)
    wrapper.operands[0] = weight.result


def load(directory: str | os.PathLike[str], *, cache: PrimitiveCache | None = None) -> Executable:
    """The Executable saved in ``directory`` (module docstring); DnncError if it cannot be."""
    path = Path(directory)
    try:
        manifest = json.loads((path / MANIFEST).read_text())
        text = (path / MODEL).read_text()
    except (OSError, ValueError) as error:
        raise DnncError(f"'{path}' is not a saved dnnc model: {error}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise DnncError(
            f"'{path}' holds a saved model of format "
            f"{manifest.get('format') if isinstance(manifest, dict) else '?'}; "
            f"this dnnc reads format {FORMAT}: compile the model again"
        )
    here = target_identity()
    saved_for = {key: manifest.get(key) for key in here}
    if saved_for != here:
        raise DnncError(
            f"'{path}' was compiled for oneDNN {saved_for['onednn']} on {saved_for['isa']}; "
            f"this process has oneDNN {here['onednn']} on {here['isa']}: its packed weights "
            "and kernels do not fit here, compile the model again"
        )
    module = parse_module(text, str(path / MODEL), make_context())
    verify_module(module)
    function = next(op for op in module.body.block.ops if isinstance(op, func.FuncOp))
    constants = PackedConstants()
    try:
        arrays = _read_arrays(path / CONSTANTS)
        for wrapper in [op for op in function.walk() if isinstance(op, MemoryConstantOp)]:
            source = wrapper.tensor.owner
            assert isinstance(source, WeightOp) and source.key is not None  # as saved
            constants.preload(
                constant_key(source, str(path)), wrapper.result.type, arrays[source.key.data]
            )
    except (OSError, KeyError, ValueError, struct.error, zipfile.BadZipFile) as error:
        raise DnncError(f"cannot read the constants of '{path}': {error!r}") from None
    return Executable(function, weights_dir=str(path), cache=cache, constants=constants)


_LOCAL_HEADER = struct.Struct("<4s5H3I2H")
"""A zip member's local file header; its last two fields are the name and extra lengths."""

PAGE = 4096
"""Array data in constants.npz starts on a page boundary, so that loading maps it."""

_PADDING_ID = 0xD935
"""The zip extra-field id of alignment padding (as Android's zipalign writes it)."""


def _write_arrays(npz: Path, arrays: dict[str, np.ndarray]) -> None:
    """An uncompressed .npz (np.load reads it) whose every array's data starts on a page:
    each member's local header carries an extra field that pads it there."""
    with zipfile.ZipFile(npz, "w", zipfile.ZIP_STORED) as archive:
        for name, array in arrays.items():
            array = np.ascontiguousarray(array)
            header = io.BytesIO()
            np.lib.format.write_array_header_1_0(
                header, np.lib.format.header_data_from_array_1_0(array)
            )
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            zip64 = array.nbytes + len(header.getvalue()) >= zipfile.ZIP64_LIMIT
            fixed = _LOCAL_HEADER.size + len(info.filename) + (20 if zip64 else 0) + 4
            start = archive.fp.tell() + fixed + len(header.getvalue())  # type: ignore[union-attr]
            padding = -start % PAGE
            info.extra = struct.pack("<HH", _PADDING_ID, padding) + bytes(padding)
            with archive.open(info, "w", force_zip64=zip64) as member:
                member.write(header.getvalue())
                member.write(array.reshape(-1).view(np.uint8).data)


def _read_arrays(npz: Path) -> dict[str, np.ndarray]:
    """Every array of an uncompressed .npz, read-only: a view of one read-only mapping of the
    file where the data starts on a page (as _write_arrays puts it: loading reads nothing
    until a kernel does, and processes that load one model share its pages), a copy into
    a 64-byte aligned buffer otherwise (oneDNN reads packed weights with aligned loads).
    zipfile only locates the members."""
    arrays: dict[str, np.ndarray] = {}
    with zipfile.ZipFile(npz) as archive, npz.open("rb") as file:
        mapped = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
        for info in archive.infolist():
            if info.compress_type != zipfile.ZIP_STORED or not info.filename.endswith(".npy"):
                raise ValueError(f"{info.filename} is compressed or not an array")
            file.seek(info.header_offset)
            header = _LOCAL_HEADER.unpack(file.read(_LOCAL_HEADER.size))
            file.seek(info.header_offset + _LOCAL_HEADER.size + header[-2] + header[-1])
            version = np.lib.format.read_magic(file)
            read_header = (
                np.lib.format.read_array_header_1_0
                if version == (1, 0)
                else np.lib.format.read_array_header_2_0
            )
            shape, fortran, dtype = read_header(file)
            if fortran:
                raise ValueError(f"{info.filename} is in Fortran order")
            count, offset = math.prod(shape), file.tell()
            if offset % PAGE == 0:
                array = np.frombuffer(mapped, dtype, count, offset)
            else:
                array = aligned_bytes(count * dtype.itemsize)
                if file.readinto(array.data) != array.nbytes:
                    raise ValueError(f"{info.filename} is truncated")
                array = array.view(dtype)
            array = array.reshape(shape)
            array.setflags(write=False)
            arrays[info.filename.removesuffix(".npy")] = array
    return arrays
