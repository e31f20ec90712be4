"""Every user mistake is one DnncError (the CLIs: one `error:` line, exit 1), never a
traceback: each case below once gave a Python exception from inside dnnc or a library."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import dnnc
from dnnc.core.diagnostics import DnncError

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "residual_block.mlir"
DYNAMIC = """
func.func @f(%x: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %r = dnn.eltwise relu %x : tensor<?x16xf32>
  func.return %r : tensor<?x16xf32>
}
"""


def relu_model(shape: list[int] | None) -> onnx.ModelProto:
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], capture_output=True, text=True, input=stdin
    )


@pytest.mark.parametrize(
    "content",
    [b"\x08\x07\xff\xff\x12", b"hello, not a model\n", None],
    ids=["random-bytes", "text", "truncated"],
)
def test_an_unreadable_onnx_file(content: bytes | None, tmp_path: Path) -> None:
    if content is None:
        whole = relu_model([2, 3]).SerializeToString()
        content = whole[: len(whole) // 2]
    path = tmp_path / "m.onnx"
    path.write_bytes(content)
    with pytest.raises(dnnc.ModelError, match=r"cannot read ONNX model .*not an ONNX protobuf"):
        dnnc.import_onnx(path)
    result = cli("dnnc.tools.import_onnx", str(path), "-o", str(tmp_path / "m.mlir"))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith("error: cannot read ONNX model")
    with pytest.raises(dnnc.ModelError, match=r"cannot read ONNX model bytes: not an ONNX"):
        dnnc.compile(content)


def test_onnx_model_bytes_compile_like_the_model() -> None:
    """ONNX Runtime takes a model's bytes; so do import_onnx and compile."""
    made = relu_model([2, 3])
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    assert str(dnnc.import_onnx(made.SerializeToString())) == str(dnnc.import_onnx(made))
    (y,) = dnnc.compile(made.SerializeToString()).run({"x": x})
    np.testing.assert_array_equal(y, np.maximum(x, 0))


def test_an_onnx_model_of_another_type_is_refused() -> None:
    with pytest.raises(dnnc.ModelError, match=r"a path, bytes or an onnx\.ModelProto, got int"):
        dnnc.import_onnx(3)  # type: ignore[arg-type]


def test_nan_into_a_kernel_that_drops_it_is_refused_naming_the_pipeline_that_keeps_it() -> None:
    """oneDNN's relu gives 0 for NaN (ONNX Runtime: NaN): the default executable refuses such
    an input (static and dynamic alike) rather than answer wrongly; compiled with
    dnn-propagate-special-values it computes NaN."""
    x = np.array([[1.0, np.nan, -2.0], [np.inf, -np.inf, 0.5]], np.float32)
    static = dnnc.compile(dnnc.import_onnx(relu_model([2, 3])))
    dynamic = dnnc.compile(dnnc.import_onnx(relu_model(["batch", 3])))
    for executable in (static, dynamic):
        with pytest.raises(dnnc.InputError, match=r"input 'x' holds nan at index \[0, 1\]"):
            executable.run({"x": x})
        with pytest.raises(dnnc.InputError, match="dnn-propagate-special-values,dnn-optimize"):
            executable.run({"x": x})
        np.testing.assert_array_equal(executable.run({"x": np.ones((2, 3), np.float32)})[0], 1)
    exact = dnnc.compile(relu_model([2, 3]), "dnn-propagate-special-values,dnn-optimize")
    np.testing.assert_array_equal(exact.run({"x": x})[0], [[1, np.nan, 0], [np.inf, 0, 0.5]])


def test_nan_into_kernels_that_keep_it_runs() -> None:
    graph = helper.make_graph(
        [helper.make_node("Sigmoid", ["x"], ["s"]), helper.make_node("Add", ["s", "x"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])],
    )
    made = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    (y,) = dnnc.compile(made).run({"x": np.array([np.nan, np.inf, 0.0], np.float32)})
    np.testing.assert_array_equal(y, [np.nan, np.inf, 0.5])


