"""Constants as primitives read them: loaded once, packed once per memory descriptor.

A source (a `dnn.weight`'s resolved file and key, or a `dnn.constant`'s value) is keyed by
`dnnc.runtime.lowered.constant_key` (a saved model's by its directory and name);
`PackedConstants` holds its arrays by that key and the memory, so several Executables built
with one store (a DynamicExecutable's plans, a saved model's preloaded arrays) share them,
and the oneDNN memory objects over them (``memory``): a DynamicExecutable's new shape binds
its weights to the Memories the plans before it made.
"""

from __future__ import annotations

import mmap
import threading
from collections.abc import Callable

import numpy as np

from dnnc.dnnl.objects import Engine, Memory, MemoryDesc
from dnnc.runtime.program import MemorySpec


def packed_buffer(size: int) -> np.ndarray:
    """A new uint8 buffer of ``size`` bytes for a packed constant: private anonymous memory,
    page-aligned, advised not to be backed by 2 MB pages. numpy's own (``np.empty``) advises
    2 MB pages from 4 MB on, whose first touch stalls when the kernel must compact memory
    for them or, on a VM whose balloon reports free pages, when the host must fault them in
    again: that stall was most of a first call's packing (the reorders themselves are a few
    percent of it). The runs read packed weights at the same speed either way."""
    if size == 0:
        return np.empty(0, np.uint8)
    memory = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    if hasattr(mmap, "MADV_NOHUGEPAGE"):  # Linux: also where transparent huge pages are always on
        memory.madvise(mmap.MADV_NOHUGEPAGE)
    return np.frombuffer(memory, np.uint8)


class PackedConstants:
    """Constants as primitives read them, shared by the Executables built with it.

    Keyed by the source (``Constant.key``) and the memory: a source is packed again
    only for a descriptor not seen before (a primitive that prefers another layout). ``packs``
    counts the arrays made.
    """

    def __init__(self) -> None:
        self._arrays: dict[tuple[object, ...], np.ndarray] = {}
        self._memories: dict[tuple[object, ...], Memory] = {}
        self._lock = threading.Lock()
        self.packs = 0
        self.memories = 0
        """Memory objects made (``memory``)."""

    @property
    def entries(self) -> int:
        return len(self._arrays)

    @property
    def bytes(self) -> int:
        return sum(a.nbytes for a in self._arrays.values())

    def preload(self, source: tuple[object, ...], memory: MemorySpec, array: np.ndarray) -> None:
        """Store ``array`` as the data of ``source`` (a ``Constant.key``) in ``memory``: a
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

    def memory(self, desc: MemoryDesc, array: np.ndarray, offset: int, engine: Engine) -> Memory:
        """The Memory of ``desc`` over a constant's ``array`` from ``offset``: one per array,
        offset, descriptor and engine, shared by every context that binds it (read only,
        never rebound; each Memory keeps its array alive, so its id keys nothing else)."""
        key = (id(array), offset, desc.key(), engine.handle)
        with self._lock:
            found = self._memories.get(key)
            if found is None:
                found = self._memories[key] = Memory(desc, array, offset, engine=engine)
                self.memories += 1
            return found
