"""Pictures of a function's graph: `dnnc-opt --view-graph out.svg` (or `out.dot` for Graphviz).

Each op that computes is a box (constants, weights and arena views are folded into the boxes
that read them), labelled with what the passes decided: the op and its algorithm, the result's
shape, element type and layout, the kernel (`dnn.kernel`), fused post-ops, the layouts weights
are packed in, in-place and implicit concat/slice decisions; in lowered IR, the primitive kind
and the arena offset of what it writes. Edges follow the data: an SSA use in the `dnn` dialect,
the last writer of a memory in the `onednn` dialect (where kernels write their `outs`).

The SVG is laid out here (no Graphviz needed): ops in layers by longest path from the inputs,
ordered in each layer by the mean position of their producers, edges as curves.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape

from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, IntegerAttr, ModuleOp, TensorType
from xdsl.ir import Attribute, Operation, SSAValue

from dnnc.core.diagnostics import DnncError
from dnnc.dialects.dnn import ConstantOp, WeightOp, layout_of
from dnnc.dialects.onednn import ArenaViewOp, KernelCallOp, MemoryType, ReshapeOp, SubviewOp
from dnnc.dialects.onednn import ConstantOp as MemoryConstantOp
from dnnc.ir.decisions import IMPLICIT_CONCAT, IMPLICIT_SLICE, INPLACE

_SOURCES = (ConstantOp, WeightOp, MemoryConstantOp)
_ALIASES = (ReshapeOp, SubviewOp)
_HIDDEN = (*_SOURCES, ArenaViewOp, *_ALIASES, func.ReturnOp)


@dataclass
class Node:
    """A box: its title and detail lines."""

    title: str
    lines: list[str] = field(default_factory=list)
    kind: str = "op"  # "input", "output" or "op"


@dataclass
class Graph:
    nodes: list[Node]
    edges: list[tuple[int, int]]


def _shape(type_: Attribute) -> str:
    """`1x32x64x64 f32 nhwc` (the layout only when not plain)."""
    if not isinstance(type_, TensorType | MemoryType):
        return str(type_)
    dims = "x".join("?" if d < 0 else str(d) for d in type_.get_shape()) or "scalar"
    if isinstance(type_, MemoryType):
        layout, element = type_.layout, type_.element_type
    else:
        layout, element = layout_of(type_), type_.get_element_type()
    suffix = "" if layout.is_plain else f" {layout.name}"
    return f"{dims} {element}{suffix}"


def _attribute_text(attr: Attribute) -> str:
    if isinstance(attr, IntegerAttr):
        return str(attr.value.data)
    if isinstance(attr, DenseArrayBase):
        return ",".join(map(str, attr.get_values()))
    if isinstance(attr, ArrayAttr):
        return ", ".join(_attribute_text(a) for a in attr.data)
    return str(attr).removeprefix("#dnn.")


def _label(op: Operation) -> Node:
    name = next((r.name_hint for r in op.results if r.name_hint), None)
    alg = getattr(op, "alg", None) or getattr(op, "kind", None)
    title = op.name + (f" {alg.data}" if alg is not None and hasattr(alg, "data") else "")
    node = Node(f"%{name} = {title}" if name else title)
    for result in op.results:
        node.lines.append(_shape(result.type))
    kernel = op.attributes.get("dnn.kernel")
    if kernel is not None:
        node.lines.append("kernel " + _attribute_text(kernel).removeprefix("kernel"))
    post_ops = op.properties.get("post_ops") or op.attributes.get("post_ops")
    if isinstance(post_ops, ArrayAttr) and post_ops.data:
        node.lines.append("post-ops " + _attribute_text(post_ops))
    for operand in op.operands:
        owner = operand.owner
        if isinstance(owner, _SOURCES) and isinstance(operand.type, TensorType | MemoryType):
            if len(operand.type.get_shape()) > 1:
                node.lines.append("weight " + _shape(operand.type))
    for key, what in (
        (INPLACE, "in-place"),
        (IMPLICIT_CONCAT, "implicit concat"),
        (IMPLICIT_SLICE, "implicit slice"),
    ):
        if key in op.attributes:
            node.lines.append(f"{what} {_attribute_text(op.attributes[key])}")
    if isinstance(op, KernelCallOp):
        for out in op.outs:
            root = _root(out)
            if isinstance(root.owner, ArenaViewOp):
                node.lines.append(f"writes arena +{root.owner.offset.data}")
    return node


def _root(value: SSAValue) -> SSAValue:
    """The memory a view or reshape is over."""
    while isinstance(value.owner, _ALIASES):
        value = value.owner.source
    return value


def graph_of(module: ModuleOp, function_name: str | None = None) -> Graph:
    """The graph of one function of `module` (the first, unless named)."""
    functions = [op for op in module.ops if isinstance(op, func.FuncOp)]
    chosen = [f for f in functions if function_name in (None, f.sym_name.data)]
    if not chosen:
        raise DnncError(f"no function {'@' + function_name if function_name else ''} to draw")
    function = chosen[0]
    nodes: list[Node] = []
    edges: set[tuple[int, int]] = set()
    writer: dict[SSAValue, int] = {}
    for arg in function.body.block.args:
        writer[arg] = len(nodes)
        nodes.append(Node(f"%{arg.name_hint or arg.index}", [_shape(arg.type)], "input"))
    for op in function.body.block.ops:
        if isinstance(op, func.ReturnOp):
            for value in op.operands:
                index = len(nodes)
                nodes.append(Node("return", [_shape(value.type)], "output"))
                if _root(value) in writer:
                    edges.add((writer[_root(value)], index))
            continue
        if isinstance(op, _HIDDEN):
            continue
        index = len(nodes)
        nodes.append(_label(op))
        written = {_root(v) for v in getattr(op, "outs", ())}
        for operand in op.operands:
            root = _root(operand)
            if root in writer and root not in written:
                edges.add((writer[root], index))
        for value in (*written, *op.results):
            writer[value] = index
    return Graph(nodes, sorted(edges))


def to_dot(graph: Graph) -> str:
    """Graphviz's text of the graph."""
    lines = ["digraph dnnc {", '  node [shape=box, fontname="monospace", fontsize=10];']
    for index, node in enumerate(graph.nodes):
        label = "\\n".join([node.title, *node.lines]).replace('"', '\\"')
        style = "" if node.kind == "op" else ", style=rounded"
        lines.append(f'  n{index} [label="{label}"{style}];')
    lines += [f"  n{a} -> n{b};" for a, b in graph.edges]
    return "\n".join([*lines, "}"]) + "\n"


