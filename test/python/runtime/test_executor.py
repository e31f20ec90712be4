"""dnnc.compile + Executable.run: one small graph per dnn op against the reference
interpreter (tolerance: dnnc.reference.interpreter.compare), input validation, weights,
caller arrays left untouched, poison_freed, profiling and the memory report."""

from __future__ import annotations

import functools
import gc
import mmap
import weakref
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import dnnc
from dnnc.api import find_function, load_module
from dnnc.core.diagnostics import DnncError
from dnnc.dialects.dnn import ConstantOp
from dnnc.dnnl.objects import PrimitiveDesc
from dnnc.driver.pipelines import parse_pipeline, run_passes
from dnnc.ir.text import make_context
from dnnc.reference.interpreter import compare, interpret
from dnnc.runtime.cache import PrimitiveCache
from dnnc.runtime.context import POISON
from dnnc.runtime.executor import Executable
from dnnc.runtime.lowered import program_of
from dnnc.runtime.plan import PrimitiveStep

T4 = "tensor<1x8x6x6xf32>"

GRAPHS: dict[str, str] = {
    "conv2d_bias_post_ops": f"""
func.func @f(%x: {T4}, %acc: tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32> {{
  %w = dnn.constant dense<0.1> : tensor<4x4x3x3xf32>
  %b = dnn.constant dense<[0.5, -0.5, 0.25, 0.0]> : tensor<4xf32>
  %y = dnn.conv2d %x, %w, %b post_args(%acc : tensor<1x4x3x3xf32>) {{strides = array<i64: 2, 2>, pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>, groups = 2 : i64, post_ops = [#dnn.eltwise<relu>, #dnn.sum<0.5>]}} : ({T4}, tensor<4x4x3x3xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  func.return %y : tensor<1x4x3x3xf32>
}}""",
    "matmul_bias_binary_post_op": """
func.func @f(%a: tensor<2x3x5xf32>, %b: tensor<5x4xf32>, %p: tensor<1x1x4xf32>) -> tensor<2x3x4xf32> {
  %bias = dnn.constant dense<[[[1.0, 2.0, 3.0, 4.0]]]> : tensor<1x1x4xf32>
  %y = dnn.matmul %a, %b, %bias post_args(%p : tensor<1x1x4xf32>) {post_ops = [#dnn.binary<mul>]} : (tensor<2x3x5xf32>, tensor<5x4xf32>, tensor<1x1x4xf32>) -> tensor<2x3x4xf32>
  func.return %y : tensor<2x3x4xf32>
}""",
    "inner_product": f"""
func.func @f(%x: {T4}, %w: tensor<10x8x6x6xf32>) -> tensor<1x10xf32> {{
  %y = dnn.inner_product %x, %w : ({T4}, tensor<10x8x6x6xf32>) -> tensor<1x10xf32>
  func.return %y : tensor<1x10xf32>
}}""",
    "pool_avg": f"""
func.func @f(%x: {T4}) -> tensor<1x8x3x3xf32> {{
  %y = dnn.pool avg_exclude_pad %x {{kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads_begin = array<i64: 1, 1>}} : ({T4}) -> tensor<1x8x3x3xf32>
  func.return %y : tensor<1x8x3x3xf32>
}}""",
    "batch_norm": f"""
func.func @f(%x: {T4}, %s: tensor<8xf32>, %h: tensor<8xf32>, %m: tensor<8xf32>) -> {T4} {{
  %v = dnn.constant dense<2.0> : tensor<8xf32>
  %y = dnn.batch_norm %x, %s, %h, %m, %v : ({T4}, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> {T4}
  func.return %y : {T4}
}}""",
    "layer_norm": """
func.func @f(%x: tensor<4x16xf32>, %s: tensor<16xf32>) -> tensor<4x16xf32> {
  %y = dnn.layer_norm %x scale(%s : tensor<16xf32>) : tensor<4x16xf32>
  func.return %y : tensor<4x16xf32>
}""",
    "lrn": f"""
func.func @f(%x: {T4}) -> {T4} {{
  %y = dnn.lrn across_channels %x {{size = 3 : i64}} : {T4}
  func.return %y : {T4}
}}""",
    "softmax_log_softmax": f"""
func.func @f(%x: {T4}) -> ({T4}, {T4}) {{
  %a = dnn.softmax %x {{axis = 1 : i64}} : {T4}
  %b = dnn.log_softmax %x {{axis = -1 : i64}} : {T4}
  func.return %a, %b : {T4}, {T4}
}}""",
    "reduce_drop_dims": f"""
func.func @f(%x: {T4}) -> tensor<8xf32> {{
  %y = dnn.reduce mean %x {{axes = array<i64: 0, 2, 3>, keep_dims = false}} : ({T4}) -> tensor<8xf32>
  func.return %y : tensor<8xf32>
}}""",
    "reduce_to_a_scalar_then_broadcast": f"""
func.func @f(%x: {T4}) -> ({T4}, tensor<f32>) {{
  %m = dnn.reduce mean %x {{axes = array<i64: 0, 1, 2, 3>, keep_dims = false}} : ({T4}) -> tensor<f32>
  %y = dnn.binary sub %x, %m : ({T4}, tensor<f32>) -> {T4}
  func.return %y, %m : {T4}, tensor<f32>
}}""",
    "eltwise_chain_blocked": f"""
func.func @f(%x: {T4}) -> {T4} {{
  %a = dnn.reorder %x : ({T4}) -> tensor<1x8x6x6xf32, #dnn.layout<nChw8c>>
  %b = dnn.eltwise gelu_tanh %a : tensor<1x8x6x6xf32, #dnn.layout<nChw8c>>
  %c = dnn.reorder %b : (tensor<1x8x6x6xf32, #dnn.layout<nChw8c>>) -> {T4}
  func.return %c : {T4}
}}""",
    "binary_broadcast_lhs": """
func.func @f(%a: tensor<1x8x1x1xf32>, %b: tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32> {
  %y = dnn.binary sub %a, %b : (tensor<1x8x1x1xf32>, tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  func.return %y : tensor<1x8x6x6xf32>
}""",
    "sum_scaled": f"""
func.func @f(%a: {T4}, %b: {T4}) -> {T4} {{
  %y = dnn.sum %a, %b, %a {{scales = array<f32: 0.5, 2.0, -1.0>}} : {T4}
  func.return %y : {T4}
}}""",
    "concat_slice_reshape_transpose": f"""
func.func @f(%a: {T4}, %b: {T4}) -> (tensor<3x4x6x2xf32>, tensor<1x16x36xf32>) {{
  %c = dnn.concat %a, %b {{axis = 1 : i64}} : ({T4}, {T4}) -> tensor<1x16x6x6xf32>
  %s = dnn.slice %c {{starts = array<i64: 0, 2, 1, 0>, ends = array<i64: 1, 14, 3, 6>, steps = array<i64: 1, 4, 1, 2>}} : (tensor<1x16x6x6xf32>) -> tensor<1x3x2x3xf32>
  %t = dnn.transpose %s {{permutation = array<i64: 1, 0, 3, 2>}} : (tensor<1x3x2x3xf32>) -> tensor<3x1x3x2xf32>
  %u = dnn.slice %c {{starts = array<i64: 0, 0, 0, 0>, ends = array<i64: 1, 3, 4, 6>}} : (tensor<1x16x6x6xf32>) -> tensor<1x3x4x6xf32>
  %v = dnn.transpose %u {{permutation = array<i64: 1, 0, 2, 3>}} : (tensor<1x3x4x6xf32>) -> tensor<3x1x4x6xf32>
  %w = dnn.reshape %v : (tensor<3x1x4x6xf32>) -> tensor<3x4x6x1xf32>
  %x = dnn.concat %w, %w {{axis = 3 : i64}} : (tensor<3x4x6x1xf32>, tensor<3x4x6x1xf32>) -> tensor<3x4x6x2xf32>
  %r = dnn.reshape %c : (tensor<1x16x6x6xf32>) -> tensor<1x16x36xf32>
  func.return %x, %r : tensor<3x4x6x2xf32>, tensor<1x16x36xf32>
}}""",
    "top_k": """
func.func @f(%x: tensor<3x10xf32>) -> (tensor<3x4xf32>, tensor<3x4xi64>) {
  %v, %i = dnn.top_k %x {k = 4 : i64, largest = false} : (tensor<3x10xf32>) -> (tensor<3x4xf32>, tensor<3x4xi64>)
  func.return %v, %i : tensor<3x4xf32>, tensor<3x4xi64>
}""",
    "i64_and_bool_on_reference_kernels": """
func.func @f(%ids: tensor<2x3xi64>, %m: tensor<2x3xi1>, %x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x6xi64>, tensor<3x2xi64>, tensor<2x6xi1>, tensor<2x3xi64>) {
  %c = dnn.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %s = dnn.binary add %ids, %c : (tensor<2x3xi64>, tensor<2x3xi64>) -> tensor<2x3xi64>
  %f = dnn.cast %s : (tensor<2x3xi64>) -> tensor<2x3xf32>
  %y = dnn.binary mul %f, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %cat = dnn.concat %s, %ids {axis = 1 : i64} : (tensor<2x3xi64>, tensor<2x3xi64>) -> tensor<2x6xi64>
  %t = dnn.transpose %s {permutation = array<i64: 1, 0>} : (tensor<2x3xi64>) -> tensor<3x2xi64>
  %mm = dnn.concat %m, %m {axis = 1 : i64} : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x6xi1>
  func.return %y, %cat, %t, %mm, %ids : tensor<2x3xf32>, tensor<2x6xi64>, tensor<3x2xi64>, tensor<2x6xi1>, tensor<2x3xi64>
}""",
    "cast_bf16_roundtrip": """
func.func @f(%x: tensor<4x8xf32>) -> (tensor<4x8xbf16>, tensor<4x8xf32>) {
  %b = dnn.cast %x : (tensor<4x8xf32>) -> tensor<4x8xbf16>
  %r = dnn.eltwise relu %b : tensor<4x8xbf16>
  %f = dnn.cast %r : (tensor<4x8xbf16>) -> tensor<4x8xf32>
  func.return %b, %f : tensor<4x8xbf16>, tensor<4x8xf32>
}""",
    "returned_intermediate_and_multi_use": f"""
func.func @f(%x: {T4}) -> ({T4}, {T4}, {T4}) {{
  %a = dnn.eltwise tanh %x : {T4}
  %b = dnn.binary mul %a, %a : ({T4}, {T4}) -> {T4}
  %c = dnn.eltwise abs %b : {T4}
  func.return %c, %a, %c : {T4}, {T4}, {T4}
}}""",
}


