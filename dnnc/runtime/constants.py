"""Constants as primitives read them: loaded once, packed once per memory descriptor.

A source (a `dnn.weight`'s resolved file and key, or a `dnn.constant`'s value) is keyed by
`constant_key`; `PackedConstants` holds its arrays by that key and the memory descriptor, so
several Executables built with one store (a DynamicExecutable's plans, a saved model's
preloaded arrays) share them.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable

import numpy as np

from dnnc.ir.dnn import ConstantOp, WeightOp
from dnnc.ir.onednn import MemoryType
from dnnc.ir.weights import weight_path

DIGEST_BYTES = 4096
"""dnn.constant values larger than this are keyed by a digest of their bytes, not by the IR
attribute, which would keep the IR's copy of every packed weight alive."""


def constant_key(source: ConstantOp | WeightOp, weights_dir: str | None) -> tuple[object, ...]:
    """What identifies a source's data: a dnn.weight's resolved file and key; a dnn.constant's
    type and bytes (a SHA-256 digest of them when large: 0.06 s per 100 MB, once per compile)."""
    if isinstance(source, WeightOp):
        return ("weight", str(weight_path(source, weights_dir).resolve()), source.key)
    data = source.value.data.data
    if len(data) <= DIGEST_BYTES:
        return ("constant", source.value)
    return ("constant", source.value.type, hashlib.sha256(data).digest())


class PackedConstants:
    """Constants as primitives read them, shared by the Executables built with it.

    Keyed by the source (``constant_key``) and the memory descriptor: a source is packed again
    only for a descriptor not seen before (a primitive that prefers another layout). ``packs``
    counts the arrays made.
    """

    def __init__(self) -> None:
        self._arrays: dict[tuple[object, ...], np.ndarray] = {}
        self._lock = threading.Lock()
        self.packs = 0

    @property
    def entries(self) -> int:
        return len(self._arrays)

    @property
    def bytes(self) -> int:
        return sum(a.nbytes for a in self._arrays.values())

    def preload(self, source: tuple[object, ...], memory: MemoryType, array: np.ndarray) -> None:
        """Store ``array`` as the data of ``source`` (a ``constant_key``) in ``memory``: a
        saved model's constants, packed already (dnnc.driver.saved)."""
        self._arrays[(*source, memory)] = array

    def get(self, key: tuple[object, ...], make: Callable[[], np.ndarray]) -> np.ndarray:
        """The array stored under ``key``, made (and stored) by ``make`` the first time; safe
        from several threads (a plan's build packs in parallel): one array per key is kept."""
        with self._lock:
            found = self._arrays.get(key)
        if found is not None:
            return found
        made = make()
        with self._lock:
            if key not in self._arrays:
                self._arrays[key] = made
                self.packs += 1
            return self._arrays[key]
