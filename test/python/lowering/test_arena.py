"""plan_arena: no two simultaneously live buffers share bytes, and the peak is near the bound."""

import random

import pytest

from dnnc.core.arena import ALIGNMENT, Lifetime, align, conflicts, lower_bound, plan_arena


def random_lifetimes(rng: random.Random, count: int, positions: int) -> list[Lifetime]:
    lifetimes = []
    for key in range(count):
        start = rng.randrange(positions)
        end = min(positions - 1, start + rng.choice([0, 1, 1, 2, 3, rng.randrange(positions)]))
        lifetimes.append(Lifetime(key, rng.choice([4, 100, 4096, 65536, 200_000]), start, end))
    return lifetimes


def assert_disjoint_when_live_together(lifetimes: list[Lifetime], offsets: dict) -> None:
    for i, a in enumerate(lifetimes):
        assert offsets[a.key] % ALIGNMENT == 0
        for b in lifetimes[i + 1 :]:
            if a.overlaps(b):
                a_end = offsets[a.key] + a.size
                b_end = offsets[b.key] + b.size
                assert a_end <= offsets[b.key] or b_end <= offsets[a.key], (a, b, offsets)


@pytest.mark.parametrize("seed", range(40))
def test_random_plans_are_safe_and_bounded(seed: int) -> None:
    rng = random.Random(seed)
    lifetimes = random_lifetimes(rng, rng.randrange(1, 60), rng.randrange(1, 40))
    plan = plan_arena(lifetimes)
    assert_disjoint_when_live_together(lifetimes, plan.offsets)
    assert plan.lower_bound_bytes <= plan.peak_bytes
    assert plan.peak_bytes <= sum(align(b.size) for b in lifetimes)


def test_chain_reuses_two_buffers() -> None:
    """A chain a -> b -> c -> d needs only two buffers at a time: the plan must find that."""
    chain = [Lifetime(i, 1000, i, i + 1) for i in range(10)]
    plan = plan_arena(chain)
    assert plan.peak_bytes == plan.lower_bound_bytes == 2 * align(1000)


def test_lower_bound_counts_buffers_live_at_the_same_position() -> None:
    lifetimes = [Lifetime("a", 64, 0, 2), Lifetime("b", 128, 1, 1), Lifetime("c", 64, 2, 3)]
    assert lower_bound(lifetimes) == 64 + 128
    assert lower_bound([Lifetime("a", 64, 0, 0), Lifetime("b", 64, 1, 1)]) == 64


@pytest.mark.parametrize("seed", range(10))
def test_conflicts_found_once_place_the_same(seed: int) -> None:
    """A program template finds the conflicts of its lifetimes once and places other sizes
    with them (dnnc.runtime.template): the same offsets as a plan that finds them itself."""
    rng = random.Random(seed)
    lifetimes = random_lifetimes(rng, rng.randrange(1, 60), rng.randrange(1, 40))
    clashes = conflicts([Lifetime(b.key, 0, b.start, b.end) for b in lifetimes])
    assert all(b.key not in clashes[b.key] for b in lifetimes)
    assert plan_arena(lifetimes, clashes=clashes) == plan_arena(lifetimes)