def random_inputs(executable: dnnc.Executable, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [
        rng.random(spec.shape) < 0.5
        if spec.dtype == np.bool_
        else rng.uniform(-2, 2, spec.shape).astype(spec.dtype)
        for spec in executable.inputs
    ]


def check_against_interpreter(source: str | Path) -> None:
    executable = dnnc.compile(source)
    inputs = random_inputs(executable)
    originals = [a.copy() for a in inputs]
    outputs = executable.run(inputs)
    module, weights_dir = load_module(source)
    expected = interpret(find_function(module), inputs, weights_dir=weights_dir)
    for index, (actual, wanted) in enumerate(zip(outputs, expected, strict=True)):
        comparison = compare(actual, wanted)
        assert comparison.ok, f"output {index}: {comparison}"
    for before, after in zip(originals, inputs):
        assert np.array_equal(before, after), "run wrote into a caller's input array"
    poisoned = executable.run(inputs, poison_freed=True)
    for actual, again in zip(outputs, poisoned):
        assert np.array_equal(actual, again, equal_nan=True)


@pytest.mark.parametrize("name", GRAPHS)
def test_graph_matches_interpreter(name: str) -> None:
    check_against_interpreter(GRAPHS[name])


def test_example_with_weight_file() -> None:
    example = Path(__file__).parents[3] / "examples" / "residual_block.mlir"
    check_against_interpreter(example)


def test_weights_resolved_relative_to_the_file(tmp_path: Path) -> None:
    np.save(tmp_path / "w.npy", np.full((1, 8, 1, 1), 3.0, np.float32))
    (tmp_path / "g.mlir").write_text(f"""
func.func @f(%x: {T4}) -> {T4} {{
  %w = dnn.weight "w.npy" : tensor<1x8x1x1xf32>
  %y = dnn.binary mul %x, %w : ({T4}, tensor<1x8x1x1xf32>) -> {T4}
  func.return %y : {T4}
}}""")
    executable = dnnc.compile(tmp_path / "g.mlir")
    x = np.ones((1, 8, 6, 6), np.float32)
    np.testing.assert_array_equal(executable.run([x])[0], 3 * x)


def test_missing_weight_file_is_located(tmp_path: Path) -> None:
    (tmp_path / "g.mlir").write_text(f"""
func.func @f(%x: {T4}) -> {T4} {{
  %w = dnn.weight "absent.npz", "w" : tensor<1x8x1x1xf32>
  %y = dnn.binary mul %x, %w : ({T4}, tensor<1x8x1x1xf32>) -> {T4}
  func.return %y : {T4}
}}""")
    with pytest.raises(
        DnncError,
        match=r"g\.mlir:3:3: error: 'dnn.weight' op cannot read weight file .*absent\.npz",
    ):
        dnnc.compile(tmp_path / "g.mlir")


@pytest.mark.parametrize(
    ("stored", "message"),
    [
        ({"other": np.zeros((1, 8, 1, 1), np.float32)}, r"has no array 'w' \(keys: other\)"),
        (
            {"w": np.zeros((8,), np.float32)},
            r"has shape \(8,\), the result type .* needs \(1, 8, 1, 1\)",
        ),
        ({"w": np.zeros((1, 8, 1, 1), np.float64)}, r"has element type float64"),
    ],
)
def test_bad_weight_is_located(tmp_path: Path, stored: dict, message: str) -> None:
    np.savez(tmp_path / "w.npz", **stored)
    (tmp_path / "g.mlir").write_text(f"""
func.func @f(%x: {T4}) -> {T4} {{
  %w = dnn.weight "w.npz", "w" : tensor<1x8x1x1xf32>
  %y = dnn.binary mul %x, %w : ({T4}, tensor<1x8x1x1xf32>) -> {T4}
  func.return %y : {T4}
}}""")
    with pytest.raises(DnncError, match=message):
        dnnc.compile(tmp_path / "g.mlir")


def test_bf16_weight_saved_by_numpy(tmp_path: Path) -> None:
    """np.save writes ml_dtypes.bfloat16 as 2-byte voids; they load as bf16."""
    data = np.arange(8, dtype=np.float32).astype(ml_dtypes.bfloat16)
    np.save(tmp_path / "w.npy", data)
    (tmp_path / "g.mlir").write_text("""
func.func @f(%x: tensor<8xbf16>) -> tensor<8xbf16> {
  %w = dnn.weight "w.npy" : tensor<8xbf16>
  %y = dnn.binary add %x, %w : (tensor<8xbf16>, tensor<8xbf16>) -> tensor<8xbf16>
  func.return %y : tensor<8xbf16>
}""")
    executable = dnnc.compile(tmp_path / "g.mlir")
    result = executable.run([np.ones(8, ml_dtypes.bfloat16)])[0]
    np.testing.assert_array_equal(result.astype(np.float32), np.arange(8) + 1)


@pytest.fixture(scope="module")
def relu() -> dnnc.Executable:
    return dnnc.compile(
        GRAPHS["lrn"].replace("dnn.lrn across_channels %x {size = 3 : i64}", "dnn.eltwise relu %x")
    )


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        (
            [],
            r"0 inputs given; expected @f\(x: float32\[1, 8, 6, 6\]\) -> \(result0: float32\[1, 8, 6, 6\]\)",
        ),
        (
            [np.zeros((1, 8, 6, 5), np.float32)],
            r"input 'x' is float32\[1, 8, 6, 5\]; expected @f\(x: float32",
        ),
        ([np.zeros((1, 8, 6, 6), np.float64)], r"input 'x' is float64\[1, 8, 6, 6\]"),
        ({"y": np.zeros((1, 8, 6, 6), np.float32)}, r"missing \['x'\], unknown \['y'\]"),
    ],
)
def test_bad_inputs_name_the_signature(relu: dnnc.Executable, inputs: object, message: str) -> None:
    with pytest.raises(DnncError, match=message):
        relu.run(inputs)


