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
import tempfile
from pathlib import Path

import numpy as np

import dnnc
from dnnc.api import find_function, load_module
from dnnc.core.arena import align
from dnnc.driver.pipelines import parse_pipeline, run_passes
from dnnc.ir.text import make_context
from dnnc.lowering.plan_memory import in_arena
from dnnc.passes.buffer_classes import buffer_classes, memory_type
from dnnc_testing.graphs import (
    bert_layer,
    dense_block,
    inverted_residuals,
    residual_blocks,
    write,
)
from dnnc_testing.timing import median_ms

REUSE = (
    "dnn-fold-constants,dnn-fuse-post-ops,dnn-select-kernels,dnn-assign-layouts,"
    "dnn-insert-data-transforms,dnn-remove-redundant-reorders"
)
INPLACE = f"{REUSE},dnn-buffer-fusing,dnn-inplace"


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
