"""Start-up and memory, side by side: from an ONNX file to the first result, per engine.

For each model of dnnc_testing/model_zoo.py (exported once to a temporary directory) and each
engine,
a fresh worker process (this script with ``--worker``) measures, in order:

- ``import s``: importing the engine's Python package;
- ``ready s``: the ONNX file to something that runs (dnnc: ``dnnc.compile(path)``, i.e. import,
  passes, lowering, primitives and packed weights; ONNX Runtime: ``InferenceSession``;
  OpenVINO: ``compile_model`` on the CPU in f32 — its default is bf16 on CPUs with bf16
  instructions), or, for the ``-load`` engines, a model each engine saved beforehand in
  another process to something that runs (``dnnc-load``: ``dnnc.load`` of
  ``dnnc.compile(path, save_to=...)``; ``onnxruntime-load``: a session of the optimized model
  ONNX Runtime saved in its ORT format; ``openvino-load``: ``compile_model`` with the
  ``CACHE_DIR`` that a first ``compile_model`` filled);
- ``first ms``: the first inference;
- ``peak MiB``: the process's peak resident set (VmHWM), Python and libraries included;
- ``anon MiB``: its resident anonymous memory after the first inference (RssAnon: heap,
  arenas, weights read into memory), the part that does not depend on how much of the
  libraries and memory-mapped files the page cache holds (dnnc_testing.engines.status_kib).

The last lines divide dnnc's peak RSS by the lower of the peers' (the goal of the
memory issue is <= 0.8) and dnnc's import + ready time by ONNX Runtime's, like for like:
``dnnc`` against the peers compiling the ONNX file, ``dnnc-load`` against the peers loading
what they saved. Every engine runs with
``--threads`` threads, f32. Timings on a shared VM are noisy: every (model, engine) worker
runs ``--rounds`` times, in turn with the others, and the table gives the medians (peak RSS:
the largest).

    .venv/bin/python bench/startup.py [--models resnet50 bert_layer] [--threads 2] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np

from dnnc_testing.engines import INPUT_NAME, onnxruntime_options, openvino_config, status_kib
from dnnc_testing.engines import RUNNERS as MODEL_RUNNERS
from dnnc_testing.timing import combine_rounds

ENGINES = ("dnnc", "onnxruntime", "openvino", "dnnc-load", "onnxruntime-load", "openvino-load")
PACKAGES = {engine: engine.removesuffix("-load") for engine in ENGINES}
LOADED_FROM = {
    "dnnc-load": ".dnnc",
    "onnxruntime-load": ".ort",
    "openvino-load": ".ov-cache",
}
"""Where each -load engine's saved model is, as the ONNX file's suffix replaced."""

Runner = Callable[[np.ndarray], object]


def _saved(path: Path, engine: str) -> Path:
    """Where the -load `engine` keeps its compiled model of ``path`` (LOADED_FROM)."""
    return path.with_suffix(LOADED_FROM[engine])


def save_compiled(path: Path, engine: str, threads: int) -> None:
    """Let `engine` save its compiled model of ``path`` where LOADED_FROM says."""
    saved = _saved(path, engine)
    if engine == "dnnc-load":
        import dnnc

        dnnc.compile(path, save_to=saved)
    elif engine == "onnxruntime-load":
        import onnxruntime as ort

        options = onnxruntime_options(threads)
        options.optimized_model_filepath = str(saved)
        options.add_session_config_entry("session.save_model_format", "ORT")
        ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    else:
        _openvino_cached(path, threads)


def _openvino_cached(path: Path, threads: int) -> object:
    import openvino as ov

    config = openvino_config(threads, "f32") | {"CACHE_DIR": str(_saved(path, "openvino-load"))}
    return ov.Core().compile_model(str(path), "CPU", config)


def _dnnc_load(path: Path, name: str, threads: int, precision: str) -> Runner:
    import dnnc

    executable = dnnc.load(_saved(path, "dnnc-load"))
    return lambda x: executable.run([x])


def _onnxruntime_load(path: Path, name: str, threads: int, precision: str) -> Runner:
    # ONNX Runtime reads the ORT format by the file's suffix
    return MODEL_RUNNERS["onnxruntime"](_saved(path, "onnxruntime-load"), name, threads, precision)


def _openvino_load(path: Path, name: str, threads: int, precision: str) -> Runner:
    request = _openvino_cached(path, threads).create_infer_request()
    return lambda x: request.infer({INPUT_NAME: x})


RUNNERS = {
    **MODEL_RUNNERS,
    "dnnc-load": _dnnc_load,
    "onnxruntime-load": _onnxruntime_load,
    "openvino-load": _openvino_load,
}


def worker(path: Path, name: str, engine: str, shape: list[int], threads: int) -> dict:
    """The start-up figures of one engine on one model, measured in this process."""
    start = time.perf_counter()
    __import__(PACKAGES[engine])
    imported = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = RUNNERS[engine](path, name, threads, "f32")
    ready = time.perf_counter()
    run(np.random.default_rng(0).standard_normal(shape).astype(np.float32))
    first = time.perf_counter()
    return {
        "import_s": imported - start,
        "ready_s": ready - imported,
        "first_ms": (first - ready) * 1e3,
        "peak_mib": status_kib("VmHWM") / 1024,
        "anon_mib": status_kib("RssAnon") / 1024,
    }


def measure(path: Path, name: str, engine: str, shape: tuple[int, ...], threads: int) -> dict | str:
    """One worker process's figures, or the last line of its error."""
    command = [
        sys.executable,
        __file__,
        "--worker",
        str(path),
        name,
        engine,
        "--shape",
        "x".join(map(str, shape)),
        "--threads",
        str(threads),
    ]
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        return ((done.stderr.strip() or "failed").splitlines())[-1][:60]
    return json.loads(done.stdout.strip().splitlines()[-1])


