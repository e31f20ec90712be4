"""ONNX models in: ``import_onnx(model) -> ModuleOp`` with one dnn function.

The pipeline: ``graph.load_graph`` (read, opset check and upgrade of opsets before 11, ONNX
shape inference) -> ``converters.check_versions`` (each node's op version) ->
``gelu.fuse_erf_gelu`` (decomposed erf-GELU -> one node; dnn has no erf) -> ``importer.Importer``
(one converter per op type from ``converters.CONVERTERS``, constant subgraphs folded) ->
``dnnc.ir.verify_module``. The function is named after the ONNX graph; its arguments keep the
graph input names as SSA name hints (``importer.ssa_name``) and its results are the graph
outputs in order.

A node whose converter needs an operand computed from graph inputs' values (a Reshape's
target given as an input) is kept as ``dnn.deferred`` and the inputs marked ``dnn.value_arg``
(``deferred``), when every input is static; ``deferred.convert_deferred`` converts it once the
values are constants (dnnc.driver.values).

Symbolic import (``import_onnx(model, symbolic=True)``, and by default when the plain import
needs a size of a ``?`` dimension): dnnc.frontend.onnx.symbolic writes the sizes the model
computes from its ``?`` input dimensions into the IR as expressions.

Weights: with ``weights_path`` every large floating-point initializer is saved in that
``.npz`` and read by ``dnn.weight "<weights_path>", "<initializer name>"``; small or integer
arrays (and everything without ``weights_path``) are inline ``dnn.constant``s.
"""

from __future__ import annotations

import gc
import os
import re
from collections.abc import Mapping

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from dnnc.core.diagnostics import ModelError, RunTimeShapeError, RunTimeValueError
from dnnc.frontend.onnx.converters import CONVERTERS, check_versions
from dnnc.frontend.onnx.gelu import fuse_erf_gelu
from dnnc.frontend.onnx.graph import ModelSource, load_graph, model_bytes, read_model
from dnnc.frontend.onnx.importer import Importer, ssa_name
from dnnc.frontend.onnx.sized import Recompute
from dnnc.frontend.onnx.symbolic import import_symbolic
from dnnc.ir.text import verify_module
from dnnc.ir.weights import COLLECTED_BYTES, save_weights


def imported(
    model: ModelSource,
    weights_file: str | None,
    input_shapes: dict[str, tuple[int, ...]] | None = None,
    weights: Mapping[str, np.ndarray] | None = None,
    *,
    writes_symbols: bool = False,
) -> ModuleOp:
    """The module of one import (``Importer``'s arguments), verified unless it
    ``writes_symbols`` (dnnc.frontend.onnx.symbolic verifies it once they are written)."""
    return _imported(model, weights_file, input_shapes, weights, writes_symbols)[0]


def _imported(
    model: ModelSource,
    weights_file: str | None,
    input_shapes: dict[str, tuple[int, ...]] | None = None,
    weights: Mapping[str, np.ndarray] | None = None,
    writes_symbols: bool = False,
    defers_values: bool = False,
) -> tuple[ModuleOp, Importer]:
    graph = load_graph(model, weights)
    check_versions(graph)
    fuse_erf_gelu(graph)
    importer = Importer(
        graph,
        weights_file,
        input_shapes,
        writes_symbols=writes_symbols,
        defers_values=defers_values,
    )
    name = re.sub(r"_+$", "", ssa_name(graph.graph.name or "main"))
    try:
        module = importer.run(CONVERTERS, name or "main")
    except RunTimeValueError as error:
        if weights is not None:  # the large initializers' bytes are the caller's: the
            # import holds of its own at most the rest of the model and what it copied
            error.own_bytes = model_bytes(model) + importer.copied_bytes
        raise
    if not writes_symbols:  # verified once the symbols are written (symbolic.write_symbols)
        verify_module(module)
    return module, importer


