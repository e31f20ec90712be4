"""Decomposed erf-GELU in the ONNX graph becomes one ``Gelu`` node before any dnn op exists.

Rule: t = Div(x, sqrt 2) | Mul(x, 1/sqrt 2);  e = Erf(t);  a = Add(e, 1)   (either order)
      y = the product of x, 0.5 and a, as two Muls in any association and order
      ==> y = Gelu(x)            (approximate "none": dnn.eltwise gelu_erf)
Pre:  every intermediate (t, e, a, the inner product) has this chain as its only consumer and
      is not a graph output; the constants match to 1e-4 relative; x is computed at run time.

In a QDQ model (ONNX Runtime's ``quantize_static``) every intermediate may be rounded to an
8-bit grid by a QuantizeLinear -> DequantizeLinear pair of one per-tensor scale and zero point,
and the 1 and 0.5 are DequantizeLinears of constants: the pairs inside the chain go with it
(the one after y stays), so the GELU runs as one oneDNN ``gelu_erf`` instead of an erf on the
reference kernel. ONNX Runtime computes the rounded chain (QLinearAdd, QLinearMul): without
the inner roundings y moves by at most half a step of each pair's grid (weighted by x for the
ones before the product with x) inside the calibrated range, and values beyond it, which those
pairs saturate, keep their GELU value; y's own pair then rounds both to one grid.
test_quantized_models compares the BERT layer with ONNX Runtime.

Why in the importer and not in the ``dnn-recover-gelu`` pass: oneDNN has no erf, only the fused
``gelu_erf``: dnn's ``erf`` runs its numpy reference kernel, far slower, so the decomposed form
is fused before it exists. The tanh form needs nothing oneDNN lacks (tanh, pow, binary ops),
so it is imported op by op and ``dnn-recover-gelu`` recovers it in dnn. An Erf outside this
pattern is imported as ``dnn.eltwise erf``.
"""

from __future__ import annotations

import math

import numpy as np
from onnx import helper

from dnnc.frontend.onnx.graph import Graph, Node, one_element


def _constant(graph: Graph, name: str) -> np.ndarray | None:
    """The value of ``name`` when it is known at import: a constant, or a per-tensor
    DequantizeLinear of constants (a QDQ model quantizes the GELU's 1 and 0.5 too)."""
    value = graph.constant(name)
    if value is not None:
        return value
    node = graph.producers.get(name)
    if node is None or node.op_type != "DequantizeLinear":
        return None
    src, scale = graph.constant(node.input(0)), graph.constant(node.input(1))
    zero = graph.constant(node.input(2)) if node.input(2) else np.zeros((), np.int32)
    if src is None or scale is None or zero is None or scale.size != 1 or zero.size != 1:
        return None
    centered = src.astype(np.int32) - zero.astype(np.int32).reshape(())
    return centered.astype(np.float32) * scale.astype(np.float32).reshape(())


def _is_scalar(graph: Graph, name: str, expected: float) -> bool:
    """Whether ``name`` is a one-element constant close to ``expected``."""
    array = _constant(graph, name)
    value = None if array is None else one_element(array)
    return value is not None and math.isclose(float(value), expected, rel_tol=1e-4)


def _other(node: Node, name: str) -> str | None:
    """The other input of a two-input node that reads ``name`` (None if it does not)."""
    inputs = node.inputs
    if len(inputs) != 2 or name not in inputs:
        return None
    return inputs[1] if inputs[0] == name else inputs[0]


def _same_grid(quantize: Node, dequantize: Node) -> bool:
    """Whether a DequantizeLinear maps back with a QuantizeLinear's own scale and zero point,
    per tensor (the pair only rounds to the quantization grid)."""
    return (
        quantize.inputs[1:] == dequantize.inputs[1:]
        and len(quantize.inputs) >= 3
        and quantize.int_attr("axis", 1) == dequantize.int_attr("axis", 1)
    )


def _rounded(graph: Graph, name: str) -> tuple[str, list[Node]]:
    """``name`` past a QuantizeLinear -> DequantizeLinear pair that is its only consumer (an
    intermediate of a QDQ model rounded to an 8-bit grid): the pair's output and the pair;
    ``name`` and no nodes when there is none."""
    quantize = graph.only_consumer(name)
    if quantize is None or quantize.op_type != "QuantizeLinear":
        return name, []
    dequantize = graph.only_consumer(quantize.outputs[0])
    if dequantize is None or dequantize.op_type != "DequantizeLinear":
        return name, []
    if not _same_grid(quantize, dequantize):
        return name, []
    return dequantize.outputs[0], [quantize, dequantize]


