"""End-to-end models, side by side: dnnc vs ONNX Runtime, OpenVINO and PyTorch.

For each model of dnnc_testing/model_zoo.py (batch 1, seeded weights, exported once to a temporary
directory) and each engine: the median latency of ``--repeats`` runs after ``--warmup`` runs,
and the peak resident set size (VmHWM) of the process that ran it. Every (model, engine) pair
runs in its own worker process (this script with ``--worker``) so that the peak RSS is that engine's
alone (it includes the engine's libraries and the Python interpreter). All engines get the
same thread count: ``OMP_NUM_THREADS`` for dnnc's oneDNN and PyTorch, ``intra_op_num_threads``
for ONNX Runtime (all graph optimizations on), ``INFERENCE_NUM_THREADS`` for OpenVINO (CPU,
latency hint, f32 precision: its default is bf16 on CPUs with bf16 instructions),
``torch.set_num_threads`` under ``torch.inference_mode``. Every engine computes in f32, or
with ``--precision bf16`` dnnc (``dnn-optimize{precision=bf16}``) and OpenVINO (bf16 hint)
compute in bf16 where the CPU has it natively and the others report that they cannot. dnnc
compiles the ONNX file as a user would: ``dnnc.compile(path)`` (dnn-optimize, then
dnn-to-onednn).

A first line naming the CPU, oneDNN version, effective ISA and precision, a second with the
FMA peak (dnnc_testing.roofline, measured in a worker before and after the rounds: the
higher of the two); then one table: latency (the median over ``--rounds`` rounds of each
worker's median, the rounds' range in brackets: every round runs every engine once, in
turn) and peak RSS per engine, then each peer's latency as a ratio to dnnc's (> 1: dnnc is
faster), then the model's limit (its FLOPs over the peak; in bf16 over twice the peak, as
the performance issue counts it) and dnnc's and the best peer's latency over it.
``--plot out.png`` also draws the latencies if matplotlib is installed.

``--precision int8``: each of resnet50, mobilenet_v2 and bert_layer (of ``--models``)
quantized by ONNX Runtime's own tools (dnnc_testing.quantized: QDQ S8S8, ORT's default, and
U8S8 with per-channel weights, calibrated on 8 random inputs; bert_layer also dynamically)
and run from the same file by dnnc, ONNX Runtime and OpenVINO (f32 hint: f32 where they
compute in floating point). A second table gives each engine's error over
``--error-inputs`` seeded inputs (the timed one first): the largest difference from ONNX
Runtime's output on the same file, and the mean over the inputs of the RMS difference from
the f32 model's output (ONNX Runtime), both over the RMS of the f32 output; for dnnc and
OpenVINO also the mean of their error minus ONNX Runtime's, input by input, with its standard
error. One input is not enough to rank engines whose roundings differ only near ties: their
errors differ by a few tenths of a percent either way from input to input. The limit uses
four times the f32 FMA peak (VNNI's four 8-bit products per 32-bit lane).

    .venv/bin/python bench/models.py [--models resnet50 bert_layer] [--threads 2]
        [--repeats 20] [--warmup 3] [--rounds 3] [--precision bf16|int8] [--error-inputs 32]
        [--plot latency.png]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

from dnnc_testing.engines import (
    BF16_ENGINES,
    ENGINES,
    INT8_ENGINES,
    PRECISIONS,
    RUNNERS,
    first_output,
    status_kib,
)
from dnnc_testing.timing import combine_rounds

LIMIT_PEERS = ("onnxruntime", "openvino")
"""The engines "best peer/limit" takes the best of (the performance issue's peers)."""
INT8_MODELS = ("resnet50", "mobilenet_v2", "bert_layer")
"""The models ``--precision int8`` quantizes (the int8 issue's)."""
INT8_PEAK_FACTOR = 4
"""8-bit products per f32 FMA lane (VNNI's vpdpbusd: four per 32-bit lane)."""


def worker(path: Path, name: str, engine: str, options: argparse.Namespace) -> dict:
    """Median latency (ms) and peak RSS (MiB) of one engine on one model, in this process."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = RUNNERS[engine](path, name, options.threads, options.precision)
    shape = tuple(int(d) for d in options.shape.split("x"))
    x = _inputs(shape, 1)[0]
    repeats, warmup = options.repeats, options.warmup
    for _ in range(warmup):
        run(x)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run(x)
        times.append(time.perf_counter() - start)
    if options.output:
        inputs = _inputs(shape, options.error_inputs)
        np.save(options.output, np.stack([first_output(run(i)) for i in inputs]))
    return {"ms": statistics.median(times) * 1e3, "rss_mib": status_kib("VmHWM") / 1024}


def measure(
    path: Path, name: str, engine: str, shape: tuple[int, ...], options: argparse.Namespace
) -> dict | str:
    """One worker process's result, or the last line of its error."""
    env = dict(os.environ, OMP_NUM_THREADS=str(options.threads))
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
        str(options.threads),
        "--repeats",
        str(options.repeats),
        "--warmup",
        str(options.warmup),
        "--precision",
        options.precision,
    ]
    if options.precision == "int8":  # the error table's outputs
        command += ["--output", str(_output_path(path, engine))]
        command += ["--error-inputs", str(options.error_inputs)]
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        lines = (done.stderr.strip() or "failed").splitlines()
        return lines[-1][:60]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _output_path(path: Path, engine: str) -> Path:
    """Where a worker saves its output of ``path``'s model."""
    return path.with_suffix(f".{engine}.npy")


