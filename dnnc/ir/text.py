"""The front door to IR text, shared by dnnc-opt and the Python API.

`parse_module` gives every op the location of its first token, and `verify_module` verifies op by
op, so that both parse errors and verifier failures read `file:line:col: error: ...` (see
`dnnc.core.diagnostics.DnncError`) instead of xDSL's location-less exceptions.
"""

import os
import re
from bisect import bisect_right
from dataclasses import dataclass
from io import StringIO

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    AnyFloat,
    ComplexType,
    DenseIntOrFPElementsAttr,
    FileLineColLoc,
    IndexType,
    IntAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
    UnknownLoc,
)
from xdsl.ir import Attribute, Block, Operation
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import DiagnosticException, ParseError
from xdsl.utils.lexer import Location
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind

from dnnc.core.diagnostics import DnncError, error_at, op_location, source_snippet
from dnnc.dialects import get_all_dialects
from dnnc.dialects.dnn import deferred, symbolic

# xDSL 0.74's string-literal pattern, '"(?:[^"\\\n\v\f]+|\\(...))*"', nests a quantifier in a
# quantifier: on a string left unterminated before the end of its line, the regex engine tries
# every split of the line and never returns (found by test_fuzz.py: a deleted quote hung
# dnnc-opt). The same language with one character per repetition matches in linear time.
MLIRLexer._unescaped_characters_regex = re.compile(
    r'"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"'
)


def make_context(*, allow_unregistered: bool = False) -> Context:
    """A context that knows every dialect in `dnnc.driver.registry` (loaded on first use)."""
    ctx = Context(allow_unregistered=allow_unregistered)
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    return ctx


class _FloatBits(AttrParser._TensorLiteralElement):
    """A hexadecimal integer in a dense literal: in a float tensor, MLIR reads it as the
    element's bit pattern (`dense<0xFF800000> : tensor<f32>` is -inf), the form in which
    xDSL prints NaN, infinities and values without a short decimal; xDSL 0.74 reads it as
    the integer's value (4.28e9), so a text round trip changed every such constant."""

    def to_type(
        self, parser: AttrParser, type: AnyFloat | IntegerType | IndexType | ComplexType
    ) -> object:
        if not isinstance(type, AnyFloat):
            return super().to_type(parser, type)
        size = type.compile_time_size
        bits = self.value
        assert isinstance(bits, int)  # a hexadecimal INTEGER_LIT (_parse_tensor_literal_element)
        if self.is_negative or bits >= 1 << (8 * size):
            parser.raise_error(f"{self.span.text} is not the bit pattern of a {type}", self.span)
        return type.unpack(bits.to_bytes(size, "little"), 1)[0]


class _LocatingParser(Parser):
    """xDSL's parser, plus a `FileLineColLoc` on every op that has no explicit `loc(...)`, and
    parse errors turned into `DnncError`s."""

    def __init__(self, ctx: Context, text: str, filename: str, line_offset: int) -> None:
        super().__init__(ctx, text, filename)
        self._text = text
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

    def _parse_tensor_literal_element(self) -> AttrParser._TensorLiteralElement:
        """A literal of a dense attribute, hexadecimal integers kept apart (`_FloatBits`)."""
        element = super()._parse_tensor_literal_element()
        if element.span.text.lstrip("-").startswith(("0x", "0X")):
            return _FloatBits(element.is_negative, element.value, element.span)
        return element

    def error(self, message: str, location: Location, length: int = 1) -> DnncError:
        """A `DnncError` at `location` in this text, with its source line."""
        line = location.line - self._line_offset
        return DnncError(message, location, source_snippet(self._text, line, location.col, length))

    def diagnose(self, error: ParseError) -> DnncError:
        """`error` as a `DnncError`; xDSL's "X is not registered" reworded like MLIR's ("unknown
        op 'X'", naming the dialect if that is what is unknown) and pointed at X, and undefined
        values blamed on their first user rather than on the end of the input."""
        undefined_users = [
            use.operation
            for references in self.forward_ssa_references.values()
            for value in references.values()
            for use in value.uses
        ]
        if error.msg.startswith("values used but not defined") and undefined_users:
            location = op_location(undefined_users[0])
            if location is not None:
                return self.error(error.msg, location)
        match = _NOT_REGISTERED.fullmatch(error.msg)
        if match is None:
            return self.error(error.msg, self.location_at(error.span.start), len(error.span))
        name = match.group(1) or match.group(2)
        start = self._text.rfind(name, 0, error.span.end)
        sigil = self._text[start - 1 : start] if start > 0 else ""
        if sigil not in ("!", "#", '"'):
            sigil = ""  # a custom-format op name
        kind = {"!": "type", "#": "attribute"}.get(sigil, "op")
        message = f"unknown {kind} '{name if kind == 'op' else sigil + name}'"
        dialect = name.split(".")[0]
        if dialect not in self.ctx.registered_dialect_names:
            message += f" (dialect '{dialect}' is not registered)"
        return self.error(message, self.location_at(start - len(sigil)), len(sigil) + len(name))


_NOT_REGISTERED = re.compile(r"Operation (\S+) is not registered|'(\S+)' is not registered")


