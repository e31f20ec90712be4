"""A seeded generator of random valid dnn graphs, for differential testing.

``generate(seed)`` writes one ``func.func @graph`` in the dnn dialect's text form, with its
``dnn.weight`` arrays (for an ``.npz`` next to the IR file) and random inputs. Every op of
docs/dialect.md can appear; graph seed ``s`` always contains ``OP_KINDS[s % len(OP_KINDS)]``,
so a budget of ``len(OP_KINDS)`` consecutive seeds covers every kind.

Shape of a graph: one or two inputs (rank 4 images, sometimes a rank 2 matrix), then 4 to 12
ops, each reading values picked from everything computed so far (recent values preferred:
chains; older ones: branches and multi-use values). The last value is returned, plus up to two
earlier intermediates and every top_k's indices.

Numerics are kept comparable with a relative tolerance: weights are scaled by 1/sqrt(fan-in),
eltwise algorithms are those with bounded growth and no domain limits, ``div`` only divides by
constants in [1, 2], reduce ``mul`` only over at most 4 elements. ``top_k`` and the cast pair
(f32 -> bf16 -> f32) only read values that data movement produced exactly from the inputs
(``Value.exact``), so that neither indices nor bf16 rounding depend on earlier rounding;
reorder pairs (plain -> blocked -> plain) around exact ops keep values exact.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np

T = TypeVar("T")

WEIGHTS_FILE = "weights.npz"

OP_KINDS: tuple[str, ...] = (
    "conv2d",
    "matmul",
    "inner_product",
    "pool",
    "batch_norm",
    "layer_norm",
    "lrn",
    "softmax",
    "log_softmax",
    "reduce",
    "eltwise",
    "binary",
    "sum",
    "concat",
    "slice",
    "reshape",
    "transpose",
    "top_k",
    "reorder",
    "cast",
    "constant",
    "weight",
)
"""Every dnn op the generator emits (``constant`` / ``weight``: the sources of parameters)."""

BOUNDED_ELTWISE: tuple[str, ...] = (
    "relu",
    "leaky_relu",
    "gelu_erf",
    "gelu_tanh",
    "tanh",
    "sigmoid",
    "elu",
    "swish",
    "hardswish",
    "hardsigmoid",
    "clip",
    "relu6",
    "abs",
    "linear",
    "soft_relu",
    "mish",
)
_ELTWISE_PARAMS: dict[str, tuple[float, float]] = {
    "leaky_relu": (0.1, 0.0),
    "elu": (1.0, 0.0),
    "swish": (1.0, 0.0),
    "hardswish": (1 / 6, 0.5),
    "hardsigmoid": (0.2, 0.5),
    "clip": (-1.0, 1.0),
    "linear": (0.5, 0.25),
    "soft_relu": (1.0, 0.0),
}
SUM_ANCHORS = ("conv2d", "matmul", "inner_product")
"""Anchors that get ``#dnn.sum`` post-ops. Not dnn.binary / dnn.pool: oneDNN 3.2's binary
and pooling primitives refuse a sum post-op (dnnl_unimplemented) and the lowering does not
split it off yet."""
_LAYOUTS: dict[int, tuple[str, ...]] = {4: ("nhwc", "nChw8c", "nChw16c", "chwn"), 2: ("cn",)}


@dataclass(frozen=True)
class Value:
    """An SSA value of the graph being built."""

    name: str
    shape: tuple[int, ...]
    element: str = "f32"
    layout: str | None = None
    exact: bool = False
    """Produced from the inputs by data movement only (no rounding happened)."""

    @property
    def type(self) -> str:
        dims = "".join(f"{d}x" for d in self.shape)
        encoding = f", #dnn.layout<{self.layout}>" if self.layout else ""
        return f"tensor<{dims}{self.element}{encoding}>"


@dataclass
class Graph:
    """A generated graph: IR text, the weights for WEIGHTS_FILE, inputs and the op kinds used."""

    text: str
    weights: dict[str, np.ndarray]
    inputs: list[np.ndarray]
    kinds: set[str]
    num_ops: int


def _ints(values: tuple[int, ...] | list[int]) -> str:
    return f"array<i64: {', '.join(map(str, values))}>"


def _dense(values: np.ndarray) -> str:
    """A dense literal's nested brackets (the parser wants the type's shape)."""
    if values.ndim == 0:
        return repr(float(values))
    return f"[{', '.join(_dense(v) for v in values)}]"


@dataclass
class _Builder:
    rng: np.random.Generator
    lines: list[str] = field(default_factory=list)
    available: list[Value] = field(default_factory=list)
    weights: dict[str, np.ndarray] = field(default_factory=dict)
    kinds: set[str] = field(default_factory=set)
    returned: list[Value] = field(default_factory=list)
    _counter: itertools.count = field(default_factory=itertools.count)

    # --- helpers -----------------------------------------------------------------------------

    def fresh(self, prefix: str) -> str:
        return f"{prefix}{next(self._counter)}"

    def emit(self, kind: str, line: str) -> None:
        self.kinds.add(kind)
        self.lines.append("  " + line)

    def chance(self, p: float) -> bool:
        return bool(self.rng.random() < p)

    def choice(self, options: Sequence[T]) -> T:
        return options[int(self.rng.integers(len(options)))]

    def pick(self, accept: Callable[[Value], bool] = lambda v: True) -> Value | None:
        """A value from the pool, the most recent ones likelier (chains), or None."""
        candidates = [v for v in self.available if accept(v)]
        if not candidates:
            return None
        weights = np.arange(1, len(candidates) + 1, dtype=np.float64) ** 2
        return candidates[int(self.rng.choice(len(candidates), p=weights / weights.sum()))]

    def parameter(
        self, shape: tuple[int, ...], low: float, high: float, kind: str | None = None
    ) -> Value:
        """A parameter tensor, uniform in [low, high): a dnn.constant or a dnn.weight (``kind``,
        random when None)."""
        data = self.rng.uniform(low, high, size=shape).astype(np.float32)
        value = Value(self.fresh("%p"), shape)
        if (kind or self.choice(("constant", "weight"))) == "constant":
            self.emit(
                "constant", f"{value.name} = dnn.constant dense<{_dense(data)}> : {value.type}"
            )
        else:
            key = value.name[1:]
            self.weights[key] = data
            self.emit(
                "weight", f'{value.name} = dnn.weight "{WEIGHTS_FILE}", "{key}" : {value.type}'
            )
        return value

    def weights_for(self, shape: tuple[int, ...], fan_in: int) -> Value:
        bound = 1.0 / np.sqrt(fan_in)
        return self.parameter(shape, -bound, bound)

    def add(self, value: Value) -> Value:
        self.available.append(value)
        return value

    def post_ops(self, kind: str, result: Value) -> tuple[str, list[Value]]:
        """A random post-op chain for an anchor of ``kind`` with ``result``: attribute text and
        arguments. Sum post-ops only on the anchors whose oneDNN primitive takes them."""
        ops: list[str] = []
        args: list[Value] = []
        for _ in range(int(self.rng.integers(0, 3))):
            roll = self.rng.random()
            if roll < 0.5:
                alg = self.choice(BOUNDED_ELTWISE)
                alpha, beta = _ELTWISE_PARAMS.get(alg, (0.0, 0.0))
                ops.append(f"#dnn.eltwise<{alg}, {alpha!r}, {beta!r}>")
            elif roll < 0.8:
                shape = tuple(
                    d if keep else 1
                    for d, keep in zip(result.shape, self.rng.random(len(result.shape)) < 0.3)
                )
                if len(shape) > 1 and self.chance(0.6):  # per-channel
                    shape = tuple(d if i == 1 else 1 for i, d in enumerate(result.shape))
                ops.append(f"#dnn.binary<{self.choice(('add', 'mul', 'max', 'min', 'sub'))}>")
                args.append(self.parameter(shape, 0.5, 1.5))
            elif kind in SUM_ANCHORS:
                summand = self.pick(
                    lambda v: v.shape == result.shape and v.element == "f32" and v.layout is None
                )
                if summand is None:
                    continue
                ops.append(f"#dnn.sum<{self.choice((1.0, 0.5))!r}>")
                args.append(summand)
        if not ops:
            return "", []
        return f"post_ops = [{', '.join(ops)}]", args

    def anchor(self, kind: str, operands: list[Value], result: Value, props: list[str]) -> Value:
        """Emit a post-op anchor (conv2d, matmul, inner_product, pool, binary)."""
        post, args = self.post_ops(kind, result) if self.chance(0.6) else ("", [])
        attrs = ", ".join([*props, post] if post else props)
        head = ", ".join(v.name for v in operands)
        if kind in ("pool", "binary"):
            head = f"{props[0]} {head}"
            attrs = ", ".join([*props[1:], post] if post else props[1:])
        post_args = (
            f" post_args({', '.join(a.name for a in args)} : {', '.join(a.type for a in args)})"
            if args
            else ""
        )
        attr_dict = f" {{{attrs}}}" if attrs else ""
        types = ", ".join(v.type for v in operands)
        self.emit(
            kind,
            f"{result.name} = dnn.{kind} {head}{post_args}{attr_dict} : ({types}) -> {result.type}",
        )
        return self.add(result)

    def unary(
        self,
        kind: str,
        src: Value,
        result: Value,
        attrs: str = "",
        head: str = "",
        functional: bool = True,
    ) -> Value:
        attr_dict = f" {{{attrs}}}" if attrs else ""
        types = f"({src.type}) -> {result.type}" if functional else src.type
        self.emit(kind, f"{result.name} = dnn.{kind} {head}{src.name}{attr_dict} : {types}")
        return self.add(result)

    # --- one generator per op kind (None when nothing in the pool fits) ----------------------

    def conv2d(self) -> Value | None:
        src = self.pick(lambda v: len(v.shape) == 4)
        if src is None:
            return None
        n, c, h, w = src.shape
        groups = self.choice([g for g in (1, 2, c) if c % g == 0])
        out = self.choice((4, 8, 16)) if groups != c else c * self.choice((1, 2))
        out -= out % groups
        k = self.choice((1, 3)) if min(h, w) >= 3 else 1
        dil = 2 if k == 3 and min(h, w) >= 5 and self.chance(0.2) else 1
        stride = self.choice((1, 2))
        pad = self.choice((0, 1)) if k == 3 else 0
        oh = (h + 2 * pad - (k - 1) * dil - 1) // stride + 1
        ow = (w + 2 * pad - (k - 1) * dil - 1) // stride + 1
        wei = self.weights_for((out, c // groups, k, k), c // groups * k * k)
        operands = [src, wei]
        if self.chance(0.7):
            operands.append(self.parameter((out,), -0.5, 0.5))
        props = [
            f"strides = {_ints([stride, stride])}",
            f"pads_begin = {_ints([pad, pad])}",
            f"pads_end = {_ints([pad, pad])}",
            f"dilations = {_ints([dil, dil])}",
            f"groups = {groups} : i64",
        ]
        return self.anchor("conv2d", operands, Value(self.fresh("%conv"), (n, out, oh, ow)), props)

    def matmul(self) -> Value | None:
        lhs = self.pick(lambda v: len(v.shape) >= 2)
        if lhs is None:
            return None
        *batch, m, k = lhs.shape
        if self.chance(0.3):  # lhs @ lhs^T: a multi-use of lhs through a transpose
            perm = [*range(len(batch)), len(batch) + 1, len(batch)]
            rhs = self.unary(
                "transpose",
                lhs,
                Value(self.fresh("%t"), (*batch, k, m)),
                f"permutation = {_ints(perm)}",
            )
            n = m
        else:
            n = self.choice((3, 8, 16))
            rhs = self.weights_for((k, n), k)
        result = Value(self.fresh("%mm"), (*batch, m, n))
        operands = [lhs, rhs]
        if self.chance(0.5):
            operands.append(self.parameter((*([1] * (len(result.shape) - 1)), n), -0.5, 0.5))
        return self.anchor("matmul", operands, result, [])

    def inner_product(self) -> Value | None:
        src = self.pick(lambda v: len(v.shape) in (2, 4))
        if src is None:
            return None
        out = self.choice((4, 10))
        wei = self.weights_for((out, *src.shape[1:]), int(np.prod(src.shape[1:])))
        operands = [src, wei]
        if self.chance(0.7):
            operands.append(self.parameter((out,), -0.5, 0.5))
        return self.anchor(
            "inner_product", operands, Value(self.fresh("%ip"), (src.shape[0], out)), []
        )

    def pool(self) -> Value | None:
        src = self.pick(lambda v: len(v.shape) == 4 and min(v.shape[2:]) >= 2)
        if src is None:
            return None
        n, c, h, w = src.shape
        kind = self.choice(("max", "avg_include_pad", "avg_exclude_pad"))
        k = self.choice((2, 3)) if min(h, w) >= 3 else 2
        stride = self.choice((1, 2))
        pad = self.choice((0, 1))
        oh = (h + 2 * pad - k) // stride + 1
        ow = (w + 2 * pad - k) // stride + 1
        props = [
            kind,
            f"kernel = {_ints([k, k])}",
            f"strides = {_ints([stride, stride])}",
            f"pads_begin = {_ints([pad, pad])}",
            f"pads_end = {_ints([pad, pad])}",
        ]
        return self.anchor("pool", [src], Value(self.fresh("%pool"), (n, c, oh, ow)), props)

    def batch_norm(self) -> Value | None:
        src = self.pick(lambda v: len(v.shape) in (2, 4))
        if src is None:
            return None
        c = src.shape[1]
        params = [
            self.parameter((c,), 0.5, 1.5),
            self.parameter((c,), -0.5, 0.5),
            self.parameter((c,), -0.5, 0.5),
            self.parameter((c,), 0.5, 2.0),
        ]
        result = Value(self.fresh("%bn"), src.shape)
        names = ", ".join(v.name for v in [src, *params])
        types = ", ".join(v.type for v in [src, *params])
        self.emit(
            "batch_norm", f"{result.name} = dnn.batch_norm {names} : ({types}) -> {result.type}"
        )
        return self.add(result)

    def layer_norm(self) -> Value | None:
        src = self.pick(lambda v: len(v.shape) >= 2 and v.shape[-1] >= 2)
        if src is None:
            return None
        c = src.shape[-1]
        parts = []
        if self.chance(0.6):
            scale = self.parameter((c,), 0.5, 1.5)
            parts.append(f" scale({scale.name} : {scale.type})")
        if self.chance(0.6):
            shift = self.parameter((c,), -0.5, 0.5)
            parts.append(f" shift({shift.name} : {shift.type})")
        result = Value(self.fresh("%ln"), src.shape)
        self.emit(
            "layer_norm", f"{result.name} = dnn.layer_norm {src.name}{''.join(parts)} : {src.type}"
        )
        return self.add(result)

    def lrn(self) -> Value | None:
        src = self.pick(lambda v: len(v.shape) == 4)
        if src is None:
            return None
        kind = self.choice(("across_channels", "within_channel"))
        attrs = f"size = {self.choice((3, 5))} : i64, alpha = 0.1 : f32"
        return self.unary(
            "lrn", src, Value(self.fresh("%lrn"), src.shape), attrs, f"{kind} ", functional=False
        )

    def softmax(self, kind: str = "softmax") -> Value | None:
        src = self.pick()
        if src is None:
            return None
        axis = int(self.rng.integers(-len(src.shape), len(src.shape)))
        return self.unary(
            kind, src, Value(self.fresh("%sm"), src.shape), f"axis = {axis} : i64", functional=False
        )

    def log_softmax(self) -> Value | None:
        return self.softmax("log_softmax")

    def reduce(self) -> Value | None:
        src = self.pick(lambda v: len(v.shape) >= 2 and max(v.shape) > 1)
        if src is None:
            return None
        rank = len(src.shape)
        # Some axis of extent > 1: oneDNN's reduction refuses dst == src (invalid arguments)
        # and the lowering does not turn that identity into a copy yet.
        wide = [a for a, d in enumerate(src.shape) if d > 1]
        first = self.choice(wide)
        others = [a for a in range(rank) if a != first]
        extra = self.rng.choice(others, int(self.rng.integers(0, rank - 1)), replace=False)
        axes = sorted([first, *(int(a) for a in extra)])
        keep = self.chance(0.6)
        reduced = int(np.prod([src.shape[a] for a in axes]))
        kind = self.choice(
            ("sum", "mean", "max", "min", "mul") if reduced <= 4 else ("sum", "mean", "max", "min")
        )
        shape = tuple(
            1 if i in axes else d for i, d in enumerate(src.shape) if keep or i not in axes
        )
        attrs = f"axes = {_ints(axes)}" + ("" if keep else ", keep_dims = false")
        return self.unary("reduce", src, Value(self.fresh("%red"), shape), attrs, f"{kind} ")

    def unary_on(self, src: Value, algs: tuple[str, ...] = BOUNDED_ELTWISE) -> Value:
        """An eltwise of `src` kept out of the pool (inside a reorder or cast pair)."""
        result = self.eltwise(src, algs)
        assert result is not None  # given a source
        self.available.pop()
        return result

    def eltwise(
        self, src: Value | None = None, algs: tuple[str, ...] = BOUNDED_ELTWISE
    ) -> Value | None:
        src = src or self.pick()
        if src is None:
            return None
        alg = self.choice(algs)
        alpha, beta = _ELTWISE_PARAMS.get(alg, (0.0, 0.0))
        attrs = (
            f"alpha = {alpha!r} : f32, beta = {beta!r} : f32" if (alpha, beta) != (0.0, 0.0) else ""
        )
        result = Value(self.fresh("%elt"), src.shape, src.element, src.layout)
        return self.unary("eltwise", src, result, attrs, f"{alg} ", functional=False)

    def binary(self) -> Value | None:
        lhs = self.pick()
        if lhs is None:
            return None
        alg = self.choice(("add", "sub", "mul", "max", "min", "div"))
        same = self.pick(lambda v: v.shape == lhs.shape)
        if alg == "div" or same is None or self.chance(0.4):
            shape = tuple(
                d if keep else 1
                for d, keep in zip(lhs.shape, self.rng.random(len(lhs.shape)) < 0.4)
            )
            rhs = self.parameter(shape, 1.0, 2.0)
        else:
            rhs = same
        return self.anchor("binary", [lhs, rhs], Value(self.fresh("%bin"), lhs.shape), [alg])

    def sum(self) -> Value | None:
        first = self.pick()
        if first is None:
            return None
        others = [
            self.pick(lambda v: v.shape == first.shape) for _ in range(int(self.rng.integers(1, 3)))
        ]
        inputs = [first, *(v for v in others if v is not None)]
        attrs = ""
        if self.chance(0.5):
            attrs = f" {{scales = array<f32: {', '.join(repr(self.choice((0.5, 1.0, -1.0))) for _ in inputs)}>}}"
        result = Value(self.fresh("%sum"), first.shape)
        self.emit(
            "sum",
            f"{result.name} = dnn.sum {', '.join(v.name for v in inputs)}{attrs} : {result.type}",
        )
        return self.add(result)

    def concat(self) -> Value | None:
        first = self.pick()
        if first is None:
            return None
        axis = int(self.rng.integers(len(first.shape)))
        fits = lambda v: len(v.shape) == len(first.shape) and all(  # noqa: E731
            a == b for i, (a, b) in enumerate(zip(v.shape, first.shape)) if i != axis
        )
        picked = [self.pick(fits) for _ in range(int(self.rng.integers(1, 3)))]
        inputs = [first, *(v for v in picked if v is not None)]  # first fits: never None
        shape = list(first.shape)
        shape[axis] = sum(v.shape[axis] for v in inputs)
        result = Value(self.fresh("%cat"), tuple(shape), exact=all(v.exact for v in inputs))
        self.emit(
            "concat",
            f"{result.name} = dnn.concat {', '.join(v.name for v in inputs)} {{axis = {axis} : i64}} "
            f": ({', '.join(v.type for v in inputs)}) -> {result.type}",
        )
        return self.add(result)

    def slice(self) -> Value | None:
        src = self.pick(lambda v: max(v.shape) >= 2)
        if src is None:
            return None
        starts, ends, steps = [], [], []
        for d in src.shape:
            start = int(self.rng.integers(0, (d + 1) // 2))
            starts.append(start)
            ends.append(int(self.rng.integers(start + 1, d + 1)))
            steps.append(2 if d >= 4 and self.chance(0.15) else 1)
        shape = tuple(-(-(e - s) // st) for s, e, st in zip(starts, ends, steps))
        attrs = f"starts = {_ints(starts)}, ends = {_ints(ends)}"
        if any(st != 1 for st in steps):
            attrs += f", steps = {_ints(steps)}"
        return self.unary("slice", src, Value(self.fresh("%sl"), shape, exact=src.exact), attrs)

    def reshape(self) -> Value | None:
        src = self.pick(lambda v: len(v.shape) >= 2)
        if src is None:
            return None
        cut = int(self.rng.integers(1, len(src.shape)))
        if len(src.shape) > 2 and self.chance(0.5):  # merge two adjacent dims
            shape = (
                *src.shape[: cut - 1],
                src.shape[cut - 1] * src.shape[cut],
                *src.shape[cut + 1 :],
            )
        else:  # flatten to 2-D
            shape = (int(np.prod(src.shape[:cut])), int(np.prod(src.shape[cut:])))
        return self.unary("reshape", src, Value(self.fresh("%rs"), shape, exact=src.exact))

    def transpose(self) -> Value | None:
        src = self.pick(lambda v: len(v.shape) >= 2)
        if src is None:
            return None
        perm = list(range(len(src.shape)))
        while perm == sorted(perm):
            perm = [int(p) for p in self.rng.permutation(len(src.shape))]
        shape = tuple(src.shape[p] for p in perm)
        return self.unary(
            "transpose",
            src,
            Value(self.fresh("%tr"), shape, exact=src.exact),
            f"permutation = {_ints(perm)}",
        )

    def top_k(self) -> Value | None:
        src = self.pick(lambda v: v.exact)
        if src is None:
            return None
        axis = int(self.rng.integers(-len(src.shape), len(src.shape)))
        k = int(self.rng.integers(1, src.shape[axis] + 1))
        shape = list(src.shape)
        shape[axis] = k
        values = Value(self.fresh("%val"), tuple(shape), exact=True)
        indices = Value(self.fresh("%idx"), tuple(shape), element="i64")
        attrs = f"k = {k} : i64, axis = {axis} : i64" + (
            ", largest = false" if self.chance(0.3) else ""
        )
        self.emit(
            "top_k",
            f"{values.name}, {indices.name} = dnn.top_k {src.name} {{{attrs}}} : ({src.type}) -> "
            f"({values.type}, {indices.type})",
        )
        self.returned.append(indices)
        return self.add(values)

    def reorder(self) -> Value | None:
        """plain -> blocked, maybe an eltwise there, -> plain (exact if only data moved)."""
        src = self.pick(lambda v: len(v.shape) in _LAYOUTS)
        if src is None:
            return None
        layout = self.choice(_LAYOUTS[len(src.shape)])
        moved = Value(self.fresh("%ro"), src.shape, layout=layout, exact=src.exact)
        self.unary("reorder", src, moved)
        self.available.pop()  # blocked values stay inside the pair
        if self.chance(0.5):
            moved = self.unary_on(moved)
        back = Value(self.fresh("%ro"), src.shape, exact=moved.exact)
        return self.unary("reorder", moved, back)

    def cast(self) -> Value | None:
        """f32 -> bf16 (relu or abs there, both exact) -> f32, on an exact value: the bf16
        rounding of a computed value could round the other way than the oracle's."""
        src = self.pick(lambda v: v.exact)
        if src is None:
            return None
        low = Value(self.fresh("%bf"), src.shape, element="bf16")
        self.unary("cast", src, low)
        self.available.pop()
        if self.chance(0.5):
            low = self.unary_on(low, ("relu", "abs"))
        return self.unary("cast", low, Value(self.fresh("%cast"), src.shape))

    def constant(self, kind: str = "constant") -> Value | None:
        """A full-shape parameter of ``kind`` added to a value."""
        src = self.pick()
        if src is None:
            return None
        rhs = self.parameter(src.shape, -1.0, 1.0, kind)
        return self.anchor("binary", [src, rhs], Value(self.fresh("%bin"), src.shape), ["add"])

    def weight(self) -> Value | None:
        return self.constant("weight")


