"""The handler contract besides numerics: registry, keys, exec args, preferred layouts and
error paths (ValueError naming the kind, or DnnlError; never a crash in C)."""

from __future__ import annotations

import re

import pytest

from dnnc.core.kinds import BinaryAlg, BinaryPostOp, DataType, EltwiseAlg, EltwisePostOp, SumPostOp
from dnnc.core.layouts import Layout, parse_layout
from dnnc.dnnl import capi
from dnnc.dnnl.objects import DnnlError, Engine, MemoryDesc, post_op_arg
from dnnc.dnnl.primitives import HANDLERS, PrimitiveHandler, handler_for

F32 = DataType.F32


def desc(*dims: int, layout: str | None = None, dt: DataType = F32) -> MemoryDesc:
    return MemoryDesc.of_layout(dims, dt, layout)


def conv(**params: object) -> PrimitiveHandler:
    """A 3x3 same-padded convolution 1x16x8x8 -> 1x32x8x8 with bias."""
    descs = {
        "src": desc(1, 16, 8, 8),
        "weights": desc(32, 16, 3, 3),
        "bias": desc(32),
        "dst": desc(1, 32, 8, 8),
    }
    return handler_for("convolution", descs, {"pads_begin": [1, 1], "pads_end": [1, 1]} | params)


# One valid op of every kind (each must create; preferred_layouts must answer).
EVERY_KIND: dict[str, tuple[dict[str, MemoryDesc], dict[str, object]]] = {
    "convolution": (
        {"src": desc(1, 16, 8, 8), "weights": desc(32, 16, 3, 3), "dst": desc(1, 32, 6, 6)},
        {},
    ),
    "deconvolution": (
        {"src": desc(1, 16, 8, 8), "weights": desc(32, 16, 3, 3), "dst": desc(1, 32, 16, 16)},
        {"strides": [2, 2], "pads_begin": [1, 1], "pads_end": [0, 0]},
    ),
    "matmul": ({"src": desc(4, 8), "weights": desc(8, 3), "dst": desc(4, 3)}, {}),
    "inner_product": ({"src": desc(2, 16), "weights": desc(4, 16), "dst": desc(2, 4)}, {}),
    "eltwise": ({"src": desc(2, 16, 3, 3), "dst": desc(2, 16, 3, 3)}, {"alg": "relu"}),
    "softmax": ({"src": desc(2, 16, 3, 3), "dst": desc(2, 16, 3, 3)}, {"axis": 1}),
    "binary": (
        {"src_0": desc(2, 16, 3, 3), "src_1": desc(1, 16, 1, 1), "dst": desc(2, 16, 3, 3)},
        {"alg": "mul"},
    ),
    "sum": ({"src_0": desc(2, 16), "src_1": desc(2, 16), "dst": desc(2, 16)}, {}),
    "concat": ({"src_0": desc(2, 16), "src_1": desc(2, 8), "dst": desc(2, 24)}, {"axis": 1}),
    "pooling": (
        {"src": desc(1, 16, 8, 8), "dst": desc(1, 16, 4, 4)},
        {"kind": "max", "kernel": [2, 2], "strides": [2, 2]},
    ),
    "batch_normalization": (
        {
            "src": desc(2, 16, 3, 3),
            "mean": desc(16),
            "variance": desc(16),
            "scale": desc(16),
            "shift": desc(16),
            "dst": desc(2, 16, 3, 3),
        },
        {},
    ),
    "layer_normalization": ({"src": desc(2, 5, 16), "dst": desc(2, 5, 16)}, {}),
    "lrn": (
        {"src": desc(2, 16, 3, 3), "dst": desc(2, 16, 3, 3)},
        {"kind": "across_channels", "size": 5},
    ),
    "reduction": ({"src": desc(2, 16, 3, 3), "dst": desc(2, 1, 3, 3)}, {"kind": "sum"}),
    "reorder": ({"src": desc(2, 16, 3, 3), "dst": desc(2, 16, 3, 3, layout="nChw16c")}, {}),
    "resampling": ({"src": desc(2, 16, 3, 3), "dst": desc(2, 16, 6, 5)}, {}),
}


def test_every_kind_has_one_handler_named_by_it() -> None:
    assert set(HANDLERS) == set(EVERY_KIND)
    for kind, handler in HANDLERS.items():
        assert handler.kind == kind and issubclass(handler, PrimitiveHandler)


