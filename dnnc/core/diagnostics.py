"""Diagnostics: one error type with MLIR-style locations, and remarks emitted by passes.

Every user-facing error is a `DnncError` (subclasses: `ModelError` for ONNX models dnnc
cannot read or import, `InputError` for run-time inputs that do not fit) whose text is what
mlir-opt would print:

    f.mlir:12:3: error: 'dnn.reorder' op result layout equals the source layout
      %1 = dnn.reorder %0 : ...
      ^

Ops carry a `FileLineColLoc` of their first token (see `dnnc.ir.parse_module`), or, imported
from ONNX, a `NameLoc` of their node's name (printed `"/layer1/conv/Conv": error: ...`), so a
pass reports a problem with `raise error_at(op, "...")`.

Remarks say why a rewrite did or did not fire. A pass calls `remark(op, "...")`; nothing is
recorded unless a caller is collecting (`with collect_remarks() as remarks:`), so remarks cost
nothing in normal runs. The pass driver (`dnnc.driver.pipelines.run_passes`) tags each remark with
the running pass's name (`running_pass`), which `collect_remarks(passes=...)` filters on.

Warnings (`warn`) tell the user that a request could not be honoured and what was done instead
(a `DnncWarning` through Python's warnings; the CLIs print them as `warning: ...`).
"""

from __future__ import annotations

import json
import sys
import warnings
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TextIO

from xdsl.utils.exceptions import DiagnosticException
from xdsl.utils.lexer import Location

if TYPE_CHECKING:  # the IR is not imported to raise or print an error (a saved model's load)
    from xdsl.ir import Operation


class DnncError(DiagnosticException):
    """A user-facing error: `file:line:col: error: message`, then the source line and a caret.

    `location` is None when there is no place in the input to blame (an unknown pass name); the
    text is then `error: message`. `notes` are printed on the following lines as `note: ...`.
    """

    def __init__(
        self,
        message: str,
        location: Location | None = None,
        snippet: str = "",
        notes: tuple[str, ...] = (),
    ) -> None:
        super().__init__(message)
        self.message = message
        self.location = location
        self.snippet = snippet
        self.notes = notes

    def __str__(self) -> str:
        prefix = f"{self.location}: " if self.location is not None else ""
        lines = [f"{prefix}error: {self.message}"]
        if self.snippet:
            lines.append(self.snippet)
        lines.extend(f"{prefix}note: {note}" for note in self.notes)
        return "\n".join(lines)

    def with_source(self, text: str) -> DnncError:
        """This error with the source line and caret taken from `text` (the file it points into)."""
        if self.location is None or self.snippet:
            return self
        snippet = source_snippet(text, self.location.line, self.location.col)
        return type(self)(self.message, self.location, snippet, self.notes)

    def with_note(self, note: str) -> DnncError:
        """This error with one more note line."""
        return type(self)(self.message, self.location, self.snippet, (*self.notes, note))


class ModelError(DnncError):
    """An ONNX model dnnc cannot read or import (the file, a node, an attribute, a type)."""


class RunTimeValueError(ModelError):
    """An import that needs at compile time an operand the model computes at run time (a
    shape, axes or sizes computed from the graph's inputs). dnnc.compile then compiles the
    model per input shape and value (dnnc.driver.onnx_shapes), if inputs feed such values."""

    own_bytes: int | None = None
    """At most the bytes of constants the failed import's partial IR alone holds (set by an
    import given the large initializers' arrays, dnnc.frontend.onnx: the rest of the model
    and what it copied); None when unknown (``release_failed_import`` then goes by the
    model's size)."""


class RunTimeShapeError(RunTimeValueError):
    """An import that needs at compile time a shape with dimensions known only at run time
    (``?``); dnnc.compile then compiles the model per input shape."""


class InputError(DnncError):
    """Inputs given to ``run`` that do not fit the executable (names, count, dtype, shape)."""


def source_snippet(text: str, line: int, col: int, length: int = 1) -> str:
    """Line `line` (1-based) of `text`, then `length` carets from column `col` ("" if no line)."""
    lines = text.splitlines()
    if not 1 <= line <= len(lines):
        return ""
    source = lines[line - 1]
    width = max(1, min(length, len(source) - col + 1))
    return f"{source}\n{' ' * (col - 1)}{'^' * width}"