_GENERATORS: dict[str, Callable[[_Builder], Value | None]] = {
    kind: getattr(_Builder, kind) for kind in OP_KINDS
}


def generate(seed: int) -> Graph:
    """The graph of ``seed`` (module docstring)."""
    rng = np.random.default_rng(seed)
    builder = _Builder(rng)
    args = [
        Value(
            "%x0",
            (
                int(rng.integers(1, 3)),
                int(rng.choice((4, 8, 16))),
                int(rng.integers(4, 9)),
                int(rng.integers(4, 9)),
            ),
            exact=True,
        )
    ]
    if rng.random() < 0.5:
        args.append(
            Value(
                "%x1",
                args[0].shape
                if rng.random() < 0.5
                else (int(rng.integers(2, 6)), int(rng.choice((8, 16)))),
                exact=True,
            )
        )
    builder.available.extend(args)
    # The forced kind goes first: every kind accepts the inputs, so it is always emitted.
    plan = [OP_KINDS[seed % len(OP_KINDS)]]
    plan += [builder.choice(OP_KINDS) for _ in range(int(rng.integers(3, 12)))]
    produced = [v for v in (_GENERATORS[kind](builder) for kind in plan) if v is not None]
    results = [produced[-1]]
    for extra in rng.permutation(len(produced))[: int(rng.integers(0, 3))]:
        if produced[extra] not in results:
            results.append(produced[extra])
    results += [v for v in builder.returned if v not in results]
    signature = ", ".join(f"{a.name}: {a.type}" for a in args)
    result_types = ", ".join(v.type for v in results)
    text = "\n".join(
        [
            f"func.func @graph({signature}) -> ({result_types}) {{",
            *builder.lines,
            f"  func.return {', '.join(v.name for v in results)} : {result_types}",
            "}",
            "",
        ]
    )
    inputs = [rng.uniform(-2.0, 2.0, size=a.shape).astype(np.float32) for a in args]
    return Graph(text, builder.weights, inputs, builder.kinds, len(builder.lines))