def read_source(path: str | os.PathLike[str]) -> str:
    """The text of an IR file; `DnncError` if it cannot be read or is not UTF-8."""
    try:
        with open(path, encoding="utf-8") as file:
            return file.read()
    except IsADirectoryError:
        raise DnncError(
            f"'{path}' is a directory: the input is a file (.mlir IR text, or an .onnx model)"
        ) from None
    except OSError as error:
        raise DnncError(f"could not open input file '{path}': {error.strerror}") from None
    except UnicodeDecodeError as error:
        raise DnncError(f"input file '{path}' is not UTF-8: {error.reason}") from None


def _elided_constant(text: str) -> int | None:
    """The offset of the first ELIDED constant outside a `//` comment, if any."""
    for match in re.finditer(re.escape(ELIDED), text):
        line_start = text.rfind("\n", 0, match.start()) + 1
        if "//" not in text[line_start : match.start()]:
            return match.start()
    return None


def parse_module(
    text: str, filename: str, ctx: Context | None = None, *, line_offset: int = 0
) -> ModuleOp:
    """Parse `text` (named `filename` in diagnostics) into a module whose ops carry locations.

    `line_offset` is added to every line number: the lines before `text` in its file, when `text`
    is one piece of a `--split-input-file` input. Top-level ops other than a single
    `builtin.module` are wrapped in one. Raises `DnncError` for any malformed input.
    """
    parser = _LocatingParser(ctx or make_context(), text, filename, line_offset)
    elided = _elided_constant(text)
    if elided is not None:
        raise parser.error(
            "this constant was elided when the IR was printed; print the IR again with its "
            "constants in full (dnnc-opt --print-constants-in-full) to read it back",
            parser.location_at(elided),
            len(ELIDED),
        )
    if parser.at_end():
        return ModuleOp([])  # like mlir-opt: an empty input is an empty module
    try:
        module = parser.parse_module()
    except ParseError as error:
        raise parser.diagnose(error) from error
    except DiagnosticException as error:
        # An attribute's verify() failed while it was being built: blame the current token.
        raise parser.error(str(error), parser.location_at(parser.pos)) from error
    except (NotImplementedError, ValueError, OverflowError, TypeError) as error:
        # xDSL builds some attributes it cannot represent and fails inside (an integer type
        # of a million bits in an array<...>): the input is at fault, at the current token.
        raise parser.error(f"cannot build this: {error}", parser.location_at(parser.pos)) from error
    first_op = module.body.block.first_op
    if isinstance(module.location, UnknownLoc) and first_op is not None:
        module.location = first_op.location  # the implicit module starts with its first op
    return module


ELIDED = "dense_resource<__elided__>"
"""What a constant larger than the elision limit prints as (MLIR's spelling); `parse_module`
refuses it with a clear error rather than reading a wrong value."""

DUMP_ELISION_LIMIT = 16
"""Debug dumps (`--print-ir-after-all`, graph pictures) elide constants with more elements."""


@dataclass(eq=False, repr=False)
class _ElidingPrinter(Printer):
    """xDSL's printer, printing dense constants of more than `limit` elements as ELIDED."""

    limit: int | None = None

    def print_attribute(self, attribute: Attribute) -> None:
        if (
            self.limit is not None
            and isinstance(attribute, DenseIntOrFPElementsAttr)
            and len(attribute) > self.limit
        ):
            self.print_string(f"{ELIDED} : ")
            self.print_attribute(attribute.get_type())
            return
        super().print_attribute(attribute)


def print_module(
    module: ModuleOp,
    *,
    elide_larger_than: int | None = None,
    debuginfo: bool = False,
    generic: bool = False,
) -> str:
    """`module` in dnnc's custom assembly (`generic`: MLIR's generic form), ending in a newline:
    what `parse_module` reads, unless a constant of more than `elide_larger_than` elements was
    printed as ELIDED (like MLIR's `--mlir-elide-elementsattrs-if-larger`)."""
    stream = StringIO()
    printer = _ElidingPrinter(
        stream=stream,
        print_debuginfo=debuginfo,
        print_generic_format=generic,
        limit=elide_larger_than,
    )
    printer.print_op(module)
    return stream.getvalue() + "\n"


def _check_defined_before_use(block: Block) -> None:
    """Every operand defined by an op of `block` is defined before its use (one pass)."""
    defined: set[Operation] = set()
    for op in block.ops:
        for operand in op.operands:
            owner = operand.owner
            if isinstance(owner, Operation) and owner.parent is block and owner not in defined:
                raise error_at(
                    op,
                    f"operand %{operand.name_hint or '?'} is used before it "
                    "is defined (its definition comes later in the block)",
                )
        defined.add(op)


def verify_module(module: ModuleOp) -> None:
    """Verify `module` op by op (outer ops first); raise `DnncError` naming the first bad op.
    Besides each op's own rules: a value defined in the same block is defined before its use
    (xDSL 0.74 does not check dominance; passes would otherwise meet use-before-def)."""
    for op in module.walk():
        for region in op.regions:
            for block in region.blocks:
                _check_defined_before_use(block)
        try:
            op.verify(verify_nested_ops=False)
            if isinstance(op, func.FuncOp):
                symbolic.verify(op)  # the `?` expressions' contract (dnn.symbols ...)
                deferred.verify(op)  # the value arguments' contract (dnn.value_arg ...)
            for region in op.regions:
                for block in region.blocks:
                    if block.first_op is None:
                        block.verify()  # on an empty block: only the missing-terminator check
        except DiagnosticException as error:
            raise error_at(op, str(error)) from error