@pytest.mark.parametrize("kind", sorted(EVERY_KIND))
def test_every_kind_creates_and_reports_layouts(kind: str) -> None:
    descs, params = EVERY_KIND[kind]
    handler = handler_for(kind, descs, params)
    pd = handler.create(Engine.default())
    assert pd.impl_info
    args = handler.exec_args()
    assert args["dst"] == capi.DNNL_ARG_DST
    assert set(args) - {"scratchpad"} == set(descs)
    layouts = handler.preferred_layouts(Engine.default())
    assert set(layouts) == set(HANDLERS[kind].flexible) & set(descs)
    assert all(isinstance(layout, Layout) for layout in layouts.values())


def test_unknown_kind_lists_the_valid_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown primitive kind 'shuffle'.*convolution"):
        handler_for("shuffle", {}, {})


# --- keys ------------------------------------------------------------------------------------


def test_key_is_structural() -> None:
    assert conv().key() == conv().key()
    assert conv().key() == conv(strides=(1, 1), dilations=[1, 1], groups=1, post_ops=[]).key()
    assert hash(conv().key()) == hash(conv(strides=[1, 1]).key())


@pytest.mark.parametrize(
    "other",
    [
        lambda: conv(pads_end=[0, 0]),
        lambda: conv(post_ops=[EltwisePostOp(EltwiseAlg.RELU)]),
        lambda: conv(post_ops=[EltwisePostOp(EltwiseAlg.RELU, 0.1)]),
        lambda: handler_for(
            "convolution",
            {
                "src": desc(1, 16, 8, 8, layout="nChw16c"),
                "weights": desc(32, 16, 3, 3),
                "bias": desc(32),
                "dst": desc(1, 32, 8, 8),
            },
            {"pads_begin": [1, 1], "pads_end": [1, 1]},
        ),
        lambda: handler_for(
            "convolution",
            {"src": desc(1, 16, 8, 8), "weights": desc(32, 16, 3, 3), "dst": desc(1, 32, 8, 8)},
            {"pads_begin": [1, 1], "pads_end": [1, 1]},
        ),
    ],
    ids=["pads", "post-op", "post-op-alpha", "src-layout", "no-bias"],
)
def test_key_tells_structures_apart(other) -> None:
    assert other().key() != conv().key()


# --- exec args ----------------------------------------------------------------------------------


def test_post_op_args_map_to_their_index_in_the_chain() -> None:
    post_ops = [SumPostOp(0.5), EltwisePostOp(EltwiseAlg.RELU), BinaryPostOp(BinaryAlg.ADD)]
    descs = conv().descs | {"post_arg_0": desc(1, 32, 8, 8), "post_arg_1": desc(1, 32, 1, 1)}
    args = handler_for("convolution", descs, conv().params | {"post_ops": post_ops}).exec_args()
    assert "post_arg_0" not in args  # the sum's summand is dst itself
    assert args["post_arg_1"] == post_op_arg(2) == capi.DNNL_ARG_ATTR_MULTIPLE_POST_OP(2) | 2
    assert {args["src"], args["weights"], args["bias"], args["dst"]} == {
        capi.DNNL_ARG_SRC,
        capi.DNNL_ARG_WEIGHTS,
        capi.DNNL_ARG_BIAS,
        capi.DNNL_ARG_DST,
    }


def test_scratchpad_is_an_exec_arg_exactly_when_needed() -> None:
    handler = conv()
    pd = handler.create(Engine.default())
    scratchpad = pd.scratchpad_desc()
    needed = scratchpad is not None and scratchpad.size_bytes > 0
    assert ("scratchpad" in handler.exec_args()) == needed
    assert pd.attr is not None and pd.attr.user_scratchpad
    sum_handler = handler_for("sum", *EVERY_KIND["sum"])
    assert "scratchpad" not in sum_handler.exec_args()


def test_variadic_inputs_map_to_multiple_src() -> None:
    descs = {f"src_{i}": desc(2, 3) for i in range(3)} | {"dst": desc(2, 3)}
    args = handler_for("sum", descs, {}).exec_args()
    assert [args[f"src_{i}"] for i in range(3)] == [
        capi.DNNL_ARG_MULTIPLE_SRC + i for i in range(3)
    ]


