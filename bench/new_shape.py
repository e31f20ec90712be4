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
Then the garbage collector's share: the CPU of every gen-2 (full) collection during the
lengths (plans and runs, both variants) per length, how many there were, and the objects the
collector tracks: in the whole process, and those each new length adds and keeps (a full
collection walks them all; Python 3.11 starts one when the objects that survived into the
oldest generation since the last exceed a quarter of those it holds, so a new length's
share of the full collections grows with what it adds, not with the process's size).
``--model`` reads an exported model instead of exporting one (to compare two versions of
dnnc on the same file). With ``--profile``, the top of a cProfile of ``plan_for`` over the
lengths (runtime_rows on).

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
    parser.add_argument("--model", type=Path, help="an export_bert_base model (else exported)")
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
        path = args.model or Path(directory) / "bert.onnx"
        if args.model is None:
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
        name: {"plan": [], "beyond": [], "run": []} for name in variants
    }
    gc.collect()
    tracked = len(gc.get_objects())
    gc.callbacks.append(watch)
    names = list(variants)
    for index, length in enumerate(lengths):
        # each length goes to one variant (alternately): the primitives of a length one
        # variant made are then never found in a cache by the other
        name = names[index % len(names)]
        executable = variants[name]
        inputs = feeds(length)
        signature = tuple(a.shape for a in inputs.values())
        start = collections[1]
        plan = cpu(lambda e=executable: e.plan_for(signature), time.thread_time)
        planned = collections[1]
        first = cpu(lambda e=executable: e.run(inputs))  # a new context's first run
        collected = collections[1] - start  # counted apart (module docstring)
        runs = [cpu(lambda e=executable: e.run(inputs)) for _ in range(3)]
        found = figures[name]
        found["plan"].append(plan - (planned - start))
        found["run"].append(statistics.median(runs))
        found["beyond"].append(plan + first - collected - min(runs))
    gc.callbacks.remove(watch)
    full, full_seconds = collections[0], collections[1]
    print(
        f"BERT-base sizes, {f'model {args.model}' if args.model else f'{args.layers} layer(s)'}, "
        f"lengths {args.lengths[0]}..{args.lengths[1]} "
        f"step {args.lengths[2]}, each new to the variant that serves it (alternately); OMP "
        "threads as the environment says"
    )
    print(f"{'variant':>16} | {'plan ms':>8} | {'beyond run ms':>13} | {'run ms':>8} | kept")
    for name, found in figures.items():
        print(
            f"{name:>16} | {statistics.median(found['plan']) * 1e3:>8.2f} | "
            f"{statistics.median(found['beyond']) * 1e3:>13.2f} | "
            f"{statistics.median(found['run']) * 1e3:>8.2f} | "
            f"{kept_objects(variants[name], args.lengths[1], feeds):.0f} objects per length"
        )
        print(f"{'':>16}   {variants[name].stats()}")
    print(
        f"gen-2 GC: {full_seconds / len(lengths) * 1e3:.2f} ms of CPU per new length on "
        f"average ({full} full collections over {len(lengths)} lengths); {tracked} objects "
        "tracked before the lengths"
    )
    if args.profile:
        executable = variants["runtime rows"]
        profile = cProfile.Profile()
        for length in range(args.lengths[1], 2 * args.lengths[1]):
            signature = ((1, length), (1, length))
            profile.runcall(executable.plan_for, signature)
        pstats.Stats(profile).sort_stats("cumulative").print_stats(30)


def kept_objects(
    executable: object, start: int, feeds: Callable[[int], dict[str, np.ndarray]]
) -> float:
    """The objects the garbage collector tracks that each of 10 new lengths from ``start``
    adds (its plan built and run once) and keeps, after a full collection."""
    lengths = range(start + 1, start + 11)
    gc.collect()
    before = len(gc.get_objects())
    for length in lengths:
        executable.run(feeds(length))  # type: ignore[attr-defined]
    gc.collect()
    return (len(gc.get_objects()) - before) / len(lengths)


if __name__ == "__main__":
    main()
