"""dnnc-run: compile a .mlir file or an .onnx model with dnnc.compile and run it on oneDNN.

    dnnc-run model.mlir|model.onnx [--function f] [--pipeline dnn-optimize]
             [--input x=x.npy ...] [--inputs inputs.npz] [--shape x=1x16 ...] [--seed 0]
             [--check] [--benchmark N] [--profile] [--report-memory] [--json]
             [--threads N] [--save-outputs DIR]
    dnnc-run decoder.onnx --generate N [--prompt-length 16] [--input input_ids=ids.npy]
             [--seed 0] [--threads N] [--json]
    dnnc-run --version [--json]

``--version`` prints dnnc's version and what it found on this host (dnnc.target_info():
oneDNN version, CPU, effective ISA, whether bf16 compute is native, and oneDNN's
implementation of each primitive kind in f32, bf16 and s8) and exits.

Inputs not given by ``--input`` / ``--inputs`` are random, from ``--seed``: floats uniform in
[-1, 1), integers in [-4, 4] (unsigned: [0, 8]), of the shape ``--shape`` gives where the
function has ``?`` dimensions (the plan of those shapes then runs). Prints each output's shape,
element type and
range, then what the options ask for:
* ``--check``: runs the unoptimized function with the reference interpreter on the same
  inputs and prints the max abs / rel error of each output; exit 1 when one is over the
  tolerance of its element type (dnnc.reference.interpreter.TOLERANCES);
* ``--benchmark N``: N timed runs after 3 warm-up runs: median (p50), p90, p99, min and max
  latency;
* ``--profile``: median time of every step (primitive kind, location, operand shapes and
  layouts, oneDNN's implementation and the most threads it runs on: 1 for a step too small
  for more, dnnc.runtime.step_threads; share of the total), each step waited for, then the
  count, bytes and time of the reorder steps (the data transforms);
* ``--report-memory``: planned arena vs its lower bound vs the bytes allocated;
* ``--json``: all of it as one JSON object on stdout instead of text;
* ``--threads N``: oneDNN's OpenMP threads (default: OMP_NUM_THREADS, else every core);
* ``--save-outputs DIR``: each output as ``DIR/<index>.npy``, with ``DIR/outputs.json``
  mapping the model's output names (any characters) to those files.
``--generate N`` runs a decoder exported with its KV cache instead (dnnc.generate, greedy):
N new tokens after a prompt (``--input input_ids=...``, else ``--prompt-length`` random token
ids from ``--seed`` below the vocabulary size, the logits' last dimension), from an empty
cache; prints the tokens, the prompt's step (prefill) time, the median time per new token and
the tokens per second of the new tokens after the first.
Every user error (unreadable or invalid input, bad option, wrong input array) is one line
``error: ...`` (or ``file:line:col: error: ...``) on stderr and exit status 1.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
import zipfile
from collections.abc import Sequence
from dataclasses import asdict
from importlib.metadata import version as package_version
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from dnnc.api import compile, find_function, load_module
from dnnc.core.diagnostics import DnncError, show_warnings_plainly
from dnnc.core.kinds import DataType
from dnnc.dnnl.threads import set_thread_count
from dnnc.driver.dynamic import DynamicExecutable
from dnnc.driver.executables import AnyExecutable
from dnnc.driver.generation import generate
from dnnc.driver.values import SpecializedExecutable, with_values
from dnnc.frontend.onnx.deferred import convert_deferred
from dnnc.reference.interpreter import compare, interpret
from dnnc.runtime.executor import Executable
from dnnc.runtime.io_binding import TensorSpec
from dnnc.runtime.plan import check_fits
from dnnc.target import target_info

WARMUP_RUNS = 3
PROFILE_REPEATS = 20


class _Parser(argparse.ArgumentParser):
    """argparse whose usage errors are DnncErrors (one line, exit 1)."""

    def error(self, message: str) -> NoReturn:
        raise DnncError(f"{message} (see dnnc-run --help)")


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = _Parser(
        prog="dnnc-run", description="Compile a .mlir file or an .onnx model and run it on oneDNN."
    )
    parser.add_argument("file", nargs="?", help="input .mlir file or .onnx model")
    parser.add_argument(
        "--version",
        action="store_true",
        help="print dnnc's version and what it found on this CPU, then exit",
    )
    parser.add_argument("--function", help="the function to run (needed if there are several)")
    parser.add_argument("--pipeline", default="dnn-optimize", help="optimization passes")
    parser.add_argument(
        "--input",
        action="append",
        default=[],
        metavar="NAME=FILE.npy",
        help="an input array from a .npy file (repeatable)",
    )
    parser.add_argument("--inputs", metavar="FILE.npz", help="input arrays by name")
    parser.add_argument(
        "--shape",
        action="append",
        default=[],
        metavar="NAME=1x3x224x224",
        help="the shape of a random input with ? dimensions (repeatable)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    parser.add_argument("--check", action="store_true", help="compare with the interpreter")
    parser.add_argument("--benchmark", type=int, metavar="N", help="time N runs")
    parser.add_argument("--profile", action="store_true", help="time every step")
    parser.add_argument("--report-memory", action="store_true", help="arena bytes")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--threads", type=int, metavar="N", help="oneDNN's OpenMP threads")
    parser.add_argument("--save-outputs", metavar="DIR", help="write the outputs as .npy files")
    parser.add_argument("--generate", type=int, metavar="N", help="generate N tokens (decoder)")
    parser.add_argument("--prompt-length", type=int, default=16, help="random prompt's tokens")
    args = parser.parse_args(argv)
    if args.file is None and not args.version:
        parser.error("the following arguments are required: file")
    if args.seed < 0:
        raise DnncError(f"--seed needs a number >= 0, got {args.seed}")
    if args.benchmark is not None and args.benchmark < 1:
        raise DnncError(f"--benchmark needs a positive number of runs, got {args.benchmark}")
    if args.generate is not None and (args.generate < 1 or args.prompt_length < 1):
        raise DnncError(
            f"--generate and --prompt-length need positive numbers, got {args.generate} "
            f"and {args.prompt_length}"
        )
    if args.threads is not None and args.threads < 1:
        raise DnncError(f"--threads needs a positive number, got {args.threads}")
    return args


def _load_array(path: str, key: str | None = None) -> np.ndarray:
    where = f"'{path}'" + (f" (key '{key}')" if key else "")
    try:
        if key is None:
            return np.load(path, allow_pickle=False)
        with np.load(path, allow_pickle=False) as archive:
            return archive[key]
    except OSError as error:
        raise DnncError(f"cannot read input file {where}: {error.strerror or error}") from None
    except (ValueError, zipfile.BadZipFile) as error:
        raise DnncError(f"input file {where} is not a valid numpy file: {error}") from None


def _given_inputs(args: argparse.Namespace, specs: Sequence[TensorSpec]) -> dict[str, np.ndarray]:
    names = [spec.name for spec in specs]
    given: dict[str, np.ndarray] = {}
    if args.inputs:
        try:
            with np.load(args.inputs, allow_pickle=False) as archive:
                keys = list(archive.files)
        except (OSError, ValueError, zipfile.BadZipFile) as error:
            raise DnncError(f"cannot read --inputs '{args.inputs}': {error}") from None
        for key in keys:
            given[key] = _load_array(args.inputs, key)
    for item in args.input:
        name, separator, path = item.partition("=")
        if not separator or not name or not path:
            raise DnncError(f"--input '{item}': expected NAME=FILE.npy")
        given[name] = _load_array(path)
    unknown = sorted(set(given) - set(names))
    if unknown:
        raise DnncError(f"unknown input(s) {', '.join(unknown)}: the inputs are {', '.join(names)}")
    return given


def _shapes(args: argparse.Namespace, specs: Sequence[TensorSpec]) -> dict[str, tuple[int, ...]]:
    """The --shape options by input name, each checked against the input's declaration."""
    by_name = {spec.name: spec for spec in specs}
    chosen: dict[str, tuple[int, ...]] = {}
    for item in args.shape:
        name, separator, text = item.partition("=")
        try:
            shape = tuple(int(d) for d in text.split("x")) if separator and text else None
        except ValueError:
            shape = None
        if not name or shape is None or min(shape) < 0:
            raise DnncError(f"--shape '{item}': expected NAME=DxDx... (e.g. x=1x3x224x224)")
        spec = by_name.get(name)
        if spec is None:
            raise DnncError(
                f"--shape names unknown input '{name}': the inputs are {', '.join(by_name)}"
            )
        if len(shape) != len(spec.shape) or any(
            d >= 0 and d != s for d, s in zip(spec.shape, shape)
        ):
            raise DnncError(f"--shape {item} does not fit input {spec}")
        chosen[name] = shape
    return chosen


