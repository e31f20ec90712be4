"""Fusion benchmark: median latency of graphs compiled without and with fusion.

(a) a chain of 8 ResNet basic blocks on 1x64x56x56 (conv3x3 + batch_norm + relu, conv3x3 +
batch_norm, add the block input, relu) and (b) a BERT feed-forward block (seq 128, hidden 768,
inner 3072: matmul + bias + gelu, matmul + bias, residual add, layer_norm), with seeded random
weights in an .npz in a temporary directory. Each graph is compiled three ways (the lowering
``dnn-to-onednn`` always follows): "as written" (pipeline ""), "unfused" (``dnn-optimize``
without dnn-fold-constants and dnn-fuse-post-ops: the same layouts and buffer reuse) and
"fused" (the whole ``dnn-optimize``), so the ratio unfused / fused is fusion's alone. Fusion
is not timed on plain layouts: oneDNN 3.2 runs a plain (ncsp) convolution with a full-shape
binary post-op in its reference kernel, about 1000x slower at 1x64x56x56; dnn-optimize gives
convolutions blocked layouts after fusion. Outputs are checked against the "as written" run
first. Prints one row per graph: median ms per run, primitive steps, and the ratio.

    python bench/fusion.py [--repeats 30]

The graph builders are shared with test/python/passes/test_fusion_differential.py.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import dnnc
from dnnc.driver.pipelines import OptimizePipeline
from dnnc.reference.interpreter import compare
from dnnc_testing.graphs import Case, bert_feed_forward, residual_blocks, write
from dnnc_testing.timing import median_ms

FUSION = ("dnn-fold-constants", "dnn-fuse-post-ops")
PIPELINES = {
    "as written": "",
    "unfused": ",".join(step for step in OptimizePipeline.steps if step not in FUSION),
    "fused": "dnn-optimize",
}
"""The compilations compared, by column name."""


def bench(name: str, case: Case, directory: Path, repeats: int) -> None:
    """Compile `case` each way of PIPELINES, check they agree, print their median latencies."""
    path = write(case, directory)
    executables = {column: dnnc.compile(path, spec) for column, spec in PIPELINES.items()}
    reference = executables["as written"].run(case.inputs)
    for column, executable in executables.items():
        for actual, expected in zip(executable.run(case.inputs), reference, strict=True):
            comparison = compare(actual, expected)
            if not comparison.ok:
                raise SystemExit(f"{name}: {column} and as-written outputs differ: {comparison}")
    ms = {column: median_ms(e, case.inputs, repeats) for column, e in executables.items()}
    steps = "/".join(str(len(e.plan.step_infos)) for e in executables.values())
    cells = " ".join(f"{ms[column]:>12.2f}" for column in PIPELINES)
    print(f"{name:<28} {cells} {steps:>9} {ms['unfused'] / ms['fused']:>8.2f}x", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30, help="timed runs per graph")
    args = parser.parse_args()
    columns = " ".join(f"{column + ' ms':>12}" for column in PIPELINES)
    print(f"{'graph':<28} {columns} {'steps':>9} {'unfused/fused':>9}", flush=True)
    with tempfile.TemporaryDirectory() as directory:
        here = Path(directory)
        bench("resnet 8 blocks 1x64x56x56", residual_blocks(8, (1, 64, 56, 56)), here, args.repeats)
        bench("bert ffn 128x768x3072", bert_feed_forward(128, 768, 3072), here, args.repeats)


if __name__ == "__main__":
    main()