def test_inputs_by_name_outputs_by_name(relu: dnnc.Executable) -> None:
    x = np.linspace(-1, 1, 288, dtype=np.float32).reshape(1, 8, 6, 6)
    result = relu.run({"x": x}, as_dict=True)
    assert list(result) == ["result0"]
    np.testing.assert_array_equal(result["result0"], np.maximum(x, 0))


def test_non_contiguous_input_is_copied(relu: dnnc.Executable) -> None:
    x = np.linspace(-1, 1, 576, dtype=np.float32).reshape(1, 8, 6, 12)[..., ::2]
    assert not x.flags.c_contiguous
    np.testing.assert_array_equal(relu.run([x])[0], np.maximum(x, 0))


def test_outputs_are_fresh_arrays(relu: dnnc.Executable) -> None:
    x = np.ones((1, 8, 6, 6), np.float32)
    first, second = relu.run([x])[0], relu.run([x])[0]
    assert first is not second and not np.shares_memory(first, second)


def test_poison_fills_released_arena_bytes() -> None:
    """After a poisoned run the intermediates' bytes hold the poison, not their values."""
    executable = dnnc.compile(
        GRAPHS["sum_scaled"].replace(
            "func.return %y",
            f"%z = dnn.eltwise tanh %y : {T4}\n  %w = dnn.eltwise abs %z : {T4}\n  func.return %w",
        ),
        pipeline="",
    )  # unfused: %y and %z live in the arena
    assert executable.arena.nbytes > 0
    executable.run(random_inputs(executable), poison_freed=True)
    assert np.all(executable.arena == POISON)


