"""SymbolicInt keeps the expression of every size computed from symbols, and a comparison
inside ``tracing`` is a guard that a template later checks."""

from __future__ import annotations

import math

from dnnc.core import shapes
from dnnc.core.symbols import SymbolicInt, evaluate, tracing


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
        assert seq * 2 == seq + seq  # different texts: a guard
        assert seq == seq  # the same expression: no guard
    assert {"s0 != 1", "s0 == 8"} <= set(guards)
    assert all(guard.admits([5]) for guard in guards.values())
    assert not guards["s0 != 1"].admits([1])
    assert not guards["s0 == 8"].admits([8])
