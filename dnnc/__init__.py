"""dnnc: a deep-learning graph compiler on xDSL that executes with oneDNN CPU primitives.

``dnnc.import_onnx(model) -> ModuleOp`` (see dnnc.frontend.onnx),
``dnnc.compile(source, pipeline=...) -> Executable`` (a ``DynamicExecutable`` for a function
with ``?`` dimensions) and ``Executable.run(inputs)`` (see dnnc.api); ``dnnc.target_info()``
says what oneDNN offers on this CPU (see dnnc.target); ``dnnc.Streams(executable, streams=N)``
runs many inferences at once (throughput mode, see dnnc.driver.streams);
``dnnc.generate(executable, input_ids, max_new_tokens)`` generates tokens with a decoder
exported with its KV cache, ``dnnc.CacheSession(executable)`` steps one with its cache kept
in capacity buffers (see dnnc.driver.generation);
``dnnc.compile(..., save_to=DIR)`` writes a compiled model that ``dnnc.load(DIR)`` reads
without compiling (see dnnc.driver.saved). Every user
mistake raises ``dnnc.DnncError`` (``dnnc.ModelError``: an ONNX model dnnc cannot read or
import; ``dnnc.InputError``: run-time inputs that do not fit). They are imported on first use, so
that ``import dnnc.ir.text`` (dnnc-opt) does not
load the oneDNN library or onnx.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dnnc.api import compile
    from dnnc.core.diagnostics import DnncError, InputError, ModelError
    from dnnc.driver.dynamic import DynamicExecutable, DynamicOptions
    from dnnc.driver.generation import CacheSession, generate
    from dnnc.driver.saved import load
    from dnnc.driver.streams import Streams
    from dnnc.frontend.onnx import import_onnx
    from dnnc.runtime.executor import Executable
    from dnnc.target import TargetInfo, target_info

_EXPORTS = {
    "DnncError": "dnnc.core.diagnostics",
    "InputError": "dnnc.core.diagnostics",
    "ModelError": "dnnc.core.diagnostics",
    "compile": "dnnc.api",
    "Executable": "dnnc.runtime.executor",
    "import_onnx": "dnnc.frontend.onnx",
    "load": "dnnc.driver.saved",
    "DynamicExecutable": "dnnc.driver.dynamic",
    "DynamicOptions": "dnnc.driver.dynamic",
    "Streams": "dnnc.driver.streams",
    "generate": "dnnc.driver.generation",
    "CacheSession": "dnnc.driver.generation",
    "TargetInfo": "dnnc.target",
    "target_info": "dnnc.target",
}

__all__ = [
    "CacheSession",
    "DnncError",
    "DynamicExecutable",
    "DynamicOptions",
    "Executable",
    "InputError",
    "ModelError",
    "Streams",
    "TargetInfo",
    "compile",
    "generate",
    "import_onnx",
    "load",
    "target_info",
]


def __getattr__(name: str) -> object:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'dnnc' has no attribute '{name}'")
    return getattr(import_module(_EXPORTS[name]), name)
