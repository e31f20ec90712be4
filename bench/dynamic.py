"""What a dynamic-shape compile costs against a static compile of each shape.

Graphs: the BERT-style block and the conv block of dnnc_testing/dynamic_graphs.py
(dynamic batch and sequence; dynamic batch and image size). Per shape, in milliseconds:
- first call: dynamic = ``run`` on a signature not seen before (specialize, unfuse,
  re-optimize, lower, bind, run); static = ``dnnc.compile`` of that shape plus its first run
  (both after the dynamic ``compile``, which parses and optimizes once, is timed alone);
- steady state: the median of ``--iterations`` runs of the same inputs, dynamic and static
  (the dynamic figure includes the signature lookup);
and the cost of a shape switch: two cached signatures run alternately, median per run,
minus the mean of their steady-state medians.

    .venv/bin/python bench/dynamic.py [--iterations N]

Thread count: oneDNN (GNU OpenMP build) follows OMP_NUM_THREADS; on a busy machine set it to
the free cores, or OpenMP's spin-waiting turns microseconds into milliseconds.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

import dnnc
from dnnc_testing.dynamic_graphs import bert, conv, write_weights

GraphText = Callable[..., str]
CASES: dict[str, tuple[GraphText, list[tuple[int, ...]], Callable[..., list[tuple[int, ...]]]]] = {
    "bert": (bert, [(1, 16), (4, 64), (8, 128)], lambda b, s: [(b, s, 32), (b, 1, s)]),
    "conv": (conv, [(1, 32, 32), (4, 64, 64), (8, 112, 112)], lambda n, h, w: [(n, 3, h, w)]),
}


def seconds(function: Callable[[], object]) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def median_ms(function: Callable[[], object], iterations: int) -> float:
    function()
    return statistics.median(seconds(function) for _ in range(iterations)) * 1e3


def bench_graph(name: str, directory: Path, iterations: int) -> None:
    text, sizes, input_shapes = CASES[name]
    path = directory / f"{name}.mlir"
    path.write_text(text(*[None] * len(sizes[0])))
    compile_time = seconds(lambda: dnnc.compile(path))
    dynamic = dnnc.compile(path)
    print(f"\n{name}: dynamic compile (parse, verify, optimize once) {compile_time * 1e3:.1f} ms")
    print(f"{'shape':>14} | {'first call ms':>23} | {'steady state ms':>23}")
    print(f"{'':>14} | {'dynamic':>11} {'static':>11} | {'dynamic':>11} {'static':>11}")
    rng = np.random.default_rng(0)
    inputs_by_size = {}
    for size in sizes:
        inputs = [rng.standard_normal(s).astype(np.float32) for s in input_shapes(*size)]
        inputs_by_size[size] = inputs
        first_dynamic = seconds(lambda: dynamic.run(inputs))
        static_path = directory / f"{name}_{'x'.join(map(str, size))}.mlir"
        static_path.write_text(text(*size))
        static_holder: list[object] = []
        first_static = seconds(lambda: static_holder.append(dnnc.compile(static_path)))
        static = static_holder[0]
        first_static += seconds(lambda: static.run(inputs))  # type: ignore[attr-defined]
        steady_dynamic = median_ms(lambda: dynamic.run(inputs), iterations)
        steady_static = median_ms(lambda: static.run(inputs), iterations)  # type: ignore[attr-defined]
        label = "x".join(map(str, size))
        print(
            f"{label:>14} | {first_dynamic * 1e3:>11.1f} {first_static * 1e3:>11.1f} | "
            f"{steady_dynamic:>11.3f} {steady_static:>11.3f}"
        )
    a, b = sizes[0], sizes[1]
    steady = [median_ms(lambda: dynamic.run(inputs_by_size[s]), iterations) for s in (a, b)]
    toggle = [0]

    def alternate() -> None:
        toggle[0] ^= 1
        dynamic.run(inputs_by_size[a if toggle[0] else b])

    switched = median_ms(alternate, 2 * iterations)
    extra = switched - statistics.mean(steady)
    print(
        f"shape switch {'x'.join(map(str, a))} <-> {'x'.join(map(str, b))}: {switched:.3f} ms "
        f"per run alternating vs {statistics.mean(steady):.3f} ms steady: {extra:+.3f} ms"
    )
    print(f"plan cache: {dynamic.stats()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        write_weights(Path(directory))
        for name in CASES:
            bench_graph(name, Path(directory), args.iterations)


if __name__ == "__main__":
    main()