def test_profile_and_memory_report() -> None:
    executable = dnnc.compile(GRAPHS["conv2d_bias_post_ops"])
    times = executable.profile(random_inputs(executable), repeats=3)
    assert [t.step.kind for t in times] == [info.kind for info in executable.plan.step_infos]
    assert any(t.step.kind == "convolution" for t in times)
    assert all(t.seconds > 0 for t in times)
    report = executable.memory_report()
    assert report.lower_bound_bytes <= report.planned_bytes == report.arena_bytes


@pytest.mark.parametrize("alone", [False, True])
def test_profile_order(alone: bool) -> None:
    """In the network every run calls the steps in order; alone, each step's runs are back
    to back: the order of the calls shows which (each step recorded as it is called)."""
    executable = dnnc.compile(GRAPHS["conv2d_bias_post_ops"], pipeline="")
    context = executable._take_context()
    calls: list[int] = []
    context.steps = [
        functools.partial(lambda i, step: (calls.append(i), step()), i, step)
        for i, step in enumerate(context.steps)
    ]
    executable._return_context(context)
    count = len(context.steps)
    times = executable.profile(random_inputs(executable), repeats=2, alone=alone)
    assert len(times) == count > 1
    in_turn = [step for _ in range(3) for step in range(count)]
    assert calls == (sorted(in_turn) if alone else in_turn)


