"""Soaks of a dynamic conv graph.

- 1,000 runs with random small shapes and a plan cache far smaller than the number of
  distinct shapes: the plan cache's counters equal an LRU model's exactly, every cache stays
  within its bounds, and the process's resident memory stops growing once the caches are
  full.
- 2,000 runs cycling 50 shapes with the default options: every shape after the first cycle
  is a hit, and the resident memory is flat after the first cycle (a run allocates nothing
  that outlives it but its outputs)."""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path

import numpy as np
import pytest

import dnnc
from dnnc.driver.dynamic import DynamicExecutable, DynamicOptions
from dnnc.runtime.cache import PrimitiveCache
from dnnc_testing.dynamic_graphs import conv, write_weights

RUNS = 1000
MAX_PLANS = 8
MAX_PRIMITIVES = 48
HOT = [(1, 4, 4), (2, 4, 6), (1, 6, 6), (2, 8, 4), (1, 8, 8), (3, 4, 4)]
COLD = [(n, h, w) for n in (1, 2, 3) for h in (2, 4, 6, 8, 10) for w in (2, 4, 6, 8, 10)]
WARM_UP = 200
RSS_GROWTH_LIMIT = 32 << 20


def rss_bytes() -> int:
    """The process's resident set size now (Linux /proc)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


@pytest.mark.slow
def test_soak_random_shapes(tmp_path: Path) -> None:
    write_weights(tmp_path)
    (tmp_path / "conv.mlir").write_text(conv(None, None, None))
    primitives = PrimitiveCache(max_entries=MAX_PRIMITIVES)
    dynamic = dnnc.compile(
        tmp_path / "conv.mlir", dynamic=DynamicOptions(max_plans=MAX_PLANS), cache=primitives
    )
    assert isinstance(dynamic, DynamicExecutable)
    rng = np.random.default_rng(7)
    model: OrderedDict[tuple[int, ...], None] = OrderedDict()
    hits = misses = evictions = 0
    rss_after_warm_up = 0
    for run in range(RUNS):
        pool = HOT if rng.random() < 0.95 else COLD
        n, h, w = pool[rng.integers(len(pool))]
        x = rng.standard_normal((n, 3, h, w)).astype(np.float32)
        y = dynamic.run([x])[0]
        assert y.shape == (n, 4, h // 2, w // 2)
        if (n, h, w) in model:
            hits += 1
            model.move_to_end((n, h, w))
        else:
            misses += 1
            model[(n, h, w)] = None
            if len(model) > MAX_PLANS:
                model.popitem(last=False)
                evictions += 1
        stats = dynamic.stats()
        assert stats.plans <= MAX_PLANS and primitives.entries <= MAX_PRIMITIVES
        if run == WARM_UP:
            rss_after_warm_up = rss_bytes()
    stats = dynamic.stats()
    print(
        f"\n{stats}\nprimitive cache: {primitives.entries} entries, {primitives.bytes} bytes, "
        f"{primitives.evictions} evictions; RSS {rss_after_warm_up >> 20} -> {rss_bytes() >> 20} MiB"
    )
    assert (stats.hits, stats.misses, stats.evictions) == (hits, misses, evictions)
    assert stats.evictions > 0 and primitives.evictions > 0  # both bounds were exercised
    # plans come from templates: the pipeline ran for far fewer signatures than were new
    # (each trace serves the signatures its guards admit; sizes 2 and 1 break some)
    assert stats.traces < stats.misses / 2
    assert stats.constant_entries == stats.constant_packs <= 8  # 4 weights, few layouts
    assert rss_bytes() - rss_after_warm_up < RSS_GROWTH_LIMIT


CYCLE = [(n, h, w) for n in (1, 2) for h in (4, 6, 8, 10, 12) for w in (4, 6, 8, 10, 12)]
CYCLES = 40
FLAT_RSS_LIMIT = 2 << 20
"""Growth allowed after the first cycle: the second rebinds the plans made before the arena
last grew (``rebinds``), about 1.6 MiB here."""
LATE_RSS_LIMIT = 512 << 10
"""Growth allowed over the last 30 cycles (1,500 runs): a leak of 350 bytes a run fails."""


@pytest.mark.slow
def test_soak_cycling_fifty_shapes(tmp_path: Path) -> None:
    write_weights(tmp_path)
    (tmp_path / "conv.mlir").write_text(conv(None, None, None))
    dynamic = dnnc.compile(tmp_path / "conv.mlir")
    assert isinstance(dynamic, DynamicExecutable) and len(set(CYCLE)) == 50
    rng = np.random.default_rng(3)
    inputs = [rng.standard_normal((n, 3, h, w)).astype(np.float32) for n, h, w in CYCLE]
    rss = []
    for _ in range(CYCLES):
        for x in inputs:
            (y,) = dynamic.run([x])
            assert y.shape == (x.shape[0], 4, x.shape[2] // 2, x.shape[3] // 2)
        rss.append(rss_bytes())
    stats = dynamic.stats()
    print(f"\n{stats}\nRSS after each cycle, KiB: {[r >> 10 for r in rss]}")
    assert (stats.misses, stats.hits, stats.evictions) == (50, 50 * (CYCLES - 1), 0)
    assert rss[-1] - rss[0] < FLAT_RSS_LIMIT
    assert rss[-1] - rss[-31] < LATE_RSS_LIMIT
