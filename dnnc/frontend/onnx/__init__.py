"""ONNX models in: ``import_onnx(model) -> ModuleOp`` with one dnn function.

The pipeline: ``graph.load_graph`` (read, opset check and upgrade of opsets before 11, ONNX
shape inference) -> ``converters.check_versions`` (each node's op version) ->
``gelu.fuse_erf_gelu`` (decomposed erf-GELU -> one node; dnn has no erf) -> ``importer.Importer``
(one converter per op type from ``converters.CONVERTERS``, constant subgraphs folded) ->
``dnnc.ir.verify_module``. The function is named after the ONNX graph; its arguments keep the
graph input names as SSA name hints (``importer.ssa_name``) and its results are the graph
outputs in order.

Weights: with ``weights_path`` every large floating-point initializer is saved in that
``.npz`` and read by ``dnn.weight "<weights_path>", "<initializer name>"``; small or integer
arrays (and everything without ``weights_path``) are inline ``dnn.constant``s.
"""

from __future__ import annotations

import os
import re

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from dnnc.frontend.onnx.converters import CONVERTERS, check_versions
from dnnc.frontend.onnx.gelu import fuse_erf_gelu
from dnnc.frontend.onnx.graph import ModelSource, load_graph, read_model
from dnnc.frontend.onnx.importer import Importer, ssa_name
from dnnc.ir.text import verify_module


def convert(
    model: ModelSource,
    weights_file: str | None = None,
    input_shapes: dict[str, tuple[int, ...]] | None = None,
) -> tuple[ModuleOp, dict[str, np.ndarray]]:
    """The verified dnn module of ``model`` and the arrays its dnn.weight ops read from
    ``weights_file`` (empty when ``weights_file`` is None: every array is inline).
    ``input_shapes`` replace the graph inputs' shapes in the function (dnnc.driver.dynamic
    gives sizes that carry their expressions, dnnc.core.symbols, for a model whose inputs
    ONNX sees with those sizes)."""
    graph = load_graph(model)
    check_versions(graph)
    fuse_erf_gelu(graph)
    importer = Importer(graph, weights_file, input_shapes)
    name = re.sub(r"_+$", "", ssa_name(graph.graph.name or "main"))
    module = importer.run(CONVERTERS, name or "main")
    verify_module(module)
    return module, importer.weights


def import_onnx(
    model: ModelSource, *, weights_path: str | os.PathLike[str] | None = None
) -> ModuleOp:
    """Import an ONNX model (path, bytes or proto) as a dnn module; with ``weights_path`` the large
    weights are written there as an ``.npz`` and referenced by that path."""
    weights_file = None if weights_path is None else os.fspath(weights_path)
    module, weights = convert(model, weights_file)
    if weights_file is not None:
        np.savez(weights_file, **weights)  # type: ignore[arg-type]  # numpy's stub: **kwds
    return module


__all__ = ["CONVERTERS", "ModelSource", "convert", "import_onnx", "read_model"]