def test_function_must_be_named_when_several() -> None:
    text = GRAPHS["lrn"] + GRAPHS["lrn"].replace("@f", "@g")
    with pytest.raises(DnncError, match=r"2 functions \(@f, @g\): name one"):
        dnnc.compile(text)
    assert dnnc.compile(text, function="g").name == "g"


def test_unknown_pipeline_is_a_dnnc_error() -> None:
    with pytest.raises(DnncError, match="unknown pass 'no-such-pass'"):
        dnnc.compile(GRAPHS["lrn"], pipeline="no-such-pass")


def test_a_cache_hit_creates_no_primitive_descriptor(monkeypatch: pytest.MonkeyPatch) -> None:
    """The exec arguments come from the cached primitive's descriptor, not a new one."""
    cache = PrimitiveCache()
    dnnc.compile(GRAPHS["conv2d_bias_post_ops"], pipeline="", cache=cache)
    created = []
    create = PrimitiveDesc.create.__func__  # type: ignore[attr-defined]
    monkeypatch.setattr(
        PrimitiveDesc,
        "create",
        classmethod(lambda cls, *a, **k: created.append(a[0]) or create(cls, *a, **k)),
    )
    hits = cache.hits
    dnnc.compile(GRAPHS["conv2d_bias_post_ops"], pipeline="", cache=cache)
    assert cache.hits > hits and created == []