class NameLocation(Location):
    """A place known by name only (MLIR's ``loc("name")``: the ONNX node an op was imported
    from), line and column 0; printed as the quoted name."""

    def __str__(self) -> str:
        return json.dumps(self.file)


def make_location(file: str, line: int, col: int) -> Location:
    """A Location from its parts, a NameLocation when line and column are 0."""
    if line == col == 0:
        return NameLocation(file, 0, 0)
    return Location(file, line, col)


def op_location(op: Operation) -> Location | None:
    """The file, line and column `op` was parsed from, or the name of the ONNX node it was
    imported from; None if it has neither."""
    from xdsl.dialects.builtin import FileLineColLoc, NameLoc  # loaded with any op: no cost

    loc = op.location
    if isinstance(loc, NameLoc):
        return NameLocation(loc.desc.data, 0, 0)
    if not isinstance(loc, FileLineColLoc):
        return None
    return Location(loc.filename.data, loc.line.data, loc.column.data)


def location_of(op: Operation) -> str:
    """`op`'s location as `file:line:col`, or `<unknown>`."""
    location = op_location(op)
    return str(location) if location is not None else "<unknown>"


def error_at(op: Operation, message: str) -> DnncError:
    """An error blaming `op`, worded like MLIR's: `'<op name>' op <message>`."""
    return DnncError(f"'{op.name}' op {message}", op_location(op))


class DnncWarning(UserWarning):
    """Something the user asked for that dnnc could not do, and what it did instead."""


def warn(message: str) -> None:
    """Tell the user once (Python's warnings machinery; the CLIs print ``warning: ...``)."""
    warnings.warn(message, DnncWarning, stacklevel=2)


def show_warnings_plainly() -> None:
    """Print DnncWarnings as ``warning: <message>`` lines on stderr (for the CLIs)."""
    default = warnings.showwarning

    def show(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: TextIO | None = None,
        line: str | None = None,
    ) -> None:
        if issubclass(category, DnncWarning):
            print(f"warning: {message}", file=file or sys.stderr)
        else:
            default(message, category, filename, lineno, file, line)

    warnings.showwarning = show


@dataclass(frozen=True)
class Remark:
    """One remark: where, which pass said it (None outside the pass driver), and what."""

    location: str
    pass_name: str | None
    message: str

    def __str__(self) -> str:
        said_by = f"[{self.pass_name}] " if self.pass_name else ""
        return f"{self.location}: remark: {said_by}{self.message}"


@dataclass(frozen=True)
class _RemarkSink:
    passes: frozenset[str] | None
    remarks: list[Remark]


_sink: ContextVar[_RemarkSink | None] = ContextVar("dnnc_remark_sink", default=None)
_pass_name: ContextVar[str | None] = ContextVar("dnnc_pass_name", default=None)


def remark(op: Operation, message: str) -> None:
    """Record that the running pass decided something about `op`, and why."""
    remark_at(location_of(op), message)


def remark_at(location: str, message: str) -> None:
    """Record a decision about what is at `location` (a model, a graph input), and why."""
    sink = _sink.get()
    if sink is None:
        return
    pass_name = _pass_name.get()
    if sink.passes is not None and pass_name not in sink.passes:
        return
    sink.remarks.append(Remark(location, pass_name, message))


@dataclass
class Decisions:
    """The last word on each op a pattern decides about, emitted as remarks once the walk is
    done (a greedy walk visits an op again after every change, which would repeat a remark)."""

    messages: dict[Operation, str] = field(default_factory=dict)

    def emit(self) -> None:
        for op, message in self.messages.items():
            remark(op, message)


@contextmanager
def collect_remarks(passes: Collection[str] | None = None) -> Iterator[list[Remark]]:
    """Collect remarks emitted inside the block, only those of `passes` if given.

    Yields the list the remarks are appended to, in emission order.
    """
    sink = _RemarkSink(None if passes is None else frozenset(passes), [])
    token = _sink.set(sink)
    try:
        yield sink.remarks
    finally:
        _sink.reset(token)


@contextmanager
def running_pass(name: str) -> Iterator[None]:
    """Tag remarks emitted inside the block with pass `name` (used by the pass driver)."""
    token = _pass_name.set(name)
    try:
        yield
    finally:
        _pass_name.reset(token)