def _random_array(rng: np.random.Generator, spec: TensorSpec) -> np.ndarray:
    if DataType.of_numpy(spec.dtype) in (DataType.F32, DataType.BF16, DataType.F16):
        return rng.uniform(-1.0, 1.0, spec.shape).astype(np.float32).astype(spec.dtype)
    if spec.dtype == np.bool_:
        return rng.random(spec.shape) < 0.5
    low, high = (0, 8) if spec.dtype.kind == "u" else (-4, 4)
    return rng.integers(low, high, spec.shape, endpoint=True).astype(spec.dtype)


def _inputs(args: argparse.Namespace, executable: AnyExecutable) -> dict[str, np.ndarray]:
    given = _given_inputs(args, executable.inputs)
    shapes = _shapes(args, executable.inputs)
    rng = np.random.default_rng(args.seed)
    random: list[TensorSpec] = []
    for spec in executable.inputs:
        shape = shapes.get(spec.name, spec.shape)
        if spec.name not in given and min(shape, default=0) < 0:
            raise DnncError(
                f"input {spec} has ? dimensions: give its shape with "
                f"--shape {spec.name}=..., or an array with --input"
            )
        if spec.name not in given:
            random.append(TensorSpec(spec.name, shape, spec.dtype))
    # drawn in float64, then cast: both arrays exist at once
    check_fits(
        "drawing dnnc-run's random inputs",
        {str(spec): math.prod(spec.shape) * 8 + spec.nbytes for spec in random},
    )
    arrays = given | {spec.name: _random_array(rng, spec) for spec in random}
    return {spec.name: arrays[spec.name] for spec in executable.inputs}