def _inputs(shape: tuple[int, ...], count: int) -> list[np.ndarray]:
    """The inputs every worker runs: the first is timed, all are compared (error table)."""
    return [
        np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
        for seed in range(count)
    ]


def quantized_models(
    models: list[tuple[str, Path, tuple[int, ...]]],
) -> list[tuple[str, Path, tuple[int, ...], Path]]:
    """(row name, quantized file, input shape, f32 file) of every int8 variant (``--precision
    int8``: module docstring)."""
    from dnnc_testing import quantized

    variants = []
    for name, path, shape in models:
        for activations in ("s8", "u8"):
            out = path.with_name(f"{name}.{activations}s8.onnx")
            quantized.static(path, out, "input", shape, activations=activations)
            variants.append((f"{name} {activations.upper()}S8", out, shape, path))
        if name == "bert_layer":
            out = quantized.dynamic(path, path.with_name(f"{name}.dynamic.onnx"))
            variants.append((f"{name} dynamic", out, shape, path))
    return variants


def error_table(variants: list[tuple[str, Path, tuple[int, ...], Path]], count: int) -> str:
    """Each engine's largest difference from ONNX Runtime on the same file and mean RMS
    difference from the f32 model over ``count`` inputs, both over the f32 output's RMS
    (module docstring)."""
    import onnxruntime as ort

    def run(path: Path, shape: tuple[int, ...]) -> np.ndarray:
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        return np.stack([session.run(None, {"input": x})[0] for x in _inputs(shape, count)])

    lines = []
    for name, path, shape, f32 in variants:
        theirs, reference = run(path, shape), run(f32, shape).astype(np.float64)
        axes = tuple(range(1, reference.ndim))
        scale = np.sqrt(np.mean(reference**2, axis=axes))

        def to_f32(outputs: np.ndarray) -> np.ndarray:
            return np.sqrt(np.mean((outputs - reference) ** 2, axis=axes)) / scale

        cells = []
        for engine in INT8_ENGINES:
            saved = _output_path(path, engine)
            if not saved.exists():
                cells.append(f"{engine}: -")
                continue
            ours = np.load(saved).reshape(theirs.shape).astype(np.float64)
            to_ort = (np.abs(ours - theirs).max(axis=axes) / scale).max()
            errors = to_f32(ours)
            cell = f"{engine}: {to_ort:.4f} / {errors.mean():.5f}"
            if engine != "onnxruntime" and count > 1:
                paired = errors - to_f32(theirs.astype(np.float64))
                cell += f" (vs ORT {paired.mean():+.5f} +- {paired.std(ddof=1) / count**0.5:.5f})"
            cells.append(cell)
        lines.append(f"{name}: " + "; ".join(cells))
    return "\n".join(lines)


