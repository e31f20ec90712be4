"""Symbolic sizes: an int that knows how it was computed from the input dimensions.

A ``SymbolicInt`` is an ``int`` (its value for the signature being traced, the *hint*) that
also carries an expression over symbols ``s0, s1, ...`` (the ``?`` dimensions of the inputs).
Arithmetic with ``+ - * // %`` and negation keeps the expression, so sizes computed by plain
Python code (dnnc.core.shapes, the passes, the lowering) stay expressions without that code
knowing. Comparisons answer for the hint and, inside ``tracing``, record a ``Guard``: the
decision taken holds for another signature only if every guard evaluates as it did.

Each expression built of ``+ - *``, negation and exact division by a constant also keeps its
*polynomial* (``Polynomial``: coefficient per product of symbols). Two expressions with the
same polynomial are equal for every signature whatever their texts (``((s0*s1)*64)//64`` and
``s0*s1``), so comparing them records no guard; an expression whose polynomial is one symbol
or a constant is that symbol or constant (``(s1+s0)-s1`` is ``s0``).

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
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

Values = Sequence[int]
"""The value of every symbol, by index."""

Evaluate = Callable[[Values], int]

Polynomial = dict[tuple[int, ...], int]
"""An expression's normal form: the coefficient (never 0) of each monomial, a monomial being
the sorted indices of the symbols it multiplies (``()`` for the constant term)."""


def _constant(value: int) -> Polynomial:
    return {(): value} if value else {}


def _added(a: Polynomial, b: Polynomial, sign: int = 1) -> Polynomial:
    total = dict(a)
    for monomial, coefficient in b.items():
        total[monomial] = total.get(monomial, 0) + sign * coefficient
    return {m: c for m, c in total.items() if c}


def _multiplied(a: Polynomial, b: Polynomial) -> Polynomial:
    product: Polynomial = {}
    for ma, ca in a.items():
        for mb, cb in b.items():
            monomial = tuple(sorted(ma + mb))
            product[monomial] = product.get(monomial, 0) + ca * cb
    return {m: c for m, c in product.items() if c}


def _divided(a: Polynomial, divisor: int) -> Polynomial | None:
    """``a // divisor`` when every coefficient is a multiple of ``divisor``: then the value is
    a multiple of it for any integer symbols, the division exact (None otherwise)."""
    if divisor == 0 or any(c % divisor for c in a.values()):
        return None
    return {m: c // divisor for m, c in a.items()}


def _polynomial(symbol: str, lhs: Polynomial | None, rhs: Polynomial | None) -> Polynomial | None:
    """The polynomial of ``lhs <symbol> rhs`` (None: not a polynomial, or not known)."""
    if lhs is None or rhs is None:
        return None
    if symbol == "+":
        return _added(lhs, rhs)
    if symbol == "-":
        return _added(lhs, rhs, -1)
    if symbol == "*":
        return _multiplied(lhs, rhs)
    constant = set(rhs) <= {()}
    divisor = rhs.get((), 0)
    if symbol == "//" and constant:
        return _divided(lhs, divisor)
    if symbol == "%" and constant and _divided(lhs, divisor) is not None:
        return {}  # a multiple of the divisor for every signature
    return None


class SymbolicInt(int):
    """An int with the expression that computes it from the symbols (module docstring)."""

    text: str
    evaluate: Evaluate
    negated: SymbolicInt | None
    """The expression this one is the negation of (``-x`` keeps ``x``), if it is one."""
    polynomial: Polynomial | None
    """Its normal form (module docstring); None when it is not a polynomial (``s0 // s1``)."""
    bound: tuple[int, int | None] | None
    """``(smallest, _lowest(self, smallest))`` once asked (``_lowest``), else None."""

    def __new__(
        cls, value: int, text: str, evaluate: Evaluate, polynomial: Polynomial | None = None
    ) -> SymbolicInt:
        new = super().__new__(cls, value)
        new.text = text
        new.evaluate = evaluate
        new.negated = None
        new.polynomial = polynomial
        new.bound = None
        return new

    @staticmethod
    def symbol(index: int, value: int) -> SymbolicInt:
        """Symbol ``s<index>``, whose value for the traced signature is ``value``."""
        return SymbolicInt(value, f"s{index}", operator.itemgetter(index), {(index,): 1})

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
        if self.negated is not None:
            return self.negated  # -(-x): x
        evaluate = self.evaluate
        polynomial = None if self.polynomial is None else _added({}, self.polynomial, -1)
        result = SymbolicInt(-int(self), f"(-{self.text})", lambda v: -evaluate(v), polynomial)
        result.negated = self
        return result

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


def polynomial_of(value: int) -> Polynomial | None:
    """``value``'s normal form (a plain int: a constant)."""
    return value.polynomial if isinstance(value, SymbolicInt) else _constant(int(value))


def same_value(a: int, b: int) -> bool:
    """Whether ``a`` and ``b`` are equal for every signature: equal plain ints, the same
    expression or the same polynomial (no guard recorded)."""
    if not isinstance(a, SymbolicInt) and not isinstance(b, SymbolicInt):
        return int(a) == int(b)
    if isinstance(a, SymbolicInt) and isinstance(b, SymbolicInt) and a.text == b.text:
        return True
    polynomial = polynomial_of(a)
    return polynomial is not None and polynomial == polynomial_of(b)


def _simplest(value: int, polynomial: Polynomial) -> int | None:
    """The constant or the symbol ``polynomial`` is, if it is one (``value``: the hint)."""
    if set(polynomial) <= {()}:
        return polynomial.get((), 0)
    if len(polynomial) == 1:
        [(monomial, coefficient)] = polynomial.items()
        if coefficient == 1 and len(monomial) == 1:
            return SymbolicInt.symbol(monomial[0], value)
    return None


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
    if symbol == "//" and not isinstance(rhs, SymbolicInt) and int(rhs) == 1:
        return lhs
    polynomial = _polynomial(symbol, polynomial_of(lhs), polynomial_of(rhs))
    simplest = None if polynomial is None else _simplest(value, polynomial)
    if simplest is not None:
        return simplest  # (s1+s0)-s1: s0, for every signature
    (left, eval_left), (right, eval_right) = _parts(lhs), _parts(rhs)
    return SymbolicInt(
        value,
        f"({left}{symbol}{right})",
        lambda v: function(eval_left(v), eval_right(v)),
        polynomial,
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
_smallest: contextvars.ContextVar[int | None] = contextvars.ContextVar(
    "dnnc_symbol_smallest", default=None
)


@contextmanager
def tracing(smallest: int | None = None) -> Iterator[dict[str, Guard]]:
    """Record every comparison of a SymbolicInt made inside the block, keyed by its text.
    ``smallest`` (>= 0): the least value a symbol has in any signature the guards will be
    checked for (a DynamicExecutable's smallest size); a comparison of an expression with a
    constant that comes out the same for every such value records no guard (``_decided``:
    a size against the ``?`` marker -1 or xDSL's INT64_MIN, ``s0*s1 < 0``; with 1,
    ``s0 == 0``). None: every comparison of a SymbolicInt is a guard."""
    guards: dict[str, Guard] = {}
    token = _guards.set(guards)
    least = _smallest.set(smallest)
    try:
        yield guards
    finally:
        _smallest.reset(least)
        _guards.reset(token)


def _lowest(value: SymbolicInt, smallest: int) -> int | None:
    """The least value of ``value`` when every symbol is ``smallest`` (>= 0) or more: its
    value at ``smallest`` when its polynomial has no negative coefficient (it then grows
    with each symbol); None when that argument does not bound it."""
    if value.bound is not None and value.bound[0] == smallest:
        return value.bound[1]
    polynomial = value.polynomial
    least = None
    if polynomial is not None and all(c >= 0 for c in polynomial.values()):
        least = sum(c * smallest ** len(m) for m, c in polynomial.items())
    value.bound = (smallest, least)
    return least


def _decided(symbol: str, lhs: SymbolicInt, rhs: int, smallest: int) -> bool:
    """Whether ``lhs <symbol> rhs`` (``rhs`` a plain int) comes out the same for every value
    ``smallest`` or more of the symbols: ``rhs`` is below ``lhs``'s least value (``_lowest``),
    or equal to it for ``<`` and ``>=``."""
    least = _lowest(lhs, smallest)
    if least is None:
        return False
    return rhs < least or (rhs == least and symbol in ("<", ">="))


def _compare(symbol: str, function: Callable[[int, int], bool], lhs: object, rhs: object) -> bool:
    if not isinstance(rhs, int):
        return NotImplemented
    outcome = function(int(lhs), int(rhs))  # type: ignore[call-overload]
    guards = _guards.get()
    if guards is None:
        return outcome
    smallest = _smallest.get()
    if (
        smallest is not None
        and isinstance(lhs, SymbolicInt)
        and not isinstance(rhs, SymbolicInt)
        and _decided(symbol, lhs, int(rhs), smallest)
    ):
        return outcome  # the same for every signature the guards are checked for
    if same_value(lhs, rhs):  # type: ignore[arg-type]
        return outcome  # the same polynomial: equal for every signature
    (left, eval_left), (right, eval_right) = _parts(lhs), _parts(rhs)  # type: ignore[arg-type]
    text = f"{left} {symbol} {right}"
    if text not in guards:
        guards[text] = Guard(text, lambda v: function(eval_left(v), eval_right(v)), outcome)
    return outcome


def is_tracing() -> bool:
    """Whether comparisons record guards now (inside ``tracing``, outside ``untraced``)."""
    return _guards.get() is not None


def separate(value: int, size: int) -> None:
    """Record the guard ``value == size`` while tracing: what was decided for the traced
    value holds only for values on its side of that comparison (``size`` itself, or every
    other size), as when the decision compared them."""
    if isinstance(value, SymbolicInt):
        _compare("==", operator.eq, value, size)


_SYMBOL = re.compile(r"s(\d+)")


def symbols_read(value: int) -> set[int]:
    """The indices of the symbols ``value``'s expression reads (none for a plain int)."""
    if not isinstance(value, SymbolicInt):
        return set()
    return {int(index) for index in _SYMBOL.findall(value.text)}


def symbol_index(value: int) -> int | None:
    """``k`` when ``value`` is the symbol ``s<k>`` itself, else None."""
    if not isinstance(value, SymbolicInt):
        return None
    match = _SYMBOL.fullmatch(value.text)
    return None if match is None else int(match.group(1))


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


_TOKEN = re.compile(r"\s*(?:(\d+)|s(\d+)|(//|==|!=|<=|>=|[-+*%()<>]))")
_BINARY: dict[str, Callable[[int, int], int]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "//": operator.floordiv,
    "%": operator.mod,
}
COMPARISONS: dict[str, Callable[[int, int], bool]] = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}
NEGATED = {"==": "!=", "!=": "==", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}
"""Each comparison and the one that holds exactly when it does not."""


class ExpressionError(ValueError):
    """Text that is not an expression over the symbols (``parse_expression``)."""


def _tokens_of(text: str) -> list[str]:
    tokens, at = [], 0
    text = text.rstrip()
    while at < len(text):
        match = _TOKEN.match(text, at)
        if match is None:
            raise ExpressionError(f"unexpected '{text[at:].strip()[:10]}' in '{text}'")
        number, symbol, mark = match.groups()
        tokens.append(number if number is not None else f"s{symbol}" if symbol else mark)
        at = match.end()
    return tokens


class _Parser:
    """Precedence climbing over ``+ -`` < ``* // %`` < unary ``-``: the text SymbolicInt
    writes, and what a person writes by hand."""

    def __init__(self, text: str, values: Values) -> None:
        self.text, self.values, self.tokens, self.at = text, values, _tokens_of(text), 0

    def peek(self) -> str | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self) -> str:
        token = self.peek()
        if token is None:
            raise ExpressionError(f"'{self.text}' ends too early")
        self.at += 1
        return token

    def sum(self) -> int:
        value = self.product()
        while self.peek() in ("+", "-"):
            value = _BINARY[self.take()](value, self.product())
        return value

    def product(self) -> int:
        value = self.unary()
        while self.peek() in ("*", "//", "%"):
            value = _BINARY[self.take()](value, self.unary())
        return value

    def unary(self) -> int:
        if self.peek() == "-":
            self.take()
            return -self.unary()
        token = self.take()
        if token == "(":
            value = self.sum()
            if self.take() != ")":
                raise ExpressionError(f"a ')' is missing in '{self.text}'")
            return value
        if token.isdigit():
            return int(token)
        if token.startswith("s"):
            index = int(token[1:])
            if index >= len(self.values):
                raise ExpressionError(
                    f"'{self.text}' reads {token}: only {len(self.values)} symbols are bound"
                )
            return self.values[index]
        raise ExpressionError(f"unexpected '{token}' in '{self.text}'")

    def end(self) -> None:
        if self.peek() is not None:
            raise ExpressionError(f"unexpected '{self.peek()}' in '{self.text}'")


