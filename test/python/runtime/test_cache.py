"""The primitive cache: structural keys, true LRU under entry and byte bounds, counters that
match a model of what happened, bounded memory under a stream of shapes."""

from __future__ import annotations

import re
from collections import OrderedDict

import numpy as np
import pytest

from dnnc.core.kinds import DataType
from dnnc.dnnl import capi
from dnnc.dnnl.objects import Engine, Memory, MemoryDesc
from dnnc.dnnl.primitives import PrimitiveHandler, handler_for
from dnnc.runtime.cache import (
    BYTES_VARIABLE,
    CAPACITY_VARIABLE,
    DEFAULT_BYTES,
    DEFAULT_CAPACITY,
    PrimitiveCache,
    default_cache,
    primitive_bytes,
)

F32 = DataType.F32


def relu(*dims: int) -> PrimitiveHandler:
    desc = MemoryDesc.of_layout(dims, F32)
    return handler_for("eltwise", {"src": desc, "dst": desc}, {"alg": "relu"})


def conv() -> PrimitiveHandler:
    descs = {
        "src": MemoryDesc.of_layout((1, 16, 14, 14), F32),
        "weights": MemoryDesc.of_layout((32, 16, 3, 3), F32),
        "dst": MemoryDesc.of_layout((1, 32, 12, 12), F32),
    }
    return handler_for("convolution", descs, {})


def rss_kib() -> int:
    with open("/proc/self/status") as status:
        match = re.search(r"^VmRSS:\s+(\d+) kB", status.read(), re.MULTILINE)
    assert match is not None
    return int(match.group(1))


def counters(cache: PrimitiveCache) -> tuple[int, int, int, int]:
    return cache.hits, cache.misses, cache.evictions, cache.entries


def test_equal_structures_share_one_primitive() -> None:
    cache = PrimitiveCache()
    first = cache.acquire(relu(2, 3))
    assert cache.acquire(relu(2, 3)) is first  # another handler, same structure
    assert cache.acquire(relu(3, 2)) is not first
    assert counters(cache) == (1, 2, 0, 2)


def test_eviction_is_least_recently_used() -> None:
    cache = PrimitiveCache(max_entries=2)
    a = cache.acquire(relu(1))
    cache.acquire(relu(2))
    assert cache.acquire(relu(1)) is a  # a is now the most recently used
    cache.acquire(relu(3))  # evicts relu(2), not relu(1)
    assert counters(cache) == (1, 3, 1, 2)
    assert cache.acquire(relu(1)) is a
    cache.acquire(relu(2))
    assert counters(cache) == (2, 4, 2, 2)


def test_bytes_bound_evicts_and_never_keeps_an_oversized_entry() -> None:
    size = primitive_bytes(PrimitiveCache().acquire(conv()))
    assert size > 0
    cache = PrimitiveCache(max_bytes=size)
    cache.acquire(conv())
    assert (cache.entries, cache.bytes) == (1, size)
    tiny = PrimitiveCache(max_bytes=size - 1)
    primitive = tiny.acquire(conv())  # returned, but not kept
    assert (tiny.entries, tiny.bytes, tiny.evictions) == (0, 0, 1)
    assert not primitive.closed


def test_an_evicted_primitive_stays_usable() -> None:
    cache = PrimitiveCache(max_entries=1)
    primitive = cache.acquire(relu(4))
    cache.acquire(relu(5))
    assert cache.evictions == 1
    src = np.array([-1.0, 2.0, -3.0, 4.0], np.float32)
    dst = np.zeros(4, np.float32)
    desc = MemoryDesc.of_layout((4,), F32)
    execute = primitive.bind(
        {capi.DNNL_ARG_SRC: Memory(desc, src), capi.DNNL_ARG_DST: Memory(desc, dst)}
    )
    execute()
    np.testing.assert_array_equal(dst, [0.0, 2.0, 0.0, 4.0])


def test_engines_do_not_share_primitives() -> None:
    cache = PrimitiveCache()
    other = Engine()
    assert cache.acquire(relu(6), other).desc.engine is other
    assert cache.acquire(relu(6)).desc.engine is Engine.default()
    assert cache.misses == 2


