"""Compiled models on disk: what ``dnnc.compile(..., save_to=DIR)`` writes and ``dnnc.load``
reads, in the manner of OpenVINO's model cache and ONNX Runtime's saved optimized models.

A saved model is a directory:

- ``manifest.json``: the format version, the target it was compiled for (oneDNN version and
  effective ISA: packed weights and kernel choices are theirs), the function's name and the
  kind of executable: ``static`` (the files below) or ``dynamic`` (a function with ``?``
  dimensions, whose files dnnc.driver.saved_dynamic writes and reads);
- ``program.json``: the lowered function as its `Program` (dnnc.runtime.program): every
  kernel call in order with its parameters, each operand's shape, element type, layout and
  place (arena offset, argument, constant ``c<n>``), the arena's size and roots, and the
  ops' source locations for errors;
- ``constants.npz`` (uncompressed, each array's data on a page boundary): each ``c<n>`` as
  the executor binds it, weights already packed in the layout oneDNN chose on that target, so
  loading packs nothing, and maps rather than reads them.

``load`` refuses, naming both sides, a directory of another format version or one compiled
for another oneDNN version or ISA (compile again there: the packed layouts would not fit).
Loading a static model reads the JSON, maps the constants and creates the primitives: no IR is
parsed, no pass runs, and xDSL is not imported (the imports and the parse were most of a load).
"""

from __future__ import annotations

import dataclasses
import enum
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
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from xdsl.utils.lexer import Location

from dnnc.core import kinds
from dnnc.core.diagnostics import DnncError, make_location
from dnnc.core.kinds import DataType
from dnnc.core.layouts import parse_layout
from dnnc.runtime.cache import PrimitiveCache
from dnnc.runtime.constants import PackedConstants
from dnnc.runtime.executor import Executable
from dnnc.runtime.io_binding import TensorSpec
from dnnc.runtime.plan import aligned_bytes
from dnnc.runtime.program import (
    CONSTANT,
    Call,
    Constant,
    MemorySpec,
    Operand,
    Place,
    Program,
)
from dnnc.target import effective_isa, onednn_version

if TYPE_CHECKING:
    from dnnc.driver.dynamic import DynamicExecutable, DynamicOptions

FORMAT = 4
"""The version of the directory layout; a directory of another version is refused."""

MANIFEST, PROGRAM, CONSTANTS = "manifest.json", "program.json", "constants.npz"

STATIC, DYNAMIC = "static", "dynamic"
"""The kinds of executable a directory holds (its manifest's ``kind``)."""


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


def save(program: Program, executable: Executable, directory: str | os.PathLike[str]) -> None:
    """Write ``program`` and the constants ``executable`` (built from it) binds to
    ``directory`` (``write_atomically``)."""
    write_atomically(directory, lambda path: _write(program, executable, path))


def save_dynamic(
    executable: DynamicExecutable, passes: Sequence[str], directory: str | os.PathLike[str]
) -> None:
    """Write the function of a DynamicExecutable, its weights and the pipelines ``passes``
    its traces run to ``directory`` (dnnc.driver.saved_dynamic)."""
    from dnnc.driver import saved_dynamic  # xDSL: not imported by a static load

    def write(path: Path) -> None:
        _write_manifest(path, {"kind": DYNAMIC, **saved_dynamic.write(executable, passes, path)})

    write_atomically(directory, write)


def write_atomically(directory: str | os.PathLike[str], write: Callable[[Path], None]) -> None:
    """Let ``write`` fill a directory beside ``directory``, then rename it there (one already
    there is replaced), so that concurrent workers filling one cache never read half a
    model."""
    target = Path(directory)
    target.parent.mkdir(parents=True, exist_ok=True)
    path = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        write(path)
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


