"""dnnc-opt: parse a .mlir file (or import an .onnx model), run a pass pipeline, print the
result (like mlir-opt).

Dialects and passes come from `dnnc.dialects` and `dnnc.driver.registry` only. Every user
mistake (unreadable or malformed input, unknown op or pass, bad pass option, IR that does not
verify) is one diagnostic on stderr, `file:line:col: error: ...` or `error: ...`, and exit status 1.

Reading aids: `--print-ir-after-all` dumps elide constants of more than 16 elements (MLIR's
`dense_resource<__elided__>`; `--print-constants-in-full` keeps them), `--view-graph out.svg`
draws the resulting graph (dnnc.tools.graph_picture), `--list-passes` describes every pass and
its options from the pass docstrings. An input file ending in `.onnx` is imported as
`dnnc-import` would (weights inline, each op at its node: `--mlir-print-debuginfo` shows it).
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.passes import ModulePass
from xdsl.xdsl_opt_main import xDSLOptMain

from dnnc.api import load_module
from dnnc.core.diagnostics import DnncError, Remark, collect_remarks, show_warnings_plainly
from dnnc.core.shapes import DYNAMIC
from dnnc.core.symbols import Guard, SymbolicInt, always_holds, holding, tracing
from dnnc.dialects import get_all_dialects
from dnnc.dialects.dnn import shape_of
from dnnc.driver.pipelines import parse_pipeline, run_passes
from dnnc.driver.registry import get_all_passes
from dnnc.ir.text import (
    DUMP_ELISION_LIMIT,
    parse_module,
    print_module,
    read_source,
    verify_module,
)
from dnnc.lowering.specialize import is_dynamic, specialize
from dnnc.tools.graph_picture import write_picture
from dnnc.tools.pass_reference import pass_reference

SPLIT_MARKER = "// -----"


def split_input(text: str) -> list[tuple[str, int]]:
    """The pieces of `text` between lines that are exactly `// -----`, each with the number of
    lines before it in `text` (so diagnostics keep the original line numbers)."""
    pieces: list[tuple[str, int]] = []
    current: list[str] = []
    start = 0
    for index, line in enumerate(text.splitlines(keepends=True)):
        if line.strip() == SPLIT_MARKER:
            pieces.append(("".join(current), start))
            current, start = [], index + 1
        else:
            current.append(line)
    pieces.append(("".join(current), start))
    return pieces


class DnncOptMain(xDSLOptMain):
    """xdsl-opt's driver with dnnc's registry, MLIR-style flags and diagnostics."""

    passes: tuple[ModulePass, ...]
    remark_passes: frozenset[str] | None

    def __init__(self, args: Sequence[str] | None = None) -> None:
        super().__init__(description="dnnc modular optimizer driver", args=args)

    def register_all_dialects(self) -> None:
        for name, factory in get_all_dialects().items():
            self.ctx.register_dialect(name, factory)

    def register_all_passes(self) -> None:
        for name, factory in get_all_passes().items():
            self.register_pass(name, factory)

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        """dnnc-opt's own flags; xdsl-opt's are not offered, so none is silently ignored."""
        arg_parser.add_argument(
            "input_file", nargs="?", help="input .mlir file or .onnx model (default: stdin)"
        )
        arg_parser.add_argument("-o", "--output-file", help="output file (default: stdout)")
        arg_parser.add_argument(
            "-p",
            "--passes",
            default="",
            help="passes to run: 'a,b{opt=1}'; known: " + ", ".join(self.available_passes),
        )
        arg_parser.add_argument(
            "--pass-pipeline",
            default="",
            help="passes to run, MLIR syntax: 'builtin.module(a,b{opt=1})'",
        )
        arg_parser.add_argument(
            "--print-ir-after-all",
            action="store_true",
            help="print the IR to stderr after each pass",
        )
        arg_parser.add_argument(
            "--split-input-file",
            action="store_true",
            help="process each piece between '// -----' lines on its own",
        )
        arg_parser.add_argument(
            "--verify-diagnostics",
            action="store_true",
            help="print diagnostics to stdout in place of the output and exit 0",
        )
        arg_parser.add_argument(
            "--remarks",
            nargs="?",
            const="",
            default=None,
            metavar="PASS,...",
            help="print remarks to stderr (only those of the given passes, if any)",
        )
        arg_parser.add_argument(
            "--mlir-print-debuginfo",
            "--print-debuginfo",
            dest="print_debuginfo",
            action="store_true",
            help="print op locations",
        )
        arg_parser.add_argument(
            "--print-op-generic", action="store_true", help="print ops in the generic format"
        )
        arg_parser.add_argument(
            "--elide-constants-larger-than",
            type=int,
            metavar="N",
            default=None,
            help="print constants of more than N elements as dense_resource<__elided__> "
            "(the output then cannot be read back; IR dumps elide above "
            f"{DUMP_ELISION_LIMIT} unless this or --print-constants-in-full is given)",
        )
        arg_parser.add_argument(
            "--print-constants-in-full",
            action="store_true",
            help="print every constant in full, in IR dumps too",
        )
        arg_parser.add_argument(
            "--view-graph",
            metavar="PATH",
            help="draw the resulting graph to PATH (.svg; .dot for Graphviz text)",
        )
        arg_parser.add_argument(
            "--trace-sizes",
            metavar="N,...",
            help="trace as dnnc.compile does a dynamic function: its ? input dimensions (in "
            "argument order) become symbols s0, s1, ... of these values, the function is "
            "specialized to them and the passes run on it; each guard they record (a "
            "comparison a size took part in, but those that hold for every size >= 1) is "
            "printed before the module as '// guard @<function> <pass>: <condition>'",
        )
        arg_parser.add_argument(
            "--list-passes",
            action="store_true",
            help="describe every pass and pipeline with its options, and exit",
        )
        arg_parser.add_argument(
            "--allow-unregistered-dialect",
            action="store_true",
            help="accept ops of dialects that are not registered",
        )
        # Read by xDSLOptMain; fixed for dnnc-opt.
        arg_parser.set_defaults(
            target="mlir", disable_verify=False, syntax_highlight=False, print_no_properties=False
        )

    def setup_pipeline(self) -> None:
        """Read `-p` or `--pass-pipeline` and the `--remarks` filter; `DnncError` if invalid."""
        if self.args.passes and self.args.pass_pipeline:
            raise DnncError("use either -p or --pass-pipeline, not both")
        self.passes = parse_pipeline(self.args.passes or self.args.pass_pipeline)
        self.remark_passes = None
        if self.args.remarks:
            names = frozenset(name.strip() for name in self.args.remarks.split(","))
            unknown = sorted(names - self.available_passes.keys())
            if unknown:
                raise DnncError(f"unknown pass '{unknown[0]}' in --remarks")
            self.remark_passes = names

    def run(self) -> None:
        """Process the input (each piece, with --split-input-file); exit 1 if any piece failed."""
        if self.args.list_passes:
            sys.stdout.write(pass_reference())
            return
        path: str | None = self.args.input_file
        if path is not None and path.endswith(".onnx"):
            self._write_output(self._process(lambda: load_module(path)[0]))
            return
        text, filename = self._read_input()
        pieces = split_input(text) if self.args.split_input_file else [(text, 0)]
        outputs: list[str] = []
        failed = False
        for piece, line_offset in pieces:
            try:
                outputs.append(
                    self._process(functools.partial(self._parsed, piece, filename, line_offset))
                )
            except DnncError as error:
                message = str(error.with_source(text))
                if self.args.verify_diagnostics:
                    outputs.append(message + "\n")
                else:
                    print(message, file=sys.stderr)
                    outputs.append("")
                    failed = True
        self._write_output(f"{SPLIT_MARKER}\n".join(outputs))
        if failed:
            raise SystemExit(1)

    def _read_input(self) -> tuple[str, str]:
        path: str | None = self.args.input_file
        if path is None or path == "-":
            return sys.stdin.read(), "<stdin>"
        return read_source(path), path

    def _parsed(self, text: str, filename: str, line_offset: int) -> ModuleOp:
        """One piece of input text, parsed and verified."""
        module = parse_module(text, filename, self.ctx, line_offset=line_offset)
        verify_module(module)
        return module

    def _process(self, load: Callable[[], ModuleOp]) -> str:
        """Load (parse or import) and transform one piece of input; return the printed result."""
        with ExitStack() as stack:
            remarks: list[Remark] = []
            if self.args.remarks is not None:
                remarks = stack.enter_context(collect_remarks(self.remark_passes))
            try:
                module = load()
                report = ""
                if self.args.trace_sizes is None:
                    run_passes(self.ctx, module, self.passes, after_pass=self._after_pass(None))
                else:
                    trace = _Trace(self.args.trace_sizes)
                    with trace.recording(module):
                        run_passes(
                            self.ctx, module, self.passes, after_pass=self._after_pass(trace)
                        )
                    report = trace.report()
                if self.args.view_graph:
                    write_picture(module, self.args.view_graph)
                return report + self._printed(module, self.args.elide_constants_larger_than)
            finally:
                _print_remarks(remarks)

    def _after_pass(self, trace: _Trace | None) -> Callable[[ModulePass, ModuleOp], None] | None:
        """What runs after each pass: the IR dump, the trace's bookkeeping, both or neither."""
        hooks: list[Callable[[ModulePass, ModuleOp], None]] = []
        if self.args.print_ir_after_all:
            hooks.append(self._print_after_pass)
        if trace is not None:
            hooks.append(trace.after_pass)
        if not hooks:
            return None

        def after_pass(module_pass: ModulePass, module: ModuleOp) -> None:
            for hook in hooks:
                hook(module_pass, module)

        return after_pass

    def _print_after_pass(self, module_pass: ModulePass, module: ModuleOp) -> None:
        limit = self.args.elide_constants_larger_than
        if limit is None and not self.args.print_constants_in_full:
            limit = DUMP_ELISION_LIMIT
        print(f"// -----// IR Dump After {module_pass.name} //----- //", file=sys.stderr)
        print(self._printed(module, limit), file=sys.stderr)

    def _printed(self, module: ModuleOp, elide_larger_than: int | None) -> str:
        return print_module(
            module,
            elide_larger_than=elide_larger_than,
            debuginfo=self.args.print_debuginfo,
            generic=self.args.print_op_generic,
        )

    def _write_output(self, output: str) -> None:
        if self.args.output_file is None:
            sys.stdout.write(output)
            return
        try:
            with open(self.args.output_file, "w", encoding="utf-8") as file:
                file.write(output)
        except OSError as error:
            message = f"could not write output file '{self.args.output_file}': {error.strerror}"
            raise DnncError(message) from error


