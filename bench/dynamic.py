"""What a dynamic-shape compile costs against a static compile of each shape.

Graphs: the BERT-style block and the conv block of dnnc_testing/dynamic_graphs.py
(dynamic batch and sequence; dynamic batch and image size). Per shape, in milliseconds:
- first call: dynamic = ``run`` on a signature not seen before (specialize, unfuse,
  re-optimize, lower, bind, run); static = ``dnnc.compile`` of that shape plus its first run
  (both after the dynamic ``compile``, which parses and optimizes once, is timed alone);
- steady state: the median of ``--iterations`` runs of the same inputs, dynamic and static
  (the dynamic figure includes the signature lookup);
and the cost of a shape switch: two cached signatures run alternately, median per run,
minus the mean of their steady-state medians.

    .venv/bin/python bench/dynamic.py [--iterations N]

``--serving`` instead puts dnnc beside ONNX Runtime and OpenVINO (f32, ``--threads``) on
exported models served at many input shapes, each shape once, then all again:
- ``bert``: a BERT-base encoder from ``transformers`` (random weights from a BertConfig,
  eager attention, an attention mask with padding), dynamic batch and sequence, at
  ``--lengths`` distinct sequence lengths from 8 to 200 (batch 1);
- ``cnn``: torchvision's ResNet-18 (weights=None), dynamic batch, batches 1 to 16 at
  ``--image`` pixels.
Each engine runs in its own worker process (this script with ``--worker``), which times the
engine's import and compile; ready = that + the first call. Per engine: ready, each round's
total and mean per call, and the time of each first call of a new shape (median, max, then
every one in order); the CPU seconds of the process (every thread's, so an engine whose
threads spin while waiting, as ONNX Runtime's do, counts that too) for import + compile and
each round: on a machine others load, the CPU of import + compile is the steadier figure;
dnnc's plan cache counters last.

Thread count: oneDNN (GNU OpenMP build) follows OMP_NUM_THREADS; on a busy machine set it to
the free cores, or OpenMP's spin-waiting turns microseconds into milliseconds.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

GraphText = Callable[..., str]
SIZES: dict[str, tuple[list[tuple[int, ...]], Callable[..., list[tuple[int, ...]]]]] = {
    "bert": ([(1, 16), (4, 64), (8, 128)], lambda b, s: [(b, s, 32), (b, 1, s)]),
    "conv": ([(1, 32, 32), (4, 64, 64), (8, 112, 112)], lambda n, h, w: [(n, 3, h, w)]),
}
"""The sizes each graph of dnnc_testing.dynamic_graphs is run at, and its inputs' shapes.
(dnnc is imported where it is used: a serving worker's ready time includes its import.)"""


def seconds(function: Callable[[], object]) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def median_ms(function: Callable[[], object], iterations: int) -> float:
    function()
    return statistics.median(seconds(function) for _ in range(iterations)) * 1e3


def bench_graph(name: str, directory: Path, iterations: int) -> None:
    import dnnc
    from dnnc_testing import dynamic_graphs

    text: GraphText = getattr(dynamic_graphs, name)
    sizes, input_shapes = SIZES[name]
    path = directory / f"{name}.mlir"
    path.write_text(text(*[None] * len(sizes[0])))
    compile_time = seconds(lambda: dnnc.compile(path))
    dynamic = dnnc.compile(path)
    print(f"\n{name}: dynamic compile (parse, verify, optimize once) {compile_time * 1e3:.1f} ms")
    print(f"{'shape':>14} | {'first call ms':>23} | {'steady state ms':>23}")
    print(f"{'':>14} | {'dynamic':>11} {'static':>11} | {'dynamic':>11} {'static':>11}")
    rng = np.random.default_rng(0)
    inputs_by_size = {}
    for size in sizes:
        inputs = [rng.standard_normal(s).astype(np.float32) for s in input_shapes(*size)]
        inputs_by_size[size] = inputs
        first_dynamic = seconds(lambda: dynamic.run(inputs))
        static_path = directory / f"{name}_{'x'.join(map(str, size))}.mlir"
        static_path.write_text(text(*size))
        static_holder: list[object] = []
        first_static = seconds(lambda: static_holder.append(dnnc.compile(static_path)))
        static = static_holder[0]
        first_static += seconds(lambda: static.run(inputs))  # type: ignore[attr-defined]
        steady_dynamic = median_ms(lambda: dynamic.run(inputs), iterations)
        steady_static = median_ms(lambda: static.run(inputs), iterations)  # type: ignore[attr-defined]
        label = "x".join(map(str, size))
        print(
            f"{label:>14} | {first_dynamic * 1e3:>11.1f} {first_static * 1e3:>11.1f} | "
            f"{steady_dynamic:>11.3f} {steady_static:>11.3f}"
        )
    a, b = sizes[0], sizes[1]
    steady = [median_ms(lambda: dynamic.run(inputs_by_size[s]), iterations) for s in (a, b)]
    toggle = [0]

    def alternate() -> None:
        toggle[0] ^= 1
        dynamic.run(inputs_by_size[a if toggle[0] else b])

    switched = median_ms(alternate, 2 * iterations)
    extra = switched - statistics.mean(steady)
    print(
        f"shape switch {'x'.join(map(str, a))} <-> {'x'.join(map(str, b))}: {switched:.3f} ms "
        f"per run alternating vs {statistics.mean(steady):.3f} ms steady: {extra:+.3f} ms"
    )
    print(f"plan cache: {dynamic.stats()}")


Feeds = dict[str, np.ndarray]


def export_cnn(path: Path, image: int) -> None:
    """torchvision's ResNet-18 (weights=None) with a dynamic batch."""
    import torch

    from dnnc_testing.torchvision_models import models

    torch.manual_seed(0)
    model = models().resnet18(weights=None).eval()
    torch.onnx.export(
        model,
        (torch.zeros(1, 3, image, image),),
        str(path),
        opset_version=17,
        dynamo=False,
        input_names=["input"],
        output_names=["logits"],
        dynamic_axes={"input": {0: "batch"}, "logits": {0: "batch"}},
    )


def engine_runner(
    engine: str, path: Path, threads: int
) -> tuple[Callable[[Feeds], object], object]:
    """(run one feed dict, the compiled object) of ``engine`` on the ONNX model ``path``; the
    engine's package is imported here (a worker imports only its own: part of its ready time)."""
    if engine == "dnnc":
        import dnnc

        executable = dnnc.compile(path)
        return (lambda feeds: executable.run(feeds)), executable
    if engine == "onnxruntime":
        import onnxruntime as ort

        from dnnc_testing.engines import onnxruntime_options

        session = ort.InferenceSession(
            str(path), onnxruntime_options(threads), providers=["CPUExecutionProvider"]
        )
        return (lambda feeds: session.run(None, feeds)), session
    import openvino as ov

    from dnnc_testing.engines import openvino_config

    compiled = ov.Core().compile_model(str(path), "CPU", openvino_config(threads, "f32"))
    request = compiled.create_infer_request()
    return (lambda feeds: request.infer(feeds)), compiled


def serve_worker(engine: str, path: Path, feeds_path: Path, threads: int) -> dict[str, object]:
    """One engine, in this process: import + compile, then every feed once, twice (seconds)."""
    with np.load(feeds_path) as saved:
        count = len({key.split(":", 1)[0] for key in saved.files})
        feeds = [
            {k.split(":", 1)[1]: saved[k] for k in saved.files if k.startswith(f"{i}:")}
            for i in range(count)
        ]
    if engine != "dnnc":
        import dnnc_testing.engines  # noqa: F401  (imports dnnc, not the engine: not timed)
    holder: list[tuple[Callable[[Feeds], object], object]] = []
    cpu = [time.process_time()]
    compile_seconds = seconds(lambda: holder.append(engine_runner(engine, path, threads)))
    run, compiled = holder[0]
    cpu.append(time.process_time())
    rounds = []
    for _ in range(2):
        rounds.append([seconds(lambda: run(f)) for f in feeds])
        cpu.append(time.process_time())
    stats = compiled.stats() if engine == "dnnc" else None  # type: ignore[attr-defined]
    return {
        "compile": compile_seconds,
        "rounds": rounds,
        "cpu": [b - a for a, b in itertools.pairwise(cpu)],
        "stats": str(stats or ""),
    }


def serve(name: str, path: Path, feeds: list[Feeds], threads: int) -> None:
    """Each engine in its own process: ready time, then every feed once, twice (module
    docstring)."""
    print(f"\n{name}: {len(feeds)} shapes, each once, then again; {threads} threads, f32")
    print(
        f"{'engine':>12} | {'ready s':>8} | {'round 1 s':>9} {'per call ms':>11} | "
        f"{'new shape ms (median, max)':>27} | {'round 2 s':>9} {'per call ms':>11}"
    )
    feeds_path = path.with_suffix(".feeds.npz")
    np.savez(feeds_path, **{f"{i}:{k}": a for i, f in enumerate(feeds) for k, a in f.items()})
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    for engine in ("dnnc", "onnxruntime", "openvino"):
        command = [sys.executable, __file__, "--worker", engine, str(path), str(feeds_path)]
        done = subprocess.run(
            [*command, "--threads", str(threads)], env=env, capture_output=True, text=True
        )
        if done.returncode != 0:
            print(f"{engine:>12} | failed: {(done.stderr.strip() or '?').splitlines()[-1]}")
            continue
        result = json.loads(done.stdout.strip().splitlines()[-1])
        first, second = result["rounds"]
        print(
            f"{engine:>12} | {result['compile'] + first[0]:>8.2f} | {sum(first):>9.2f} "
            f"{statistics.mean(first) * 1e3:>11.1f} | "
            f"{statistics.median(first) * 1e3:>12.1f} {max(first) * 1e3:>14.1f} | "
            f"{sum(second):>9.2f} {statistics.mean(second) * 1e3:>11.1f}"
        )
        print(
            f"{'':>12}   first call of each shape ms: {' '.join(f'{t * 1e3:.0f}' for t in first)}"
        )
        compiling, *rounds = result["cpu"]
        print(
            f"{'':>12}   CPU s (every thread's): import + compile {compiling:.2f}, "
            f"round 1 {rounds[0]:.2f}, round 2 {rounds[1]:.2f}"
        )
        if result["stats"]:
            print(f"{'':>12}   dnnc plan cache: {result['stats']}")


def serving(lengths: int, image: int, threads: int) -> None:
    rng = np.random.default_rng(0)
    from dnnc_testing.model_zoo import export_bert_base  # imports torch: not in the workers

    with tempfile.TemporaryDirectory() as directory:
        bert_path = Path(directory) / "bert.onnx"
        export_bert_base(bert_path)
        feeds = []
        for length in np.linspace(8, 200, lengths).astype(int):
            mask = np.ones((1, length), np.int64)
            mask[0, length - length // 4 :] = 0  # a padded tail
            ids = rng.integers(0, 30522, (1, length)).astype(np.int64)
            feeds.append({"input_ids": ids, "mask": mask})
        serve("bert-base encoder", bert_path, feeds, threads)
        cnn_path = Path(directory) / "resnet18.onnx"
        export_cnn(cnn_path, image)
        images = [
            {"input": rng.standard_normal((b, 3, image, image)).astype(np.float32)}
            for b in range(1, 17)
        ]
        serve(f"resnet18 {image}x{image}", cnn_path, images, threads)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=50)
    parser.add_argument("--serving", action="store_true", help="beside ORT and OpenVINO")
    parser.add_argument("--lengths", type=int, default=20)
    parser.add_argument("--image", type=int, default=128)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--worker", nargs=3, metavar=("ENGINE", "ONNX", "FEEDS"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.worker:
        engine, path, feeds_path = args.worker
        print(json.dumps(serve_worker(engine, Path(path), Path(feeds_path), args.threads)))
        return
    if args.serving:
        serving(args.lengths, args.image, args.threads)
        return
    from dnnc_testing.dynamic_graphs import write_weights

    with tempfile.TemporaryDirectory() as directory:
        write_weights(Path(directory))
        for name in SIZES:
            bench_graph(name, Path(directory), args.iterations)


if __name__ == "__main__":
    main()
