"""The FMA-peak limit of a model on this CPU: its FLOPs over the best rate oneDNN's matmul
sustains here (bench/roofline.py and bench/models.py print it).

The peak: the best GFLOP/s of f32 dnn.matmuls of PEAK_SHAPES (MxKxN: 2MKN FLOP) compiled by
dnnc, each timed as the median of its primitive alone over some runs (``Executable.profile``:
no input binding, no output allocation): oneDNN brgemm kernels at the CPU's widest FMA, what
this CPU sustains on ``OMP_NUM_THREADS`` threads. The shapes include one whose operands stay
in cache (ResNet-50's first 1x1 convolution as a matmul): a 2048^3 matmul alone, timed
through ``Executable.run``, measured up to 15% below it on a Sapphire Rapids VM, understating
the peak and so overstating how close a model runs to it. A model's FLOPs: 2 x the
multiply-adds of its convolutions, transposed convolutions, matmuls and inner products after
dnn-optimize (other ops are not counted, so the limit is a lower bound). No direct kernel
runs a model faster than its limit (only fewer FLOPs, e.g. Winograd, do).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from xdsl.dialects.builtin import ModuleOp

import dnnc
from dnnc.dialects.dnn import Conv2DOp, Deconv2DOp, InnerProductOp, MatmulOp, shape_of
from dnnc.driver.pipelines import parse_pipeline, run_passes
from dnnc.ir.text import make_context

PEAK_SHAPES = ("3136x64x256", "1024x1024x1024", "2048x2048x2048")


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
    """The GFLOP/s of one MxKxN f32 matmul compiled by dnnc, its primitive timed alone: the
    median of `runs` runs (module docstring)."""
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


def peak(shapes: tuple[str, ...] = PEAK_SHAPES, runs: int = 20) -> tuple[float, str]:
    """The f32 peak in GFLOP/s (the best of `shapes`), and what each shape measured."""
    by_shape = {shape: peak_gflops(shape, runs) for shape in shapes}
    measured = ", ".join(f"{shape} {gflops:.0f}" for shape, gflops in by_shape.items())
    return max(by_shape.values()), measured


def model_gflop(path: Path) -> float:
    """The GFLOP of an ONNX model after dnn-optimize (module docstring)."""
    module = dnnc.import_onnx(path)
    run_passes(make_context(), module, parse_pipeline("dnn-optimize"))
    return 2 * multiply_adds(module) / 1e9
