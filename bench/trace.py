"""What compiling a dynamic ONNX model and its first trace cost, per phase (issue 29: ready
time and the first round of serving).

Model: BERT-base from ``transformers`` (dnnc_testing.model_zoo.export_bert_base: random
weights, attention mask, dynamic batch and sequence; ``--layers`` encoder layers). Each run
is a fresh worker process (this script with ``--worker``) that measures, in CPU seconds of
the process (time.process_time: every thread's):
- import: ``import dnnc`` and the API modules ``dnnc.compile`` loads;
- compile: ``dnnc.compile(path)`` (the ONNX file read, the plain import that stops at the
  first size of a ``?`` dimension, the symbolic imports);
- first call: the first ``run`` at ``--length`` (the trace, the plan with the weights packed,
  the run), and of it ``trace``: DynamicStats.trace_cpu_seconds, the CPU of the trace (the
  specialization, the pipeline, the lowering and the Program read: one thread's), and
  ``kernel``: the system CPU of the first call (getrusage), nearly all of it the page faults
  of the memory the packed weights are written to (BERT-base: 324 MB, ~84,000 faults,
  0.13-0.15 s on a Zen 5 VM, where the reorders themselves take ~25 ms).
Medians over ``--runs`` runs, with the range. Run it from each checkout to compare (the cost of
each further new length: ``bench/new_shape.py``).

    OMP_NUM_THREADS=1 .venv/bin/python bench/trace.py --runs 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def worker(path: str, length: int) -> dict[str, float]:
    """One process: the CPU of each phase (module docstring)."""
    import resource

    import numpy as np

    start = time.process_time()
    import dnnc
    import dnnc.api  # what dnnc.compile loads on first use

    imported = time.process_time()
    executable = dnnc.compile(path)
    compiled = time.process_time()
    feeds = {"input_ids": np.ones((1, length), np.int64), "mask": np.ones((1, length), np.int64)}
    kernel = resource.getrusage(resource.RUSAGE_SELF).ru_stime
    executable.run(feeds)
    called = time.process_time()
    kernel = resource.getrusage(resource.RUSAGE_SELF).ru_stime - kernel
    stats = executable.stats()  # type: ignore[union-attr]
    return {
        "import": imported - start,
        "compile": compiled - imported,
        "first call": called - compiled,
        "trace": stats.trace_cpu_seconds,
        "kernel": kernel,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=12)
    parser.add_argument("--length", type=int, default=64)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--worker", metavar="ONNX", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.length)))
        return
    from dnnc_testing.model_zoo import export_bert_base

    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "bert.onnx"
        export_bert_base(path, layers=args.layers)
        runs: dict[str, list[float]] = {}
        for _ in range(args.runs):
            command = [sys.executable, __file__, "--worker", str(path), "--length"]
            done = subprocess.run(
                [*command, str(args.length)],
                env=dict(os.environ),
                capture_output=True,
                text=True,
                check=True,
            )
            for phase, seconds in json.loads(done.stdout.strip().splitlines()[-1]).items():
                runs.setdefault(phase, []).append(seconds)
    print(f"BERT-base, {args.layers} layers, first length {args.length}, {args.runs} runs")
    for phase, seconds in runs.items():
        print(
            f"{phase:>12}: {statistics.median(seconds) * 1e3:7.0f} ms CPU "
            f"[{min(seconds) * 1e3:.0f}-{max(seconds) * 1e3:.0f}]"
        )


if __name__ == "__main__":
    main()
