"""dnnc-opt's front door from Python: located parsing and verification (dnnc.ir.text), diagnostics and
remarks (dnnc.core.diagnostics), the pass driver (dnnc.driver.pipelines) and `dnnc.tools.opt.main`.
The command line itself is tested by the lit tests in test/CLI."""

from dataclasses import dataclass
from pathlib import Path

import onnx
import pytest
from onnx import helper
from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i32, i64
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from dnnc.core.diagnostics import DnncError, collect_remarks, location_of, remark
from dnnc.driver import registry
from dnnc.driver.pipelines import PipelinePass, parse_pipeline, run_passes
from dnnc.ir.text import make_context, parse_module, verify_module
from dnnc.tools.opt import main, split_input

GOOD = """\
func.func @add_one(%a: i32) -> i32 {
  %c = arith.constant 1 : i32
  %x = arith.addi %a, %c : i32
  func.return %x : i32
}
"""


@dataclass(frozen=True)
class RemarkOnFunctionsPass(ModulePass):
    """Says one thing about every function (a stand-in for a pass explaining its decisions)."""

    name = "test-remark-on-functions"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in op.walk():
            if isinstance(function, func.FuncOp):
                remark(function, f"looked at @{function.sym_name.data}")


@dataclass(frozen=True)
class BreakReturnTypePass(ModulePass):
    """Leaves invalid IR behind: every function returns an i64 constant."""

    name = "test-break-return-type"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for ret in list(op.walk()):
            if isinstance(ret, func.ReturnOp):
                constant = arith.ConstantOp(IntegerAttr(0, i64))
                ret.parent_block().insert_op_before(constant, ret)
                ret.operands = [constant.result]


@dataclass(frozen=True)
class RefusePass(ModulePass):
    """Fails the way STYLE.md asks passes to fail on bad input."""

    name = "test-refuse"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        raise PassFailedException("cannot handle this module")


def _located(op_text: str, module: ModuleOp) -> str:
    return next(location_of(op) for op in module.walk() if op.name == op_text)


def test_parsed_ops_carry_the_location_of_their_first_token() -> None:
    module = parse_module(GOOD, "f.mlir")
    assert _located("func.func", module) == "f.mlir:1:1"
    assert _located("arith.addi", module) == "f.mlir:3:3"
    assert _located("builtin.module", module) == "f.mlir:1:1"
    shifted = parse_module(GOOD, "f.mlir", line_offset=10)
    assert _located("func.return", shifted) == "f.mlir:14:3"


def test_explicit_locations_are_kept() -> None:
    module = parse_module(GOOD.replace(": i32\n  %x", ': i32 loc("g.py":7:5)\n  %x'), "f.mlir")
    constant = next(op for op in module.walk() if isinstance(op, arith.ConstantOp))
    assert location_of(constant) == "g.py:7:5"


def test_ops_built_in_python_have_unknown_location() -> None:
    assert location_of(arith.ConstantOp(IntegerAttr(1, i32))) == "<unknown>"


def test_parse_error_reads_like_mlir() -> None:
    with pytest.raises(DnncError) as caught:
        parse_module(GOOD.replace("arith.constant 1", "arith.constant"), "f.mlir", line_offset=4)
    assert str(caught.value) == (
        "f.mlir:6:23: error: attribute expected\n"
        "  %c = arith.constant : i32\n"
        "                      ^"
    )


def test_verifier_error_names_the_op_and_its_line() -> None:
    text = GOOD.replace("func.return %x : i32", "func.return %c, %c : i32, i32")
    module = parse_module(text, "f.mlir")
    with pytest.raises(DnncError) as caught:
        verify_module(module)
    error = caught.value
    assert str(error).startswith("f.mlir:4:3: error: 'func.return' op ")
    assert "\n" not in str(error)
    assert str(error.with_source(text)).endswith("\n  func.return %c, %c : i32, i32\n  ^")


def test_error_without_location_and_with_notes() -> None:
    error = DnncError("unknown pass 'x'").with_note("see --help")
    assert str(error) == "error: unknown pass 'x'\nnote: see --help"


def test_run_passes_expands_pipelines_for_each_step() -> None:
    @dataclass(frozen=True)
    class CleanupPipeline(PipelinePass):
        """cse then dce."""

        name = "test-cleanup"
        steps = ("cse", "dce")

    seen: list[str] = []
    module = parse_module(GOOD, "f.mlir")
    ctx = make_context()
    run_passes(ctx, module, (CleanupPipeline(),), after_pass=lambda p, _: seen.append(p.name))
    assert seen == ["cse", "dce"]
    CleanupPipeline().apply(ctx, module)  # also usable as a plain pass


def test_pipeline_spec_forms_and_errors() -> None:
    assert parse_pipeline("builtin.module(cse, dce)") == parse_pipeline("cse,dce")
    assert parse_pipeline("dnn-optimize") == parse_pipeline("builtin.module(dnn-optimize)")
    with pytest.raises(
        DnncError, match=r"^error: unknown pass 'cse2' \(known: canonicalize, .*\bcse, dce,"
    ):
        parse_pipeline("cse2")


@dataclass(frozen=True)
class WithOptionPass(ModulePass):
    """Has one typed option, `max-post-ops`."""

    name = "test-with-option"
    max_post_ops: int = 4

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        return