def convert(
    model: ModelSource,
    weights_file: str | None = None,
    weights: Mapping[str, np.ndarray] | None = None,
) -> tuple[ModuleOp, dict[str, np.ndarray]]:
    """The verified dnn module of ``model`` and the arrays its dnn.weight ops read from
    ``weights_file`` (empty when ``weights_file`` is None: every array is inline). A node
    that waits for graph inputs' values is kept as ``dnn.deferred`` (deferred.py).
    ``weights`` as for ``graph.load_graph`` (a model from ``graph.load_detached``)."""
    module, importer = _imported(model, weights_file, weights=weights, defers_values=True)
    return module, importer.weights


def convert_traced(
    model: ModelSource,
    input_shapes: dict[str, tuple[int, ...]],
    weights: Mapping[str, np.ndarray] | None = None,
) -> tuple[ModuleOp, list[tuple[str, Recompute]]]:
    """The verified dnn module of ``model`` (whose inputs ONNX sees with the traced sizes)
    with ``input_shapes`` as its inputs' shapes: sizes that carry their expressions
    (dnnc.core.symbols, dnnc.driver.dynamic's trace), so the shape arithmetic of the model
    folds into expressions (dnnc.frontend.onnx.sized). Also the arguments after the graph
    inputs, each with how to compute it from the symbol values. Weights are inline;
    ``weights`` as for ``graph.load_graph`` (a model from ``graph.detach_weights``)."""
    module, importer = _imported(model, None, input_shapes, weights)
    return module, importer.sized_inputs


def release_failed_import(error: ModelError, model: ModelSource) -> None:
    """Free what an import of ``model`` that failed with ``error`` still holds before the
    model is read again: its frames (the error's traceback) hold every weight it read
    (BERT-base: 420 MB more at the next import's peak), and its partial IR, in reference
    cycles, the weights it converted (collected when the model is larger than
    COLLECTED_BYTES). An import given the large initializers' arrays (compile's of a file,
    read once) holds of its own only the rest of the model and what it copied
    (``RunTimeValueError.own_bytes``), often not worth a collection: BERT-base's took 25-30 ms
    of the compile and freed none of its bytes."""
    error.with_traceback(None)
    own = error.own_bytes if isinstance(error, RunTimeValueError) else None
    if (model_bytes(model) if own is None else own) > COLLECTED_BYTES:
        gc.collect()


def import_onnx(
    model: ModelSource,
    *,
    weights_path: str | os.PathLike[str] | None = None,
    symbolic: bool | None = None,
) -> ModuleOp:
    """Import an ONNX model (path, bytes or proto) as a dnn module; with ``weights_path`` the large
    weights are written there as an ``.npz`` and referenced by that path. With ``symbolic``,
    sizes computed from ``?`` input dimensions are ``?`` with their expressions in the IR
    (dnnc.frontend.onnx.symbolic; weights inline); by default (None) only when the plain
    import needs such a size (its RunTimeShapeError) and no ``weights_path`` is given. When
    the symbolic import refuses too, the error is the plain import's with that reason."""
    if symbolic:
        if weights_path is not None:
            raise ModelError("import_onnx: symbolic=True keeps the weights inline: no weights_path")
        return import_symbolic(model)
    weights_file = None if weights_path is None else os.fspath(weights_path)
    try:
        module, weights = convert(model, weights_file)
    except RunTimeShapeError as error:
        if symbolic is False or weights_file is not None:
            raise
        release_failed_import(error, model)
        try:
            return import_symbolic(model)
        except ModelError as refusal:
            raise RunTimeShapeError(
                f"{error.message}; the symbolic import (sizes as expressions) refuses it too: "
                f"{refusal.message}",
                error.location,
            ) from None
    if weights_file is not None:
        save_weights(weights_file, weights)
    return module


__all__ = [
    "CONVERTERS",
    "ModelSource",
    "convert",
    "convert_traced",
    "import_onnx",
    "imported",
    "read_model",
    "release_failed_import",
]
