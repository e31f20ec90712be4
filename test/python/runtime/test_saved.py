"""Compiled models on disk (dnnc.driver.saved): dnnc.compile(..., save_to=DIR) and
dnnc.load(DIR) give the same results, pack nothing on load, and refuse what does not fit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import dnnc
from dnnc.core.diagnostics import DnncError
from dnnc.driver.saved import CONSTANTS, FORMAT, MANIFEST, PROGRAM, target_identity

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "residual_block.mlir"
"""A conv/BN/ReLU residual block whose weights are dnn.weight files: packed on load."""

BLOCK = """
func.func @block(%x: tensor<1x8x10x10xf32>) -> (tensor<1x16x10x10xf32>, tensor<1x16x10x10xf32>) {
  %w = dnn.constant dense<0.05> : tensor<16x8x3x3xf32>
  %b = dnn.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0]> : tensor<16xf32>
  %c = dnn.conv2d %x, %w, %b {pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>} : (tensor<1x8x10x10xf32>, tensor<16x8x3x3xf32>, tensor<16xf32>) -> tensor<1x16x10x10xf32>
  %r = dnn.eltwise relu %c : tensor<1x16x10x10xf32>
  %t = dnn.eltwise tanh %c : tensor<1x16x10x10xf32>
  func.return %r, %t : tensor<1x16x10x10xf32>, tensor<1x16x10x10xf32>
}
"""


def inputs_of(executable: dnnc.Executable) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    return [rng.uniform(-1, 1, s.shape).astype(s.dtype) for s in executable.inputs]


@pytest.mark.parametrize("source", ["constants", "weight files"])
def test_a_loaded_model_computes_what_the_compiled_one_does(source: str, tmp_path: Path) -> None:
    compiled = dnnc.compile(BLOCK if source == "constants" else EXAMPLE, save_to=tmp_path)
    assert {p.name for p in tmp_path.iterdir()} == {MANIFEST, PROGRAM, CONSTANTS}
    loaded = dnnc.load(tmp_path)
    assert [(s.name, s.shape, s.dtype) for s in loaded.inputs] == [
        (s.name, s.shape, s.dtype) for s in compiled.inputs
    ]
    inputs = inputs_of(compiled)
    for ours, theirs in zip(loaded.run(inputs), compiled.run(inputs), strict=True):
        np.testing.assert_array_equal(ours, theirs)
    program = json.loads((tmp_path / PROGRAM).read_text())
    with np.load(tmp_path / CONSTANTS) as arrays:  # every payload is in the npz, by its name
        assert sorted(arrays.files) == sorted(program["constants"])
        assert len(arrays.files) >= 2  # the convolution's weights and bias at least


def test_loading_packs_nothing_and_runs_no_pass(tmp_path: Path) -> None:
    dnnc.compile(EXAMPLE, save_to=tmp_path)
    loaded = dnnc.load(tmp_path)
    assert loaded.constants.packs == 0
    assert json.loads((tmp_path / MANIFEST).read_text()) == {
        "format": FORMAT,
        "kind": "static",
        "function": loaded.name,
        **target_identity(),
    }


def test_a_model_saved_for_another_isa_or_version_is_refused(tmp_path: Path) -> None:
    dnnc.compile(BLOCK, save_to=tmp_path)
    manifest = json.loads((tmp_path / MANIFEST).read_text())
    other_isa = "avx2" if manifest["isa"] != "avx2" else "avx512_core"
    (tmp_path / MANIFEST).write_text(json.dumps(manifest | {"isa": other_isa}))
    with pytest.raises(
        DnncError,
        match=rf"compiled for oneDNN .* on {other_isa}; this "
        r"process has oneDNN .* on .*: .* compile the model again",
    ):
        dnnc.load(tmp_path)
    (tmp_path / MANIFEST).write_text(json.dumps(manifest | {"format": 99}))
    with pytest.raises(DnncError, match=f"format 99; this dnnc reads format {FORMAT}"):
        dnnc.load(tmp_path)


def test_a_process_held_to_another_isa_refuses_it(tmp_path: Path) -> None:
    """The real case: the same machine with oneDNN capped to AVX2 is another target (unless
    AVX2 is all this CPU has)."""
    dnnc.compile(BLOCK, save_to=tmp_path)
    if target_identity()["isa"] == "avx2":
        pytest.skip("the effective ISA is avx2 already: no other ISA to hold oneDNN to")
    code = f"import dnnc; dnnc.load({str(tmp_path)!r})"
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={"ONEDNN_MAX_CPU_ISA": "AVX2", "PATH": ""},
    )
    assert done.returncode != 0 and "this process has oneDNN 3.2.0 on avx2" in done.stderr


def test_loading_parses_no_ir(tmp_path: Path) -> None:
    """A load reads program.json: xDSL (0.2 s of imports, and the parse) is never loaded."""
    dnnc.compile(EXAMPLE, save_to=tmp_path)
    code = (
        "import sys, numpy as np, dnnc\n"
        f"e = dnnc.load({str(tmp_path)!r})\n"
        "e.run([np.zeros(s.shape, s.dtype) for s in e.inputs])\n"
        "print(sorted(m for m in sys.modules if m.startswith(('xdsl.ir', 'xdsl.dialects'))))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_what_is_not_a_saved_model_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(DnncError, match="is not a saved dnnc model"):
        dnnc.load(tmp_path)
    dnnc.compile(BLOCK, save_to=tmp_path)
    program = (tmp_path / PROGRAM).read_text()
    (tmp_path / PROGRAM).write_text(program.replace('"calls"', '"kalls"'))
    with pytest.raises(DnncError, match=r"program\.json' is not a dnnc program: KeyError"):
        dnnc.load(tmp_path)
    (tmp_path / PROGRAM).write_text(program)
    (tmp_path / CONSTANTS).write_bytes(b"not a zip")
    with pytest.raises(DnncError, match="cannot read the constants of"):
        dnnc.load(tmp_path)


def test_the_compile_cache_loads_what_it_compiled_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    first = dnnc.compile(BLOCK, cache_dir=cache)
    (entry,) = cache.iterdir()
    inputs = inputs_of(first)

    def no_compiling(*_: object) -> None:
        raise AssertionError("a cached model was compiled again")

    with monkeypatch.context() as patched:
        patched.setattr(dnnc.api, "load_module", no_compiling)
        again = dnnc.compile(BLOCK, cache_dir=cache)
    assert again.constants.packs == 0
    for ours, theirs in zip(again.run(inputs), first.run(inputs), strict=True):
        np.testing.assert_array_equal(ours, theirs)
    dnnc.compile(BLOCK.replace("0.05", "0.07"), cache_dir=cache)  # another model: its own entry
    dnnc.compile(BLOCK, "dnn-optimize", cache_dir=cache, function="block")
    assert len(list(cache.iterdir())) == 3  # the function name is an option too
    (entry / CONSTANTS).write_bytes(b"broken")  # unreadable: compiled again and replaced
    repaired = dnnc.compile(BLOCK, cache_dir=cache)
    np.testing.assert_array_equal(repaired.run(inputs)[0], first.run(inputs)[0])
    assert dnnc.load(entry).constants.packs == 0


def test_the_compile_cache_sees_a_changed_weight_file(tmp_path: Path) -> None:
    np.save(tmp_path / "w.npy", np.full((1, 8, 1, 1), 2.0, np.float32))
    source = tmp_path / "g.mlir"
    source.write_text("""
