"""SymbolicInt keeps the expression of every size computed from symbols, and a comparison
inside ``tracing`` is a guard that a template later checks."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest

from dnnc.core import shapes
from dnnc.core.layouts import parse_layout
from dnnc.core.symbols import (
    ExpressionError,
    SymbolicInt,
    always_holds,
    check_text,
    evaluate,
    holding,
    parse_condition,
    parse_expression,
    tracing,
)


def test_arithmetic_keeps_the_expression() -> None:
    batch, seq = SymbolicInt.symbol(0, 2), SymbolicInt.symbol(1, 7)
    rows = math.prod((batch, seq, 64))  # 1 * batch: the reflected product keeps it
    padded = -(-seq // 16) * 16
    assert (rows, padded) == (896, 16)
    assert evaluate(rows, [3, 5]) == 960
    assert evaluate(padded, [1, 17]) == 32
    assert evaluate(seq - 1 + 0, [1, 40]) == 39
    assert evaluate(12, [1, 2]) == 12  # a plain int is a constant


def test_shape_functions_compute_expressions() -> None:
    """dnnc.core.shapes, unchanged, infers a convolution's output size as an expression."""
    height = SymbolicInt.symbol(0, 9)
    out = shapes.conv2d((1, 3, height, 8), (4, 3, 3, 3), strides=(2, 2), pads_begin=(1, 1))
    assert out[2] == 4 and evaluate(out[2], [20]) == (20 + 1 - 3) // 2 + 1


def test_comparisons_are_guards_only_while_tracing() -> None:
    seq = SymbolicInt.symbol(0, 7)
    assert seq > 1  # outside tracing: just the hint's answer
    with tracing() as guards:
        assert seq != 1
        assert not seq == 8
        assert seq * 2 != seq + 1  # different polynomials: a guard
        assert seq * 2 == seq + seq  # different texts, the same polynomial: no guard
        assert seq == seq  # the same expression: no guard
    assert set(guards) == {"s0 != 1", "s0 == 8", "(s0*2) != (s0+1)"}
    assert all(guard.admits([5]) for guard in guards.values())
    assert not guards["s0 != 1"].admits([1])
    assert not guards["s0 == 8"].admits([8])


def test_comparisons_decided_for_every_admitted_size_are_no_guards() -> None:
    """Told the least value a symbol takes, a comparison with a constant that comes out the
    same for every value from there records no guard (a size against the ``?`` marker, a
    product against 0); one that can change does, and so does every comparison when no
    least value is given."""
    batch, seq = SymbolicInt.symbol(0, 2), SymbolicInt.symbol(1, 7)
    rows = batch * seq
    with tracing(1) as guards:
        assert rows != -1 and not rows < 0 and rows >= 1 and rows > 0 and not 0 == seq
        assert seq + 3 >= 4 and not seq + 3 < 4  # at least 4 from seq = 1
        assert rows > 1  # not for batch = seq = 1
        assert seq - 1 > 0  # a negative coefficient: no bound argued
    assert set(guards) == {"(s0*s1) > 1", "(s1-1) > 0"}
    with tracing(0) as guards:
        assert rows >= 0 and not rows < 0 and seq != 0  # seq may be 0
    assert set(guards) == {"s1 != 0"}
    assert not guards["s1 != 0"].admits([3, 0])
    with tracing() as guards:
        assert rows != -1
    assert set(guards) == {"(s0*s1) != -1"}


def test_linear_terms_collect() -> None:
    """An expression whose polynomial is one symbol or a constant is that symbol or constant
    (rotary positions compute (past + seq) - past); an exact division by a constant keeps the
    polynomial, an inexact one does not."""
    past, seq = SymbolicInt.symbol(0, 5), SymbolicInt.symbol(1, 7)
    length = (seq + past) - seq
    assert isinstance(length, SymbolicInt) and length.text == "s0" and length == 5
    assert evaluate(length, [9, 1]) == 9
    assert type((past + seq) - seq - past) is int
    rows = (past * seq * 64) // 64
    half = (past * seq) // 2
    with tracing() as guards:
        assert rows == seq * past  # exact division: the same polynomial, no guard
        assert (past * 4) % 4 == 0  # a multiple of 4 for every signature, no guard
        assert half != seq * past  # s0*s1 odd here: floor division is no polynomial
    assert list(guards) == ["((s0*s1)//2) != (s1*s0)"]
    assert evaluate(half, [3, 3]) == 4


