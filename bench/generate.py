"""Token-by-token generation: dnnc beside ONNX Runtime and OpenVINO on the same decoder file.

Decoders: the GPT-2- and LLaMA-style ones of dnnc_testing/decoders.py at ``BENCH`` size (4
layers, hidden 512, 8 heads, LLaMA with 4 key/value heads, vocabulary 8,000; random weights),
exported with their past/present key/values and position ids. Per family, prompt length and
engine, one run of ``dnnc.generate`` (greedy, from an empty cache; the other engines wrapped
into its decoder interface, so every engine runs the same loop; dnnc keeps the cache in
capacity buffers, the others pass it back plainly, as they are used; ``--dnnc-plain`` adds
dnnc passing it plainly): the prompt's step (prefill), the median ms per new token over
the first and over the last ``WINDOW`` new tokens and over all of them (``all``: the
steadiest figure on a shared machine), the fastest new token, and the growth of the
resident anonymous memory (RssAnon) from before the engine was built to after its run.
With ``--interleaved`` the engines run in one loop, in turn, ``BLOCK`` new tokens each after
an untimed pause of ``SETTLE_SECONDS``, so that a shared machine's load falls on all of them
alike (no RSS figure: they share the process) and no engine's step starts while another's
threads still spin: after a step, ONNX Runtime's pool spins some 10 ms (process CPU time 10
ms over 10 ms idle, 13 ms over 100 ms, measured on the 2-core Zen 5 VM), and GNU OpenMP's
threads spin too, so taking every engine's step in turn at 2 threads on 2 cores measured
each engine's steps with the other's thread on the second core (same VM, GPT-2 prompt 32,
dnnc's 2-thread steps in one process, ABAB: median 9.6 ms alone, 60 ms right after a
spinning ONNX Runtime step, 12.9 ms after one with spinning off). The tokens of every engine
are compared with ONNX Runtime's.

    .venv/bin/python bench/generate.py [--families gpt2 llama] [--prompts 32 512]
                                       [--new-tokens 128] [--threads 2]
                                       [--engines dnnc onnxruntime openvino]
                                       [--dnnc-plain] [--interleaved]

Thread count: ``--threads`` for every engine (dnnc: the OpenMP count of the thread that runs
it, dnnc.dnnl.threads; its small steps run on one thread, dnnc.runtime.step_threads); on a
busy machine give the free cores, or OpenMP's barriers wait for time slices.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

import dnnc
from dnnc.dnnl.threads import set_thread_count
from dnnc.driver.generation import CacheSession, PlainSession, capacity_for
from dnnc_testing import decoders, engines
from dnnc_testing.engines import status_kib

WINDOW = 8
"""New tokens per start / end median."""
BLOCK = 8
"""New tokens per engine per turn with ``--interleaved``."""
SETTLE_SECONDS = 0.05
"""The untimed pause before each engine's turn with ``--interleaved`` (module docstring)."""


def measure(
    name: engines.DecoderEngine,
    path: Path,
    prompt: np.ndarray,
    new_tokens: int,
    threads: int,
    padded: bool,
) -> tuple[list[int], dict[str, float]]:
    """One engine's tokens and figures (module docstring)."""
    gc.collect()
    before = status_kib("RssAnon")
    start = time.perf_counter()
    decoder = engines.decoder_engine(name, path, threads)
    ready = time.perf_counter() - start
    generated = dnnc.generate(decoder, prompt, new_tokens, padded=padded)
    rss = (status_kib("RssAnon") - before) / 1024
    figures = _figures(ready, [s * 1e3 for s in generated.seconds], rss)
    return generated.tokens[0].tolist(), figures


