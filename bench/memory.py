"""Peak memory of the arena: no reuse, reuse, reuse + in-place + buffer fusing, lower bound.

For a ResNet-style graph (basic blocks: conv+bn+relu, conv+bn, residual add, relu), a
MobileNetV2-style one (inverted residuals: expand 1x1 + relu6, depthwise 3x3 + relu6, project
1x1, residual add), a BERT-style one (attention scores softmax, feed-forward with gelu, two
residual adds, layer norms) and a DenseNet-style one (convs concatenated on channels), each
compiled twice with the fusion and layout passes: without (`reuse`) and with dnn-buffer-fusing
and dnn-inplace (`+inplace`). Printed per graph, in bytes: `no reuse` (every arena buffer of the
reuse plan on its own), `planned` (the arena of each plan), `measured` (what the executor
allocated: arena + scratchpad), `bound` (the most bytes live at one step of each plan), the
median latency of each, and the largest difference between the two outputs. Run: `.venv/bin/python
bench/memory.py [--repeats N]`.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository
import dnnc
from bench.fusion import (
    Case,
    GraphBuilder,
    median_ms,
    residual_blocks,
    tensor,
    write,
)
from dnnc.api import find_function, load_module
from dnnc.core.arena import align
from dnnc.driver.pipelines import parse_pipeline, run_passes
from dnnc.ir.text import make_context
from dnnc.lowering.plan_memory import in_arena
from dnnc.passes.buffer_classes import buffer_classes, memory_type

REUSE = (
    "dnn-fold-constants,dnn-fuse-post-ops,dnn-select-kernels,dnn-assign-layouts,"
    "dnn-insert-data-transforms,dnn-remove-redundant-reorders"
)
INPLACE = f"{REUSE},dnn-buffer-fusing,dnn-inplace"


def inverted_residuals(
    blocks: int, shape: tuple[int, int, int, int], expand: int = 4, seed: int = 0
) -> Case:
    """MobileNetV2 blocks: 1x1 expand + relu6, 3x3 depthwise + relu6, 1x1 project, add input."""
    b = GraphBuilder(np.random.default_rng(seed))
    wide = (shape[0], shape[1] * expand, *shape[2:])
    x = "%x"
    for _ in range(blocks):
        e = b.eltwise(b.conv(x, shape, wide[1], 1, bias=True), wide, "clip", 0.0, 6.0)
        dw = b.weight((wide[1], 1, 3, 3), 1 / 3)
        d = b.op(
            "d",
            f"dnn.conv2d {e}, {dw} {{pads_begin = array<i64: 1, 1>, pads_end = array<i64: "
            f"1, 1>, groups = {wide[1]} : i64}} : ({tensor(wide)}, {tensor((wide[1], 1, 3, 3))}) "
            f"-> {tensor(wide)}",
        )
        d = b.eltwise(d, wide, "clip", 0.0, 6.0)
        p = b.conv(d, wide, shape[1], 1, bias=True)
        x = b.binary("add", (p, shape), (x, shape), shape)
    inputs = [b.rng.uniform(-1, 1, shape).astype(np.float32)]
    return Case(b.function([("%x", shape)], [(x, shape)]), b.weights, inputs)


def bert_layer(seq: int, hidden: int, seed: int = 0) -> Case:
    """Self-attention (q, k, v projections, softmax(q k^T / sqrt(h)) v, output projection,
    residual add, layer_norm), then feed-forward (matmul + gelu, matmul, residual, layer_norm)."""
    b = GraphBuilder(np.random.default_rng(seed))
    x, s, h = (seq, hidden), (seq, seq), (seq, 4 * hidden)

    def matmul(lhs: str, lhs_shape: tuple[int, int], rhs: str, rhs_shape: tuple[int, int]) -> str:
        out = (lhs_shape[0], rhs_shape[1])
        return b.op(
            "m",
            f"dnn.matmul {lhs}, {rhs} : ({tensor(lhs_shape)}, {tensor(rhs_shape)}) "
            f"-> {tensor(out)}",
        )

    def weight(rows: int, cols: int) -> tuple[str, tuple[int, int]]:
        return b.weight((rows, cols), 1 / np.sqrt(rows)), (rows, cols)

    q, k, v = (matmul("%x", x, *weight(hidden, hidden)) for _ in range(3))
    kt = b.op(
        "t",
        f"dnn.transpose {k} {{permutation = array<i64: 1, 0>}} : ({tensor(x)}) -> "
        f"{tensor(x[::-1])}",
    )
    scores = b.eltwise(matmul(q, x, kt, x[::-1]), s, "linear", float(1 / np.sqrt(hidden)), 0.0)
    probs = b.op("a", f"dnn.softmax {scores} {{axis = 1 : i64}} : {tensor(s)}")
    attended = matmul(matmul(probs, s, v, x), x, *weight(hidden, hidden))
    y = b.op("y", f"dnn.layer_norm {b.binary('add', (attended, x), ('%x', x), x)} : {tensor(x)}")
    inner = b.eltwise(matmul(y, x, *weight(hidden, 4 * hidden)), h, "gelu_erf", 0.0, 0.0)
    out = matmul(inner, h, *weight(4 * hidden, hidden))
    z = b.op("z", f"dnn.layer_norm {b.binary('add', (out, x), (y, x), x)} : {tensor(x)}")
    inputs = [b.rng.uniform(-1, 1, x).astype(np.float32)]
    return Case(b.function([("%x", x)], [(z, x)]), b.weights, inputs)


def dense_block(layers: int, shape: tuple[int, int, int, int], growth: int, seed: int = 0) -> Case:
    """DenseNet-style: each layer's 3x3 conv + relu output is concatenated on channels."""
    b = GraphBuilder(np.random.default_rng(seed))
    x, current = "%x", shape
    for _ in range(layers):
        out = (shape[0], growth, *shape[2:])
        y = b.eltwise(b.conv(x, current, growth, 3, bias=True), out, "relu", 0.0, 0.0)
        grown = (shape[0], current[1] + growth, *shape[2:])
        x = b.op(
            "k",
            f"dnn.concat {x}, {y} {{axis = 1 : i64}} : ({tensor(current)}, "
            f"{tensor(out)}) -> {tensor(grown)}",
        )
        current = grown
    x = b.eltwise(x, current, "relu", 0.0, 0.0)
    inputs = [b.rng.uniform(-1, 1, shape).astype(np.float32)]
    return Case(b.function([("%x", shape)], [(x, current)]), b.weights, inputs)