def test_expressions_parse_back_to_what_they_compute() -> None:
    """An expression's text (as SymbolicInt writes it) evaluates to its value, and with
    symbols gives the same expression."""
    a, b = SymbolicInt.symbol(0, 5), SymbolicInt.symbol(1, 7)
    expression = (a * 12 + b) // 3 - (-a) % 4
    assert parse_expression(expression.text, [5, 7]) == int(expression)
    assert parse_expression(expression.text, [a, b]).text == expression.text  # type: ignore[attr-defined]
    assert parse_expression("-(s0 - 2) * 3", [5]) == -9
    with pytest.raises(ExpressionError, match="only 1 symbols are bound"):
        parse_expression("s1", [5])
    with pytest.raises(ExpressionError, match="ends too early"):
        check_text("s0 + ", 1)
    with pytest.raises(ExpressionError, match="unexpected 'x'"):
        check_text("s0 + x", 1)


def test_conditions_state_their_guards_outcome() -> None:
    """A guard that was false holds as its negation; a condition true for every size >= 1 by
    a lower bound is recognized, one that is not is kept."""
    a, b = SymbolicInt.symbol(0, 5), SymbolicInt.symbol(1, 7)
    with tracing() as guards:
        assert not a == 1
        assert b >= a
    assert [holding(g) for g in guards.values()] == ["s0 != 1", "s1 >= s0"]
    assert parse_condition("s0 != 1", [2]) and not parse_condition("s0 != 1", [1])
    assert always_holds("(s0*s1) != -1", 2)
    assert always_holds("((s0+3)//2) >= 2", 1)
    assert not always_holds("s0 != 1", 1)
    assert not always_holds("(s1-s0) >= 0", 2)  # not provable from lower bounds
    with pytest.raises(ExpressionError, match="is not a comparison"):
        check_text("s0 + 1", 1, condition=True)


def test_equal_symbolic_sizes_broadcast_without_comparing_with_one() -> None:
    """Batch against batch guards only their equality, under which the result is right at
    batch 1 too; sizes that differ in the trace are still compared with 1."""
    batch, other, seq = (SymbolicInt.symbol(i, h) for i, h in enumerate((3, 3, 5)))
    with tracing() as guards:
        result = shapes.binary((batch, seq, 8), (other, 1, 8))
    assert list(guards) == ["s0 == s1"]
    assert result[0] is batch and result[1] is seq
    one = SymbolicInt.symbol(3, 1)
    with tracing() as guards:
        assert shapes.binary((one, 8), (seq, 8))[0] is seq
    assert [holding(g) for g in guards.values()] == ["s3 != s2", "s3 == 1"]


def _guards_of(decide: Callable[[], object]) -> tuple[object, list[str]]:
    """What `decide` answers while tracing, and the guards it recorded (texts)."""
    with tracing() as guards:
        answer = decide()
    return answer, list(guards)


def test_shape_tests_compare_the_batch_only_where_it_decides() -> None:
    """A decision that does not depend on a size records no guard on it: the batch against
    a bias or a weight (a fixed size or the rank settles it), min() avoided, the unit batch
    of nhwc and nchw (outermost in both). One that does keeps its guard: a [1, 64] operand
    is the result's shape only for one row, and ab and ba lay out [N, 4] alike only then."""
    batch = SymbolicInt.symbol(0, 1)
    image = (batch, 64, 8, 8)
    assert _guards_of(lambda: shapes.same_shape((64,), image)) == (False, [])
    assert _guards_of(lambda: shapes.same_shape((64, 64, 3, 3), image)) == (False, [])
    assert _guards_of(lambda: shapes.same_shape((1, 64), (batch, 64))) == (True, ["s0 == 1"])
    assert _guards_of(lambda: shapes.positive_sizes(image)) == (True, ["s0 > 0"])
    nhwc, nchw = parse_layout("nhwc"), parse_layout("nchw")
    assert _guards_of(lambda: nhwc.same_bytes(nchw, (batch, 64, 1, 1))) == (True, [])
    assert _guards_of(lambda: nhwc.same_bytes(nchw, image)) == (False, [])
    ab, ba = parse_layout("ab"), parse_layout("ba")
    assert _guards_of(lambda: ab.same_bytes(ba, (batch, 4))) == (True, ["s0 == 1"])
