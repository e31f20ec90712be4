"""What the Python runtime adds to a primitive execution.

For a small (1x16x8x8 relu) and a large (1x64x56x56 3x3 convolution) primitive: the median
time of one execution through the runtime (a BoundExecution from PrimitiveCache.acquire +
Primitive.bind, called) and through a bare ctypes ``dnnl_primitive_execute`` on the same
primitive and memories, measured alternately with time.perf_counter_ns; the difference in
microseconds and the ratio. Also the one-time costs: acquire on a miss, handler
construction + acquire on a hit, and bind.

    .venv/bin/python bench/runtime_overhead.py [--small-iterations N] [--large-iterations N]
"""

from __future__ import annotations

import argparse
import ctypes
import statistics
import time
from collections.abc import Callable

import numpy as np

from dnnc.core.kinds import DataType
from dnnc.dnnl import capi
from dnnc.dnnl.objects import Memory, MemoryDesc, Stream
from dnnc.dnnl.primitives import PrimitiveHandler, handler_for
from dnnc.runtime.cache import PrimitiveCache

F32 = DataType.F32


def small_relu() -> PrimitiveHandler:
    desc = MemoryDesc.of_layout((1, 16, 8, 8), F32)
    return handler_for("eltwise", {"src": desc, "dst": desc}, {"alg": "relu"})


def large_conv() -> PrimitiveHandler:
    descs = {
        "src": MemoryDesc.of_layout((1, 64, 56, 56), F32, "nChw16c"),
        "weights": MemoryDesc.of_layout((64, 64, 3, 3), F32, "OIhw16i16o"),
        "bias": MemoryDesc.of_layout((64,), F32),
        "dst": MemoryDesc.of_layout((1, 64, 56, 56), F32, "nChw16c"),
    }
    return handler_for("convolution", descs, {"pads_begin": [1, 1], "pads_end": [1, 1]})


def median_ns(function: Callable[[], object], iterations: int) -> float:
    samples = []
    for _ in range(iterations):
        start = time.perf_counter_ns()
        function()
        samples.append(time.perf_counter_ns() - start)
    return statistics.median(samples)


def measure(make: Callable[[], PrimitiveHandler], iterations: int) -> dict[str, float]:
    """Median nanoseconds of each way to run (and to prepare) one primitive."""
    cache = PrimitiveCache()
    handler = make()
    start = time.perf_counter_ns()
    primitive = cache.acquire(handler)
    acquire_miss = time.perf_counter_ns() - start
    acquire_hit = median_ns(lambda: cache.acquire(make()), 100)
    descs = handler.exec_descs()
    rng = np.random.default_rng(0)
    memories = {}
    for role, arg in handler.exec_args().items():
        memory = Memory.empty(descs[role])
        memory.view()[:] = rng.uniform(-1, 1, memory.view().size)
        memories[arg] = memory
    stream = Stream.default()
    bind = median_ns(lambda: primitive.bind(memories, stream), 100)
    execute = primitive.bind(memories, stream)
    raw = capi.prototype("dnnl_primitive_execute")
    array = (capi.dnnl_exec_arg_t * len(memories))(
        *(capi.dnnl_exec_arg_t(arg, memory.handle) for arg, memory in memories.items())
    )
    p, s, n = ctypes.c_void_p(primitive.handle), ctypes.c_void_p(stream.handle), len(memories)
    failed = 0
    for _ in range(max(3, iterations // 20)):  # warm up both paths
        execute()
        failed |= raw(p, s, n, array)
    runtime, direct = [], []
    for _ in range(iterations):  # alternate, so that drift hits both alike
        start = time.perf_counter_ns()
        execute()
        middle = time.perf_counter_ns()
        failed |= raw(p, s, n, array)  # the bare call, unchecked until the end
        end = time.perf_counter_ns()
        runtime.append(middle - start)
        direct.append(end - middle)
    if failed:
        raise RuntimeError("a bare dnnl_primitive_execute call failed")
    return {
        "runtime": statistics.median(runtime),
        "bare": statistics.median(direct),
        "acquire_miss": acquire_miss,
        "acquire_hit": acquire_hit,
        "bind": bind,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small-iterations", type=int, default=20000)
    parser.add_argument("--large-iterations", type=int, default=200)
    options = parser.parse_args()
    cases = [
        ("relu 1x16x8x8", small_relu, options.small_iterations),
        ("conv 1x64x56x56 3x3", large_conv, options.large_iterations),
    ]
    print(
        f"{'primitive':<22}{'iters':>7}{'runtime us':>12}{'bare us':>10}{'diff us':>10}"
        f"{'ratio':>8}   one-time us: acquire miss / handler+hit, bind"
    )
    for name, make, iterations in cases:
        t = {k: v / 1000 for k, v in measure(make, iterations).items()}
        print(
            f"{name:<22}{iterations:>7}{t['runtime']:>12.2f}{t['bare']:>10.2f}"
            f"{t['runtime'] - t['bare']:>10.2f}{t['runtime'] / t['bare']:>8.3f}"
            f"   {t['acquire_miss']:.0f} / {t['acquire_hit']:.1f}, {t['bind']:.1f}"
        )


if __name__ == "__main__":
    main()
