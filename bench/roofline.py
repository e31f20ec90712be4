"""The FMA-peak limit of each benchmark model on this CPU, next to dnnc's latency.

The peak: the best GFLOP/s of f32 dnn.matmuls of the ``--peak-shapes`` (MxKxN: 2MKN FLOP)
compiled by dnnc, each timed as the median of ``--peak-runs`` runs of its primitive alone
(``Executable.profile``: no input binding, no output allocation): oneDNN brgemm kernels at
the CPU's widest FMA, what this CPU sustains on ``OMP_NUM_THREADS`` threads. The shapes
include one whose operands stay in cache (ResNet-50's first 1x1 convolution as a matmul): a
2048^3 matmul alone, timed through ``Executable.run``, measured up to 15% below it on a
Sapphire Rapids VM, understating the peak and so overstating how close a model runs to it.
A model's FLOPs: 2 x the multiply-adds of its convolutions, transposed convolutions, matmuls
and inner products after dnn-optimize (other ops are not counted, so the limit is a lower
bound). The limit is FLOPs / peak: no direct
kernel runs the model faster (only fewer FLOPs, e.g. Winograd, do). The table gives GFLOP, the
limit, dnnc's median latency and its ratio to the limit; compare the peers of bench/models.py
with the same limit (the performance issue's goal: dnnc <= 1.1 x limit where the best peer is
within 1.2 x of it).

    OMP_NUM_THREADS=2 .venv/bin/python bench/roofline.py [--models resnet50 bert_layer]
"""

from __future__ import annotations

import argparse
import math
import tempfile
import warnings

import numpy as np
from xdsl.dialects.builtin import ModuleOp

import dnnc
from dnnc.driver.pipelines import parse_pipeline, run_passes
from dnnc.ir.dnn import Conv2DOp, Deconv2DOp, InnerProductOp, MatmulOp, shape_of
from dnnc.ir.text import make_context
from dnnc_testing.model_zoo import build_all
from dnnc_testing.timing import median_ms


def multiply_adds(module: ModuleOp) -> int:
    """The multiply-adds of the module's convolutions, matmuls and inner products."""
    total = 0
    for op in module.walk():
        if isinstance(op, Conv2DOp):
            total += math.prod(shape_of(op.result)) * math.prod(shape_of(op.wei)[1:])
        elif isinstance(op, Deconv2DOp):
            total += (
                math.prod(shape_of(op.src))
                * math.prod(shape_of(op.wei)[0:1])
                * math.prod(shape_of(op.wei)[2:])
                // op.groups.value.data
            )
        elif isinstance(op, MatmulOp):
            total += math.prod(shape_of(op.result)) * shape_of(op.lhs)[-1]
        elif isinstance(op, InnerProductOp):
            total += math.prod(shape_of(op.result)) * math.prod(shape_of(op.src)[1:])
    return total


def peak_gflops(shape: str, runs: int) -> float:
    """The best GFLOP/s of one MxKxN f32 matmul compiled by dnnc (module docstring)."""
    m, k, n = (int(d) for d in shape.split("x"))
    text = f"""
func.func @peak(%a: tensor<{m}x{k}xf32>, %b: tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32> {{
  %c = dnn.matmul %a, %b : (tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32>
  func.return %c : tensor<{m}x{n}xf32>
}}
"""
    executable = dnnc.compile(text)
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal(dims).astype(np.float32) for dims in ((m, k), (k, n))]
    seconds = sum(step.seconds for step in executable.profile(inputs, repeats=runs))
    return 2 * m * k * n / seconds / 1e9


def main() -> None:
    names = ("resnet50", "mobilenet_v2", "bert_layer", "efficientnet_b0", "vit_b_16")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=list(names))
    parser.add_argument(
        "--peak-shapes", nargs="+", default=["3136x64x256", "1024x1024x1024", "2048x2048x2048"]
    )
    parser.add_argument("--peak-runs", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=20)
    options = parser.parse_args()
    info = dnnc.target_info()
    by_shape = {shape: peak_gflops(shape, options.peak_runs) for shape in options.peak_shapes}
    peak = max(by_shape.values())
    measured = ", ".join(f"{shape} {gflops:.0f}" for shape, gflops in by_shape.items())
    print(
        f"CPU: {info.cpu}; oneDNN {info.onednn_version}, effective ISA {info.isa}; f32; "
        f"peak {peak:.0f} GFLOP/s (best matmul of {measured}; median of {options.peak_runs} runs)"
    )
    print(f"{'model':>14} {'GFLOP':>8} {'limit ms':>9} {'dnnc ms':>8} {'dnnc/limit':>10}")
    with tempfile.TemporaryDirectory() as directory, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, path, shape in build_all(options.models, directory):
            module = dnnc.import_onnx(path)
            run_passes(make_context(), module, parse_pipeline("dnn-optimize"))
            gflop = 2 * multiply_adds(module) / 1e9
            x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
            latency = median_ms(dnnc.compile(path), [x], options.repeats)  # type: ignore[arg-type]
            limit = gflop / peak * 1e3
            print(f"{name:>14} {gflop:8.2f} {limit:9.1f} {latency:8.1f} {latency / limit:10.2f}")


if __name__ == "__main__":
    main()
