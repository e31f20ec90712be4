"""dnn graphs written as IR text with seeded random weights in an .npz: ResNet blocks, a BERT
feed-forward block and layer, inverted residuals, a dense block. `write` puts a Case in a
directory; the benchmarks time them and the differential tests compare them with and without
a pass."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from dnnc.ir.weights import save_weights

WEIGHTS = "weights.npz"


@dataclass
class GraphBuilder:
    """One dnn function as text, with its weights (dnn.weight from an .npz)."""

    rng: np.random.Generator
    lines: list[str] = field(default_factory=list)
    weights: dict[str, np.ndarray] = field(default_factory=dict)
    count: int = 0

    def name(self, stem: str) -> str:
        self.count += 1
        return f"%{stem}{self.count}"

    def weight(self, shape: tuple[int, ...], scale: float = 1.0, offset: float = 0.0) -> str:
        """A dnn.weight of seeded values in [offset - scale, offset + scale]."""
        key = f"w{len(self.weights)}"
        self.weights[key] = (offset + scale * self.rng.uniform(-1, 1, shape)).astype(np.float32)
        name = self.name("w")
        self.lines.append(f'  {name} = dnn.weight "{WEIGHTS}", "{key}" : {tensor(shape)}')
        return name

    def op(self, stem: str, text: str) -> str:
        name = self.name(stem)
        self.lines.append(f"  {name} = {text}")
        return name

    def conv(self, src: str, shape: tuple[int, ...], out: int, kernel: int, bias: bool) -> str:
        channels = shape[1]
        wei = self.weight((out, channels, kernel, kernel), 1 / np.sqrt(channels * kernel**2))
        pad = kernel // 2
        bias_operand = f", {self.weight((out,), 0.1)}" if bias else ""
        bias_type = f", {tensor((out,))}" if bias else ""
        result = (shape[0], out, *shape[2:])
        return self.op(
            "c",
            f"dnn.conv2d {src}, {wei}{bias_operand} {{pads_begin = array<i64: {pad}, {pad}>, "
            f"pads_end = array<i64: {pad}, {pad}>}} : ({tensor(shape)}, "
            f"{tensor((out, channels, kernel, kernel))}{bias_type}) -> {tensor(result)}",
        )

    def batch_norm(self, src: str, shape: tuple[int, ...]) -> str:
        c = (shape[1],)
        params = [
            self.weight(c, 0.5, 1.0),
            self.weight(c, 0.2),
            self.weight(c, 0.2),
            self.weight(c, 0.5, 1.0),
        ]
        types = ", ".join(tensor(c) for _ in params)
        return self.op(
            "n",
            f"dnn.batch_norm {src}, {', '.join(params)} : ({tensor(shape)}, {types}) -> "
            f"{tensor(shape)}",
        )

    def eltwise(self, src: str, shape: tuple[int, ...], alg: str, alpha: float, beta: float) -> str:
        return self.op(
            "e",
            f"dnn.eltwise {alg} {src} {{alpha = {alpha!r} : f32, beta = {beta!r} : f32}} : "
            f"{tensor(shape)}",
        )

    def binary(
        self,
        alg: str,
        lhs: tuple[str, tuple[int, ...]],
        rhs: tuple[str, tuple[int, ...]],
        result: tuple[int, ...],
    ) -> str:
        return self.op(
            "b",
            f"dnn.binary {alg} {lhs[0]}, {rhs[0]} : ({tensor(lhs[1])}, {tensor(rhs[1])}) -> "
            f"{tensor(result)}",
        )

    def function(
        self, args: list[tuple[str, tuple[int, ...]]], results: list[tuple[str, tuple[int, ...]]]
    ) -> str:
        signature = ", ".join(f"{n}: {tensor(s)}" for n, s in args)
        types = ", ".join(tensor(s) for _, s in results)
        return "\n".join(
            [
                f"func.func @graph({signature}) -> ({types}) {{",
                *self.lines,
                f"  func.return {', '.join(n for n, _ in results)} : {types}",
                "}",
                "",
            ]
        )


def tensor(shape: tuple[int, ...]) -> str:
    return f"tensor<{'x'.join(map(str, shape))}xf32>"


@dataclass(frozen=True)
class Case:
    """A graph's IR text, weights and inputs."""

    text: str
    weights: dict[str, np.ndarray]
    inputs: list[np.ndarray]