def _summary(name: str, array: np.ndarray) -> dict[str, object]:
    values = array.astype(np.float64)
    stats = (float(values.min()), float(values.max()), float(values.mean())) if array.size else ()
    return {
        "name": name,
        "shape": list(array.shape),
        "dtype": str(array.dtype),
        **dict(zip(("min", "max", "mean"), stats)),
    }


def _check(
    args: argparse.Namespace,
    given: dict[str, np.ndarray],
    inputs: dict[str, np.ndarray],
    outputs: dict[str, np.ndarray],
    executable: Executable,
) -> list[dict[str, object]]:
    """Compare ``outputs`` with the reference interpreter's on the function as loaded (for
    one with value arguments: as specialized to the ``given`` values), which ``executable``
    ran on ``inputs``."""
    module, weights_dir = load_module(args.file)
    loaded = find_function(module, args.function)
    function = with_values(loaded, given, convert_deferred, weights_dir)
    expected = interpret(
        function, [inputs[s.name] for s in executable.inputs], weights_dir=weights_dir
    )
    rows = []
    for (name, actual), wanted in zip(outputs.items(), expected, strict=True):
        comparison = compare(actual, wanted)
        rows.append(
            {
                "name": name,
                "max_abs_error": comparison.max_abs_error,
                "max_rel_error": comparison.max_rel_error,
                "mismatches": comparison.mismatches,
                "ok": comparison.ok,
            }
        )
    return rows


def _benchmark(
    executable: Executable, inputs: dict[str, np.ndarray], runs: int
) -> dict[str, float]:
    for _ in range(WARMUP_RUNS):
        executable.run(inputs)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        executable.run(inputs)
        times.append(time.perf_counter() - start)
    p90, p99 = (float(np.percentile(times, q)) * 1e3 for q in (90, 99))
    return {
        "runs": runs,
        "median_ms": statistics.median(times) * 1e3,
        "p90_ms": p90,
        "p99_ms": p99,
        "min_ms": min(times) * 1e3,
        "max_ms": max(times) * 1e3,
    }