class _Trace:
    """``--trace-sizes``: the dynamic functions of a module specialized to symbolic sizes,
    and the guards each pass records while it runs (dnnc.core.symbols.tracing)."""

    def __init__(self, sizes: str) -> None:
        try:
            self.sizes = [int(size) for size in sizes.split(",")]
        except ValueError:
            raise DnncError(f"--trace-sizes: expected sizes such as 1,16, got '{sizes}'") from None
        if any(size < 1 for size in self.sizes):
            raise DnncError(f"--trace-sizes: sizes must be at least 1, got '{sizes}'")
        self.symbols = 0
        self.guards: dict[str, Guard] = {}
        self.made_by: dict[str, str] = {}
        """The pass (or ``specialize``) that recorded each guard first, by its text."""

    @contextmanager
    def recording(self, module: ModuleOp) -> Iterator[None]:
        """Specialize every dynamic function of `module`, then record guards until the block
        ends (the passes run in it; printing, which compares sizes too, after it)."""
        with tracing() as guards:
            self.guards = guards
            for function in list(module.ops):
                if isinstance(function, func.FuncOp) and is_dynamic(function):
                    self._specialize(module, function)
            self._attribute("specialize")
            yield

    def _specialize(self, module: ModuleOp, function: func.FuncOp) -> None:
        shapes: list[tuple[int, ...]] = []
        count = 0
        for arg in function.body.block.args:
            shape = list(shape_of(arg)) if isinstance(arg.type, TensorType) else []
            for dim, size in enumerate(shape):
                if size == DYNAMIC:
                    if count == len(self.sizes):
                        raise DnncError(
                            f"--trace-sizes: @{function.sym_name.data} has more ? input "
                            f"dimensions than the {len(self.sizes)} sizes given"
                        )
                    shape[dim] = SymbolicInt.symbol(count, self.sizes[count])
                    count += 1
            shapes.append(tuple(shape))
        self.symbols = max(self.symbols, count)
        module.body.block.insert_op_before(specialize(function, shapes), function)
        module.body.block.erase_op(function)

    def _attribute(self, maker: str) -> None:
        for text in self.guards:
            self.made_by.setdefault(text, maker)

    def after_pass(self, module_pass: ModulePass, module: ModuleOp) -> None:
        self._attribute(module_pass.name)

    def report(self) -> str:
        """One comment line per guard that some size >= 1 breaks, in the order recorded."""
        lines = []
        for text, guard in self.guards.items():
            condition = holding(guard)
            if not always_holds(condition, self.symbols):
                lines.append(f"// guard {self.made_by.get(text, '?')}: {condition}\n")
        return "".join(lines)


def _print_remarks(remarks: list[Remark]) -> None:
    for remark in remarks:
        print(remark, file=sys.stderr)


def main(args: Sequence[str] | None = None) -> None:
    """Entry point of the `dnnc-opt` script."""
    show_warnings_plainly()
    try:
        DnncOptMain(args).run()
    except DnncError as error:
        print(error, file=sys.stderr)
        raise SystemExit(1) from None


if __name__ == "__main__":
    main()
