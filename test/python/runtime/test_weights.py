"""dnn.weight arrays (dnnc.ir.weights): shared while used, freed after their last user,
read again when the file changes."""

from __future__ import annotations

import gc
import os
import weakref
from pathlib import Path

import numpy as np

import dnnc
from dnnc.api import find_function, load_module
from dnnc.dialects.dnn import WeightOp
from dnnc.ir.weights import load_weight

GRAPH = """
func.func @f(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %w = dnn.weight "w.npz", "scale" : tensor<1x8x1x1xf32>
  %y = dnn.binary mul %x, %w : (tensor<1x8x4x4xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  func.return %y : tensor<1x8x4x4xf32>
}"""


def weight_op(tmp_path: Path) -> WeightOp:
    (tmp_path / "g.mlir").write_text(GRAPH)
    module, _ = load_module(tmp_path / "g.mlir")
    return next(op for op in find_function(module).walk() if isinstance(op, WeightOp))


def test_a_weight_is_shared_while_used_and_freed_after(tmp_path: Path) -> None:
    np.savez(tmp_path / "w.npz", scale=np.full((1, 8, 1, 1), 2.0, np.float32))
    op = weight_op(tmp_path)
    first = load_weight(op)
    assert load_weight(op) is first and not first.flags.writeable
    gone = weakref.ref(first)
    del first
    gc.collect()
    assert gone() is None  # nothing but its users kept it


def test_a_rewritten_file_is_read_again(tmp_path: Path) -> None:
    np.savez(tmp_path / "w.npz", scale=np.full((1, 8, 1, 1), 2.0, np.float32))
    op = weight_op(tmp_path)
    held = load_weight(op)
    np.savez(tmp_path / "w.npz", scale=np.full((1, 8, 1, 1), 5.0, np.float32))
    os.utime(tmp_path / "w.npz", ns=(1, 1))  # a new time even where the clock is coarse
    assert held.max() == 2.0 and load_weight(op).max() == 5.0
    x = np.ones((1, 8, 4, 4), np.float32)
    assert dnnc.compile(tmp_path / "g.mlir").run([x])[0].max() == 5.0