def measure_peak(threads: int) -> tuple[float, str]:
    """The f32 FMA peak (GFLOP/s) and what each matmul measured, in a worker process."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    command = [sys.executable, __file__, "--peak", "--threads", str(threads)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    gflops, measured = json.loads(done.stdout.strip().splitlines()[-1])
    return gflops, measured


def _latency(result: dict | str) -> str:
    """``median [lowest-highest]`` of the rounds' medians, in ms."""
    if isinstance(result, str):
        return "error"
    low, high = result["ms_range"]
    digits = 2 if result["ms"] < 10 else 1  # int8 models run in about 1 ms: 0.1 ms is 10%
    return f"{result['ms']:.{digits}f} [{low:.{digits}f}-{high:.{digits}f}]"


def table(results: dict[str, dict[str, dict | str]], limits: dict[str, float]) -> str:
    """The one table: latency and RSS per engine, peers' latency over dnnc's, the limit (ms)
    and dnnc's and the best peer's latency over it."""
    engines = list(next(iter(results.values())))
    header = [
        "model",
        *(f"{e} ms" for e in engines),
        *(f"{e} MiB" for e in engines),
        *(f"{e}/dnnc" for e in engines[1:]),
        "limit ms",
        "dnnc/limit",
        "best peer/limit",
    ]
    rows = [header]
    for name, by_engine in results.items():
        cells = [name]
        results_of = list(by_engine.values())
        cells += [_latency(r) for r in results_of]
        cells += [f"{r['rss_mib']:.1f}" if isinstance(r, dict) else "error" for r in results_of]
        ours = by_engine["dnnc"]
        for engine in engines[1:]:
            theirs = by_engine[engine]
            ok = isinstance(ours, dict) and isinstance(theirs, dict)
            cells.append(f"{theirs['ms'] / ours['ms']:.2f}" if ok else "-")
        limit = limits[name]
        peers = [r["ms"] for e, r in by_engine.items() if e in LIMIT_PEERS and isinstance(r, dict)]
        cells.append(f"{limit:.2f}")
        cells.append(f"{ours['ms'] / limit:.2f}" if isinstance(ours, dict) else "-")
        cells.append(f"{min(peers) / limit:.2f}" if peers else "-")
        rows.append(cells)
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = ["  ".join(cell.rjust(w) for cell, w in zip(row, widths)) for row in rows]
    errors = [
        f"{name} / {engine}: {r}"
        for name, by in results.items()
        for engine, r in by.items()
        if isinstance(r, str)
    ]
    return "\n".join([*lines, *errors])


def plot(results: dict[str, dict[str, dict | str]], out: str) -> None:
    """Grouped bars of the latencies (only when matplotlib is installed)."""
    if importlib.util.find_spec("matplotlib") is None:
        print(f"--plot: matplotlib is not installed, {out} not written")
        return
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(8, 4))
    engines = list(next(iter(results.values())))
    width = 0.8 / len(engines)
    for index, engine in enumerate(engines):
        values = [r[engine]["ms"] if isinstance(r[engine], dict) else 0 for r in results.values()]
        axes.bar([i + index * width for i in range(len(results))], values, width, label=engine)
    axes.set_xticks([i + 0.4 - width / 2 for i in range(len(results))], list(results))
    axes.set_ylabel("median latency, batch 1 (ms)")
    axes.legend()
    figure.savefig(out, bbox_inches="tight")
    print(f"wrote {out}")


