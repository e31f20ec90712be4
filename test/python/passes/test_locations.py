"""Every op that dnn-optimize (f32 and bf16) and the lowering leave has the source location
of the op it came from, where the input had locations: an error or a profile line then names
a line of the user's file, never ``<unknown>``. A pass that builds an op without copying a
location fails here (dnn-canonicalize's and dnn-scale-weights' once did: ViT-B/16 had 120
ops without one)."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from dnnc.api import load_module, make_context, parse_pipeline, run_passes
from dnnc.core.diagnostics import op_location
from dnnc_testing.graphs import (
    bert_layer,
    dense_block,
    inverted_residuals,
    residual_blocks,
    write,
)

CASES = {
    "residual_blocks": lambda: residual_blocks(2, (1, 16, 8, 8)),
    "inverted_residuals": lambda: inverted_residuals(2, (1, 16, 8, 8)),
    "bert_layer": lambda: bert_layer(16, 64),
    "dense_block": lambda: dense_block(2, (1, 8, 8, 8), 4),
}


@pytest.mark.parametrize("precision", ["f32", "bf16"])
@pytest.mark.parametrize("name", CASES)
def test_every_op_keeps_a_source_location(tmp_path: Path, name: str, precision: str) -> None:
    module, _ = load_module(write(CASES[name](), tmp_path))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # bf16 where the CPU has none: stays f32, says so
        pipeline = f"dnn-optimize{{precision={precision}}},dnn-to-onednn"
        run_passes(make_context(), module, parse_pipeline(pipeline))
    unknown = [
        op.name
        for op in module.walk()
        if not isinstance(op, ModuleOp | func.FuncOp) and op_location(op) is None
    ]
    assert not unknown