def interleaved(
    runs: list[tuple[engines.DecoderEngine, bool]],
    path: Path,
    prompt: np.ndarray,
    new_tokens: int,
    threads: int,
) -> list[tuple[list[int], dict[str, float]]]:
    """Every engine's tokens and figures, their steps taken in turn (module docstring)."""
    steppers = []
    ready = []
    for name, padded in runs:
        start = time.perf_counter()
        decoder = engines.decoder_engine(name, path, threads)
        ready.append(time.perf_counter() - start)
        session = CacheSession(decoder, capacity=capacity_for(prompt.shape[1], new_tokens))
        steppers.append(session.step if padded else PlainSession(decoder).step)
    ids = [prompt] * len(runs)
    tokens: list[list[int]] = [[] for _ in runs]
    seconds: list[list[float]] = [[] for _ in runs]
    for first in range(0, new_tokens, BLOCK):
        for index, step in enumerate(steppers):
            time.sleep(SETTLE_SECONDS)
            for _ in range(first, min(first + BLOCK, new_tokens)):
                start = time.perf_counter()
                logits = step(ids[index])
                seconds[index].append(time.perf_counter() - start)
                ids[index] = np.argmax(logits[:, -1:], axis=-1)
                tokens[index].append(int(ids[index][0, 0]))
    return [
        (t, _figures(r, [x * 1e3 for x in s], float("nan")))
        for t, r, s in zip(tokens, ready, seconds, strict=True)
    ]


def _figures(ready: float, milliseconds: list[float], rss_mib: float) -> dict[str, float]:
    steps = milliseconds[1:]
    return {
        "ready_s": ready,
        "prefill_ms": milliseconds[0],
        "start_ms": statistics.median(steps[:WINDOW]),
        "end_ms": statistics.median(steps[-WINDOW:]),
        "all_ms": statistics.median(steps),
        "min_ms": min(steps),
        "rss_mib": rss_mib,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--families", nargs="+", default=list(decoders.FAMILIES))
    parser.add_argument("--prompts", nargs="+", type=int, default=[32, 512])
    parser.add_argument("--new-tokens", type=int, default=128)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--engines",
        nargs="+",
        choices=engines.DECODER_ENGINES,
        default=list(engines.DECODER_ENGINES),
    )
    parser.add_argument(
        "--dnnc-plain",
        action="store_true",
        help="also run dnnc with the cache passed back plainly (a plan per token)",
    )
    parser.add_argument(
        "--interleaved",
        action="store_true",
        help=f"all engines in one loop, in turn, {BLOCK} tokens each (no RSS figure)",
    )
    args = parser.parse_args()
    set_thread_count(args.threads)
    print(f"{dnnc.target_info().summary()}\n{args.threads} threads, f32, greedy")
    with tempfile.TemporaryDirectory() as directory:
        for family in args.families:
            model = decoders.decoder(family, size=decoders.BENCH)
            path = decoders.export_decoder(model, family, Path(directory) / f"{family}.onnx")
            del model
            for length in args.prompts:
                prompt = np.random.default_rng(0).integers(
                    0, decoders.BENCH.vocabulary, (1, length)
                )
                print(f"\n{family}, prompt {length}, {args.new_tokens} new tokens")
                print(
                    f"{'engine':>12} | {'ready s':>8} | {'prefill ms':>10} | "
                    f"{'ms/token start':>14} | {'ms/token end':>12} | {'all':>6} | {'min ms':>7} | "
                    f"{'RSS +MiB':>8} | tokens"
                )
                reference: list[int] | None = None
                runs = [(name, name == "dnnc") for name in args.engines]
                if args.dnnc_plain and "dnnc" in args.engines:
                    runs.append(("dnnc", False))
                results = (
                    interleaved(runs, path, prompt, args.new_tokens, args.threads)
                    if args.interleaved
                    else [
                        measure(name, path, prompt, args.new_tokens, args.threads, padded)
                        for name, padded in runs
                    ]
                )
                for (name, padded), (tokens, f) in zip(runs, results, strict=True):
                    reference = tokens if reference is None else reference
                    label = f"{name} plain" if name == "dnnc" and not padded else name
                    same = (
                        "reference"
                        if tokens is reference
                        else ("identical" if tokens == reference else "DIFFERENT")
                    )
                    print(
                        f"{label:>12} | {f['ready_s']:>8.2f} | {f['prefill_ms']:>10.2f} | "
                        f"{f['start_ms']:>14.2f} | {f['end_ms']:>12.2f} | {f['all_ms']:>6.2f} | "
                        f"{f['min_ms']:>7.2f} | "
                        f"{f['rss_mib']:>8.1f} | {same}"
                    )


if __name__ == "__main__":
    main()