def test_an_onnx_input_without_shape_is_refused_at_import() -> None:
    with pytest.raises(dnnc.ModelError, match="graph input 'x' has no shape in the model"):
        dnnc.import_onnx(relu_model(None))


def test_impossible_sizes_are_refused_by_the_verifier() -> None:
    with pytest.raises(DnncError, match=r"holds \d+ bytes, more than the 140737488355328"):
        dnnc.compile(dnnc.import_onnx(relu_model([2**40, 2**40])))


def test_sizes_beyond_the_machine_are_refused_before_a_run_allocates() -> None:
    """[1, 2**40] f32 (4 TiB) is addressable, so it verifies, but no run of it fits in this
    machine's memory (numpy raised its own MemoryError from inside the executor); so is a
    dynamic model given such a shape (a broadcast view holds it in 4 bytes)."""
    message = r"a run of @g\(x: float32\[{}\]\) needs [\d.]+ GiB \(inputs 4096\.0 GiB, "
    with pytest.raises(DnncError, match=message.format("1, 1099511627776")):
        dnnc.compile(relu_model([1, 2**40]))
    executable = dnnc.compile(relu_model(["n", 4]))
    huge = np.broadcast_to(np.zeros((1, 4), np.float32), (2**38, 4))
    with pytest.raises(DnncError, match=message.format("274877906944, 4")):
        executable.run([huge])
    assert executable.run([np.ones((2, 4), np.float32)])[0].shape == (2, 4)  # still usable


def test_dnnc_run_refuses_random_inputs_larger_than_the_machine(tmp_path: Path) -> None:
    path = tmp_path / "dynamic.mlir"
    path.write_text(DYNAMIC)
    result = cli("dnnc.tools.run", str(path), "--shape", f"x={2**40}x16")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith("error: drawing dnnc-run's random inputs needs"), result.stderr


def test_compiling_a_directory_says_it_is_one(tmp_path: Path) -> None:
    with pytest.raises(
        DnncError, match=re.escape(f"'{tmp_path}' is a directory: the input is a file")
    ):
        dnnc.compile(str(tmp_path))
    with pytest.raises(DnncError, match="could not open input file 'no/such/model'"):
        dnnc.compile("no/such/model")


def test_dnnc_run_help_names_both_inputs() -> None:
    result = cli("dnnc.tools.run", "--help")
    assert "Compile a .mlir file or an .onnx model and run it" in result.stdout
    assert "input .mlir file or .onnx model" in result.stdout


@pytest.mark.parametrize(
    "inputs", [None, 3, "x", np.zeros((2, 3), np.float32)], ids=["none", "int", "str", "bare-array"]
)
def test_run_with_something_that_is_no_inputs(inputs: object) -> None:
    executable = dnnc.compile(dnnc.import_onnx(relu_model([2, 3])))
    with pytest.raises(dnnc.InputError, match="inputs must be a dict of arrays by name or a list"):
        executable.run(inputs)  # type: ignore[arg-type]


def test_a_lowered_module_is_refused_by_dnn_passes_and_runs_without_them(
    tmp_path: Path,
) -> None:
    lowered = cli("dnnc.tools.opt", str(EXAMPLE), "-p", "dnn-to-onednn")
    assert lowered.returncode == 0, lowered.stderr
    path = tmp_path / "lowered.mlir"
    path.write_text(lowered.stdout)
    weights = EXAMPLE.with_suffix(".npz")
    (tmp_path / weights.name).write_bytes(weights.read_bytes())
    for args in (
        ["dnnc.tools.opt", str(path), "-p", "dnn-optimize"],
        ["dnnc.tools.opt", str(EXAMPLE), "-p", "dnn-to-onednn,dnn-optimize"],
    ):
        result = cli(*args)
        assert result.returncode == 1 and "Traceback" not in result.stderr
        assert "runs on the dnn dialect, but @residual_block is lowered" in result.stderr
    with pytest.raises(DnncError, match="is lowered to the onednn dialect already"):
        dnnc.compile(path)
    ran = cli("dnnc.tools.run", str(path), "--pipeline", "")
    assert ran.returncode == 0 and "result0: float32[1, 16, 16, 16]" in ran.stdout, ran.stderr