def _profile(executable: Executable, inputs: dict[str, np.ndarray]) -> dict[str, object]:
    """Time per step, and what the data transforms (reorder steps: layout and data type
    changes, transposes, copies) cost in count, bytes and time."""
    times = executable.profile(inputs, repeats=PROFILE_REPEATS)
    total = sum(t.seconds for t in times) or 1.0
    steps: list[dict[str, Any]] = [
        {
            "step": index,
            "library": t.step.library,
            "kind": t.step.kind,
            "location": t.step.location,
            "operands": list(t.step.operands),
            "implementation": t.step.implementation,
            "bytes": t.step.bytes,
            "threads": t.step.threads,
            "us": t.seconds * 1e6,
            "share": t.seconds / total,
        }
        for index, t in enumerate(times)
    ]
    reorders = [row for row in steps if row["kind"] == "reorder"]
    return {
        "steps": steps,
        "reorders": {
            "count": len(reorders),
            "bytes": sum(row["bytes"] for row in reorders),
            "us": sum(row["us"] for row in reorders),
            "share": sum(row["share"] for row in reorders),
        },
    }


def _print_text(result: dict[str, Any]) -> None:
    print(f"@{result['function']}: {result['steps']} steps")
    for row in result["outputs"]:
        stats = (
            f" min {row['min']:.6g} max {row['max']:.6g} mean {row['mean']:.6g}"
            if "min" in row
            else ""
        )
        print(f"  {row['name']}: {row['dtype']}{row['shape']}{stats}")
    for row in result.get("check", []):
        verdict = "ok" if row["ok"] else f"FAIL ({row['mismatches']} elements over tolerance)"
        print(
            f"check {row['name']}: max abs error {row['max_abs_error']:.3g}, "
            f"max rel error {row['max_rel_error']:.3g}: {verdict}"
        )
    if "benchmark" in result:
        b = result["benchmark"]
        print(
            f"benchmark ({b['runs']} runs after {WARMUP_RUNS} warm-up): "
            f"median {b['median_ms']:.4f} ms, "
            f"p90 {b['p90_ms']:.4f} ms, p99 {b['p99_ms']:.4f} ms, "
            f"min {b['min_ms']:.4f} ms, max {b['max_ms']:.4f} ms"
        )
    if "profile" in result:
        print(f"{'#':>3}  {'kind':<28} {'us':>10} {'share':>6}  location / operands")
        for row in result["profile"]["steps"]:
            kind = f"{row['library']}:{row['kind']}"
            threads = row["threads"]
            on = "" if threads is None else f", {threads} thread{'s' if threads > 1 else ''}"
            print(
                f"{row['step']:>3}  {kind:<28} {row['us']:>10.1f} {row['share']:>6.1%}  "
                f"{row['location']}  {' '.join(row['operands'])}  [{row['implementation']}{on}]"
            )
        r = result["profile"]["reorders"]
        print(
            f"reorders: {r['count']} steps moving {r['bytes']} bytes (read + written), "
            f"{r['us']:.1f} us, {r['share']:.1%} of the run"
        )
    if "saved" in result:
        print(f"outputs saved in {result['saved']} (outputs.json maps names to files)")
    if "memory" in result:
        m = result["memory"]
        excess = m["planned_bytes"] / m["lower_bound_bytes"] - 1 if m["lower_bound_bytes"] else 0.0
        print(
            f"memory: planned {m['planned_bytes']} bytes, lower bound {m['lower_bound_bytes']} "
            f"(+{excess:.1%}), arena allocated {m['arena_bytes']}, scratchpad "
            f"{m['scratchpad_bytes']}, constants {m['constant_bytes']}"
        )


def _save_outputs(directory: str, outputs: dict[str, np.ndarray]) -> str:
    """Each output as ``<index>.npy`` in `directory`, its name in ``outputs.json``."""
    target = Path(directory)
    try:
        target.mkdir(parents=True, exist_ok=True)
        files = {}
        for index, (name, array) in enumerate(outputs.items()):
            np.save(target / f"{index}.npy", array)
            files[name] = f"{index}.npy"
        (target / "outputs.json").write_text(json.dumps(files, indent=2) + "\n")
    except OSError as error:
        raise DnncError(
            f"cannot save the outputs in '{directory}': {error.strerror or error}"
        ) from None
    return str(target)


