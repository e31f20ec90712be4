"""An ONNX file read without passing its weights through protobuf.

``onnx.load`` parses the whole file into one protobuf message, and taking each initializer's
``raw_data`` out of it is a second copy: a ResNet-50 import peaked at twice its 98 MB of
weights. `read_detached` instead walks the file's protobuf wire format (field numbers of
onnx.proto: ModelProto.graph = 7, GraphProto.initializer = 5, TensorProto.name = 8,
TensorProto.raw_data = 9), copies everything but the large ``raw_data`` fields into a small
model it parses with protobuf, and reads each of those fields on its own, straight from the
file into the bytes object the importer keeps: one copy of every weight, and no more.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import BinaryIO

_MODEL_GRAPH, _GRAPH_INITIALIZER, _TENSOR_NAME, _TENSOR_RAW_DATA = 7, 5, 8, 9
_VARINT, _FIXED64, _LENGTH, _FIXED32 = 0, 1, 2, 5


class WireError(ValueError):
    """Bytes that are not the protobuf encoding of a model."""


def read_detached(path: str | os.PathLike[str], min_bytes: int) -> tuple[bytes, dict[str, bytes]]:
    """The serialized model of ``path`` without the ``raw_data`` of its initializers of more
    than ``min_bytes`` bytes, and those bytes by initializer name."""
    spans: dict[str, tuple[int, int]] = {}

    def tensor(file: BinaryIO, end: int) -> bytes:
        return _copy_tensor(file, end, min_bytes, spans)

    def graph(file: BinaryIO, end: int) -> bytes:
        return _copy(file, end, {_GRAPH_INITIALIZER: tensor})

    with open(path, "rb") as file:
        model = _copy(file, os.fstat(file.fileno()).st_size, {_MODEL_GRAPH: graph})
        weights = {name: os.pread(file.fileno(), n, at) for name, (at, n) in spans.items()}
    if any(len(data) != spans[name][1] for name, data in weights.items()):
        raise WireError("the file is truncated")
    return model, weights


Copier = Callable[[BinaryIO, int], bytes]
"""Copies one embedded message, from the file's position to the given end."""


def _copy(file: BinaryIO, end: int, nested: dict[int, Copier]) -> bytes:
    """The message from the file's position up to ``end``: its length-delimited fields named
    in ``nested`` copied by their copier, every other field as it is."""
    parts: list[bytes] = []
    while file.tell() < end:
        start = file.tell()
        field, wire = _tag(file)
        if field in nested and wire == _LENGTH:
            length = _varint(file)
            inner = nested[field](file, file.tell() + length)
            parts.append(_key(field, wire) + _encode_varint(len(inner)) + inner)
            continue
        _skip(file, wire)
        parts.append(_reread(file, start))
    _check_end(file, end)
    return b"".join(parts)


def _copy_tensor(
    file: BinaryIO, end: int, min_bytes: int, spans: dict[str, tuple[int, int]]
) -> bytes:
    """A TensorProto without its raw_data when that has more than ``min_bytes`` bytes (then
    recorded in ``spans`` under the tensor's name)."""
    parts: list[bytes] = []
    name, raw = None, None
    while file.tell() < end:
        start = file.tell()
        field, wire = _tag(file)
        if field == _TENSOR_RAW_DATA and wire == _LENGTH:
            length = _varint(file)
            file.seek(length, os.SEEK_CUR)
            if length > min_bytes:
                raw = (file.tell() - length, length)
                continue
        elif field == _TENSOR_NAME and wire == _LENGTH:
            name = file.read(_varint(file)).decode("utf-8", "replace")
        else:
            _skip(file, wire)
        parts.append(_reread(file, start))
    _check_end(file, end)
    if raw is not None:
        if name is None or name in spans:
            raise WireError(f"an initializer of {raw[1]} bytes has no name of its own")
        spans[name] = raw
    return b"".join(parts)


def _reread(file: BinaryIO, start: int) -> bytes:
    """The bytes from ``start`` to the file's position (a field just passed over)."""
    stop = file.tell()
    file.seek(start)
    return file.read(stop - start)


def _tag(file: BinaryIO) -> tuple[int, int]:
    key = _varint(file)
    return key >> 3, key & 7


def _key(field: int, wire: int) -> bytes:
    return _encode_varint(field << 3 | wire)


def _varint(file: BinaryIO) -> int:
    value, shift = 0, 0
    while True:
        byte = file.read(1)
        if not byte:
            raise WireError("the file ends inside a field")
        value |= (byte[0] & 0x7F) << shift
        if byte[0] < 0x80:
            return value
        shift += 7
        if shift > 63:
            raise WireError("a varint longer than 10 bytes")


def _encode_varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _skip(file: BinaryIO, wire: int) -> None:
    """Past the value of a field of wire type ``wire``."""
    if wire == _VARINT:
        _varint(file)
    elif wire == _FIXED64:
        file.seek(8, os.SEEK_CUR)
    elif wire == _LENGTH:
        file.seek(_varint(file), os.SEEK_CUR)
    elif wire == _FIXED32:
        file.seek(4, os.SEEK_CUR)
    else:
        raise WireError(f"wire type {wire} (groups are not used by ONNX)")


def _check_end(file: BinaryIO, end: int) -> None:
    if file.tell() != end:
        raise WireError("a field runs past the end of its message")
