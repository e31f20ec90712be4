"""The primitive cache: primitives created once per structure, reused, evicted LRU.

Keyed structurally by ``handler.key()`` (kind, descriptor keys, parameters), the engine and
the calling thread's OpenMP thread count (dnnc.dnnl.threads: a primitive runs under the count
it was created with), never by op names or addresses, so equal ops anywhere share one
primitive. Bounded by the
number of entries and by bytes; an entry's bytes are oneDNN's estimate of what the
primitive holds (``dnnl_query_memory_consumption_s64``) plus its scratchpad size.

Defaults: ``$DNNC_PRIMITIVE_CACHE_CAPACITY`` entries (1024, oneDNN's own default, when
unset) and ``$DNNC_PRIMITIVE_CACHE_BYTES`` bytes (1 GiB when unset). An evicted primitive
stays valid for whoever still holds it (e.g. a bound execution); the cache only lets go.
"""

from __future__ import annotations

import functools
import os
import threading
from collections import OrderedDict
from typing import Any

from dnnc.dnnl.objects import Engine, Primitive
from dnnc.dnnl.primitives import PrimitiveHandler
from dnnc.dnnl.threads import thread_count

CAPACITY_VARIABLE = "DNNC_PRIMITIVE_CACHE_CAPACITY"
BYTES_VARIABLE = "DNNC_PRIMITIVE_CACHE_BYTES"
DEFAULT_CAPACITY = 1024
DEFAULT_BYTES = 1 << 30


def _limit(variable: str, default: int) -> int:
    text = os.environ.get(variable)
    if text is None:
        return default
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise ValueError(f"${variable} must be a non-negative integer, got {text!r}")
    return value


def primitive_bytes(primitive: Primitive) -> int:
    """What a cached primitive costs: its own memory plus the scratchpad it needs."""
    scratchpad = primitive.desc.scratchpad_desc()
    return primitive.desc.memory_consumption + (scratchpad.size_bytes if scratchpad else 0)


class PrimitiveCache:
    """LRU cache of primitives bounded by entry count and bytes; counters readable.

    ``hits`` and ``misses`` count ``acquire`` calls; ``evictions`` counts entries dropped
    to respect a bound (an entry larger than ``max_bytes`` on its own is returned but
    evicted at once).
    """

    def __init__(self, max_entries: int | None = None, max_bytes: int | None = None) -> None:
        if max_entries is None:
            max_entries = _limit(CAPACITY_VARIABLE, DEFAULT_CAPACITY)
        if max_bytes is None:
            max_bytes = _limit(BYTES_VARIABLE, DEFAULT_BYTES)
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        if self.max_entries < 0 or self.max_bytes < 0:
            raise ValueError(f"cache bounds must be non-negative: {max_entries}, {max_bytes}")
        self.hits = 0
        self.misses = 0
        self.evictions = 0
        self._entries: OrderedDict[Any, tuple[Primitive, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    @property
    def entries(self) -> int:
        return len(self._entries)

    @property
    def bytes(self) -> int:
        return self._bytes

    def acquire(self, handler: PrimitiveHandler, engine: Engine | None = None) -> Primitive:
        """The primitive for the handler's structure on ``engine`` (default engine when
        None) for the calling thread's thread count: the cached one (a hit), else a new one
        (a miss) that is cached."""
        engine = engine or Engine.default()
        key = (
            engine,
            thread_count(),
            handler.key(),
        )  # the engine object: a primitive runs on its own
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
                self.hits += 1
                return entry[0]
            self.misses += 1
        primitive = Primitive(handler.create(engine))
        size = primitive_bytes(primitive)
        with self._lock:
            if key not in self._entries:
                self._entries[key] = (primitive, size)
                self._bytes += size
                self._evict()
        return primitive

    def holds(self, handler: PrimitiveHandler, engine: Engine | None = None) -> bool:
        """Whether ``acquire`` would find the primitive cached (no counter moves)."""
        key = (engine or Engine.default(), thread_count(), handler.key())
        with self._lock:
            return key in self._entries

    def clear(self) -> None:
        """Drop every entry (counters are kept)."""
        with self._lock:
            self._entries.clear()
            self._bytes = 0

    def _evict(self) -> None:
        while self._entries and (
            len(self._entries) > self.max_entries or self._bytes > self.max_bytes
        ):
            _, (_, size) = self._entries.popitem(last=False)
            self._bytes -= size
            self.evictions += 1


@functools.cache
def default_cache() -> PrimitiveCache:
    """The process-wide cache, with the bounds from the environment."""
    return PrimitiveCache()