def test_memory_report_counts_a_shared_constant_once() -> None:
    """Two equal dnn.constant ops share one packed array: its bytes count once."""
    t = "tensor<1x8x6x6xf32>"
    executable = dnnc.compile(
        f"""
func.func @f(%x: {t}) -> {t} {{
  %c = dnn.constant dense<0.5> : {t}
  %d = dnn.constant dense<0.5> : {t}
  %y = dnn.binary add %x, %c : ({t}, {t}) -> {t}
  %z = dnn.binary mul %y, %d : ({t}, {t}) -> {t}
  func.return %z : {t}
}}""",
        pipeline="",
    )
    assert executable.memory_report().constant_bytes == 8 * 6 * 6 * 4


def _mapping_flags(address: int) -> list[str]:
    """The VmFlags of the mapping of this process that holds ``address`` (Linux)."""
    start = end = -1
    with open("/proc/self/smaps") as smaps:
        for line in smaps:
            head = line.split()[0]
            if "-" in head and not head.endswith(":"):
                start, end = (int(part, 16) for part in head.split("-"))
            elif head == "VmFlags:" and start <= address < end:
                return line.split()[1:]
    raise AssertionError(f"no mapping holds {address:#x}")


def test_packed_weights_are_written_into_small_page_memory() -> None:
    """A weight reordered into oneDNN's blocked layout gets a packed_buffer (anonymous
    memory, page-aligned, which numpy does not advise into 2 MB pages), and the run reads it
    right."""
    t, wt = "tensor<4x64xf32>", "tensor<64x64xf32>"
    executable = dnnc.compile(
        f"""
func.func @f(%x: {t}) -> {t} {{
  %w = dnn.constant dense<0.25> : {wt}
  %y = dnn.matmul %x, %w : ({t}, {wt}) -> {t}
  func.return %y : {t}
}}"""
    )
    packed = [
        storage.array
        for step in executable.plan.steps
        if isinstance(step, PrimitiveStep)
        for binding, storage in zip(step.bindings, step.storages, strict=True)
        if storage.array is not None and not binding.desc.layout().is_plain
    ]
    assert packed  # brgemm packs its weights (AVX-512 and AVX2 alike)
    for array in packed:
        assert isinstance(array.base, memoryview) and isinstance(array.base.obj, mmap.mmap)
        assert array.ctypes.data % mmap.PAGESIZE == 0
        assert "nh" in _mapping_flags(array.ctypes.data)  # not to be backed by 2 MB pages
    x = np.arange(4 * 64, dtype=np.float32).reshape(4, 64) / 64
    np.testing.assert_allclose(executable.run([x])[0], x @ np.full((64, 64), 0.25), rtol=1e-6)


