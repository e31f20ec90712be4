"""Symbolic sizes: an int that knows how it was computed from the input dimensions.

A ``SymbolicInt`` is an ``int`` (its value for the signature being traced, the *hint*) that
also carries an expression over symbols ``s0, s1, ...`` (the ``?`` dimensions of the inputs).
Arithmetic with ``+ - * // %`` and negation keeps the expression, so sizes computed by plain
Python code (dnnc.core.shapes, the passes, the lowering) stay expressions without that code
knowing. Comparisons answer for the hint and, inside ``tracing``, record a ``Guard``: the
decision taken holds for another signature only if every guard evaluates as it did.

This is how a dynamic function is compiled once (dnnc.driver.dynamic): its input dimensions
become symbols, the pipeline runs once on those sizes, and the lowered program keeps
expressions that give each size for any signature its guards admit.

What leaves the int protocol (``int(x)``, numpy, ctypes, packed attribute arrays) loses the
expression and stays the hint's value: a consumer must evaluate only what it knows to be
built by arithmetic (dnnc.runtime.template says which parts of a program it trusts).
"""

from __future__ import annotations

import contextvars
import operator
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

Values = Sequence[int]
"""The value of every symbol, by index."""

Evaluate = Callable[[Values], int]


class SymbolicInt(int):
    """An int with the expression that computes it from the symbols (module docstring)."""

    text: str
    evaluate: Evaluate

    def __new__(cls, value: int, text: str, evaluate: Evaluate) -> SymbolicInt:
        new = super().__new__(cls, value)
        new.text = text
        new.evaluate = evaluate
        return new

    @staticmethod
    def symbol(index: int, value: int) -> SymbolicInt:
        """Symbol ``s<index>``, whose value for the traced signature is ``value``."""
        return SymbolicInt(value, f"s{index}", operator.itemgetter(index))

    def __repr__(self) -> str:
        return int.__repr__(self)

    __str__ = __repr__

    def __hash__(self) -> int:
        return int.__hash__(self)

    def __add__(self, other: object) -> int:
        return _combine("+", operator.add, self, other)

    def __radd__(self, other: object) -> int:
        return _combine("+", operator.add, other, self)

    def __sub__(self, other: object) -> int:
        return _combine("-", operator.sub, self, other)

    def __rsub__(self, other: object) -> int:
        return _combine("-", operator.sub, other, self)

    def __mul__(self, other: object) -> int:
        return _combine("*", operator.mul, self, other)

    def __rmul__(self, other: object) -> int:
        return _combine("*", operator.mul, other, self)

    def __floordiv__(self, other: object) -> int:
        return _combine("//", operator.floordiv, self, other)

    def __rfloordiv__(self, other: object) -> int:
        return _combine("//", operator.floordiv, other, self)

    def __mod__(self, other: object) -> int:
        return _combine("%", operator.mod, self, other)

    def __rmod__(self, other: object) -> int:
        return _combine("%", operator.mod, other, self)

    def __neg__(self) -> int:
        evaluate = self.evaluate
        return SymbolicInt(-int(self), f"(-{self.text})", lambda v: -evaluate(v))

    def __pos__(self) -> int:
        return self

    def __eq__(self, other: object) -> bool:
        return _compare("==", operator.eq, self, other)

    def __ne__(self, other: object) -> bool:
        return _compare("!=", operator.ne, self, other)

    def __lt__(self, other: object) -> bool:
        return _compare("<", operator.lt, self, other)

    def __le__(self, other: object) -> bool:
        return _compare("<=", operator.le, self, other)

    def __gt__(self, other: object) -> bool:
        return _compare(">", operator.gt, self, other)

    def __ge__(self, other: object) -> bool:
        return _compare(">=", operator.ge, self, other)


def _parts(value: int) -> tuple[str, Evaluate]:
    if isinstance(value, SymbolicInt):
        return value.text, value.evaluate
    constant = int(value)
    return str(constant), lambda _: constant


def _combine(symbol: str, function: Callable[[int, int], int], lhs: object, rhs: object) -> int:
    """``lhs <symbol> rhs`` with the expression kept (NotImplemented for non-ints)."""
    if not isinstance(lhs, int) or not isinstance(rhs, int):
        return NotImplemented
    value = function(int(lhs), int(rhs))
    if symbol in "+-" and not isinstance(rhs, SymbolicInt) and int(rhs) == 0:
        return lhs  # x + 0, x - 0: the same expression
    plain = [int(v) for v in (lhs, rhs) if not isinstance(v, SymbolicInt)]
    if symbol == "*" and 0 in plain:
        return 0  # x * 0: zero for every signature
    if symbol == "*" and not isinstance(rhs, SymbolicInt) and int(rhs) == 1:
        return lhs
    if symbol == "*" and not isinstance(lhs, SymbolicInt) and int(lhs) == 1:
        return rhs
    if symbol == "+" and not isinstance(lhs, SymbolicInt) and int(lhs) == 0:
        return rhs
    (left, eval_left), (right, eval_right) = _parts(lhs), _parts(rhs)
    return SymbolicInt(
        value,
        f"({left}{symbol}{right})",
        lambda v: function(eval_left(v), eval_right(v)),
    )


@dataclass(frozen=True)
class Guard:
    """A comparison a traced decision depended on, and its outcome for the hint."""

    text: str
    holds: Callable[[Values], bool]
    outcome: bool

    def admits(self, values: Values) -> bool:
        return self.holds(values) == self.outcome


_guards: contextvars.ContextVar[dict[str, Guard] | None] = contextvars.ContextVar(
    "dnnc_symbol_guards", default=None
)


@contextmanager
def tracing() -> Iterator[dict[str, Guard]]:
    """Record every comparison of a SymbolicInt made inside the block, keyed by its text."""
    guards: dict[str, Guard] = {}
    token = _guards.set(guards)
    try:
        yield guards
    finally:
        _guards.reset(token)


def _compare(symbol: str, function: Callable[[int, int], bool], lhs: object, rhs: object) -> bool:
    if not isinstance(rhs, int):
        return NotImplemented
    outcome = function(int(lhs), int(rhs))  # type: ignore[call-overload]
    guards = _guards.get()
    if guards is None:
        return outcome
    (left, eval_left), (right, eval_right) = _parts(lhs), _parts(rhs)  # type: ignore[arg-type]
    if left == right:
        return outcome  # the same expression: equal for every signature
    text = f"{left} {symbol} {right}"
    if text not in guards:
        guards[text] = Guard(text, lambda v: function(eval_left(v), eval_right(v)), outcome)
    return outcome


@contextmanager
def untraced() -> Iterator[None]:
    """Comparisons inside the block record no guard: checks of a traced size against a
    copy of the same size that lost its expression (ONNX shape inference's), which decide
    nothing."""
    token = _guards.set(None)
    try:
        yield
    finally:
        _guards.reset(token)


def pinned(value: int) -> int:
    """``value`` as a plain int; while tracing, a SymbolicInt is pinned to its traced value
    by a guard (what uses the plain int holds only for that value)."""
    if not isinstance(value, SymbolicInt):
        return value
    guards = _guards.get()
    hint = int.__int__(value)
    if guards is not None:
        text = f"{value.text} == {hint}"
        evaluate = value.evaluate
        guards.setdefault(text, Guard(text, lambda v: evaluate(v) == hint, True))
    return hint


def evaluate(value: int, values: Values) -> int:
    """``value`` for a signature's symbol values (a plain int is a constant)."""
    return value.evaluate(values) if isinstance(value, SymbolicInt) else value


__all__ = ["Guard", "SymbolicInt", "evaluate", "pinned", "tracing", "untraced"]