def _write_manifest(path: Path, entries: dict[str, object]) -> None:
    """``manifest.json``: the format, the target and ``entries`` (the kind, the function)."""
    manifest = {"format": FORMAT, **entries, **target_identity()}
    (path / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")


def _write(program: Program, executable: Executable, path: Path) -> None:
    """The three files of the module docstring, in ``path``: one ``c<n>`` per constant and
    memory the calls bind."""
    arrays: dict[str, np.ndarray] = {}
    indices: dict[tuple[int, MemorySpec, bool], int] = {}

    def operand(o: Operand, call: Call) -> list[object]:
        place = o.place
        if place.base == CONSTANT:
            logical = _packs_itself(call, o)
            key = (place.index, o.memory, logical)
            if key not in indices:
                indices[key] = len(indices)
                constant = program.constants[place.index]
                source = constant.key

                def missing() -> np.ndarray:
                    raise DnncError(f"@{program.name} binds no constant {source} in {o.memory}")

                name = f"c{indices[key]}"
                if logical and constant.load is not None:
                    arrays[name] = np.ascontiguousarray(constant.load())
                else:
                    arrays[name] = executable.constants.get((*source, o.memory), missing)
            place = Place(CONSTANT, indices[key], 0)
        memory = [list(o.memory.shape), o.memory.data_type.value, o.memory.layout.tag]
        return [o.role, memory, [place.base, place.index, place.offset, place.root]]

    calls = [
        {
            "library": c.library,
            "kind": c.kind,
            "op": c.op_name,
            "location": _location(c.location),
            "params": {k: _encode(v) for k, v in c.params.items()},
            "ins": [operand(o, c) for o in c.ins],
            "outs": [operand(o, c) for o in c.outs],
        }
        for c in program.calls
    ]
    document = {
        "name": program.name,
        "inputs": [_spec(s) for s in program.inputs],
        "outputs": [_spec(s) for s in program.outputs],
        "arena_bytes": program.arena_bytes,
        "arena_roots": [list(r) for r in program.arena_roots],
        "guards": list(program.guards),
        "location": _location(program.location),
        "constants": list(arrays),
        "calls": calls,
    }
    _write_arrays(path / CONSTANTS, arrays)
    (path / PROGRAM).write_text(json.dumps(document, separators=(",", ":")) + "\n")
    _write_manifest(path, {"kind": STATIC, "function": program.name})


def _spec(spec: TensorSpec) -> list[object]:
    return [spec.name, list(spec.shape), DataType.of_numpy(spec.dtype).value]


def _location(location: Location | None) -> list[object] | None:
    return None if location is None else list(location)


_ENUMS: dict[str, type[enum.Enum]] = {
    name: value
    for name, value in vars(kinds).items()
    if isinstance(value, type) and issubclass(value, enum.Enum) and issubclass(value, str)
}
"""The parameter enums (dnnc.core.kinds), by class name."""
_POST_OPS: dict[str, type] = {
    cls.__name__: cls for cls in (kinds.EltwisePostOp, kinds.BinaryPostOp, kinds.SumPostOp)
}


def _encode(value: object) -> object:
    """A kernel parameter as JSON: enums and post-ops tagged with their class."""
    if isinstance(value, enum.Enum) and type(value).__name__ in _ENUMS:
        return {"enum": type(value).__name__, "value": value.value}
    if type(value).__name__ in _POST_OPS and dataclasses.is_dataclass(value):
        fields = {f.name: _encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return {"post_op": type(value).__name__, **fields}
    if isinstance(value, list | tuple):
        return [_encode(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    raise DnncError(f"cannot save a kernel parameter of type {type(value).__name__}: {value!r}")


def _decode(value: object) -> object:
    """The inverse of _encode."""
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if isinstance(value, dict):
        if "enum" in value:
            return _ENUMS[value["enum"]](value["value"])
        fields = {k: _decode(v) for k, v in value.items() if k != "post_op"}
        return _POST_OPS[value["post_op"]](**fields)
    return value


def _program(document: dict, path: Path) -> Program:
    """The Program of a program.json document; its constants keyed by ``path`` and name."""

    def operand(o: list) -> Operand:
        role, (shape, data_type, tag), (base, index, offset, root) = o
        memory = MemorySpec(tuple(shape), DataType(data_type), parse_layout(tag))
        return Operand(role, memory, Place(base, index, offset, root))

    def location(value: list | None) -> Location | None:
        return None if value is None else make_location(*value)

    def spec(s: list) -> TensorSpec:
        return TensorSpec(s[0], tuple(s[1]), DataType(s[2]).numpy)

    calls = tuple(
        Call(
            c["library"],
            c["kind"],
            tuple(operand(o) for o in c["ins"]),
            tuple(operand(o) for o in c["outs"]),
            {k: _decode(v) for k, v in c["params"].items()},
            c["op"],
            location(c["location"]),
        )
        for c in document["calls"]
    )
    return Program(
        document["name"],
        tuple(spec(s) for s in document["inputs"]),
        tuple(spec(s) for s in document["outputs"]),
        document["arena_bytes"],
        calls,
        tuple(Constant((str(path), name)) for name in document["constants"]),
        tuple((lo, hi) for lo, hi in document["arena_roots"]),
        tuple(document["guards"]),
        location(document["location"]),
    )


def load(
    directory: str | os.PathLike[str],
    *,
    cache: PrimitiveCache | None = None,
    dynamic: DynamicOptions | None = None,
) -> Executable | DynamicExecutable:
    """The executable saved in ``directory`` (module docstring): an Executable, or a
    DynamicExecutable (within ``dynamic``) for a function with ``?`` dimensions; DnncError if
    it cannot be."""
    path = Path(directory)
    try:
        manifest = json.loads((path / MANIFEST).read_text())
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
    if manifest.get("kind") == DYNAMIC:
        from dnnc.driver import saved_dynamic  # xDSL: not imported by a static load

        return saved_dynamic.load(path, manifest, cache=cache, options=dynamic)
    if manifest.get("kind") != STATIC:
        raise DnncError(f"'{path}' holds a saved model of unknown kind {manifest.get('kind')!r}")
    try:
        document = json.loads((path / PROGRAM).read_text())
    except (OSError, ValueError) as error:
        raise DnncError(f"'{path}' is not a saved dnnc model: {error}") from None
    try:
        program = _program(document, path)
    except (KeyError, TypeError, ValueError, IndexError) as error:
        raise DnncError(f"'{path / PROGRAM}' is not a dnnc program: {error!r}") from None
    constants = PackedConstants()
    logical: dict[int, Constant] = {}
    try:
        arrays = _read_arrays(path / CONSTANTS)
        for call in program.calls:
            for o in (*call.ins, *call.outs):
                if o.place.base != CONSTANT:
                    continue
                source = program.constants[o.place.index].key
                array = _typed(arrays[str(source[1])], o.memory)
                if _packs_itself(call, o):
                    logical[o.place.index] = Constant(source, _returning(array))
                else:
                    constants.preload(source, o.memory, array)
    except (OSError, KeyError, IndexError, ValueError, struct.error, zipfile.BadZipFile) as error:
        raise DnncError(f"cannot read the constants of '{path}': {error!r}") from None
    program = dataclasses.replace(
        program,
        constants=tuple(logical.get(i, c) for i, c in enumerate(program.constants)),
    )
    return Executable(program, cache=cache, constants=constants)


def _returning(array: np.ndarray) -> Callable[[], np.ndarray]:
    """A Constant's ``load`` giving ``array``."""
    return lambda: array


def _packs_itself(call: Call, operand: Operand) -> bool:
    """Whether ``operand`` is weights its primitive packs itself when the plan is built
    (Call.packs_own_weights): saved as the logical array, whatever its memory's layout."""
    return operand.role == "weights" and call.packs_own_weights()


def _typed(array: np.ndarray, memory: MemorySpec) -> np.ndarray:
    """A saved constant as its memory's element type: np.save writes bf16 (ml_dtypes) arrays
    as 2-byte voids; packed buffers stay bytes (uint8), as the executor bound them."""
    if array.dtype.kind == "V" and array.dtype.itemsize == memory.data_type.itemsize:
        return array.view(memory.data_type.numpy)
    return array


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
            assert archive.fp is not None  # open for writing
            start = archive.fp.tell() + fixed + len(header.getvalue())
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