def parse_expression(text: str, values: Values) -> int:
    """The value of an expression's text (as ``SymbolicInt.text`` writes it: integers,
    ``s<k>``, ``+ - * // %``, parentheses) for the symbol values ``values``, computed with
    their own arithmetic: SymbolicInt values give a SymbolicInt."""
    parser = _Parser(text, values)
    value = parser.sum()
    parser.end()
    return value


def parse_condition(text: str, values: Values) -> bool:
    """Whether the condition ``<expression> <comparison> <expression>`` holds for ``values``
    (while tracing, a comparison of SymbolicInts is itself a guard)."""
    parser = _Parser(text, values)
    lhs = parser.sum()
    mark = parser.peek()
    if mark not in COMPARISONS:
        expected = ", ".join(COMPARISONS)
        raise ExpressionError(f"'{text}' is not a comparison: expected one of {expected}")
    parser.take()
    rhs = parser.sum()
    parser.end()
    return COMPARISONS[mark](lhs, rhs)


class _AtLeast:
    """A value known only by a lower bound (None: none known), for ``always_holds``."""

    def __init__(self, low: int | None) -> None:
        self.low = low

    @staticmethod
    def of(value: object) -> _AtLeast:
        return value if isinstance(value, _AtLeast) else _AtLeast(int(value))  # type: ignore[call-overload]

    def __add__(self, other: object) -> _AtLeast:
        a, b = self.low, _AtLeast.of(other).low
        return _AtLeast(None if a is None or b is None else a + b)

    __radd__ = __add__

    def __mul__(self, other: object) -> _AtLeast:
        a, b = self.low, _AtLeast.of(other).low
        return _AtLeast(a * b if a is not None and b is not None and a >= 0 and b >= 0 else None)

    __rmul__ = __mul__

    def __floordiv__(self, other: object) -> _AtLeast:
        divisor = other if isinstance(other, int) else None
        if self.low is None or divisor is None or divisor <= 0:
            return _AtLeast(None)
        return _AtLeast(self.low // divisor)

    def __rfloordiv__(self, other: object) -> _AtLeast:
        return _AtLeast(None)

    def __sub__(self, other: object) -> _AtLeast:
        return _AtLeast(None)

    __rsub__ = __mod__ = __rmod__ = __sub__

    def __neg__(self) -> _AtLeast:
        return _AtLeast(None)


def always_holds(condition: str, symbols: int) -> bool:
    """Whether a condition holds for every value >= 1 of the symbols by a simple argument: an
    expression of symbols, positive integers, + * and // by a positive integer is at least
    its value at 1, compared with an integer below that (``s0 != -1``, ``(s0*s1) >= 0``).
    False when that argument does not settle it."""
    parser = _Parser(condition, [_AtLeast(1)] * symbols)  # type: ignore[list-item]
    lhs: object = parser.sum()
    mark = parser.take()
    rhs: object = parser.sum()
    if isinstance(lhs, int) and isinstance(rhs, _AtLeast):
        lhs, rhs, mark = rhs, lhs, {"<": ">", "<=": ">=", "!=": "!="}.get(mark, "")
    if not isinstance(lhs, _AtLeast) or not isinstance(rhs, int) or lhs.low is None:
        return False
    return {"!=": lhs.low > rhs, ">": lhs.low > rhs, ">=": lhs.low >= rhs}.get(mark, False)


def check_text(text: str, symbols: int, *, condition: bool = False) -> None:
    """An ExpressionError unless ``text`` is an expression (with ``condition``, a condition)
    over ``symbols`` symbols; nothing is evaluated but integer literals."""
    parser = _Parser(text, [_AtLeast(None)] * symbols)  # type: ignore[list-item]
    try:
        parser.sum()
        if condition:
            if parser.peek() not in COMPARISONS:
                expected = ", ".join(COMPARISONS)
                raise ExpressionError(f"'{text}' is not a comparison: expected one of {expected}")
            parser.take()
            parser.sum()
        parser.end()
    except ZeroDivisionError:
        raise ExpressionError(f"'{text}' divides by zero") from None


def holding(guard: Guard) -> str:
    """A guard as the condition its outcome states (``s1 == 1`` that was false: ``s1 != 1``)."""
    if guard.outcome:
        return guard.text
    for mark in sorted(COMPARISONS, key=len, reverse=True):
        left, found, right = guard.text.partition(f" {mark} ")
        if found:
            return f"{left} {NEGATED[mark]} {right}"
    raise ExpressionError(f"'{guard.text}' is not a comparison")


__all__ = [
    "ExpressionError",
    "Guard",
    "Polynomial",
    "SymbolicInt",
    "always_holds",
    "check_text",
    "evaluate",
    "holding",
    "is_tracing",
    "parse_condition",
    "parse_expression",
    "pinned",
    "polynomial_of",
    "same_value",
    "separate",
    "symbol_index",
    "symbols_read",
    "tracing",
    "untraced",
]
