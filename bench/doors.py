"""Every door to one model, side by side: peak RSS and ready time of each way dnnc compiles or
loads it, beside ONNX Runtime and OpenVINO (issue 29, "one door").

Models, exported once to a temporary directory (random weights):
- ``resnet50``: torchvision's ResNet-50 (``weights=None``), 1x3x224x224, static;
- ``bert``: a BERT-base encoder from ``transformers`` with dynamic batch and sequence
  (bench/dynamic.py's export), run at batch 1, sequence ``--length``.

Doors, each in a fresh worker process (this script with ``--worker``):
- ``compile(path)``: ``dnnc.compile(path)``;
- ``compile(import_onnx)``: ``dnnc.compile(dnnc.import_onnx(path))``;
- ``dnnc-run``: the command line's ``run`` (dnnc.tools.run) on the file, its inputs given;
- ``dnnc.load``: a model another process saved with ``save_to`` (the ``import_onnx``
  module's: an ONNX model traced per input shape cannot be saved);
- ``onnxruntime``: an ``InferenceSession``; ``openvino``: ``compile_model`` on the CPU, f32.
Per door: ``ready s`` (from the worker's start to something that runs, the engine's package
imported: dnnc imports its modules as they are used), ``first ms`` (the first inference),
``peak MiB`` (VmHWM, Python and libraries included) and ``anon MiB`` (resident anonymous
memory after the first inference); the last column divides the peak by ``compile(path)``'s
(the issue's goal: every dnnc door within 5%). ``--threads`` threads, f32; medians over
``--rounds`` rounds (peak RSS: the largest).

    .venv/bin/python bench/doors.py [--models resnet50 bert] [--length 128] [--rounds 1]
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

DOORS = (
    "compile(path)",
    "compile(import_onnx)",
    "dnnc-run",
    "dnnc.load",
    "onnxruntime",
    "openvino",
)
PACKAGES = {"onnxruntime": "onnxruntime", "openvino": "openvino"}
"""The package each door imports first (dnnc for the rest)."""

Feeds = dict[str, np.ndarray]


def export(name: str, directory: Path) -> Path:
    """``<directory>/<name>.onnx`` (module docstring)."""
    path = directory / f"{name}.onnx"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name == "bert":
            from dnnc_testing.model_zoo import export_bert_base

            export_bert_base(path)
        else:
            import torch

            from dnnc_testing.torchvision_models import models

            torch.manual_seed(0)
            model = models().resnet50(weights=None).eval()
            torch.onnx.export(
                model,
                (torch.zeros(1, 3, 224, 224),),
                str(path),
                opset_version=17,
                dynamo=False,
                input_names=["x"],
                output_names=["y"],
            )
    return path


def feeds_of(name: str, length: int) -> Feeds:
    """The inputs of one run of ``name``."""
    rng = np.random.default_rng(0)
    if name == "bert":
        ids = rng.integers(0, 30522, (1, length)).astype(np.int64)
        return {"input_ids": ids, "mask": np.ones((1, length), np.int64)}
    return {"x": rng.standard_normal((1, 3, 224, 224)).astype(np.float32)}


def ready(door: str, path: Path, feeds_path: Path, threads: int) -> Callable[[Feeds], object]:
    """Run one feed dict through ``door`` (its package imported already)."""
    if door == "onnxruntime":
        import onnxruntime as ort

        from dnnc_testing.engines import onnxruntime_options

        session = ort.InferenceSession(
            str(path), onnxruntime_options(threads), providers=["CPUExecutionProvider"]
        )
        return lambda feeds: session.run(None, feeds)
    if door == "openvino":
        import openvino as ov

        from dnnc_testing.engines import openvino_config

        config = openvino_config(threads, "f32")
        request = ov.Core().compile_model(str(path), "CPU", config).create_infer_request()
        return lambda feeds: request.infer(feeds)
    import dnnc

    if door == "dnnc-run":  # the whole command: compile and the first run
        from dnnc.tools.run import run

        given = [("--input", f"{name}={file}") for name, file in input_files(feeds_path).items()]
        with open(os.devnull, "w") as sink:
            stdout, sys.stdout = sys.stdout, sink
            try:
                run([str(path), *(part for pair in given for part in pair)])
            finally:
                sys.stdout = stdout
        return lambda feeds: None
    executable = {
        "compile(path)": lambda: dnnc.compile(path),
        "compile(import_onnx)": lambda: dnnc.compile(dnnc.import_onnx(path)),
        "dnnc.load": lambda: dnnc.load(path.with_suffix(".dnnc")),
    }[door]()
    return lambda feeds: executable.run(feeds)


def feeds_of_file(feeds_path: Path) -> Feeds:
    with np.load(feeds_path) as saved:
        return {name: saved[name] for name in saved.files}


def input_files(feeds_path: Path) -> dict[str, Path]:
    """Where each input of ``feeds_path`` is also saved alone (for ``dnnc-run --input``)."""
    with np.load(feeds_path) as saved:
        names = list(saved.files)
    return {name: feeds_path.with_suffix(f".{name}.npy") for name in names}


def worker(door: str, path: Path, feeds_path: Path, threads: int) -> dict[str, float]:
    """The figures of one door, measured in this process."""
    from dnnc_testing.engines import status_kib

    start = time.perf_counter()
    __import__(PACKAGES.get(door, "dnnc"))
    imported = time.perf_counter()
    run = ready(door, path, feeds_path, threads)
    done = time.perf_counter()
    run(feeds_of_file(feeds_path))
    first = time.perf_counter()
    return {
        "import_s": imported - start,
        "ready_s": done - imported,
        "first_ms": (first - done) * 1e3,
        "peak_mib": status_kib("VmHWM") / 1024,
        "anon_mib": status_kib("RssAnon") / 1024,
    }


def measure(door: str, path: Path, feeds_path: Path, threads: int) -> dict[str, float] | str:
    """One worker's figures, or the last line of its error."""
    command = [sys.executable, __file__, "--worker", door, str(path), str(feeds_path)]
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    done = subprocess.run(
        [*command, "--threads", str(threads)], env=env, capture_output=True, text=True
    )
    if done.returncode != 0:
        return ((done.stderr.strip() or "failed").splitlines())[-1][:70]
    return json.loads(done.stdout.strip().splitlines()[-1])


