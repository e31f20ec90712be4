"""What a new input length costs a dynamic executable beyond its run (issue 29: <= 5 ms for a
BERT-base layer).

Model: ``transformers``' BertModel with BERT-base's sizes (hidden 768, 12 heads, FFN 3072),
random weights, ``--layers`` encoder layers (1: "a BERT-base layer" with its embeddings;
12: BERT-base), attention mask, batch 1, exported with dynamic batch and sequence. Compiled
twice in this process: with ``DynamicOptions.runtime_rows`` (the matmuls whose rows vary run on
one primitive for every length) and without (a primitive per length). After three warm-up
lengths (the trace), the lengths of ``--lengths`` (default 20..200 step 3, none seen before)
go to the two executables alternately (ABAB: no primitive one made is found by the other),
each length:
- plan: the thread CPU of building the new length's plan (``plan_for``: the template
  instantiated, the primitives that are new created, the memories bound), and the gen-2
  garbage collections are counted apart (``gc.callbacks``): they happen every few lengths and
  cost the same whatever this bench compares;
- beyond run: plan + the process CPU of the first run minus that of the fastest of the next
  three runs of the same inputs (what the new length costs beyond a run of it);
- run: the median process CPU of a call once the plan exists (the price of run-time rows).
Medians over the lengths; CPU times, so a loaded machine inflates them less than wall times.
Then, with ``--profile``, the top of a cProfile of ``plan_for`` over the lengths (runtime_rows
on).

    OMP_NUM_THREADS=1 .venv/bin/python bench/new_shape.py --layers 1
    OMP_NUM_THREADS=1 .venv/bin/python bench/new_shape.py --layers 12 --profile
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np


def export_bert(path: Path, layers: int) -> None:
    """A BertModel of BERT-base's sizes with ``layers`` layers (dnnc_testing.model_zoo's
    export, fewer layers)."""
    from dnnc_testing.model_zoo import export_bert_base

    export_bert_base(path, layers=layers)


def cpu(function: Callable[[], object], clock: Callable[[], float] = time.process_time) -> float:
    start = clock()
    function()
    return clock() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=1)
    parser.add_argument("--lengths", type=int, nargs=3, default=(20, 200, 3), metavar="RANGE")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    import dnnc
    from dnnc.driver.dynamic import DynamicOptions
    from dnnc.runtime.cache import PrimitiveCache

    collections = [0, 0.0, 0.0]  # gen-2 collections, their CPU, start of the one under way

    def watch(phase: str, info: dict[str, int]) -> None:
        if info["generation"] == 2:
            if phase == "start":
                collections[2] = time.thread_time()
            else:
                collections[0] += 1
                collections[1] += time.thread_time() - collections[2]

    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "bert.onnx"
        export_bert(path, args.layers)
        variants = {
            name: dnnc.compile(
                path, dynamic=DynamicOptions(runtime_rows=rows), cache=PrimitiveCache()
            )
            for name, rows in (("runtime rows", True), ("rows per length", False))
        }
    rng = np.random.default_rng(0)

    def feeds(length: int) -> dict[str, np.ndarray]:
        ids = rng.integers(0, 30522, (1, length)).astype(np.int64)
        mask = np.ones((1, length), np.int64)
        mask[0, length - length // 4 :] = 0  # a padded tail
        return {"input_ids": ids, "mask": mask}

    for executable in variants.values():
        for length in (16, 17, 18):
            executable.run(feeds(length))
    lengths = range(*args.lengths)
    figures: dict[str, dict[str, list[float]]] = {
        name: {"plan": [], "beyond": [], "run": [], "gc": []} for name in variants
    }
    gc.callbacks.append(watch)
    names = list(variants)
    for index, length in enumerate(lengths):
        # each length goes to one variant (alternately): the primitives of a length one
        # variant made are then never found in a cache by the other
        name = names[index % len(names)]
        executable = variants[name]
        inputs = feeds(length)
        signature = tuple(a.shape for a in inputs.values())
        before = collections[1]
        plan = cpu(lambda e=executable: e.plan_for(signature), time.thread_time)
        gc_seconds = collections[1] - before
        first = cpu(lambda e=executable: e.run(inputs))  # a new context's first run
        runs = [cpu(lambda e=executable: e.run(inputs)) for _ in range(3)]
        found = figures[name]
        found["gc"].append(gc_seconds)
        found["plan"].append(plan - gc_seconds)
        found["run"].append(statistics.median(runs))
        found["beyond"].append(plan - gc_seconds + first - min(runs))
    gc.callbacks.remove(watch)
    print(
        f"BERT-base sizes, {args.layers} layer(s), lengths {args.lengths[0]}..{args.lengths[1]} "
        f"step {args.lengths[2]}, each new to the variant that serves it (alternately); OMP "
        "threads as the environment says"
    )
    print(f"{'variant':>16} | {'plan ms':>8} | {'beyond run ms':>13} | {'run ms':>8} | gen-2 GC")
    for name, found in figures.items():
        collected = sum(found["gc"])
        count = len(found["plan"])
        print(
            f"{name:>16} | {statistics.median(found['plan']) * 1e3:>8.2f} | "
            f"{statistics.median(found['beyond']) * 1e3:>13.2f} | "
            f"{statistics.median(found['run']) * 1e3:>8.2f} | "
            f"{collected / count * 1e3:.2f} ms per length on average"
        )
        print(f"{'':>16}   {variants[name].stats()}")
    if args.profile:
        executable = variants["runtime rows"]
        profile = cProfile.Profile()
        for length in range(args.lengths[1], 2 * args.lengths[1]):
            signature = ((1, length), (1, length))
            profile.runcall(executable.plan_for, signature)
        pstats.Stats(profile).sort_stats("cumulative").print_stats(30)


if __name__ == "__main__":
    main()