def main() -> None:
    names = (
        "resnet50",
        "mobilenet_v2",
        "bert_layer",
        "efficientnet_b0",
        "vit_b_16",
        "residual_chain",
    )
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", choices=names, default=list(names))
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="run every (model, engine) worker this many times, in turn, and take the median "
        "(noise on a shared VM comes in bursts that one round puts on one engine only)",
    )
    parser.add_argument(
        "--precision",
        choices=PRECISIONS,
        default="f32",
        help="bf16: dnnc's dnn-optimize{precision=bf16} against OpenVINO's bf16 (the others "
        "have no bf16 CPU mode)",
    )
    parser.add_argument(
        "--error-inputs",
        type=int,
        default=32,
        help="int8: inputs the error table averages over (module docstring)",
    )
    parser.add_argument("--plot", metavar="PNG", help="write a bar chart (needs matplotlib)")
    parser.add_argument(
        "--worker", nargs=3, metavar=("ONNX", "MODEL", "ENGINE"), help=argparse.SUPPRESS
    )
    parser.add_argument("--shape", help=argparse.SUPPRESS)
    parser.add_argument("--output", help=argparse.SUPPRESS)
    parser.add_argument("--peak", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.worker:
        path, name, engine = options.worker
        print(json.dumps(worker(Path(path), name, engine, options)))
        return
    from dnnc_testing import roofline  # not in the workers: its imports would count in their RSS

    if options.peak:
        print(json.dumps(roofline.peak()))
        return
    import dnnc
    import dnnc.target
    from dnnc.core.kinds import DataType
    from dnnc_testing.model_zoo import build_all

    info = dnnc.target_info()
    precision = {
        "f32": "every engine f32 (OpenVINO INFERENCE_PRECISION_HINT=f32)",
        "bf16": "bf16: dnnc dnn-optimize{precision=bf16}, OpenVINO INFERENCE_PRECISION_HINT=bf16 "
        f"(native bf16 here: {dnnc.target.computes_in(DataType.BF16)})",
        "int8": "int8: ONNX Runtime-quantized files, run as they are (float parts in f32)",
    }[options.precision]
    print(
        f"CPU: {info.cpu}; oneDNN {info.onednn_version}, effective ISA {info.isa}; {precision}; "
        f"threads {options.threads}; per engine the median over {options.rounds} rounds (range in "
        f"brackets) of the median of {options.repeats} runs after {options.warmup}"
    )
    engines = {"f32": ENGINES, "bf16": BF16_ENGINES, "int8": INT8_ENGINES}[options.precision]
    factor = {"f32": 1, "bf16": 2, "int8": INT8_PEAK_FACTOR}[options.precision]
    rounds: list[dict[str, dict[str, dict | str]]] = []
    with tempfile.TemporaryDirectory() as directory:
        names = options.models
        if options.precision == "int8":
            names = [n for n in names if n in INT8_MODELS]
        models = list(build_all(names, directory))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            gflop = {name: roofline.model_gflop(path) for name, path, _ in models}
            variants = quantized_models(models) if options.precision == "int8" else []
        runs = [(row, path, shape) for row, path, shape, _ in variants] or models
        row_gflop = {row: gflop[row.split()[0]] for row, _, _ in runs}
        before = measure_peak(options.threads)
        for _ in range(options.rounds):
            rounds.append(
                {
                    row: {e: measure(path, row.split()[0], e, shape, options) for e in engines}
                    for row, path, shape in runs
                }
            )
        after = measure_peak(options.threads)
        errors = error_table(variants, options.error_inputs) if variants else ""
    results = {
        name: {e: combine_rounds(r[name][e] for r in rounds) for e in engines} for name in rounds[0]
    }
    peak = max(before[0], after[0]) * factor
    print(
        f"f32 FMA peak {before[0]:.0f} GFLOP/s before the rounds ({before[1]}), {after[0]:.0f} "
        f"after ({after[1]}); the limits use {peak:.0f}"
        + ("" if factor == 1 else f" ({factor} times the higher: {options.precision})")
    )
    print(table(results, {row: g / peak * 1e3 for row, g in row_gflop.items()}))
    if errors:
        print(
            "error per engine: max |engine - ORT| / RMS(f32) over ORT on the same file, "
            f"mean RMS(engine - f32 model) / RMS(f32) over {options.error_inputs} inputs "
            "(the engine's minus ORT's, paired: mean +- standard error)"
        )
        print(errors)
    if options.plot:
        plot(results, options.plot)


if __name__ == "__main__":
    main()
