"""f32 against ``dnn-assign-precision{dtype=bf16}``, side by side, on this CPU.

For each graph: dnnc compiled with dnn-optimize (f32) and with dnn-optimize{precision=bf16}
(dnn-assign-precision{dtype=bf16} after dnn-select-kernels: bf16 where the target has native
bf16 kernels; on a CPU without them the pass leaves the graph f32 and warns). The two
executables run alternately (``--repeats`` runs each after 3 warm-up runs) so that machine
noise hits both alike; the
table gives each median, the ratio f32/bf16 (> 1: bf16 is faster), how many steps compute in
bf16 and the largest difference between the two outputs relative to the f32 output's largest
magnitude. The first line names the CPU, oneDNN's effective ISA and whether bf16 is native.
Run it under ``ONEDNN_MAX_CPU_ISA=AVX2`` to see an AVX2 machine's figures on a larger CPU.

    .venv/bin/python bench/precision.py [--repeats 30] [--resnet50]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

import dnnc
from dnnc.core.diagnostics import DnncWarning
from dnnc_testing.graphs import Case, bert_feed_forward, residual_blocks, write

F32, BF16 = "dnn-optimize", "dnn-optimize{precision=bf16}"


def alternate_medians(
    executables: list[dnnc.Executable], inputs: list[np.ndarray], repeats: int
) -> list[float]:
    """Median ms of each executable, their runs interleaved."""
    times: list[list[float]] = [[] for _ in executables]
    for round_ in range(repeats + 3):
        for index, executable in enumerate(executables):
            start = time.perf_counter()
            executable.run(inputs)
            if round_ >= 3:
                times[index].append(time.perf_counter() - start)
    return [1e3 * statistics.median(t) for t in times]


def bench(name: str, source: Path, inputs: list[np.ndarray], repeats: int) -> None:
    f32 = dnnc.compile(source, F32)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        bf16 = dnnc.compile(source, BF16)
    warned = any(issubclass(w.category, DnncWarning) for w in caught)
    (expected,), (actual,) = f32.run(inputs), bf16.run(inputs)
    scale = max(1.0, float(np.abs(expected).max()))
    error = float(np.abs(actual.astype(np.float64) - expected).max()) / scale
    in_bf16 = sum(
        "bf16" in ",".join(s.operands) and s.kind != "reorder" for s in bf16.plan.step_infos
    )
    ms_f32, ms_bf16 = alternate_medians([f32, bf16], inputs, repeats)
    note = " (warned: stays f32)" if warned else ""
    print(
        f"{name:<30} {ms_f32:>9.2f} {ms_bf16:>9.2f} {ms_f32 / ms_bf16:>9.2f}x "
        f"{in_bf16:>4}/{len(bf16.plan.step_infos):<4} {error:>9.1e}{note}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30, help="timed runs per executable")
    parser.add_argument(
        "--resnet50",
        action="store_true",
        help="also ResNet-50 exported from torch (dnnc_testing/model_zoo.py)",
    )
    args = parser.parse_args()
    info = dnnc.target_info()
    print(
        f"CPU: {info.cpu}; oneDNN {info.onednn_version}, effective ISA {info.isa}; "
        f"bf16 compute native: {'yes' if info.bf16_compute else 'no'}"
    )
    print(
        f"{'graph':<30} {'f32 ms':>9} {'bf16 ms':>9} {'f32/bf16':>10} {'bf16 steps':>9} "
        f"{'rel diff':>9}",
        flush=True,
    )
    cases: list[tuple[str, Case]] = [
        ("resnet 4 blocks 1x64x56x56", residual_blocks(4, (1, 64, 56, 56))),
        ("bert ffn 128x768x3072", bert_feed_forward(128, 768, 3072)),
    ]
    with tempfile.TemporaryDirectory() as directory:
        for index, (name, case) in enumerate(cases):
            here = Path(directory) / str(index)
            here.mkdir()
            bench(name, write(case, here), case.inputs, args.repeats)
        if args.resnet50:
            from dnnc_testing.model_zoo import build

            path = build("resnet50", Path(directory))
            image = np.random.default_rng(0).uniform(-1, 1, (1, 3, 224, 224)).astype(np.float32)
            bench("ResNet-50 (torch export)", dnnc.import_onnx(path), [image], args.repeats)


if __name__ == "__main__":
    main()