def _unrounded(graph: Graph, name: str) -> tuple[str, list[Node]]:
    """The inverse walk of ``_rounded``: the value a pair producing ``name`` rounds, and the
    pair (``name`` and no nodes when it is not such a pair's output)."""
    dequantize = graph.producers.get(name)
    if dequantize is None or dequantize.op_type != "DequantizeLinear":
        return name, []
    quantize = graph.producers.get(dequantize.input(0))
    if quantize is None or quantize.op_type != "QuantizeLinear":
        return name, []
    if graph.only_consumer(quantize.outputs[0]) is not dequantize:
        return name, []
    if not _same_grid(quantize, dequantize):
        return name, []
    return quantize.input(0), [quantize, dequantize]


def _single_use(graph: Graph, name: str, op_type: str) -> tuple[str, Node, list[Node]] | None:
    """(the name the consumer reads, the consumer, the rounding pair skipped) when the only
    consumer of ``name``, past a rounding pair, is an ``op_type`` node."""
    read, pair = _rounded(graph, name)
    consumer = graph.only_consumer(read)
    if consumer is None or consumer.op_type != op_type:
        return None
    return read, consumer, pair


def _scaled_input(graph: Graph, erf: Node) -> tuple[str, list[Node]] | None:
    """(x, the Div or Mul and any rounding pair after it) when the Erf reads x / sqrt 2 or
    x * (1 / sqrt 2)."""
    if graph.only_consumer(erf.input(0)) is not erf:
        return None  # t is also used elsewhere: removing the Div would lose it
    t, pair = _unrounded(graph, erf.input(0))
    scale = graph.producers.get(t)
    if scale is None or (pair and graph.only_consumer(t) is not pair[0]):
        return None
    if scale.op_type == "Div" and _is_scalar(graph, scale.input(1), math.sqrt(2.0)):
        return scale.input(0), [scale, *pair]
    if scale.op_type == "Mul":
        for x, constant in (scale.inputs, reversed(scale.inputs)):
            if _is_scalar(graph, constant, math.sqrt(0.5)):
                return x, [scale, *pair]
    return None


def _product(graph: Graph, a: str, x: str) -> list[Node] | None:
    """The two Muls forming x * 0.5 * a and any rounding pairs between them, in graph order."""
    found = _single_use(graph, a, "Mul")
    if found is None:
        return None
    read, first, pair = found
    other = _other(first, read)
    if other == x or (other is not None and _is_scalar(graph, other, 0.5)):
        after = _single_use(graph, first.outputs[0], "Mul")  # (x * a) * 0.5 or (0.5 * a) * x
        if after is None:
            return None
        middle, second, between = after
        last = _other(second, middle)
        if last is None:
            return None
        ok = _is_scalar(graph, last, 0.5) if other == x else last == x
        return [*pair, first, *between, second] if ok else None
    rounded, half_pair = _unrounded(graph, other) if other is not None else ("", [])
    half = graph.producers.get(rounded)  # (x * 0.5) * a
    reader = half_pair[0] if half_pair else first
    if half is None or half.op_type != "Mul" or graph.only_consumer(half.outputs[0]) is not reader:
        return None
    factor = _other(half, x)
    ok = factor is not None and _is_scalar(graph, factor, 0.5)
    return [half, *half_pair, *pair, first] if ok else None


def _match(graph: Graph, erf: Node) -> tuple[str, list[Node]] | None:
    """(x, the nodes of the pattern, the last one producing y) for an Erf that is a GELU."""
    scaled = _scaled_input(graph, erf)
    if scaled is None:
        return None
    x, scale = scaled
    if graph.constant(x) is not None:
        return None  # folded at import anyway
    found = _single_use(graph, erf.outputs[0], "Add")
    if found is None:
        return None
    read, add, pair = found
    if not _is_scalar(graph, _other(add, read) or "", 1.0):
        return None
    product = _product(graph, add.outputs[0], x)
    return None if product is None else (x, [*scale, erf, *pair, add, *product])


def fuse_erf_gelu(graph: Graph) -> None:
    """Replace every matching decomposed GELU by one Gelu node (module docstring)."""
    for erf in [n for n in graph.nodes if n.op_type == "Erf"]:
        match = _match(graph, erf)
        if match is None:
            continue
        x, nodes = match
        last = graph.last_of(nodes)  # not list.index: Node equality compares protos
        gelu = helper.make_node("Gelu", [x], last.outputs, name=last.proto.name)
        graph.replace_nodes(nodes, Node(gelu, last.label))