def test_pass_options_are_typed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(registry._DNNC_PASSES, "test-with-option", f"{__name__}:WithOptionPass")
    assert parse_pipeline("test-with-option{max-post-ops=2}") == (WithOptionPass(2),)
    with pytest.raises(DnncError, match=r"^error: invalid options for pass 'test-with-option': "):
        parse_pipeline("test-with-option{max-post-ops=many}")


def test_invalid_ir_after_a_pass_names_the_pass() -> None:
    module = parse_module(GOOD, "f.mlir")
    with pytest.raises(DnncError) as caught:
        run_passes(make_context(), module, (BreakReturnTypePass(),))
    assert str(caught.value).startswith("f.mlir:4:3: error: 'func.return' op ")
    assert str(caught.value).endswith(
        "f.mlir:4:3: note: the IR does not verify after pass 'test-break-return-type'"
    )


def test_verified_once_invalid_ir_names_the_passes_and_the_variable() -> None:
    """dnnc.compile verifies at the end of a pipeline unless DNNC_VERIFY_EACH=1: broken IR is
    still refused, naming every pass that ran and how to find the one that broke it."""
    module = parse_module(GOOD, "f.mlir")
    with pytest.raises(DnncError) as caught:
        run_passes(
            make_context(), module, (BreakReturnTypePass(), WithOptionPass()), verify_each=False
        )
    assert str(caught.value).endswith(
        "note: the IR does not verify after passes 'test-break-return-type,test-with-option' "
        "(set DNNC_VERIFY_EACH=1 to verify after each)"
    )


def test_a_failing_pass_becomes_a_dnnc_error() -> None:
    module = parse_module(GOOD, "f.mlir")
    with pytest.raises(DnncError, match="pass 'test-refuse' failed: cannot handle this module"):
        run_passes(make_context(), module, (RefusePass(),))


def test_remarks_are_tagged_with_their_pass_and_filtered() -> None:
    module = parse_module(GOOD, "f.mlir")
    with collect_remarks() as remarks:
        run_passes(make_context(), module, (RemarkOnFunctionsPass(),))
    assert [str(r) for r in remarks] == [
        "f.mlir:1:1: remark: [test-remark-on-functions] looked at @add_one"
    ]
    assert remarks[0].pass_name == "test-remark-on-functions"
    with collect_remarks(passes=["cse"]) as filtered:
        run_passes(make_context(), module, (RemarkOnFunctionsPass(),))
    assert filtered == []
    run_passes(make_context(), module, (RemarkOnFunctionsPass(),))  # no sink: dropped quietly


def test_split_input_keeps_line_numbers() -> None:
    text = "a\n// -----\nb\nc\n  // -----  \nd\n// CHECK: // -----\n"
    assert split_input(text) == [("a\n", 0), ("b\nc\n", 2), ("d\n// CHECK: // -----\n", 5)]


def _run(args: list[str]) -> int:
    try:
        main(args)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    return 0


def test_cli_prints_remarks_of_the_requested_passes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(
        registry._DNNC_PASSES, "test-remark-on-functions", f"{__name__}:RemarkOnFunctionsPass"
    )
    source = tmp_path / "f.mlir"
    source.write_text(GOOD)
    passes = "-p=test-remark-on-functions,cse"
    assert _run([str(source), passes, "--remarks"]) == 0
    assert (
        f"{source}:1:1: remark: [test-remark-on-functions] looked at @add_one"
        in capsys.readouterr().err
    )
    assert _run([str(source), passes, "--remarks=test-remark-on-functions"]) == 0
    assert "remark: [test-remark-on-functions] looked at @add_one" in capsys.readouterr().err
    assert _run([str(source), passes, "--remarks=cse"]) == 0
    assert "remark" not in capsys.readouterr().err
    assert _run([str(source), passes]) == 0
    assert "remark" not in capsys.readouterr().err


def test_cli_exit_status(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "f.mlir"
    source.write_text(GOOD)
    assert _run([str(source), "-p", "cse"]) == 0
    assert "func.func @add_one" in capsys.readouterr().out
    assert _run([str(tmp_path / "missing.mlir")]) == 1
    assert "error: could not open input file" in capsys.readouterr().err
    source.write_text(GOOD.replace("i32\n}", "i64\n}"))
    assert _run([str(source)]) == 1
    assert _run([str(source), "--verify-diagnostics"]) == 0


def test_cli_imports_an_onnx_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`dnnc-opt model.onnx -p ...` imports the model (it read the file as text and failed on
    its first non-UTF-8 byte); --mlir-print-debuginfo shows each op's node; an import error is
    one diagnostic and exit status 1."""
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="act:0")]
    x = helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2, 3])
    path = tmp_path / "m.onnx"
    onnx.save(helper.make_model(helper.make_graph(nodes, "g", [x], [y])), path)
    assert _run([str(path), "-p", "dnn-optimize", "--mlir-print-debuginfo"]) == 0
    assert "dnn.eltwise relu %x {dnn.kernel" in (out := capsys.readouterr().out)
    assert 'loc("act:0")' in out
    nodes[0] = helper.make_node("Hardmax", ["x"], ["y"], name="hm")
    onnx.save(helper.make_model(helper.make_graph(nodes, "g", [x], [y])), path)
    assert _run([str(path)]) == 1
    assert "error: unsupported ONNX op 'Hardmax' (node 'hm'" in capsys.readouterr().err
