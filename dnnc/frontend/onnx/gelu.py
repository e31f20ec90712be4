"""Decomposed erf-GELU in the ONNX graph becomes one ``Gelu`` node before any dnn op exists.

Rule: t = Div(x, sqrt 2) | Mul(x, 1/sqrt 2);  e = Erf(t);  a = Add(e, 1)   (either order)
      y = the product of x, 0.5 and a, as two Muls in any association and order
      ==> y = Gelu(x)            (approximate "none": dnn.eltwise gelu_erf)
Pre:  every intermediate (t, e, a, the inner product) has this chain as its only consumer and
      is not a graph output; the constants match to 1e-4 relative; x is computed at run time.

Why in the importer and not in the ``dnn-recover-gelu`` pass: oneDNN has no erf, only the fused
``gelu_erf``: dnn's ``erf`` runs its numpy reference kernel, far slower, so the decomposed form
is fused before it exists. The tanh form needs nothing oneDNN lacks (tanh, pow, binary ops),
so it is imported op by op and ``dnn-recover-gelu`` recovers it in dnn. An Erf outside this
pattern is imported as ``dnn.eltwise erf``.
"""

from __future__ import annotations

import math

from onnx import helper

from dnnc.frontend.onnx.graph import Graph, Node, one_element


def _is_scalar(graph: Graph, name: str, expected: float) -> bool:
    """Whether ``name`` is a one-element constant close to ``expected``."""
    array = graph.constant(name)
    value = None if array is None else one_element(array)
    return value is not None and math.isclose(float(value), expected, rel_tol=1e-4)


def _other(node: Node, name: str) -> str | None:
    """The other input of a two-input node that reads ``name`` (None if it does not)."""
    inputs = node.inputs
    if len(inputs) != 2 or name not in inputs:
        return None
    return inputs[1] if inputs[0] == name else inputs[0]


def _single_use(graph: Graph, node: Node, op_type: str) -> Node | None:
    """The only consumer of ``node``'s output if it is an ``op_type`` node."""
    consumer = graph.only_consumer(node.outputs[0])
    return consumer if consumer is not None and consumer.op_type == op_type else None


def _scaled_input(graph: Graph, erf: Node) -> tuple[str, Node] | None:
    """(x, the Div or Mul) when the Erf reads x / sqrt 2 or x * (1 / sqrt 2)."""
    scale = graph.producers.get(erf.input(0))
    if scale is None or graph.only_consumer(erf.input(0)) is not erf:
        return None  # t is also used elsewhere: removing the Div would lose it
    if scale.op_type == "Div" and _is_scalar(graph, scale.input(1), math.sqrt(2.0)):
        return scale.input(0), scale
    if scale.op_type == "Mul":
        for x, constant in (scale.inputs, reversed(scale.inputs)):
            if _is_scalar(graph, constant, math.sqrt(0.5)):
                return x, scale
    return None


def _product(graph: Graph, add: Node, x: str) -> list[Node] | None:
    """The two Muls forming x * 0.5 * a (a = the Add's output), in graph order."""
    first = _single_use(graph, add, "Mul")
    if first is None:
        return None
    other = _other(first, add.outputs[0])
    if other == x or (other is not None and _is_scalar(graph, other, 0.5)):
        second = _single_use(graph, first, "Mul")  # (x * a) * 0.5 or (0.5 * a) * x
        if second is None:
            return None
        last = _other(second, first.outputs[0])
        if last is None:
            return None
        ok = _is_scalar(graph, last, 0.5) if other == x else last == x
        return [first, second] if ok else None
    half = graph.producers.get(other) if other is not None else None  # (x * 0.5) * a
    if half is None or half.op_type != "Mul" or graph.only_consumer(half.outputs[0]) is not first:
        return None
    factor = _other(half, x)
    return [half, first] if factor is not None and _is_scalar(graph, factor, 0.5) else None


def _match(graph: Graph, erf: Node) -> tuple[str, list[Node]] | None:
    """(x, the nodes of the pattern, the last one producing y) for an Erf that is a GELU."""
    scaled = _scaled_input(graph, erf)
    if scaled is None:
        return None
    x, scale = scaled
    if graph.constant(x) is not None:
        return None  # folded at import anyway
    add = _single_use(graph, erf, "Add")
    if add is None or not _is_scalar(graph, _other(add, erf.outputs[0]) or "", 1.0):
        return None
    product = _product(graph, add, x)
    return None if product is None else (x, [scale, erf, add, *product])


def fuse_erf_gelu(graph: Graph) -> None:
    """Replace every matching decomposed GELU by one Gelu node (module docstring)."""
    for erf in [n for n in graph.nodes if n.op_type == "Erf"]:
        match = _match(graph, erf)
        if match is None:
            continue
        x, nodes = match
        last = max(nodes, key=graph.nodes.index)
        gelu = helper.make_node("Gelu", [x], last.outputs, name=last.proto.name)
        removed = {id(n) for n in nodes}
        position = graph.nodes.index(last)
        graph.nodes[position] = Node(gelu, last.label)
        graph.nodes[:] = [n for n in graph.nodes if id(n) not in removed]
        graph.recount_consumers()
