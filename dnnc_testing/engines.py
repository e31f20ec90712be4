"""The engines the benchmarks compare, each as a runner: (ONNX path, model name, threads,
precision) -> a function of one input. ``precision`` is ``f32`` (OpenVINO's precision hint is
pinned: its default is bf16 on CPUs with avx512_bf16 or AMX) or ``bf16`` (dnnc's
``dnn-optimize{precision=bf16}``, OpenVINO's bf16 hint; ONNX Runtime and PyTorch have no bf16
CPU mode to compare and refuse it), or ``int8``: the file itself is quantized (QDQ or
dynamic), so dnnc, ONNX Runtime and OpenVINO run it as it is, each with f32 wherever it
computes in floating point (PyTorch runs its own module, not the file, and refuses it).
Imports are inside the runners so that a worker process loads only its own engine (peak RSS
is per engine)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np

from dnnc.runtime.io_binding import TensorSpec

if TYPE_CHECKING:
    import onnx

    from dnnc.driver.generation import Decoder

INPUT_NAME = "input"
"""dnnc_testing.model_zoo's input name (not imported from there in workers: it loads torch, which
would count in every engine's peak RSS)."""
ENGINES = ("dnnc", "onnxruntime", "openvino", "pytorch")
PRECISIONS = ("f32", "bf16", "int8")
BF16_ENGINES = ("dnnc", "openvino")
"""The engines with a bf16 CPU mode."""
INT8_ENGINES = ("dnnc", "onnxruntime", "openvino")
"""The engines that run a quantized ONNX file."""


def _float_precision(precision: str) -> str:
    """The floating-point precision of a run: a quantized file's float parts run in f32."""
    return "f32" if precision == "int8" else precision


Runner = Callable[[np.ndarray], object]


def _dnnc(path: Path, name: str, threads: int, precision: str) -> Runner:
    import dnnc

    executable = dnnc.compile(path, f"dnn-optimize{{precision={_float_precision(precision)}}}")
    return lambda x: executable.run([x])


def _f32_only(engine: str, precision: str, allowed: tuple[str, ...] = ("f32",)) -> None:
    if precision not in allowed:
        raise ValueError(f"{engine} has no {precision} CPU mode here")


def onnxruntime_options(threads: int) -> object:
    """The session options of every ONNX Runtime run: ``threads`` intra-op threads, all graph
    optimizations (its default)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    return options


def _onnxruntime(path: Path, name: str, threads: int, precision: str) -> Runner:
    _f32_only("onnxruntime", precision, ("f32", "int8"))
    import onnxruntime as ort

    options = onnxruntime_options(threads)
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    return lambda x: session.run(None, {INPUT_NAME: x})


def openvino_config(threads: int, precision: str) -> dict[str, object]:
    """The ``compile_model`` configuration of every OpenVINO run."""
    return {
        "INFERENCE_NUM_THREADS": threads,
        "PERFORMANCE_HINT": "LATENCY",
        "INFERENCE_PRECISION_HINT": precision,  # default: bf16 on CPUs with avx512_bf16/AMX
    }


def _openvino(path: Path, name: str, threads: int, precision: str) -> Runner:
    import openvino as ov

    config = openvino_config(threads, _float_precision(precision))
    compiled = ov.Core().compile_model(str(path), "CPU", config)
    request = compiled.create_infer_request()
    return lambda x: request.infer({INPUT_NAME: x})


def _pytorch(path: Path, name: str, threads: int, precision: str) -> Runner:
    _f32_only("pytorch", precision)
    import torch

    from dnnc_testing.model_zoo import torch_model

    torch.set_num_threads(threads)
    module = torch_model(name)

    def run(x: np.ndarray) -> object:
        with torch.inference_mode():
            return module(torch.from_numpy(x))

    return run


def first_output(result: object) -> np.ndarray:
    """A runner's first output as an array (dnnc and ONNX Runtime return lists, OpenVINO a
    mapping by port, PyTorch a tensor)."""
    if isinstance(result, list | tuple):
        return np.asarray(result[0])
    to_numpy = getattr(result, "numpy", None)  # a tensor (whose values() is for sparse ones)
    if callable(to_numpy):
        return np.asarray(to_numpy())
    return np.asarray(next(iter(result.values())))  # type: ignore[attr-defined]


RUNNERS: dict[str, Callable[[Path, str, int, str], Runner]] = {
    "dnnc": _dnnc,
    "onnxruntime": _onnxruntime,
    "openvino": _openvino,
    "pytorch": _pytorch,
}


def status_kib(field: str) -> int:
    """A memory figure of this process from /proc/self/status, in KiB: ``VmHWM``, the peak
    RSS (not getrusage's ru_maxrss: Linux carries that over exec from the forking parent,
    which built the models with torch loaded), or ``RssAnon``, the resident anonymous memory
    (heap, arenas, weights read into memory; not the pages of libraries and memory-mapped
    files, whose resident share follows the page cache: one worker measured 83 and 106 MiB
    of peak RSS in two virtual environments of the same packages, as the cache held them)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    raise OSError(f"no {field} in /proc/self/status (Linux only)")


DecoderEngine = Literal["dnnc", "onnxruntime", "openvino"]
DECODER_ENGINES: tuple[DecoderEngine, ...] = ("onnxruntime", "openvino", "dnnc")
"""The engines of bench/generate.py, ONNX Runtime (the reference) first."""


@dataclass
class Wrapped:
    """Another engine behind dnnc.generate's decoder interface (dnnc.driver.generation)."""

    inputs: list[TensorSpec]
    outputs: list[TensorSpec]
    call: Callable[[Mapping[str, object]], dict[str, np.ndarray]]

    def run(self, inputs: Mapping[str, object], *, as_dict: bool) -> dict[str, np.ndarray]:
        return self.call(inputs)


def _specs(values: Sequence[onnx.ValueInfoProto]) -> list[TensorSpec]:
    from onnx import helper

    return [
        TensorSpec(
            v.name,
            tuple(
                d.dim_value if d.HasField("dim_value") else -1 for d in v.type.tensor_type.shape.dim
            ),
            np.dtype(helper.tensor_dtype_to_np_dtype(v.type.tensor_type.elem_type)),
        )
        for v in values
    ]


def decoder_engine(name: DecoderEngine, path: Path, threads: int = 2) -> Decoder:
    """``name``'s decoder on the file ``path`` (dnnc_testing.decoders.export_decoder) (ONNX Runtime and OpenVINO with
    ``threads`` threads, f32), for dnnc.generate."""
    import onnx

    import dnnc

    if name == "dnnc":
        return dnnc.compile(path)
    graph = onnx.load(path, load_external_data=False).graph
    inputs, outputs = _specs(graph.input), _specs(graph.output)
    names = [spec.name for spec in outputs]
    if name == "onnxruntime":
        import onnxruntime as ort

        session = ort.InferenceSession(
            str(path), onnxruntime_options(threads), providers=["CPUExecutionProvider"]
        )
        return Wrapped(inputs, outputs, lambda x: dict(zip(names, session.run(None, dict(x)))))
    import openvino as ov

    compiled = ov.Core().compile_model(str(path), "CPU", openvino_config(threads, "f32"))
    request = compiled.create_infer_request()

    def infer(x: Mapping[str, object]) -> dict[str, np.ndarray]:
        result = request.infer(dict(x))
        return {o.get_any_name(): np.array(result[o]) for o in compiled.outputs}

    return Wrapped(inputs, outputs, infer)