def test_an_executable_keeps_no_ir() -> None:
    """Once built, the plan holds primitives, constants and byte places: the lowered module
    can be freed (what runs needs nothing of it)."""
    module, weights_dir = load_module(GRAPHS["conv2d_bias_post_ops"])
    run_passes(make_context(), module, parse_pipeline("dnn-optimize,dnn-to-onednn"))
    function = find_function(module)
    alive = weakref.ref(function)
    executable = Executable(program_of(function, weights_dir))
    del function, module
    gc.collect()
    assert alive() is None
    assert executable.run(random_inputs(executable))[0].shape == (1, 4, 3, 3)


@pytest.mark.parametrize("name", ["conv2d_bias_post_ops", "matmul_bias_binary_post_op"])
def test_a_consumed_function_gives_up_its_constants_once_bound(name: str) -> None:
    """program_of(consume=True) (dnnc.compile's own IR) drops each dnn.constant's payload
    once the plan has loaded it for every memory a call binds it in, so a compile never holds
    a packed weight twice; the results do not change. Without it (a caller's module, which
    dnnc.compile does not consume) the IR keeps them."""
    outputs, inputs = [], None
    for consume in (False, True):
        module, weights_dir = load_module(GRAPHS[name])
        run_passes(make_context(), module, parse_pipeline("dnn-optimize,dnn-to-onednn"))
        function = find_function(module)
        executable = Executable(program_of(function, weights_dir, consume=consume))
        inputs = inputs or random_inputs(executable)
        outputs.append(executable.run(inputs))
        sizes = [len(op.value.data.data) for op in function.walk() if isinstance(op, ConstantOp)]
        assert sizes and (all(sizes) if not consume else not any(sizes)), sizes
    for plain, consumed in zip(*outputs, strict=True):
        np.testing.assert_array_equal(plain, consumed)


def test_compiling_a_caller_s_module_leaves_its_constants() -> None:
    module, _ = load_module(GRAPHS["conv2d_bias_post_ops"])
    dnnc.compile(module)
    assert all(len(op.value.data.data) for op in module.walk() if isinstance(op, ConstantOp))


def test_large_constants_are_keyed_by_a_digest_not_by_the_ir() -> None:
    """PackedConstants must not keep the IR's copy of a packed weight alive: a large
    dnn.constant is keyed by its type and a digest of its bytes (equal values share one
    entry, different ones never do); a small one by its value."""
    from xdsl.dialects.builtin import BytesAttr, DenseIntOrFPElementsAttr, TensorType, f32

    from dnnc.dialects.dnn import ConstantOp
    from dnnc.runtime.lowered import DIGEST_BYTES, constant_key

    def constant(values: np.ndarray) -> ConstantOp:
        type_ = TensorType(f32, values.shape)
        return ConstantOp(DenseIntOrFPElementsAttr(type_, BytesAttr(values.tobytes())))

    big = np.arange(DIGEST_BYTES, dtype=np.float32)
    other = big.copy()
    other[-1] = -1.0
    a, b, c = constant(big), constant(big.copy()), constant(other)
    assert constant_key(a, None) == constant_key(b, None) != constant_key(c, None)
    assert all(part is not a.value and part is not a.value.data for part in constant_key(a, None))
    small = constant(np.ones(4, np.float32))
    assert constant_key(small, None) == ("constant", small.value)