def residual_blocks(blocks: int, shape: tuple[int, int, int, int], seed: int = 0) -> Case:
    """`blocks` ResNet basic blocks: conv3x3+bn+relu, conv3x3+bn, add the input, relu."""
    b = GraphBuilder(np.random.default_rng(seed))
    x = "%x"
    for _ in range(blocks):
        c1 = b.conv(x, shape, shape[1], 3, bias=False)
        r1 = b.eltwise(b.batch_norm(c1, shape), shape, "relu", 0.0, 0.0)
        n2 = b.batch_norm(b.conv(r1, shape, shape[1], 3, bias=False), shape)
        x = b.eltwise(b.binary("add", (n2, shape), (x, shape), shape), shape, "relu", 0.0, 0.0)
    inputs = [b.rng.uniform(-1, 1, shape).astype(np.float32)]
    return Case(b.function([("%x", shape)], [(x, shape)]), b.weights, inputs)


def bert_feed_forward(seq: int, hidden: int, inner: int, seed: int = 0) -> Case:
    """matmul + bias + gelu, matmul + bias, residual add, layer_norm."""
    b = GraphBuilder(np.random.default_rng(seed))
    x, h, f = (seq, hidden), (seq, inner), (inner,)
    w1, b1 = b.weight((hidden, inner), 1 / np.sqrt(hidden)), b.weight(f, 0.1)
    w2, b2 = b.weight((inner, hidden), 1 / np.sqrt(inner)), b.weight((hidden,), 0.1)
    gamma, beta = b.weight((hidden,), 0.2, 1.0), b.weight((hidden,), 0.1)
    m1 = b.op("m", f"dnn.matmul %x, {w1} : ({tensor(x)}, {tensor((hidden, inner))}) -> {tensor(h)}")
    g = b.eltwise(b.binary("add", (m1, h), (b1, f), h), h, "gelu_erf", 0.0, 0.0)
    m2 = b.op(
        "m", f"dnn.matmul {g}, {w2} : ({tensor(h)}, {tensor((inner, hidden))}) -> {tensor(x)}"
    )
    r = b.binary("add", (b.binary("add", (m2, x), (b2, (hidden,)), x), x), ("%x", x), x)
    y = b.op(
        "y",
        f"dnn.layer_norm {r} scale({gamma} : {tensor((hidden,))}) shift({beta} : "
        f"{tensor((hidden,))}) : {tensor(x)}",
    )
    inputs = [b.rng.uniform(-1, 1, x).astype(np.float32)]
    return Case(b.function([("%x", x)], [(y, x)]), b.weights, inputs)


def write(case: Case, directory: Path) -> Path:
    save_weights(directory / WEIGHTS, case.weights)
    path = directory / "graph.mlir"
    path.write_text(case.text)
    return path


def inverted_residuals(
    blocks: int, shape: tuple[int, int, int, int], expand: int = 4, seed: int = 0
) -> Case:
    """MobileNetV2 blocks: 1x1 expand + relu6, 3x3 depthwise + relu6, 1x1 project, add input."""
    b = GraphBuilder(np.random.default_rng(seed))
    wide = (shape[0], shape[1] * expand, *shape[2:])
    x = "%x"
    for _ in range(blocks):
        e = b.eltwise(b.conv(x, shape, wide[1], 1, bias=True), wide, "clip", 0.0, 6.0)
        dw = b.weight((wide[1], 1, 3, 3), 1 / 3)
        d = b.op(
            "d",
            f"dnn.conv2d {e}, {dw} {{pads_begin = array<i64: 1, 1>, pads_end = array<i64: "
            f"1, 1>, groups = {wide[1]} : i64}} : ({tensor(wide)}, {tensor((wide[1], 1, 3, 3))}) "
            f"-> {tensor(wide)}",
        )
        d = b.eltwise(d, wide, "clip", 0.0, 6.0)
        p = b.conv(d, wide, shape[1], 1, bias=True)
        x = b.binary("add", (p, shape), (x, shape), shape)
    inputs = [b.rng.uniform(-1, 1, shape).astype(np.float32)]
    return Case(b.function([("%x", shape)], [(x, shape)]), b.weights, inputs)