def test_exec_descs_give_the_reshaped_descriptors() -> None:
    grouped = handler_for(
        "convolution",
        {"src": desc(1, 8, 6, 6), "weights": desc(8, 2, 3, 3), "dst": desc(1, 8, 4, 4)},
        {"groups": 4},
    )
    assert grouped.exec_descs()["weights"].dims == (4, 2, 2, 3, 3)
    matmul = handler_for(
        "matmul", {"src": desc(2, 3, 4), "weights": desc(4, 5), "dst": desc(2, 3, 5)}, {}
    )
    assert matmul.exec_descs()["weights"].dims == (1, 4, 5)


# --- preferred layouts ----------------------------------------------------------------------------


def test_preferred_layouts_of_a_3x3_conv_are_real_layouts() -> None:
    handler = handler_for(
        "convolution",
        {
            "src": desc(1, 64, 56, 56),
            "weights": desc(64, 64, 3, 3),
            "bias": desc(64),
            "dst": desc(1, 64, 56, 56),
        },
        {"pads_begin": [1, 1], "pads_end": [1, 1]},
    )
    layouts = handler.preferred_layouts(Engine.default())
    assert set(layouts) == {"src", "weights", "dst"}
    for role in ("src", "dst"):
        layout = layouts[role]
        assert layout is not None and not layout.is_plain
        assert layout.is_blocked or layout == parse_layout("nhwc")
    assert layouts["weights"] is not None and layouts["weights"].is_blocked
    # oneDNN accepts what it chose: the conv creates with those layouts given explicitly.
    chosen = {
        role: desc(*handler.descs[role].dims, layout=layout.tag) for role, layout in layouts.items()
    }
    handler_for("convolution", handler.descs | chosen, handler.params).create(Engine.default())


def test_preferred_weights_of_a_depthwise_conv_are_a_4d_layout_it_runs_fast_in() -> None:
    """oneDNN packs them 5-D (``decbA16a``); seen 4-D that is ``cdbA16a``, which no format
    tag names: given so, the convolution creates with a jit implementation, not ``ref``."""
    descs = {"src": desc(1, 64, 8, 8), "weights": desc(64, 1, 3, 3), "dst": desc(1, 64, 6, 6)}
    handler = handler_for("convolution", descs, {"groups": 64})
    layouts = handler.preferred_layouts(Engine.default())
    assert layouts["src"] is not None
    assert layouts["weights"] is not None and layouts["weights"].is_blocked
    chosen = {role: desc(*descs[role].dims, layout=layout.tag) for role, layout in layouts.items()}
    pd = handler_for("convolution", descs | chosen, {"groups": 64}).create(Engine.default())
    assert not pd.impl_info.startswith("ref"), pd.impl_info


