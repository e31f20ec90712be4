"""Where a model waits for memory: each step's time in the network against the same step alone.

For each model of dnnc_testing/model_zoo.py compiled by dnnc (``dnnc.compile``, f32 or
``--precision bf16``), ``Executable.profile`` in turn, ``--rounds`` times, in two ways: in
the network (every run calls the steps in order, so a step reads its weights and operands from
wherever the steps between its runs left them: L3 or DRAM) and alone (each step's runs back to
back, its bytes as warm in the caches as they get). Per model, the median over the rounds of:
both totals, the time by step kind, and the steps that wait most (network minus alone) with the
MiB of their weights. A step that reads many MiB of weights once per inference runs at the
memory's speed in the network: no kernel reading the same bytes does better, whatever FLOP
rate it reaches alone. Same process, same primitives, same bytes: the difference is the memory
hierarchy alone.

    .venv/bin/python bench/memory_stalls.py [--models resnet50 bert_layer] [--precision bf16]
        [--repeats 20] [--rounds 3] [--top 8]

oneDNN runs on ``OMP_NUM_THREADS`` threads (all cores when unset), as bench/models.py's workers.
"""

from __future__ import annotations

import argparse
import collections
import math
import os
import statistics
import tempfile
import warnings

import numpy as np

from dnnc.core.kinds import DataType
from dnnc.runtime.report import StepInfo
from dnnc_testing.engines import PRECISIONS
from dnnc_testing.model_zoo import MODELS, build_all

MIB = 1 << 20


def role_bytes(step: StepInfo, role: str) -> int:
    """The bytes of one role's memory (``weights=512x512x3x3xf32,Acdb32a``), 0 if absent."""
    for operand in step.operands:
        name, _, memory = operand.partition("=")
        if name == role:
            *dims, dtype = memory.split(",")[0].split("x")
            return math.prod(int(d) for d in dims) * DataType(dtype).numpy.itemsize
    return 0


def stalls(path: str, shape: tuple[int, ...], options: argparse.Namespace) -> list[tuple]:
    """(step, network seconds, alone seconds) of every step: medians over the rounds."""
    import dnnc

    executable = dnnc.compile(path, f"dnn-optimize{{precision={options.precision}}}")
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    network: list[list[float]] = []
    alone: list[list[float]] = []
    for _ in range(options.rounds):
        for alone_now, rounds in ((False, network), (True, alone)):
            times = executable.profile([x], repeats=options.repeats, alone=alone_now)
            rounds.append([t.seconds for t in times])
    steps = [t.step for t in times]
    return [
        (step, statistics.median(n), statistics.median(a))
        for step, n, a in zip(steps, zip(*network), zip(*alone), strict=True)
    ]


def report(name: str, rows: list[tuple], top: int) -> str:
    network = sum(n for _, n, _ in rows)
    alone = sum(a for _, _, a in rows)
    weights = sum(role_bytes(s, "weights") for s, _, _ in rows) / MIB
    lines = [
        f"## {name}: network {network * 1e3:.2f} ms, alone {alone * 1e3:.2f} ms "
        f"(x{network / alone:.2f}); {len(rows)} steps, {weights:.1f} MiB of weights",
        f"{'kind':22s} {'steps':>5s} {'network ms':>10s} {'alone ms':>9s} {'ratio':>6s}",
    ]
    by_kind: dict[str, list[float]] = collections.defaultdict(lambda: [0, 0.0, 0.0])
    for step, n, a in rows:
        figures = by_kind[step.kind]
        figures[0] += 1
        figures[1] += n
        figures[2] += a
    for kind, (count, n, a) in sorted(by_kind.items(), key=lambda kv: -kv[1][1]):
        lines.append(f"{kind:22s} {count:5.0f} {n * 1e3:10.2f} {a * 1e3:9.2f} {n / a:6.2f}")
    lines.append(f"the {top} steps that wait most (us: network, alone, difference; weights MiB):")
    for step, n, a in sorted(rows, key=lambda r: r[2] - r[1])[:top]:
        lines.append(
            f"  {n * 1e6:7.0f} {a * 1e6:7.0f} {(n - a) * 1e6:+7.0f} "
            f"{role_bytes(step, 'weights') / MIB:5.1f}  {step.location} {step.kind} "
            f"{step.implementation} " + " ".join(step.operands)
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", choices=list(MODELS), default=["resnet50"])
    parser.add_argument("--precision", choices=PRECISIONS, default="f32")
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--top", type=int, default=8)
    options = parser.parse_args()
    import dnnc

    threads = os.environ.get("OMP_NUM_THREADS", f"{os.cpu_count()} (all)")
    info = dnnc.target_info()
    print(
        f"CPU: {info.cpu}; oneDNN {info.onednn_version}, effective ISA {info.isa}; "
        f"{options.precision}; threads {threads}; medians over {options.rounds} rounds "
        f"of the median of {options.repeats} runs"
    )
    with tempfile.TemporaryDirectory() as directory, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, path, shape in build_all(options.models, directory):
            print(report(name, stalls(str(path), shape, options), options.top))


if __name__ == "__main__":
    main()