def _generate(args: argparse.Namespace, executable: AnyExecutable) -> dict[str, Any]:
    """--generate: the tokens and their times (module docstring)."""
    given = _given_inputs(args, executable.inputs)
    if "input_ids" in given:
        prompt = given["input_ids"]
    else:
        vocabulary = executable.outputs[0].shape[-1] if executable.outputs else -1
        if vocabulary < 1:
            raise DnncError(
                "--generate: the vocabulary size (the first output's last dimension) is not "
                "declared: give the prompt with --input input_ids=FILE.npy"
            )
        rng = np.random.default_rng(args.seed)
        prompt = rng.integers(0, vocabulary, (1, args.prompt_length))
    generated = generate(executable, prompt, args.generate)
    steps = generated.seconds[1:]
    return {
        "prompt_tokens": int(prompt.shape[1]),
        "tokens": generated.tokens.tolist(),
        "prefill_ms": generated.prefill_seconds * 1e3,
        "median_ms_per_token": statistics.median(steps) * 1e3 if steps else None,
        "tokens_per_second": generated.tokens_per_second,
    }


def _print_generation(result: dict[str, Any]) -> None:
    print(f"tokens: {' '.join(map(str, result['tokens'][0]))}")
    print(f"prefill ({result['prompt_tokens']} tokens): {result['prefill_ms']:.2f} ms")
    if result["median_ms_per_token"] is not None:
        print(
            f"per new token: median {result['median_ms_per_token']:.2f} ms, "
            f"{result['tokens_per_second']:.2f} tokens/s"
        )


def _print_version(as_json: bool) -> None:
    info = target_info()
    if as_json:
        json.dump({"dnnc": package_version("dnnc"), **asdict(info)}, sys.stdout, indent=2)
        print()
    else:
        print(f"dnnc {package_version('dnnc')}")
        print(info.summary())


def run(argv: Sequence[str] | None = None) -> int:
    """Do what the arguments ask; return the exit status (1 when --check fails)."""
    args = _arguments(argv)
    if args.version:
        _print_version(args.json)
        return 0
    if args.threads is not None:
        set_thread_count(args.threads)
    compiled = compile(args.file, args.pipeline, function=args.function)
    if args.generate:
        generation = _generate(args, compiled)
        if args.json:
            json.dump(generation, sys.stdout, indent=2)
            print()
        else:
            _print_generation(generation)
        return 0
    given = _inputs(args, compiled)
    # compiled per input shape or value: the executable of these inputs, and what it takes
    chosen, inputs = (
        compiled.specialized(given)
        if isinstance(compiled, SpecializedExecutable)
        else (compiled, given)
    )
    signature = tuple(np.shape(inputs[spec.name]) for spec in chosen.inputs)
    executable = (
        chosen.plan_for(signature) if isinstance(chosen, DynamicExecutable) else chosen
    )  # a dynamic function runs the plan of these shapes (checked by run below)
    if isinstance(chosen, DynamicExecutable):  # with the data computed from the sizes
        inputs = {**inputs, **chosen.sized_inputs(signature)}
    outputs = executable.run(inputs, as_dict=True)
    assert isinstance(outputs, dict)  # as_dict
    result: dict[str, Any] = {
        "function": executable.name,
        "steps": len(executable.plan.step_infos),
        "outputs": [_summary(name, array) for name, array in outputs.items()],
    }
    if args.check:
        result["check"] = _check(args, given, inputs, outputs, executable)
    if args.benchmark:
        result["benchmark"] = _benchmark(executable, inputs, args.benchmark)
    if args.profile:
        result["profile"] = _profile(executable, inputs)
    if args.report_memory:
        result["memory"] = asdict(executable.memory_report())
    if args.save_outputs:
        result["saved"] = _save_outputs(args.save_outputs, outputs)
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        print()
    else:
        _print_text(result)
    checks = result.get("check", [])
    return 1 if any(not row["ok"] for row in checks) else 0


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the ``dnnc-run`` script."""
    show_warnings_plainly()
    try:
        status = run(argv)
    except DnncError as error:
        print(error, file=sys.stderr)
        raise SystemExit(1) from None
    except BrokenPipeError:  # the reader went away (`dnnc-run ... | head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise SystemExit(1) from None
    raise SystemExit(status)


if __name__ == "__main__":
    main()