# --- errors ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kind, descs, params, message",
    [
        (
            "convolution",
            {"src": desc(1, 16, 8, 8), "dst": desc(1, 32, 6, 6)},
            {},
            "convolution: .*missing \\['weights'\\]",
        ),
        (
            "eltwise",
            {"src": desc(4), "dst": desc(4), "weights": desc(4)},
            {"alg": "relu"},
            "eltwise: .*unexpected \\['weights'\\]",
        ),
        ("eltwise", {"src": desc(4), "dst": desc(4)}, {}, "eltwise: parameter 'alg' is required"),
        (
            "eltwise",
            {"src": desc(4), "dst": desc(4)},
            {"alg": "relu", "gamma": 1},
            "eltwise: unknown parameter\\(s\\) gamma",
        ),
        (
            "eltwise",
            {"src": desc(4), "dst": desc(4)},
            {"alg": "swoosh"},
            "eltwise: parameter 'alg': 'swoosh' is not one of relu",
        ),
        (
            "eltwise",
            {"src": desc(4), "dst": desc(4)},
            {"alg": "relu", "alpha": "big"},
            "eltwise: parameter 'alpha': expected a number",
        ),
        (
            "eltwise",
            {"src": desc(4), "dst": (4,)},
            {"alg": "relu"},
            "eltwise: role 'dst': expected a MemoryDesc",
        ),
        (
            "convolution",
            EVERY_KIND["convolution"][0],
            {"strides": [1, 1, 1]},
            "convolution: parameter 'strides' \\(1, 1, 1\\) needs 2 entries",
        ),
        (
            "convolution",
            EVERY_KIND["convolution"][0],
            {"dilations": [0, 1]},
            "convolution: strides and dilations must be at least 1",
        ),
        (
            "convolution",
            EVERY_KIND["convolution"][0],
            {"groups": 5},
            "convolution: groups=5 does not divide",
        ),
        (
            "convolution",
            EVERY_KIND["convolution"][0],
            {"post_ops": [BinaryPostOp(BinaryAlg.ADD)]},
            "convolution: .*missing \\['post_arg_0'\\]",
        ),
        (
            "convolution",
            EVERY_KIND["convolution"][0],
            {"post_ops": ["relu"]},
            "convolution: parameter 'post_ops': not a post-op",
        ),
        (
            "convolution",
            EVERY_KIND["convolution"][0] | {"post_arg_0": desc(1, 5, 1, 1)},
            {"post_ops": [BinaryPostOp(BinaryAlg.ADD)]},
            "convolution: post_arg_0 \\(1, 5, 1, 1\\) of BinaryPostOp does not fit dst",
        ),
        (
            "convolution",
            EVERY_KIND["convolution"][0] | {"post_arg_0": desc(1, 32, 1, 1)},
            {"post_ops": [SumPostOp()]},
            "convolution: post_arg_0 .* of SumPostOp does not fit",
        ),
        (
            "eltwise",
            EVERY_KIND["eltwise"][0] | {"post_arg_0": desc(1)},
            {"alg": "relu"},
            "eltwise: .*unexpected \\['post_arg_0'\\]",
        ),
        ("softmax", EVERY_KIND["softmax"][0], {"axis": 4}, "softmax: axis 4 is out of range"),
        (
            "binary",
            {"src_0": desc(1, 3), "src_1": desc(2, 3), "dst": desc(2, 3)},
            {"alg": "add"},
            "binary: src_0 \\(1, 3\\) must have dst's dims",
        ),
        ("sum", {"dst": desc(2)}, {}, "sum: needs at least 1 inputs"),
        (
            "sum",
            {"src_0": desc(2), "src_2": desc(2), "dst": desc(2)},
            {},
            "sum: .*unexpected \\['src_2'\\]",
        ),
        ("sum", EVERY_KIND["sum"][0], {"scales": [1.0]}, "sum: 1 scales for 2 inputs"),
        (
            "lrn",
            EVERY_KIND["lrn"][0],
            {"kind": "across_channels", "size": 0},
            "lrn: parameter 'size' must be positive",
        ),
        (
            "reorder",
            {"src": desc(4, 6), "dst": desc(3, 6)},
            {"starts": [2, 0]},
            "reorder: parameter 'starts' \\(2, 0\\)",
        ),
        (
            "reorder",
            {"src": desc(4, 6), "dst": desc(6, 4)},
            {"permutation": [0, 0]},
            "reorder: parameter 'permutation' \\(0, 0\\) is no permutation",
        ),
        ("reorder", {"src": desc(4, 6), "dst": desc(24)}, {}, "reorder: src .* differ in rank"),
    ],
)
def test_invalid_ops_raise_value_error_naming_the_kind(
    kind: str, descs: dict[str, MemoryDesc], params: dict[str, object], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        handler_for(kind, descs, params)


@pytest.mark.parametrize(
    "kind, descs, params",
    [
        (
            "convolution",
            {"src": desc(1, 16, 8, 8), "weights": desc(32, 16, 3, 3), "dst": desc(1, 32, 8, 8)},
            {},
        ),  # dst should be 6x6 unpadded
        (
            "convolution",
            {"src": desc(1, 16, 8, 8), "weights": desc(32, 8, 3, 3), "dst": desc(1, 32, 6, 6)},
            {},
        ),  # channels differ
        ("matmul", {"src": desc(4, 8), "weights": desc(7, 3), "dst": desc(4, 3)}, {}),
        (
            "softmax",
            {"src": desc(2, 8, dt=DataType.S32), "dst": desc(2, 8, dt=DataType.S32)},
            {"axis": 1},
        ),
        ("binary", {"src_0": desc(2, 3), "src_1": desc(3, 3), "dst": desc(2, 3)}, {"alg": "add"}),
        ("concat", {"src_0": desc(2, 3), "src_1": desc(3, 4), "dst": desc(5, 3)}, {"axis": 0}),
    ],
    ids=[
        "conv-dst-shape",
        "conv-channels",
        "matmul-k",
        "softmax-s32",
        "binary-broadcast",
        "concat-dims",
    ],
)
def test_unsupported_combinations_raise_dnnl_error(
    kind: str, descs: dict[str, MemoryDesc], params: dict[str, object]
) -> None:
    handler = handler_for(kind, descs, params)
    with pytest.raises(DnnlError, match=re.escape("primitive_desc_create failed")):
        handler.create(Engine.default())
