"""The front door to IR text, shared by dnnc-opt and the Python API.

`parse_module` gives every op the location of its first token, and `verify_module` verifies op by
op, so that both parse errors and verifier failures read `file:line:col: error: ...` (see
`dnnc.diagnostics.DnncError`) instead of xDSL's location-less exceptions.
"""

import re
from bisect import bisect_right

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr, UnknownLoc
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.utils.exceptions import DiagnosticException, ParseError
from xdsl.utils.lexer import Location
from xdsl.utils.mlir_lexer import MLIRTokenKind

from dnnc.diagnostics import DnncError, error_at, source_snippet
from dnnc.registry import get_all_dialects


def make_context(*, allow_unregistered: bool = False) -> Context:
    """A context that knows every dialect in `dnnc.registry` (loaded on first use)."""
    ctx = Context(allow_unregistered=allow_unregistered)
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    return ctx


class _LocatingParser(Parser):
    """xDSL's parser, plus a `FileLineColLoc` on every op that has no explicit `loc(...)`."""

    def __init__(self, ctx: Context, text: str, filename: str, line_offset: int) -> None:
        super().__init__(ctx, text, filename)
        self._filename = StringAttr(filename)
        self._line_offset = line_offset
        self._line_starts = [0, *(match.end() for match in re.finditer("\n", text))]

    def location_at(self, position: int) -> Location:
        """File, line (plus the line offset) and column of a position in the text."""
        index = bisect_right(self._line_starts, position) - 1
        column = position - self._line_starts[index] + 1
        return Location(self._filename.data, index + 1 + self._line_offset, column)

    def at_end(self) -> bool:
        """Whether only whitespace and comments are left."""
        return self._current_token.kind == MLIRTokenKind.EOF

    def parse_operation(self) -> Operation:
        start = self.pos
        op = super().parse_operation()
        if isinstance(op.location, UnknownLoc):
            location = self.location_at(start)
            op.location = FileLineColLoc(
                self._filename, IntAttr(location.line), IntAttr(location.col)
            )
        return op


def parse_module(
    text: str, filename: str, ctx: Context | None = None, *, line_offset: int = 0
) -> ModuleOp:
    """Parse `text` (named `filename` in diagnostics) into a module whose ops carry locations.

    `line_offset` is added to every line number: the lines before `text` in its file, when `text`
    is one piece of a `--split-input-file` input. Top-level ops other than a single
    `builtin.module` are wrapped in one. Raises `DnncError` for any malformed input.
    """
    parser = _LocatingParser(ctx or make_context(), text, filename, line_offset)
    if parser.at_end():
        return ModuleOp([])  # like mlir-opt: an empty input is an empty module
    try:
        module = parser.parse_module()
    except ParseError as error:
        message, start, end = _reword_parse_error(error, text, parser.ctx)
        location = parser.location_at(start)
        raise _error_in_text(message, location, text, line_offset, end - start) from error
    except DiagnosticException as error:
        # An attribute's verify() failed while it was being built: blame the current token.
        location = parser.location_at(parser.pos)
        raise _error_in_text(str(error), location, text, line_offset) from error
    first_op = module.body.block.first_op
    if isinstance(module.location, UnknownLoc) and first_op is not None:
        module.location = first_op.location  # the implicit module starts with its first op
    return module


_NOT_REGISTERED = re.compile(r"Operation (\S+) is not registered|'(\S+)' is not registered")


def _reword_parse_error(error: ParseError, text: str, ctx: Context) -> tuple[str, int, int]:
    """The message and span of a parse error; xDSL's "X is not registered" reworded like MLIR's
    ("unknown op 'X'", naming the dialect if that is what is unknown) and pointed at X."""
    match = _NOT_REGISTERED.fullmatch(error.msg)
    if match is None:
        return error.msg, error.span.start, error.span.end
    name = match.group(1) or match.group(2)
    start = text.rfind(name, 0, error.span.end)
    sigil = text[start - 1 : start] if start > 0 else ""
    kind = {"!": "type", "#": "attribute"}.get(sigil, "op")
    if kind == "op":
        sigil = ""
    message = f"unknown {kind} '{sigil}{name}'"
    dialect = name.split(".")[0]
    if dialect not in ctx.registered_dialect_names:
        message += f" (dialect '{dialect}' is not registered)"
    return message, start - len(sigil), start + len(name)


def _error_in_text(
    message: str, location: Location, text: str, line_offset: int, length: int = 1
) -> DnncError:
    snippet = source_snippet(text, location.line - line_offset, location.col, length)
    return DnncError(message, location, snippet)


def verify_module(module: ModuleOp) -> None:
    """Verify `module` op by op (outer ops first); raise `DnncError` naming the first bad op."""
    for op in module.walk():
        try:
            op.verify(verify_nested_ops=False)
            for region in op.regions:
                for block in region.blocks:
                    if block.first_op is None:
                        block.verify()  # on an empty block: only the missing-terminator check
        except DiagnosticException as error:
            raise error_at(op, str(error)) from error