def test_clear_keeps_the_counters() -> None:
    cache = PrimitiveCache()
    cache.acquire(relu(7))
    cache.clear()
    assert (cache.entries, cache.bytes, cache.misses) == (0, 0, 1)
    cache.acquire(relu(7))
    assert cache.misses == 2


def test_bounds_default_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CAPACITY_VARIABLE, raising=False)
    monkeypatch.delenv(BYTES_VARIABLE, raising=False)
    cache = PrimitiveCache()
    assert (cache.max_entries, cache.max_bytes) == (DEFAULT_CAPACITY, DEFAULT_BYTES)
    monkeypatch.setenv(CAPACITY_VARIABLE, "7")
    monkeypatch.setenv(BYTES_VARIABLE, "4096")
    assert (PrimitiveCache().max_entries, PrimitiveCache().max_bytes) == (7, 4096)
    assert PrimitiveCache(max_entries=3).max_entries == 3
    monkeypatch.setenv(CAPACITY_VARIABLE, "many")
    with pytest.raises(ValueError, match=CAPACITY_VARIABLE):
        PrimitiveCache()


def test_default_cache_is_one_per_process() -> None:
    assert default_cache() is default_cache()


def test_a_stream_of_shapes_stays_bounded_and_counts_exactly() -> None:
    """1,000 eltwise shapes through max_entries=64; every fifth request repeats a recent
    shape (mostly hits) or an early one (mostly evicted by then). A model LRU predicts
    every counter exactly."""
    rng = np.random.default_rng(0)
    shapes: list[tuple[int, ...]] = []
    for i in range(1000):
        if i % 5 == 4 and shapes:
            recent = i % 10 == 4
            pick = (
                rng.integers(max(0, len(shapes) - 16), len(shapes))
                if recent
                else (rng.integers(0, min(len(shapes), 32)))
            )
            shapes.append(shapes[int(pick)])
        else:
            shapes.append(tuple(int(d) for d in rng.integers(1, 9, rng.integers(1, 5))))
    cache = PrimitiveCache(max_entries=64)
    model: OrderedDict[tuple[int, ...], None] = OrderedDict()
    hits = misses = evictions = 0
    for shape in shapes[:100]:  # warm up the allocator before the RSS baseline
        cache.acquire(relu(*shape))
    cache = PrimitiveCache(max_entries=64)
    before = rss_kib()
    for shape in shapes:
        cache.acquire(relu(*shape))
        if shape in model:
            model.move_to_end(shape)
            hits += 1
        else:
            misses += 1
            model[shape] = None
            if len(model) > 64:
                model.popitem(last=False)
                evictions += 1
        assert cache.entries <= 64
    after = rss_kib()
    assert (cache.hits, cache.misses, cache.evictions, cache.entries) == (
        hits,
        misses,
        evictions,
        len(model),
    )
    assert hits > 50 and evictions > 500  # the stream really exercised both paths
    assert after - before < 64 * 1024, f"RSS grew by {after - before} KiB"
    # bytes account exactly for what is cached (re-acquiring in LRU order: hits only)
    assert cache.bytes == sum(primitive_bytes(cache.acquire(relu(*s))) for s in list(model))


def test_a_stream_of_convolutions_stays_under_the_byte_bound() -> None:
    """Convolutions have real bytes (scratchpad, packed tables); the bound holds after
    every acquire and entries leave in LRU order to keep it."""
    rng = np.random.default_rng(1)
    cache = PrimitiveCache(max_bytes=256 * 1024)
    for _ in range(150):
        c, o, hw = (int(v) for v in rng.integers((1, 1, 3), (33, 33, 17)))
        descs = {
            "src": MemoryDesc.of_layout((1, c, hw, hw), F32),
            "weights": MemoryDesc.of_layout((o, c, 3, 3), F32),
            "dst": MemoryDesc.of_layout((1, o, hw - 2, hw - 2), F32),
        }
        cache.acquire(handler_for("convolution", descs, {}))
        assert cache.bytes <= 256 * 1024
    assert cache.evictions > 0 and cache.entries > 1
