"""IR of the dynamic-shape tests: each graph once, written with ``?`` or with sizes.

``bert(b, s)`` and ``conv(n, h, w)`` give the same graph for sizes (ints: a static function)
or ``None`` (that dimension is ``?``), so a dynamic compile and the static compile of each
shape are compiled from one text. Weights are ``dnn.weight`` arrays in ``weights.npz`` next
to the IR file (``write_weights``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

HIDDEN = 32
FFN = 64
CONV_OUT = 8
HEAD_OUT = 4


def _dim(size: int | None) -> str:
    return "?" if size is None else str(size)


def _half(size: int | None) -> int | None:
    return None if size is None else size // 2


def write_weights(directory: Path, seed: int = 0) -> None:
    """Every weight of both graphs, seeded, in ``directory/weights.npz``."""
    rng = np.random.default_rng(seed)

    def draw(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * 0.2).astype(np.float32)

    np.savez(
        directory / "weights.npz",
        ln_scale=draw(HIDDEN) + 1.0,
        ln_shift=draw(HIDDEN),
        w1=draw(HIDDEN, FFN),
        b1=draw(FFN),
        w2=draw(FFN, HIDDEN),
        b2=draw(HIDDEN),
        conv_w=draw(CONV_OUT, 3, 3, 3),
        conv_b=draw(CONV_OUT),
        scale=draw(1, CONV_OUT, 1, 1),
        head_w=draw(HEAD_OUT, CONV_OUT, 1, 1),
    )


def bert(b: int | None, s: int | None) -> str:
    """Self-attention scores with a mask, softmax over the sequence, residual, layer norm,
    matmul + bias + gelu, matmul + bias, residual, layer norm: [B,S,32] -> [B,S,32]."""
    x = f"tensor<{_dim(b)}x{_dim(s)}x{HIDDEN}xf32>"
    xt = f"tensor<{_dim(b)}x{HIDDEN}x{_dim(s)}xf32>"
    mask = f"tensor<{_dim(b)}x1x{_dim(s)}xf32>"
    scores = f"tensor<{_dim(b)}x{_dim(s)}x{_dim(s)}xf32>"
    hidden = f"tensor<{_dim(b)}x{_dim(s)}x{FFN}xf32>"
    vec, w1, w2, ffn = (
        f"tensor<{HIDDEN}xf32>",
        f"tensor<{HIDDEN}x{FFN}xf32>",
        f"tensor<{FFN}x{HIDDEN}xf32>",
        f"tensor<{FFN}xf32>",
    )
    return f"""
func.func @bert(%x: {x}, %mask: {mask}) -> {x} {{
  %g = dnn.weight "weights.npz", "ln_scale" : {vec}
  %be = dnn.weight "weights.npz", "ln_shift" : {vec}
  %w1 = dnn.weight "weights.npz", "w1" : {w1}
  %b1 = dnn.weight "weights.npz", "b1" : {ffn}
  %w2 = dnn.weight "weights.npz", "w2" : {w2}
  %b2 = dnn.weight "weights.npz", "b2" : {vec}
  %xt = dnn.transpose %x {{permutation = array<i64: 0, 2, 1>}} : ({x}) -> {xt}
  %s = dnn.matmul %x, %xt : ({x}, {xt}) -> {scores}
  %sm = dnn.binary add %s, %mask : ({scores}, {mask}) -> {scores}
  %p = dnn.softmax %sm {{axis = -1 : i64}} : {scores}
  %c = dnn.matmul %p, %x : ({scores}, {x}) -> {x}
  %r = dnn.binary add %c, %x : ({x}, {x}) -> {x}
  %ln = dnn.layer_norm %r scale(%g : {vec}) shift(%be : {vec}) : {x}
  %h = dnn.matmul %ln, %w1, %b1 : ({x}, {w1}, {ffn}) -> {hidden}
  %ge = dnn.eltwise gelu_erf %h : {hidden}
  %o = dnn.matmul %ge, %w2, %b2 : ({hidden}, {w2}, {vec}) -> {x}
  %r2 = dnn.binary add %o, %ln : ({x}, {x}) -> {x}
  %y = dnn.layer_norm %r2 scale(%g : {vec}) shift(%be : {vec}) : {x}
  func.return %y : {x}
}}"""


def conv(n: int | None, h: int | None, w: int | None) -> str:
    """conv 3x3 (pad 1) + bias + relu, 2x2 max pool, per-channel multiply, 1x1 conv:
    [N,3,H,W] -> [N,4,H/2,W/2]."""
    x = f"tensor<{_dim(n)}x3x{_dim(h)}x{_dim(w)}xf32>"
    c = f"tensor<{_dim(n)}x{CONV_OUT}x{_dim(h)}x{_dim(w)}xf32>"
    p = f"tensor<{_dim(n)}x{CONV_OUT}x{_dim(_half(h))}x{_dim(_half(w))}xf32>"
    y = f"tensor<{_dim(n)}x{HEAD_OUT}x{_dim(_half(h))}x{_dim(_half(w))}xf32>"
    wei, bias = f"tensor<{CONV_OUT}x3x3x3xf32>", f"tensor<{CONV_OUT}xf32>"
    scale, head = f"tensor<1x{CONV_OUT}x1x1xf32>", f"tensor<{HEAD_OUT}x{CONV_OUT}x1x1xf32>"
    return f"""
func.func @conv(%x: {x}) -> {y} {{
  %w = dnn.weight "weights.npz", "conv_w" : {wei}
  %b = dnn.weight "weights.npz", "conv_b" : {bias}
  %sc = dnn.weight "weights.npz", "scale" : {scale}
  %hw = dnn.weight "weights.npz", "head_w" : {head}
  %c = dnn.conv2d %x, %w, %b {{pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>}} : ({x}, {wei}, {bias}) -> {c}
  %r = dnn.eltwise relu %c : {c}
  %p = dnn.pool max %r {{kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}} : ({c}) -> {p}
  %m = dnn.binary mul %p, %sc : ({p}, {scale}) -> {p}
  %y = dnn.conv2d %m, %hw : ({p}, {head}) -> {y}
  func.return %y : {y}
}}"""


def conv_add(
    n: int | None, h: int | None, w: int | None, q: tuple[int | None, ...], fused: bool
) -> str:
    """conv 3x3 (pad 1) + addend %q of shape ``q`` + relu: with ``fused`` the add and relu are
    already post-ops of the conv (as an earlier tool may have written them), else three ops."""
    x = f"tensor<{_dim(n)}x3x{_dim(h)}x{_dim(w)}xf32>"
    c = f"tensor<{_dim(n)}x{CONV_OUT}x{_dim(h)}x{_dim(w)}xf32>"
    addend = f"tensor<{'x'.join(_dim(d) for d in q)}xf32>"
    wei = f"tensor<{CONV_OUT}x3x3x3xf32>"
    pads = "pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>"
    if fused:
        body = (
            f"  %y = dnn.conv2d %x, %w post_args(%q : {addend}) {{{pads}, post_ops = "
            f"[#dnn.binary<add>, #dnn.eltwise<relu>]}} : ({x}, {wei}) -> {c}"
        )
    else:
        body = f"""  %c = dnn.conv2d %x, %w {{{pads}}} : ({x}, {wei}) -> {c}
  %a = dnn.binary add %c, %q : ({c}, {addend}) -> {c}
  %y = dnn.eltwise relu %a : {c}"""
    return f"""
func.func @conv_add(%x: {x}, %q: {addend}) -> {c} {{
  %w = dnn.weight "weights.npz", "conv_w" : {wei}
{body}
  func.return %y : {c}
}}"""
