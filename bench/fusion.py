"""Fusion benchmark: median latency of graphs compiled without and with fusion.

(a) a chain of 8 ResNet basic blocks on 1x64x56x56 (conv3x3 + batch_norm + relu, conv3x3 +
batch_norm, add the block input, relu) and (b) a BERT feed-forward block (seq 128, hidden 768,
inner 3072: matmul + bias + gelu, matmul + bias, residual add, layer_norm), with seeded random
weights in an .npz in a temporary directory. Each graph is compiled three ways (the lowering
``dnn-to-onednn`` always follows): "as written" (pipeline ""), "unfused" (``dnn-optimize``
without dnn-fold-constants and dnn-fuse-post-ops: the same layouts and buffer reuse) and
"fused" (the whole ``dnn-optimize``), so the ratio unfused / fused is fusion's alone. Fusion
is not timed on plain layouts: oneDNN 3.2 runs a plain (ncsp) convolution with a full-shape
binary post-op in its reference kernel, about 1000x slower at 1x64x56x56; dnn-optimize gives
convolutions blocked layouts after fusion. Outputs are checked against the "as written" run
first. Prints one row per graph: median ms per run, primitive steps, and the ratio.

    python bench/fusion.py [--repeats 30]

The graph builders are shared with test/python/passes/test_fusion_differential.py.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

import dnnc
from dnnc.driver.pipelines import OptimizePipeline
from dnnc.reference.interpreter import compare

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
    np.savez(directory / WEIGHTS, **case.weights)
    path = directory / "graph.mlir"
    path.write_text(case.text)
    return path


def median_ms(executable: dnnc.Executable, inputs: list[np.ndarray], repeats: int) -> float:
    """Median wall time of one run in milliseconds, after 3 warm-up runs."""
    for _ in range(3):
        executable.run(inputs)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        executable.run(inputs)
        times.append(time.perf_counter() - start)
    return 1e3 * statistics.median(times)


FUSION = ("dnn-fold-constants", "dnn-fuse-post-ops")
PIPELINES = {
    "as written": "",
    "unfused": ",".join(step for step in OptimizePipeline.steps if step not in FUSION),
    "fused": "dnn-optimize",
}
"""The compilations compared, by column name."""


def bench(name: str, case: Case, directory: Path, repeats: int) -> None:
    """Compile `case` each way of PIPELINES, check they agree, print their median latencies."""
    path = write(case, directory)
    executables = {column: dnnc.compile(path, spec) for column, spec in PIPELINES.items()}
    reference = executables["as written"].run(case.inputs)
    for column, executable in executables.items():
        for actual, expected in zip(executable.run(case.inputs), reference, strict=True):
            comparison = compare(actual, expected)
            if not comparison.ok:
                raise SystemExit(f"{name}: {column} and as-written outputs differ: {comparison}")
    ms = {column: median_ms(e, case.inputs, repeats) for column, e in executables.items()}
    steps = "/".join(str(len(e.plan.step_infos)) for e in executables.values())
    cells = " ".join(f"{ms[column]:>12.2f}" for column in PIPELINES)
    print(f"{name:<28} {cells} {steps:>9} {ms['unfused'] / ms['fused']:>8.2f}x", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30, help="timed runs per graph")
    args = parser.parse_args()
    columns = " ".join(f"{column + ' ms':>12}" for column in PIPELINES)
    print(f"{'graph':<28} {columns} {'steps':>9} {'unfused/fused':>9}", flush=True)
    with tempfile.TemporaryDirectory() as directory:
        here = Path(directory)
        bench("resnet 8 blocks 1x64x56x56", residual_blocks(8, (1, 64, 56, 56)), here, args.repeats)
        bench("bert ffn 128x768x3072", bert_feed_forward(128, 768, 3072), here, args.repeats)


if __name__ == "__main__":
    main()
