"""Layout benchmark: one ResNet-style graph under the plain, greedy and global layout strategies.

The graph is bench/fusion.py's chain of ResNet basic blocks (conv3x3 + batch_norm + relu,
conv3x3 + batch_norm, residual add, relu) with seeded weights. Each strategy runs
dnn-fold-constants (batch norms into the convolutions), dnn-select-kernels,
dnn-assign-layouts{strategy=...}, dnn-insert-data-transforms, then
dnn-remove-redundant-reorders; no post-op fusion, so that relu and add stay ops whose layout
is a choice. The table gives the run-time reorders and the bytes they move after insertion
and after clean-up, and the median latency (outputs checked against the plain strategy
first). Plain layouts make oneDNN fall back to slow convolutions: keep the graph small.

    python bench/layouts.py [--blocks 4] [--channels 64] [--size 28] [--repeats 5]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import dnnc
from dnnc.api import find_function, load_module
from dnnc.driver.pipelines import parse_pipeline, run_passes
from dnnc.ir.text import make_context
from dnnc.passes.data_transforms import transform_stats
from dnnc.reference.interpreter import compare
from dnnc_testing.graphs import residual_blocks, write
from dnnc_testing.timing import median_ms

STRATEGIES = ("plain", "greedy", "global")
CLEAN_UP = "dnn-remove-redundant-reorders"


def assigned(path: Path, strategy: str) -> tuple[object, tuple[int, int], tuple[int, int]]:
    """The module after the layout passes, and (reorders, bytes) before and after clean-up."""
    module, _ = load_module(path)
    ctx = make_context()
    run_passes(
        ctx,
        module,
        parse_pipeline(
            "dnn-fold-constants,dnn-select-kernels,"
            f"dnn-assign-layouts{{strategy={strategy}}},dnn-insert-data-transforms"
        ),
    )
    inserted = transform_stats(find_function(module).body.block)[:2]
    run_passes(ctx, module, parse_pipeline(CLEAN_UP))
    cleaned = transform_stats(find_function(module).body.block)[:2]
    return module, inserted, cleaned


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=4)
    parser.add_argument("--channels", type=int, default=64)
    parser.add_argument("--size", type=int, default=28)
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per strategy")
    args = parser.parse_args()
    shape = (1, args.channels, args.size, args.size)
    case = residual_blocks(args.blocks, shape)
    print(f"resnet {args.blocks} blocks {'x'.join(map(str, shape))}")
    print(
        f"{'strategy':<9} {'reorders':>9} {'MB moved':>9} {'after clean-up':>15} "
        f"{'MB moved':>9} {'median ms':>10}"
    )
    with tempfile.TemporaryDirectory() as directory:
        path = write(case, Path(directory))
        reference = None
        for strategy in STRATEGIES:
            module, (count, moved), (left, left_moved) = assigned(path, strategy)
            executable = dnnc.compile(module, "", weights_dir=directory)
            outputs = executable.run(case.inputs)
            reference = reference or outputs
            for actual, expected in zip(outputs, reference, strict=True):
                if not compare(actual, expected).ok:
                    raise SystemExit(f"{strategy}: outputs differ from plain")
            ms = median_ms(executable, case.inputs, args.repeats)
            print(
                f"{strategy:<9} {count:>9} {moved / 1e6:>9.2f} {left:>15} "
                f"{left_moved / 1e6:>9.2f} {ms:>10.2f}"
            )


if __name__ == "__main__":
    main()