def table(results: dict[str, dict[str, dict | str]]) -> str:
    """One row per model and engine, then dnnc's ratios per model."""
    rows = [["model", "engine", "import s", "ready s", "first ms", "peak MiB", "anon MiB"]]
    for name, by_engine in results.items():
        for engine, r in by_engine.items():
            if isinstance(r, str):
                rows.append([name, engine, "error: " + r, "", "", "", ""])
                continue
            rows.append(
                [
                    name,
                    engine,
                    f"{r['import_s']:.2f}",
                    f"{r['ready_s']:.2f}",
                    f"{r['first_ms']:.1f}",
                    f"{r['peak_mib']:.0f}",
                    f"{r['anon_mib']:.0f}",
                ]
            )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.rjust(w) for cell, w in zip(row, widths)) for row in rows]
    for name, by_engine in results.items():
        for ours, peers in (
            ("dnnc", ("onnxruntime", "openvino")),
            ("dnnc-load", ("onnxruntime-load", "openvino-load")),
        ):
            measured = by_engine[ours]
            others = [r for e in peers if isinstance(r := by_engine[e], dict)]
            if not isinstance(measured, dict) or not others:
                continue
            line = f"{name}: {ours} peak RSS / lowest of {', '.join(peers)} = "
            line += f"{measured['peak_mib'] / min(r['peak_mib'] for r in others):.2f}"
            line += f" (anon: {measured['anon_mib'] / min(r['anon_mib'] for r in others):.2f})"
            ort = by_engine[peers[0]]
            if isinstance(ort, dict):
                total = measured["import_s"] + measured["ready_s"]
                line += (
                    f"; import + ready / {peers[0]}'s = "
                    f"{total / (ort['import_s'] + ort['ready_s']):.2f}"
                )
            lines.append(line)
    return "\n".join(lines)


def main() -> None:
    names = ("resnet50", "mobilenet_v2", "bert_layer", "efficientnet_b0", "vit_b_16")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", choices=names, default=list(names))
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument(
        "--rounds", type=int, default=3, help="measure each (model, engine) this often, in turn"
    )
    parser.add_argument(
        "--worker", nargs=3, metavar=("ONNX", "MODEL", "ENGINE"), help=argparse.SUPPRESS
    )
    parser.add_argument("--shape", help=argparse.SUPPRESS)
    parser.add_argument("--save", nargs=2, metavar=("ONNX", "ENGINE"), help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.save:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            save_compiled(Path(options.save[0]), options.save[1], options.threads)
        return
    if options.worker:
        path, name, engine = options.worker
        shape = [int(d) for d in options.shape.split("x")]
        print(json.dumps(worker(Path(path), name, engine, shape, options.threads)))
        return
    from dnnc_testing.model_zoo import build_all

    print(
        f"threads {options.threads}, f32, each engine in a fresh process; per engine the "
        f"median over {options.rounds} rounds (peak RSS: the largest)"
    )
    rounds: list[dict[str, dict[str, dict | str]]] = []
    with tempfile.TemporaryDirectory() as directory:
        models = list(build_all(options.models, directory))
        for _, path, _ in models:
            for engine in LOADED_FROM:  # an engine that cannot save reports it when loading
                save = [sys.executable, __file__, "--save", str(path), engine]
                subprocess.run([*save, "--threads", str(options.threads)], capture_output=True)
        for _ in range(options.rounds):
            rounds.append(
                {
                    name: {e: measure(path, name, e, shape, options.threads) for e in ENGINES}
                    for name, path, shape in models
                }
            )
    results = {
        name: {e: combine_rounds(r[name][e] for r in rounds) for e in ENGINES} for name in rounds[0]
    }
    print(table(results))


if __name__ == "__main__":
    main()