def planned(path: Path, pipeline: str) -> tuple[int, int, int]:
    """(no-reuse bytes, planned arena bytes, lower bound) of `path` under `pipeline`."""
    module, _ = load_module(path)
    run_passes(
        make_context(), module, [*parse_pipeline(pipeline), *parse_pipeline("dnn-plan-memory")]
    )
    function = find_function(module)
    arena = [c for c in buffer_classes(function).distinct() if in_arena(c)]
    separate = sum(align(memory_type(c.root.owner, c.root).nbytes) for c in arena)  # type: ignore[arg-type]
    attrs = function.attributes
    return separate, attrs["dnn.arena_bytes"].value.data, attrs["dnn.lower_bound_bytes"].value.data  # type: ignore[attr-defined]


CASES = {
    "resnet (4 basic blocks, 1x64x28x28)": lambda: residual_blocks(4, (1, 64, 28, 28)),
    "mobilenet (4 inverted residuals, 1x32x28x28, x4)": lambda: inverted_residuals(
        4, (1, 32, 28, 28)
    ),
    "bert (1 layer, 128x256)": lambda: bert_layer(128, 256),
    "densenet (4 layers, 1x32x28x28, growth 32)": lambda: dense_block(4, (1, 32, 28, 28), 32),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    print(
        f"{'graph':50} {'config':9} {'no reuse':>10} {'planned':>10} {'measured':>10} "
        f"{'bound':>10} {'ms':>8}"
    )
    for name, build in CASES.items():
        case = build()
        with tempfile.TemporaryDirectory() as directory:
            path = write(case, Path(directory))
            outputs = []
            for config, pipeline in (("reuse", REUSE), ("+inplace", INPLACE)):
                separate, arena, bound = planned(path, pipeline)
                executable = dnnc.compile(path, pipeline)
                report = executable.memory_report()
                outputs.append(executable.run(case.inputs))
                ms = median_ms(executable, case.inputs, args.repeats)
                measured = report.arena_bytes + report.scratchpad_bytes
                print(
                    f"{name:50} {config:9} {separate:10} {arena:10} {measured:10} {bound:10} "
                    f"{ms:8.3f}"
                )
            diff = max(float(np.max(np.abs(a - b))) for a, b in zip(*outputs))
            print(
                f"{'':50} max |reuse - +inplace| = {diff:.3g} (0 unless a residual became a "
                "sum post-op)"
            )


if __name__ == "__main__":
    main()
