"""The FMA-peak limit of each benchmark model on this CPU, next to dnnc's latency.

dnnc_testing.roofline says how the peak and a model's FLOPs are measured; the limit is FLOPs
/ peak. The table gives GFLOP, the limit, dnnc's median latency and its ratio to the limit
(bench/models.py prints the same limit next to every engine, in its own run: the
performance issue's goal is dnnc <= 1.1 x limit where the best peer is within 1.2 x of it).

    OMP_NUM_THREADS=2 .venv/bin/python bench/roofline.py [--models resnet50 bert_layer]
"""

from __future__ import annotations

import argparse
import tempfile
import warnings

import numpy as np

import dnnc
from dnnc_testing.model_zoo import build_all
from dnnc_testing.roofline import PEAK_SHAPES, model_gflop, peak
from dnnc_testing.timing import median_ms


def main() -> None:
    names = ("resnet50", "mobilenet_v2", "bert_layer", "efficientnet_b0", "vit_b_16")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=list(names))
    parser.add_argument("--peak-shapes", nargs="+", default=list(PEAK_SHAPES))
    parser.add_argument("--peak-runs", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=20)
    options = parser.parse_args()
    info = dnnc.target_info()
    gflops, measured = peak(tuple(options.peak_shapes), options.peak_runs)
    print(
        f"CPU: {info.cpu}; oneDNN {info.onednn_version}, effective ISA {info.isa}; f32; "
        f"peak {gflops:.0f} GFLOP/s (best matmul of {measured}; median of {options.peak_runs} "
        "runs)"
    )
    print(f"{'model':>14} {'GFLOP':>8} {'limit ms':>9} {'dnnc ms':>8} {'dnnc/limit':>10}")
    with tempfile.TemporaryDirectory() as directory, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, path, shape in build_all(options.models, directory):
            gflop = model_gflop(path)
            x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
            latency = median_ms(dnnc.compile(path), [x], options.repeats)  # type: ignore[arg-type]
            limit = gflop / gflops * 1e3
            print(f"{name:>14} {gflop:8.2f} {limit:9.1f} {latency:8.1f} {latency / limit:10.2f}")


if __name__ == "__main__":
    main()