def table(name: str, results: dict[str, dict[str, float] | str]) -> str:
    reference = results["compile(path)"]
    rows = [["model", "door", "ready s", "first ms", "peak MiB", "anon MiB", "peak / path"]]
    for door, r in results.items():
        if isinstance(r, str):
            rows.append([name, door, f"error: {r}", "", "", "", ""])
            continue
        ratio = r["peak_mib"] / reference["peak_mib"] if isinstance(reference, dict) else 0.0
        rows.append(
            [
                name,
                door,
                f"{r['import_s'] + r['ready_s']:.2f}",
                f"{r['first_ms']:.1f}",
                f"{r['peak_mib']:.0f}",
                f"{r['anon_mib']:.0f}",
                f"{ratio:.2f}",
            ]
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.rjust(w) for c, w in zip(row, widths)) for row in rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--models", nargs="+", choices=("resnet50", "bert"), default=["resnet50", "bert"]
    )
    parser.add_argument("--length", type=int, default=128)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument(
        "--worker", nargs=3, metavar=("DOOR", "ONNX", "FEEDS"), help=argparse.SUPPRESS
    )
    parser.add_argument("--save", metavar="ONNX", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.save:
        import dnnc

        dnnc.compile(dnnc.import_onnx(args.save), save_to=Path(args.save).with_suffix(".dnnc"))
        return
    if args.worker:
        door, path, feeds_path = args.worker
        print(json.dumps(worker(door, Path(path), Path(feeds_path), args.threads)))
        return
    from dnnc_testing.timing import combine_rounds

    print(f"threads {args.threads}, f32, each door in a fresh process, {args.rounds} round(s)")
    with tempfile.TemporaryDirectory() as directory:
        for name in args.models:
            path = export(name, Path(directory))
            feeds_path = path.with_suffix(".feeds.npz")
            feeds = feeds_of(name, args.length)
            np.savez(feeds_path, **feeds)
            for input_name, file in input_files(feeds_path).items():
                np.save(file, feeds[input_name])
            save = [sys.executable, __file__, "--save", str(path)]  # in a process of its own
            subprocess.run(save, check=True)
            rounds = [
                {door: measure(door, path, feeds_path, args.threads) for door in DOORS}
                for _ in range(args.rounds)
            ]
            results = {door: combine_rounds(r[door] for r in rounds) for door in DOORS}
            print(table(name, results))


if __name__ == "__main__":
    main()