def test_use_before_definition_is_a_verifier_error() -> None:
    text = """
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = dnn.eltwise relu %b : tensor<4xf32>
  %b = dnn.eltwise tanh %x : tensor<4xf32>
  func.return %a : tensor<4xf32>
}"""
    with pytest.raises(DnncError, match=r"3:3: error: .*operand %b is used before it is defined"):
        dnnc.compile(text)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--seed", "-1"], "error: --seed needs a number >= 0, got -1"),
        (["--shape", "x=3xa"], "error: --shape 'x=3xa': expected NAME=DxDx"),
        (["--threads", "0"], "error: --threads needs a positive number, got 0"),
    ],
)
def test_dnnc_run_option_errors(args: list[str], message: str) -> None:
    result = cli("dnnc.tools.run", str(EXAMPLE), *args)
    assert result.returncode == 1 and result.stderr.startswith(message), result.stderr


def test_dnnc_run_on_a_dynamic_function(tmp_path: Path) -> None:
    path = tmp_path / "dynamic.mlir"
    path.write_text(DYNAMIC)
    missing = cli("dnnc.tools.run", str(path))
    assert missing.returncode == 1
    assert missing.stderr.startswith("error: input x: float32[?, 16] has ? dimensions: give")
    wrong = cli("dnnc.tools.run", str(path), "--shape", "x=3x15")
    assert wrong.stderr.startswith("error: --shape x=3x15 does not fit input x: float32[?, 16]")
    ran = cli("dnnc.tools.run", str(path), "--shape", "x=3x16", "--check", "--profile")
    assert ran.returncode == 0, ran.stderr
    assert "result0: float32[3, 16]" in ran.stdout and "check result0" in ran.stdout


def test_dnnc_run_into_a_closed_pipe_ends_quietly() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "dnnc.tools.run", str(EXAMPLE), "--profile", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.read(1)
    process.stdout.close()  # the reader goes away before the output is written
    stderr = process.stderr.read().decode()
    assert process.wait() in (0, 1) and "Traceback" not in stderr and "Broken pipe" not in stderr


def test_dnnc_run_saves_outputs_by_name_and_reports_percentiles(tmp_path: Path) -> None:
    result = cli(
        "dnnc.tools.run",
        str(EXAMPLE),
        "--benchmark",
        "5",
        "--threads",
        "1",
        "--save-outputs",
        str(tmp_path / "out"),
        "--json",
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert {"median_ms", "p90_ms", "p99_ms"} <= set(report["benchmark"])
    files = json.loads((tmp_path / "out" / "outputs.json").read_text())
    saved = np.load(tmp_path / "out" / files["result0"])
    assert list(saved.shape) == report["outputs"][0]["shape"]
    assert float(saved.max()) == pytest.approx(report["outputs"][0]["max"])


def test_the_error_classes_are_one_family() -> None:
    """Catching dnnc.DnncError catches every user mistake; the subclasses say which kind."""
    assert issubclass(dnnc.ModelError, DnncError) and issubclass(dnnc.InputError, DnncError)
    assert dnnc.DnncError is DnncError
    executable = dnnc.compile(dnnc.import_onnx(relu_model([2, 3])))
    with pytest.raises(dnnc.InputError, match="input 'x' is float64"):
        executable.run([np.zeros((2, 3))])
    with pytest.raises(dnnc.InputError, match="missing \\['x'\\]"):
        executable.run({"y": np.zeros((2, 3), np.float32)})