_CHAR_WIDTH, _LINE_HEIGHT, _PAD, _GAP_X, _GAP_Y = 6.6, 14, 8, 24, 40


def to_svg(graph: Graph) -> str:
    """An SVG picture of the graph, laid out in layers (module docstring)."""
    preds: list[list[int]] = [[] for _ in graph.nodes]
    for a, b in graph.edges:
        preds[b].append(a)
    layer = [0] * len(graph.nodes)
    for index in range(len(graph.nodes)):  # nodes are in program order: producers first
        layer[index] = max((layer[p] + 1 for p in preds[index]), default=0)
    layers: dict[int, list[int]] = {}
    for index, depth in enumerate(layer):
        layers.setdefault(depth, []).append(index)
    size = [
        (
            max(len(t) for t in [n.title, *n.lines]) * _CHAR_WIDTH + 2 * _PAD,
            (1 + len(n.lines)) * _LINE_HEIGHT + 2 * _PAD,
        )
        for n in graph.nodes
    ]
    x_center = [0.0] * len(graph.nodes)
    y_top = [0.0] * len(graph.nodes)
    y = 20.0
    width = 0.0
    for depth in sorted(layers):
        members = sorted(
            layers[depth],
            key=lambda i: sum(x_center[p] for p in preds[i]) / len(preds[i]) if preds[i] else i,
        )
        x = 20.0
        for index in members:
            x_center[index] = x + size[index][0] / 2
            y_top[index] = y
            x += size[index][0] + _GAP_X
        width = max(width, x)
        y += max(size[i][1] for i in members) + _GAP_Y
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{y:.0f}" '
        'font-family="monospace" font-size="11">',
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" '
        'markerHeight="6" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#555"/></marker></defs>',
    ]
    for a, b in graph.edges:
        x1, y1 = x_center[a], y_top[a] + size[a][1]
        x2, y2 = x_center[b], y_top[b]
        mid = (y1 + y2) / 2
        curve = f"M{x1:.1f},{y1:.1f} C{x1:.1f},{mid:.1f} {x2:.1f},{mid:.1f} {x2:.1f},{y2:.1f}"
        out.append(f'<path d="{curve}" fill="none" stroke="#555" marker-end="url(#arrow)"/>')
    fills = {"input": "#e3f2fd", "output": "#e8f5e9", "op": "#fffde7"}
    for index, node in enumerate(graph.nodes):
        w, h = size[index]
        x, top = x_center[index] - w / 2, y_top[index]
        out.append(
            f'<rect x="{x:.1f}" y="{top:.1f}" width="{w:.1f}" height="{h:.1f}" rx="4" '
            f'fill="{fills[node.kind]}" stroke="#333"/>'
        )
        for row, text in enumerate([node.title, *node.lines]):
            weight = ' font-weight="bold"' if row == 0 else ""
            out.append(
                f'<text x="{x + _PAD:.1f}" y="{top + _PAD + (row + 0.8) * _LINE_HEIGHT:.1f}"'
                f"{weight}>{escape(text)}</text>"
            )
    return "\n".join([*out, "</svg>"]) + "\n"


def write_picture(module: ModuleOp, path: str) -> None:
    """The graph of `module`'s first function to `path`: Graphviz text for `.dot`, else SVG."""
    graph = graph_of(module)
    text = to_dot(graph) if path.endswith(".dot") else to_svg(graph)
    try:
        with open(path, "w", encoding="utf-8") as file:
            file.write(text)
    except OSError as error:
        raise DnncError(f"could not write the picture '{path}': {error.strerror}") from error