func.func @f(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %w = dnn.weight "w.npy" : tensor<1x8x1x1xf32>
  %y = dnn.binary mul %x, %w : (tensor<1x8x4x4xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  func.return %y : tensor<1x8x4x4xf32>
}""")
    cache = tmp_path / "cache"
    x = np.ones((1, 8, 4, 4), np.float32)
    assert dnnc.compile(source, cache_dir=cache).run([x])[0].max() == 2.0
    np.save(tmp_path / "w.npy", np.full((1, 8, 1, 1), 3.0, np.float32))
    os.utime(tmp_path / "w.npy", ns=(1, 1))  # a new time even where the clock is coarse
    assert dnnc.compile(source, cache_dir=cache).run([x])[0].max() == 3.0
    assert len(list(cache.iterdir())) == 2


def test_a_bf16_constant_comes_back_as_bf16(tmp_path: Path) -> None:
    """np.save writes a bf16 array as 2-byte voids: the loader takes it back as bf16 (a
    concat, data movement, runs in bf16 on every CPU)."""
    text = """
func.func @f(%x: tensor<2x3xbf16>) -> tensor<4x3xbf16> {
  %c = dnn.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xbf16>
  %y = dnn.concat %x, %c {axis = 0 : i64} : (tensor<2x3xbf16>, tensor<2x3xbf16>) -> tensor<4x3xbf16>
  func.return %y : tensor<4x3xbf16>
}"""
    compiled = dnnc.compile(text, save_to=tmp_path)
    x = np.arange(6, dtype=np.float32).reshape(2, 3).astype(ml_dtypes.bfloat16)
    np.testing.assert_array_equal(dnnc.load(tmp_path).run([x])[0], compiled.run([x])[0])
