"""Throughput: images/s with 1, 2 and N concurrent requests, dnnc vs ONNX Runtime and OpenVINO.

For each model of dnnc_testing/model_zoo.py (batch 1, seeded weights) and each engine, in a worker
process of its own, ``--images`` inferences of distinct inputs (after 2 per request warm-up)
as:
- ``1 caller``: one request at a time with every core (latency mode);
- ``N callers``: N requests at a time, each with cores/N threads, for N in ``--callers``:
  dnnc ``Streams(executable, N)`` (N execution contexts on one executable); ONNX Runtime one
  session (``intra_op_num_threads`` = cores/N) called from N threads; OpenVINO
  ``PERFORMANCE_HINT=THROUGHPUT`` with ``NUM_STREAMS`` = N and an ``AsyncInferQueue`` of N
  requests.
Every engine computes in f32 (OpenVINO ``INFERENCE_PRECISION_HINT=f32``: its default is
bf16 on CPUs with avx512_bf16/AMX). The table gives images/s (higher is better) and each
peer's figure as a ratio to dnnc's (< 1: dnnc is faster); the first line names the CPU,
oneDNN's effective ISA and the core count.

    .venv/bin/python bench/throughput.py [--models resnet50 mobilenet_v2] [--images 64]
        [--callers 2]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

INPUT_NAME = "input"
ENGINES = ("dnnc", "onnxruntime", "openvino")


def images_per_second(run_all, images: list[np.ndarray], streams: int) -> float:
    """Warm up (2 runs per stream), then images/s of ``run_all(images)``."""
    run_all(images[: 2 * streams])
    start = time.perf_counter()
    run_all(images)
    return len(images) / (time.perf_counter() - start)


def _dnnc(path: Path, streams: int, threads: int):
    import dnnc

    executable = dnnc.compile(dnnc.import_onnx(path))
    if streams == 1:
        return lambda xs: [executable.run([x]) for x in xs]
    pool = dnnc.Streams(executable, streams, threads)
    return lambda xs: list(pool.map([[x] for x in xs]))


def _onnxruntime(path: Path, streams: int, threads: int):
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    if streams == 1:
        return lambda xs: [session.run(None, {INPUT_NAME: x}) for x in xs]
    pool = ThreadPoolExecutor(streams)
    return lambda xs: list(pool.map(lambda x: session.run(None, {INPUT_NAME: x}), xs))


def _openvino(path: Path, streams: int, threads: int):
    import openvino as ov

    config = {"INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": threads * streams}
    if streams == 1:
        config["PERFORMANCE_HINT"] = "LATENCY"
    else:
        config |= {"PERFORMANCE_HINT": "THROUGHPUT", "NUM_STREAMS": streams}
    compiled = ov.Core().compile_model(str(path), "CPU", config)
    queue = ov.AsyncInferQueue(compiled, streams)

    def run_all(xs: list[np.ndarray]) -> None:
        for x in xs:
            queue.start_async({INPUT_NAME: x})
        queue.wait_all()

    return run_all


RUNNERS = {"dnnc": _dnnc, "onnxruntime": _onnxruntime, "openvino": _openvino}


def worker(path: Path, engine: str, streams: int, options: argparse.Namespace) -> float:
    cores = options.cores
    threads = max(1, cores // streams)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run_all = RUNNERS[engine](path, streams, threads)
    shape = [int(d) for d in options.shape.split("x")]
    rng = np.random.default_rng(0)
    images = [rng.standard_normal(shape).astype(np.float32) for _ in range(options.images)]
    return images_per_second(run_all, images, streams)


def measure(
    path: Path, engine: str, streams: int, shape: tuple[int, ...], options: argparse.Namespace
) -> float | str:
    command = [
        sys.executable,
        __file__,
        "--worker",
        str(path),
        engine,
        str(streams),
        "--shape",
        "x".join(map(str, shape)),
        "--images",
        str(options.images),
        "--cores",
        str(options.cores),
    ]
    env = dict(os.environ, OMP_NUM_THREADS=str(max(1, options.cores // streams)))
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        return (done.stderr.strip() or "failed").splitlines()[-1][:40]
    return float(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=["resnet50", "mobilenet_v2"])
    parser.add_argument("--images", type=int, default=64)
    parser.add_argument("--callers", type=int, nargs="+", default=[2])
    parser.add_argument("--cores", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--shape", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.worker:
        path, engine, streams = options.worker
        print(worker(Path(path), engine, int(streams), options))
        return
    import dnnc
    from dnnc_testing.model_zoo import MODELS, build

    info = dnnc.target_info()
    print(
        f"CPU: {info.cpu}; oneDNN {info.onednn_version}, effective ISA {info.isa}; "
        f"{options.cores} cores; f32; {options.images} images per figure"
    )
    configurations = [1, *options.callers]
    header = " ".join(f"{e[:8]:>8} x{n}" for n in configurations for e in ENGINES)
    print(f"{'model':<14} {header}   (images/s; ratio = peer / dnnc)")
    with tempfile.TemporaryDirectory() as directory:
        for name in options.models:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                path = build(name, directory)
            cells, ratios = [], []
            for streams in configurations:
                figures = {
                    e: measure(path, e, streams, MODELS[name].input_shape, options) for e in ENGINES
                }
                for figure in figures.values():
                    cells.append(
                        f"{figure:>11.1f}" if isinstance(figure, float) else f"{figure:>11}"
                    )
                base = figures["dnnc"]
                ratios += [
                    f"{e} x{streams}: {figures[e] / base:.2f}"
                    for e in ENGINES[1:]
                    if isinstance(base, float) and isinstance(figures[e], float)
                ]
            print(f"{name:<14} {' '.join(cells)}", flush=True)
            print(f"{'':<14} {'; '.join(ratios)}", flush=True)


if __name__ == "__main__":
    main()
