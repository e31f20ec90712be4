"""Einsum of one or two operands as dnn transposes, reductions, reshapes and one batched
dnn.matmul (the forms attention and projections use: "bhid,bhjd->bhij", "bij,bjk->bik",
"ij->ji", "ij->i", "i,i->", with ``...``). A label repeated within one operand (a diagonal)
is refused; operand shapes must be static.

Rule for two operands A and B: labels in A, B and the output are batch, labels in A and B only
are contracted, the others are free; labels of one operand missing from the output and from
the other operand are summed first. A becomes [batch, M, K] and B [batch, K, N], the matmul
[batch, M, N] is reshaped to batch + A's free + B's free, then transposed to the output order.
"""

from __future__ import annotations

import math
import string
from collections.abc import Sequence

from xdsl.ir import SSAValue

from dnnc.core import shapes
from dnnc.core.kinds import ReduceKind
from dnnc.dialects.dnn import MatmulOp, shape_of
from dnnc.frontend.onnx.graph import Node
from dnnc.frontend.onnx.importer import Importer, Value, element_of, make_tensor_type
from dnnc.frontend.onnx.nn import reduce


def _labels(
    imp: Importer, node: Node, equation: str, ranks: Sequence[int]
) -> tuple[list[str], str]:
    """Each operand's labels and the output's, ``...`` expanded to unused capital letters."""
    inputs, arrow, output = equation.replace(" ", "").partition("->")
    terms = inputs.split(",")
    if len(terms) != len(ranks):
        raise imp.error(node, f"equation '{equation}' has {len(terms)} operands, not {len(ranks)}")
    spare = iter(c for c in string.ascii_uppercase if c not in equation)
    ellipsis = "".join(next(spare) for _ in range(max(ranks)))
    expanded = []
    for term, rank in zip(terms, ranks, strict=True):
        if "..." in term:
            count = rank - (len(term) - 3)
            term = term.replace("...", ellipsis[len(ellipsis) - count :] if count else "")
        if len(term) != rank or len(set(term)) != len(term):
            raise imp.error(
                node,
                f"term '{term}' of '{equation}' does not match rank {rank} (or repeats a label)",
            )
        expanded.append(term)
    if not arrow:
        counts = {c: sum(t.count(c) for t in expanded) for c in set("".join(expanded))}
        broadcast = [c for c in ellipsis if c in counts]
        output = "".join(
            broadcast + sorted(c for c, n in counts.items() if n == 1 and c not in broadcast)
        )
    else:
        longest = max(expanded, key=len)
        output = output.replace("...", "".join(c for c in longest if c in ellipsis))
    return expanded, output


def _sum_out(
    imp: Importer, node: Node, value: SSAValue, labels: str, keep: set[str]
) -> tuple[SSAValue, str]:
    """``value`` summed over its labels not in ``keep``."""
    axes = [i for i, c in enumerate(labels) if c not in keep]
    if not axes:
        return value, labels
    summed = reduce(imp, node, value, ReduceKind.SUM, axes, keep_dims=False)
    return summed, "".join(c for c in labels if c in keep)


def _arranged(imp: Importer, value: SSAValue, labels: str, order: str) -> SSAValue:
    return imp.transpose(value, [labels.index(c) for c in order])


def convert_einsum(imp: Importer, node: Node) -> Value:
    """Einsum (module docstring)."""
    operands = [imp.tensor(node, i) for i in range(len(node.inputs))]
    if len(operands) not in (1, 2):
        raise imp.error(node, f"{len(operands)} operands: one or two are supported")
    for value in operands:
        if shapes.DYNAMIC in shape_of(value):
            raise imp.error(node, "needs static operand shapes")
    terms, output = _labels(
        imp, node, node.str_attr("equation"), [len(shape_of(v)) for v in operands]
    )
    size = {
        c: d
        for v, t in zip(operands, terms, strict=True)
        for c, d in zip(t, shape_of(v), strict=True)
    }
    if len(operands) == 1:
        summed, labels = _sum_out(imp, node, operands[0], terms[0], set(output))
        return _arranged(imp, summed, labels, output)
    (a, b), (ta, tb) = operands, terms
    a, ta = _sum_out(imp, node, a, ta, set(output) | set(tb))
    b, tb = _sum_out(imp, node, b, tb, set(output) | set(ta))
    batch = "".join(c for c in ta if c in tb and c in output)
    contracted = "".join(c for c in ta if c in tb and c not in output)
    free_a = "".join(c for c in ta if c not in tb)
    free_b = "".join(c for c in tb if c not in ta)
    dims = [size[c] for c in batch]
    m, k, n = (math.prod(size[c] for c in group) for group in (free_a, contracted, free_b))
    lhs = imp.reshape(_arranged(imp, a, ta, batch + free_a + contracted), (*dims, m, k))
    rhs = imp.reshape(_arranged(imp, b, tb, batch + contracted + free_b), (*dims, k, n))
    shape = imp.infer(node, shapes.matmul, shape_of(lhs), shape_of(rhs))
    product = imp.emit(MatmulOp(lhs, rhs, result_type=make_tensor_type(element_of(lhs), shape)))
    labels = batch + free_a + free_b
    unflat = imp.reshape(product, [size[c] for c in labels])
    return _arranged(imp, unflat, labels, output)