def bert_layer(seq: int, hidden: int, seed: int = 0) -> Case:
    """Self-attention (q, k, v projections, softmax(q k^T / sqrt(h)) v, output projection,
    residual add, layer_norm), then feed-forward (matmul + gelu, matmul, residual, layer_norm)."""
    b = GraphBuilder(np.random.default_rng(seed))
    x, s, h = (seq, hidden), (seq, seq), (seq, 4 * hidden)

    def matmul(lhs: str, lhs_shape: tuple[int, int], rhs: str, rhs_shape: tuple[int, int]) -> str:
        out = (lhs_shape[0], rhs_shape[1])
        return b.op(
            "m",
            f"dnn.matmul {lhs}, {rhs} : ({tensor(lhs_shape)}, {tensor(rhs_shape)}) "
            f"-> {tensor(out)}",
        )

    def weight(rows: int, cols: int) -> tuple[str, tuple[int, int]]:
        return b.weight((rows, cols), 1 / np.sqrt(rows)), (rows, cols)

    q, k, v = (matmul("%x", x, *weight(hidden, hidden)) for _ in range(3))
    kt = b.op(
        "t",
        f"dnn.transpose {k} {{permutation = array<i64: 1, 0>}} : ({tensor(x)}) -> "
        f"{tensor(x[::-1])}",
    )
    scores = b.eltwise(matmul(q, x, kt, x[::-1]), s, "linear", float(1 / np.sqrt(hidden)), 0.0)
    probs = b.op("a", f"dnn.softmax {scores} {{axis = 1 : i64}} : {tensor(s)}")
    attended = matmul(matmul(probs, s, v, x), x, *weight(hidden, hidden))
    y = b.op("y", f"dnn.layer_norm {b.binary('add', (attended, x), ('%x', x), x)} : {tensor(x)}")
    inner = b.eltwise(matmul(y, x, *weight(hidden, 4 * hidden)), h, "gelu_erf", 0.0, 0.0)
    out = matmul(inner, h, *weight(4 * hidden, hidden))
    z = b.op("z", f"dnn.layer_norm {b.binary('add', (out, x), (y, x), x)} : {tensor(x)}")
    inputs = [b.rng.uniform(-1, 1, x).astype(np.float32)]
    return Case(b.function([("%x", x)], [(z, x)]), b.weights, inputs)


def dense_block(layers: int, shape: tuple[int, int, int, int], growth: int, seed: int = 0) -> Case:
    """DenseNet-style: each layer's 3x3 conv + relu output is concatenated on channels."""
    b = GraphBuilder(np.random.default_rng(seed))
    x, current = "%x", shape
    for _ in range(layers):
        out = (shape[0], growth, *shape[2:])
        y = b.eltwise(b.conv(x, current, growth, 3, bias=True), out, "relu", 0.0, 0.0)
        grown = (shape[0], current[1] + growth, *shape[2:])
        x = b.op(
            "k",
            f"dnn.concat {x}, {y} {{axis = 1 : i64}} : ({tensor(current)}, "
            f"{tensor(out)}) -> {tensor(grown)}",
        )
        current = grown
    x = b.eltwise(x, current, "relu", 0.0, 0.0)
    inputs = [b.rng.uniform(-1, 1, shape).astype(np.float32)]
    return Case(b.function([("%x", shape)], [(x, current)]), b.weights, inputs)
