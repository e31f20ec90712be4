"""The oneDNN object layer (dnnc/dnnl/objects.py) against the real library.

Layouts are checked bit-exactly against dnnc.core.layouts (the oracle of every layout in the
project); error paths must raise DnnlError / ValueError / TypeError, never crash.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from dnnc.core.kinds import (
    BinaryAlg,
    BinaryPostOp,
    DataType,
    EltwiseAlg,
    EltwisePostOp,
    LrnKind,
    PoolKind,
    ReduceKind,
    SumPostOp,
)
from dnnc.core.layouts import LayoutError, parse_layout
from dnnc.dnnl import capi, objects
from dnnc.dnnl.objects import (
    BINARY_ALGS,
    LRN_ALGS,
    POOL_ALGS,
    REDUCE_ALGS,
    RUNTIME,
    BoundExecution,
    DnnlError,
    Engine,
    Memory,
    MemoryDesc,
    PostOps,
    Primitive,
    PrimitiveAttr,
    PrimitiveDesc,
    Stream,
    eltwise_algorithm,
    expressible,
    format_tag,
    from_dnnl_data_type,
    has_eltwise_algorithm,
    post_op_arg,
    to_dnnl_data_type,
)

F32 = DataType.F32
SRC, DST = capi.DNNL_ARG_SRC, capi.DNNL_ARG_DST
Prop, Alg = capi.dnnl_prop_kind_t, capi.dnnl_alg_kind_t


def reorder(src: Memory, dst: Memory) -> None:
    """Run a reorder built straight from the two memories' descriptors."""
    pd = PrimitiveDesc.create("reorder", src.desc, dst.desc)
    Primitive(pd).execute(Stream.default(), {capi.DNNL_ARG_FROM: src, capi.DNNL_ARG_TO: dst})


# --- creation and destruction --------------------------------------------------------------


def test_every_class_creates_and_closes_once() -> None:
    engine = Engine()
    stream = Stream(engine)
    desc = MemoryDesc.of_layout((2, 3), F32)
    memory = Memory(desc, np.zeros((2, 3), np.float32), engine=engine)
    post_ops = PostOps([EltwisePostOp(EltwiseAlg.RELU)])
    attr = PrimitiveAttr(post_ops)
    pd = PrimitiveDesc.create("reorder", desc, desc, attr=PrimitiveAttr(), engine=engine)
    primitive = Primitive(pd)
    objects = [primitive, pd, attr, post_ops, memory, desc, stream]
    for obj in objects:
        assert not obj.closed
        obj.close()
        obj.close()  # idempotent: freed exactly once
        assert obj.closed
        with pytest.raises(ValueError, match="is closed"):
            obj.handle  # noqa: B018 (the attribute read is what must raise)
    engine.close()
    assert engine.closed


def test_closing_an_object_in_use_raises() -> None:
    engine = Engine()
    memory = Memory(MemoryDesc.of_layout((4,), F32), np.zeros(4, np.float32), engine=engine)
    with pytest.raises(ValueError, match="live objects use it"):
        engine.close()
    memory.close()
    engine.close()


def test_bound_execution_pins_its_memories() -> None:
    desc = MemoryDesc.of_layout((4,), F32)
    src, dst = Memory(desc, np.ones(4, np.float32)), Memory.empty(desc)
    bound = Primitive(PrimitiveDesc.create("reorder", desc, desc)).bind({SRC: src, DST: dst})
    with pytest.raises(ValueError, match="live objects use it"):
        dst.close()
    del bound
    dst.close()


def test_engine_index_out_of_range() -> None:
    with pytest.raises(ValueError, match="out of range"):
        Engine(10**6)


def test_default_engine_and_stream_are_shared() -> None:
    assert Engine.default() is Engine.default()
    assert Stream.default() is Stream.default()
    Stream.default().wait()


# --- reorders, bit-exact against dnnc.core.layouts ----------------------------------------------


@pytest.mark.parametrize(
    ("dims", "src_layout", "dst_layout"),
    [
        ((2, 20, 5, 7), "nchw", "nChw16c"),
        ((2, 20, 5, 7), "nchw", "nChw8c"),
        ((2, 20, 5, 7), "nchw", "nhwc"),
        ((3, 17, 5, 7), "nchw", "nChw16c"),
        ((20, 19, 3, 3), "oihw", "OIhw16i16o"),
        ((20, 19, 3, 3), "oihw", "Ohwi16o"),
        ((20, 19, 3, 3), "oihw", "OIhw4i16o4i"),
    ],
)
def test_reorder_is_bit_exact(dims: tuple[int, ...], src_layout: str, dst_layout: str) -> None:
    logical = np.random.default_rng(0).standard_normal(dims).astype(np.float32)
    plain, blocked = parse_layout(src_layout), parse_layout(dst_layout)
    src = Memory(MemoryDesc.of_layout(dims, F32, plain), plain.to_physical(logical))
    dst = Memory.empty(MemoryDesc.of_layout(dims, F32, blocked))
    assert dst.desc.size_bytes == blocked.num_elements(dims) * 4
    reorder(src, dst)
    expected = blocked.to_physical(logical).reshape(-1)
    assert np.array_equal(dst.view().view(np.uint32), expected.view(np.uint32))
    back = Memory.empty(MemoryDesc.of_layout(dims, F32, plain))
    reorder(dst, back)
    assert np.array_equal(back.view().reshape(dims), logical)


def test_reorder_casts_bf16_like_ml_dtypes() -> None:
    logical = np.random.default_rng(1).standard_normal((4, 16)).astype(np.float32)
    src = Memory(MemoryDesc.of_layout((4, 16), F32), logical)
    dst = Memory.empty(MemoryDesc.of_layout((4, 16), DataType.BF16))
    reorder(src, dst)
    expected = logical.astype(DataType.BF16.numpy).reshape(-1)
    assert np.array_equal(dst.view().view(np.uint16), expected.view(np.uint16))


def test_set_data_handle_rebinds_without_a_new_memory() -> None:
    desc = MemoryDesc.of_layout((8,), F32)
    first, second = np.arange(8, dtype=np.float32), np.full(8, 5.0, np.float32)
    src, out = Memory(desc, first), Memory.empty(desc)
    bound = Primitive(PrimitiveDesc.create("reorder", desc, desc)).bind({SRC: src, DST: out})
    bound()
    assert np.array_equal(out.view(), first)
    src.set_data_handle(second)
    assert src.data_pointer == second.ctypes.data
    bound()
    assert np.array_equal(out.view(), second)


@pytest.mark.parametrize("writeable", [True, False], ids=["writeable", "read_only"])
@pytest.mark.parametrize("data_type", [F32, DataType.BF16, DataType.U8], ids=str)
def test_set_data_handle_binds_the_array_address(data_type: DataType, writeable: bool) -> None:
    """Each way Memory reads an address (the buffer protocol for a writeable array of a numpy
    type; ``ndarray.ctypes`` for a read-only one or bf16, a type of a library) gives
    the array's own: a slice not at its base's start, and a byte arena at an offset."""
    desc = MemoryDesc.of_layout((8,), data_type)
    base = np.arange(24).astype(data_type.numpy)
    array = base[8:16]
    arena = np.zeros(96, np.uint8)[32:]
    array.flags.writeable = arena.flags.writeable = writeable
    memory = Memory(desc, np.zeros(8, data_type.numpy))
    memory.set_data_handle(array)
    assert memory.data_pointer == base.ctypes.data + 8 * data_type.itemsize
    memory.set_data_handle(arena, 16)
    assert memory.data_pointer == arena.ctypes.data + 16 != 0
    with pytest.raises(ValueError, match="too small"):
        memory.set_data_handle(arena, 64 - 8 * data_type.itemsize + 1)


def test_memory_in_a_byte_arena() -> None:
    arena = np.zeros(256, np.uint8)
    desc = MemoryDesc.of_layout((4,), F32)
    src = Memory(desc, np.arange(4, dtype=np.float32))
    dst = Memory(desc, arena, offset=64)
    assert dst.data_pointer == arena.ctypes.data + 64
    reorder(src, dst)
    assert np.array_equal(arena[64:80].view(np.float32), np.arange(4, dtype=np.float32))
    assert not arena[:64].any() and not arena[80:].any()


# --- descriptors ----------------------------------------------------------------------------

ROUND_TRIP = [
    ("x", (5,)),
    ("nc", (3, 20)),
    ("cn", (3, 20)),
    ("tnc", (4, 2, 20)),
    ("ntc", (4, 2, 20)),
    ("nchw", (2, 20, 5, 7)),
    ("nhwc", (2, 20, 5, 7)),
    ("chwn", (2, 20, 5, 7)),
    ("nChw8c", (2, 20, 5, 7)),
    ("nChw16c", (2, 20, 5, 7)),
    ("ncdhw", (2, 3, 4, 5, 6)),
    ("ndhwc", (2, 3, 4, 5, 6)),
    ("nCdhw16c", (2, 20, 4, 5, 6)),
    ("oihw", (20, 19, 3, 3)),
    ("hwio", (20, 19, 3, 3)),
    ("ohwi", (20, 19, 3, 3)),
    ("OIhw8i8o", (20, 19, 3, 3)),
    ("OIhw16i16o", (20, 19, 3, 3)),
    ("OIhw16o16i", (20, 19, 3, 3)),
    ("Ohwi8o", (20, 19, 3, 3)),
    ("Ohwi16o", (20, 19, 3, 3)),
    ("OIhw4i16o4i", (20, 19, 3, 3)),
    ("goihw", (2, 8, 4, 3, 3)),
    ("gOIhw16i16o", (2, 20, 19, 3, 3)),
    ("Goihw8g", (10, 1, 1, 3, 3)),
    ("Goihw16g", (20, 1, 1, 3, 3)),
    ("nhwc", (2, 1, 5, 7)),
    ("nChw16c", (1, 3, 1, 1)),
    # no format tag of their own (test_layout_without_a_tag_of_its_own)
    ("Acbd16a", (20, 3, 5, 7)),
    ("aDbc16d", (2, 3, 5, 20)),
    ("cdbA16a", (40, 1, 3, 3)),
    ("cdbA16a", (40, 3, 3, 5)),
]


@pytest.mark.parametrize(("name", "dims"), ROUND_TRIP, ids=[f"{n}-{d}" for n, d in ROUND_TRIP])
def test_layout_round_trips(name: str, dims: tuple[int, ...]) -> None:
    layout = parse_layout(name)
    desc = MemoryDesc.of_layout(dims, F32, layout)
    assert desc.dims == dims and desc.data_type == F32
    found = desc.layout()
    assert found is not None
    assert found == layout or MemoryDesc.of_layout(dims, F32, found) == desc
    assert desc.size_bytes == layout.num_elements(dims) * 4
    assert desc.strides == layout.strides(dims)
    assert desc.inner_blocks == layout.blocks


def test_layout_is_ambiguous_only_where_dims_are_one() -> None:
    """nhwc with every dim 1 has the strides of nchw: either answer describes the desc."""
    desc = MemoryDesc.of_layout((1, 1, 1, 1), F32, parse_layout("nhwc"))
    found = desc.layout()
    assert found is not None and MemoryDesc.of_layout((1, 1, 1, 1), F32, found) == desc


def test_strided_desc_reconstructs_its_layout() -> None:
    dims = (2, 20, 5, 7)
    nhwc = parse_layout("nhwc")
    assert MemoryDesc.of_strides(dims, F32, nhwc.strides(dims)).layout() == nhwc
    assert MemoryDesc.of_strides(dims, F32, (1000, 35, 7, 1)).layout() is None


def test_layout_none_when_not_expressible() -> None:
    assert MemoryDesc.any((2, 3), F32).layout() is None
    parent = MemoryDesc.of_layout((4, 6), F32)
    sub = parent.submemory((2, 3), (1, 2))
    assert sub.submemory_offset == 8 and sub.dims == (2, 3) and sub.layout() is None


@pytest.mark.parametrize(
    ("name", "built_from"),
    [
        ("Acbd16a", "Abcd16a"),  # a renaming of the dims
        ("cdbA16a", "decbA16a"),  # depthwise weights: a 5-D tag with a dim of size 1 reshaped away
    ],
)
def test_layout_without_a_tag_of_its_own(name: str, built_from: str) -> None:
    layout = parse_layout(name)
    assert format_tag(layout) is None and format_tag(parse_layout(built_from)) is not None
    assert expressible(layout)
    desc = MemoryDesc.of_layout((40, 3, 3, 5), F32, layout)
    assert desc.layout() == layout and desc.strides == layout.strides((40, 3, 3, 5))


@pytest.mark.parametrize(
    ("name", "grouped", "shape"),
    [
        (
            "OIhw8i8o",
            "aBCde8c8b",
            (32, 8, 3, 3),
        ),  # gOIhw8i8o; 8 outputs per group: one O block each
        ("OIhw8i8o", "aBCde8c8b", (64, 8, 3, 3)),  # 16 outputs per group: two O blocks each
        ("nchw", "goihw", (32, 8, 3, 3)),
    ],
)
def test_grouped_layout_splits_and_merges(name: str, grouped: str, shape: tuple[int, ...]) -> None:
    layout, split = parse_layout(name), parse_layout(grouped)
    assert layout.split_leading(shape, 4) == split
    assert split.merge_leading((4, shape[0] // 4, *shape[1:])) == layout
    desc = MemoryDesc.of_layout(shape, F32, layout)
    five_d = MemoryDesc.of_layout((4, shape[0] // 4, *shape[1:]), F32, split)
    assert desc.size_bytes == five_d.size_bytes and desc.strides[1:] == five_d.strides[2:]


@pytest.mark.parametrize(
    ("name", "permutation"),
    [
        ("nchw", (0, 2, 1, 3)),
        ("nchw", (0, 2, 3, 1)),
        ("nhwc", (3, 1, 0, 2)),
        ("nChw16c", (0, 2, 1, 3)),
    ],
)
def test_transposed_layout_holds_the_same_bytes(name: str, permutation: tuple[int, ...]) -> None:
    """transpose(x, p) in layout.transposed(p) is x's physical array as it is (a view)."""
    layout = parse_layout(name)
    logical = np.arange(2 * 32 * 3 * 5, dtype=np.float32).reshape(2, 32, 3, 5)
    transposed = layout.transposed(permutation)
    view = transposed.to_physical(logical.transpose(permutation))
    assert np.array_equal(view.reshape(-1), layout.to_physical(logical).reshape(-1))
    assert transposed.transposed(np.argsort(permutation).tolist()) == layout


def test_grouped_layout_that_does_not_split() -> None:
    """4 outputs per group in blocks of 8: a block would straddle two groups."""
    assert parse_layout("OIhw8i8o").split_leading((16, 8, 3, 3), 4) is None
    assert parse_layout("cdbA16a").split_leading((144, 1, 3, 3), 144) is None
    assert parse_layout("aBCde8c8b").merge_leading((4, 4, 8, 3, 3)) is None  # O/g padded


def test_ambiguous_layout_is_one_that_can_be_created() -> None:
    """K=8, N=3 weights in BA16a64b: one block per outer dim, so AB16a64b has the same
    strides; no format tag names that one, even renamed."""
    desc = MemoryDesc.of_layout((8, 3), F32, "BA16a64b")
    assert not expressible(parse_layout("AB16a64b"))
    assert desc.layout() == parse_layout("BA16a64b")


def test_blocked_layout_without_a_tag_is_refused() -> None:
    with pytest.raises(LayoutError, match="no oneDNN format tag"):
        MemoryDesc.of_layout((2, 20, 5, 7), F32, parse_layout("aBcd5b"))
    with pytest.raises(LayoutError, match="rank 4"):
        MemoryDesc.of_layout((2, 20), F32, parse_layout("nchw"))


def test_layout_by_name() -> None:
    by_name = MemoryDesc.of_layout((2, 20, 5, 7), F32, "nChw16c")
    assert by_name == MemoryDesc.of_layout((2, 20, 5, 7), F32, parse_layout("aBcd16b"))
    with pytest.raises(LayoutError, match="is not a layout"):
        MemoryDesc.of_layout((2, 20), F32, "nq")


def test_plain_layout_without_a_tag_uses_strides() -> None:
    layout = parse_layout("dcba")
    assert MemoryDesc.of_layout((2, 3, 4, 5), F32, layout).layout() == layout


def test_equality_and_key() -> None:
    a = MemoryDesc.of_layout((2, 20, 5, 7), F32, parse_layout("nChw16c"))
    b = MemoryDesc.of_layout((2, 20, 5, 7), F32, parse_layout("nChw16c"))
    c = MemoryDesc.of_layout((2, 20, 5, 7), F32, parse_layout("nChw8c"))
    d = MemoryDesc.of_layout((2, 20, 5, 7), DataType.BF16, parse_layout("nChw16c"))
    assert a == b and a.key() == b.key() and hash(a) == hash(b)
    assert a != c and a.key() != c.key()
    assert a != d and a.key() != d.key()
    assert {a: 1}[b] == 1
    assert all(isinstance(v, (int, str, tuple)) for v in a.key())


def test_reshape_and_permute_axes() -> None:
    desc = MemoryDesc.of_layout((2, 3, 4, 5), F32)
    assert desc.reshape((2, 3, 20)).dims == (2, 3, 20)
    permuted = desc.permute_axes((0, 3, 1, 2))
    assert permuted.dims == (2, 4, 5, 3)
    # the same NCHW bytes seen with dims (N, H, W, C): C is now the outermost-but-one axis
    assert permuted.layout() == parse_layout("adbc")
    with pytest.raises(ValueError, match="not a permutation"):
        desc.permute_axes((0, 1, 1, 2))
    with pytest.raises(DnnlError, match="dnnl_memory_desc_reshape failed: dnnl_invalid_arguments"):
        desc.reshape((7, 7))


def test_descriptor_argument_validation() -> None:
    with pytest.raises(ValueError, match="1 to 12"):
        MemoryDesc.of_layout((), F32)
    with pytest.raises(ValueError, match="1 to 12"):
        MemoryDesc.any((1,) * 13, F32)
    with pytest.raises(ValueError, match="non-negative"):
        MemoryDesc.of_layout((2, -1), F32)
    with pytest.raises(ValueError, match="do not match"):
        MemoryDesc.of_strides((2, 3), F32, (3,))
    with pytest.raises(ValueError, match="exceeds"):
        MemoryDesc.of_layout((4, 6), F32).submemory((2, 3), (3, 0))


def test_data_type_mapping() -> None:
    for data_type in DataType:
        if not data_type.is_onednn:
            with pytest.raises(ValueError, match=f"data type {data_type} has no oneDNN primitives"):
                to_dnnl_data_type(data_type)
        else:
            assert from_dnnl_data_type(to_dnnl_data_type(data_type)) == data_type
            desc = MemoryDesc.of_layout((3,), data_type)
            assert desc.data_type == data_type and desc.size_bytes == 3 * data_type.itemsize
    with pytest.raises(ValueError, match="no dnnc equivalent"):
        from_dnnl_data_type(capi.dnnl_data_type_t.dnnl_f64)


# --- memories -------------------------------------------------------------------------------


def test_memory_refuses_bad_arrays() -> None:
    desc = MemoryDesc.of_layout((4, 4), F32)
    with pytest.raises(ValueError, match="too small"):
        Memory(desc, np.zeros(15, np.float32))
    with pytest.raises(ValueError, match="C-contiguous"):
        Memory(desc, np.zeros((4, 8), np.float32)[:, ::2])
    with pytest.raises(ValueError, match="expected float32"):
        Memory(desc, np.zeros(16, np.int32))
    with pytest.raises(ValueError, match="too small"):
        Memory(desc, np.zeros(64, np.uint8), offset=8)
    with pytest.raises(ValueError, match="no concrete format"):
        Memory(MemoryDesc.any((4, 4), F32), np.zeros(16, np.float32))
    with pytest.raises(TypeError, match="numpy array"):
        Memory(desc, bytearray(64))  # type: ignore[arg-type]
    memory = Memory(desc, np.zeros(16, np.float32))
    with pytest.raises(ValueError, match="too small"):
        memory.set_data_handle(np.zeros(4, np.float32))


def test_memory_keeps_its_array_alive() -> None:
    desc = MemoryDesc.of_layout((1024,), F32)
    memory = Memory(desc, np.arange(1024, dtype=np.float32))
    copy = Memory.empty(desc)
    reorder(memory, copy)  # the array passed above has no other reference
    assert np.array_equal(copy.view(), np.arange(1024, dtype=np.float32))
    assert copy.data_pointer % 64 == 0


# --- execution argument checks and errors ----------------------------------------------------


def test_execute_checks_arguments() -> None:
    desc = MemoryDesc.of_layout((4,), F32)
    other = MemoryDesc.of_layout((5,), F32)
    primitive = Primitive(PrimitiveDesc.create("reorder", desc, desc))
    src, dst = Memory(desc, np.ones(4, np.float32)), Memory.empty(desc)
    stream = Stream.default()
    with pytest.raises(ValueError, match=r"missing arguments \[17\]"):
        primitive.execute(stream, {SRC: src})
    with pytest.raises(ValueError, match="expects"):
        primitive.execute(stream, {SRC: src, DST: Memory.empty(other)})
    with pytest.raises(ValueError, match="takes no argument 33"):
        primitive.execute(stream, {SRC: src, DST: dst, capi.DNNL_ARG_WEIGHTS: dst})
    read_only = np.zeros(4, np.float32)
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        primitive.execute(stream, {SRC: src, DST: Memory(desc, read_only)})
    with pytest.raises(TypeError, match="expected a Memory"):
        primitive.execute(stream, {SRC: src, DST: np.zeros(4)})  # type: ignore[dict-item]


def test_a_bind_like_a_validated_one_skips_the_validation_and_no_other(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A primitive validates an argument set once: memories of the same descriptor objects
    and writeability bind unchecked; another descriptor, a read-only output or another
    argument set is validated (and refused) after a good bind all the same."""
    desc = MemoryDesc.of_layout((4,), F32)
    primitive = Primitive(PrimitiveDesc.create("reorder", desc, desc))
    checks: list[int] = []
    check = Primitive._check
    monkeypatch.setattr(
        Primitive, "_check", lambda self, args: [checks.append(1), check(self, args)]
    )
    src = Memory(desc, np.ones(4, np.float32))
    primitive.bind({SRC: src, DST: Memory.empty(desc)})
    primitive.bind({SRC: Memory(desc, np.zeros(4, np.float32)), DST: Memory.empty(desc)})
    assert len(checks) == 1
    with pytest.raises(ValueError, match="expects"):
        primitive.bind({SRC: src, DST: Memory.empty(MemoryDesc.of_layout((5,), F32))})
    read_only = np.zeros(4, np.float32)
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        primitive.bind({SRC: src, DST: Memory(desc, read_only)})
    with pytest.raises(ValueError, match="missing arguments"):
        primitive.bind({SRC: src})
    with pytest.raises(TypeError, match="expected a Memory"):
        primitive.bind({SRC: src, DST: np.zeros(4)})  # type: ignore[dict-item]
    assert len(checks) == 5


def test_mismatched_reorder_raises_dnnl_error() -> None:
    with pytest.raises(DnnlError) as error:
        PrimitiveDesc.create(
            "reorder", MemoryDesc.of_layout((2, 3), F32), MemoryDesc.of_layout((3, 2), F32)
        )
    assert str(error.value) == "dnnl_reorder_primitive_desc_create failed: dnnl_invalid_arguments"
    assert error.value.function == "dnnl_reorder_primitive_desc_create"
    assert error.value.status == capi.dnnl_status_t.dnnl_invalid_arguments


def test_unsupported_combination_raises_dnnl_error() -> None:
    s32 = MemoryDesc.of_layout((2, 3), DataType.S32)
    with pytest.raises(
        DnnlError, match="dnnl_softmax_forward_primitive_desc_create failed: dnnl_unimplemented"
    ):
        PrimitiveDesc.create(
            "softmax_forward", Prop.dnnl_forward_inference, Alg.dnnl_softmax_accurate, s32, s32, 1
        )


def test_create_checks_its_arguments() -> None:
    desc = MemoryDesc.of_layout((2, 3), F32)
    with pytest.raises(ValueError, match="unknown primitive 'convolution'"):
        PrimitiveDesc.create("convolution", desc)
    with pytest.raises(TypeError, match=r"takes \(src_desc, dst_desc\): 1 arguments"):
        PrimitiveDesc.create("reorder", desc)
    with pytest.raises(TypeError, match="expected a MemoryDesc"):
        PrimitiveDesc.create("reorder", desc, "nchw")
    with pytest.raises(ValueError, match="differ in length"):
        PrimitiveDesc.create("sum", desc, [1.0], [desc, desc])
    with pytest.raises(ValueError, match="oneDNN allows 12"):
        PrimitiveDesc.create(
            "pooling_forward",
            Prop.dnnl_forward_inference,
            Alg.dnnl_pooling_max,
            desc,
            desc,
            [1] * 13,
            [1],
            [0],
            [0],
            [0],
        )


def test_next_impl_walks_the_implementations() -> None:
    src = MemoryDesc.of_layout((8, 64), F32)
    pd = PrimitiveDesc.create("reorder", src, src)
    names = [pd.impl_info]
    while pd.next_impl():
        names.append(pd.impl_info)
    assert all(names) and pd.next_impl() is False


# --- primitives through the generic path -----------------------------------------------------


def test_sum_concat_with_arrays() -> None:
    desc = MemoryDesc.of_layout((2, 3), F32)
    a, b = np.ones((2, 3), np.float32), np.full((2, 3), 2.0, np.float32)
    out = Memory.empty(desc)
    sources = {capi.DNNL_ARG_MULTIPLE_SRC + i: Memory(desc, x) for i, x in enumerate((a, b))}
    pd = PrimitiveDesc.create("sum", desc, [0.5, 2.0], [desc, desc])
    Primitive(pd).execute(Stream.default(), {**sources, DST: out})
    assert np.array_equal(out.view().reshape(2, 3), 0.5 * a + 2.0 * b)
    cat = MemoryDesc.of_layout((2, 6), F32)
    pd = PrimitiveDesc.create("concat", cat, 1, [desc, desc])
    out = Memory.empty(cat)
    Primitive(pd).execute(Stream.default(), {**sources, DST: out})
    assert np.array_equal(out.view().reshape(2, 6), np.concatenate([a, b], axis=1))


def test_matmul_with_post_ops_and_user_scratchpad() -> None:
    """d = relu((a @ w) * c) + 1 * s, through PostOps' exec ids and a user scratchpad."""
    rng = np.random.default_rng(2)
    lhs, rhs = MemoryDesc.of_layout((4, 8), F32), MemoryDesc.of_layout((8, 16), F32)
    desc, channel = MemoryDesc.of_layout((4, 16), F32), MemoryDesc.of_layout((1, 16), F32)
    a = rng.standard_normal((4, 8)).astype(np.float32)
    w = rng.standard_normal((8, 16)).astype(np.float32)
    c = rng.standard_normal((1, 16)).astype(np.float32)
    s = rng.standard_normal((4, 16)).astype(np.float32)
    post_ops = PostOps(
        [BinaryPostOp(BinaryAlg.MUL), EltwisePostOp(EltwiseAlg.RELU), SumPostOp(1.0)],
        [channel, desc],
    )
    assert len(post_ops) == 3 and post_ops.argument_ids == (post_op_arg(0), None)
    pd = PrimitiveDesc.create("matmul", lhs, rhs, None, desc, attr=PrimitiveAttr(post_ops))
    dst = Memory(desc, s.copy())  # the sum post-op accumulates into the destination
    args = {
        SRC: Memory(lhs, a),
        capi.DNNL_ARG_WEIGHTS: Memory(rhs, w),
        post_op_arg(0): Memory(channel, c),
        DST: dst,
    }
    scratchpad = pd.scratchpad_desc()
    if scratchpad is not None:
        args[capi.DNNL_ARG_SCRATCHPAD] = Memory.empty(scratchpad)
    assert set(pd.expected_args()) == set(args)
    Primitive(pd).execute(Stream.default(), args)
    expected = np.maximum((a @ w) * c, 0) + s
    np.testing.assert_allclose(dst.view().reshape(4, 16), expected, rtol=1e-5, atol=1e-5)


def test_sum_post_op_is_unimplemented_for_binary() -> None:
    """Recorded for the lowering: oneDNN 3.2's binary takes no sum post-op."""
    desc = MemoryDesc.of_layout((4, 16), F32)
    attr = PrimitiveAttr(PostOps([SumPostOp(1.0)], [desc]))
    with pytest.raises(DnnlError, match="dnnl_unimplemented"):
        PrimitiveDesc.create("binary", Alg.dnnl_binary_add, desc, desc, desc, attr=attr)


def test_missing_post_op_argument_is_refused() -> None:
    desc = MemoryDesc.of_layout((4, 16), F32)
    attr = PrimitiveAttr(PostOps([BinaryPostOp(BinaryAlg.ADD)], [desc]))
    pd = PrimitiveDesc.create("binary", Alg.dnnl_binary_add, desc, desc, desc, attr=attr)
    memories = {arg: Memory.empty(desc) for arg in (capi.DNNL_ARG_SRC_0, capi.DNNL_ARG_SRC_1, DST)}
    with pytest.raises(ValueError, match="missing arguments"):
        Primitive(pd).bind(memories)


def test_post_ops_need_one_desc_per_argument() -> None:
    with pytest.raises(ValueError, match="1 post-ops take an argument, 0"):
        PostOps([BinaryPostOp(BinaryAlg.ADD)])


REFERENCE_ONLY_ELTWISE = {EltwiseAlg.SOFTSIGN, EltwiseAlg.ERF, EltwiseAlg.SIN, EltwiseAlg.COS}
"""The eltwise algorithms oneDNN 3.2 has no primitive for (they run their reference kernel)."""


def test_onednn_has_every_eltwise_algorithm_but_the_reference_only_ones() -> None:
    lacking = {alg for alg in EltwiseAlg if not has_eltwise_algorithm(alg)}
    assert lacking == REFERENCE_ONLY_ELTWISE


@pytest.mark.parametrize("alg", sorted(set(EltwiseAlg) - REFERENCE_ONLY_ELTWISE))
def test_every_eltwise_algorithm_maps_and_creates(alg: EltwiseAlg) -> None:
    dnnl_alg, alpha, beta = eltwise_algorithm(alg, 0.5, 1.5)
    assert dnnl_alg in set(Alg)
    desc = MemoryDesc.of_layout((8,), F32)
    forward = Prop.dnnl_forward_inference
    PrimitiveDesc.create("eltwise_forward", forward, dnnl_alg, desc, desc, alpha, beta)
    attr = PrimitiveAttr(PostOps([EltwisePostOp(alg, 0.5, 1.5)]))
    PrimitiveDesc.create("binary", Alg.dnnl_binary_add, desc, desc, desc, attr=attr)


def test_eltwise_conventions() -> None:
    assert eltwise_algorithm(EltwiseAlg.LEAKY_RELU, 0.1, 0.0) == (Alg.dnnl_eltwise_relu, 0.1, 0.0)
    assert eltwise_algorithm(EltwiseAlg.RELU6, 0.0, 0.0) == (Alg.dnnl_eltwise_clip, 0.0, 6.0)
    assert eltwise_algorithm(EltwiseAlg.SIGMOID, 0.0, 0.0)[0] == Alg.dnnl_eltwise_logistic
    soft_relu = eltwise_algorithm(EltwiseAlg.SOFT_RELU, 0.0, 0.0)
    assert soft_relu == (Alg.dnnl_eltwise_soft_relu, 1.0, 0.0)


def test_algorithm_tables_are_complete() -> None:
    assert set(BINARY_ALGS) == set(BinaryAlg) - {BinaryAlg.POW}  # pow: the reference kernel
    assert set(POOL_ALGS) == set(PoolKind)
    assert set(REDUCE_ALGS) == set(ReduceKind)
    assert set(LRN_ALGS) == set(LrnKind)


def test_attr_key_is_structural() -> None:
    desc = MemoryDesc.of_layout((1, 16), F32)
    first = PrimitiveAttr(PostOps([BinaryPostOp(BinaryAlg.ADD)], [desc]))
    same = MemoryDesc.of_layout((1, 16), F32)
    second = PrimitiveAttr(PostOps([BinaryPostOp(BinaryAlg.ADD)], [same]))
    assert first.key() == second.key()
    assert first.key() != PrimitiveAttr().key()
    assert PrimitiveAttr().user_scratchpad


def test_bind_gives_a_bound_execution() -> None:
    desc = MemoryDesc.of_layout((4,), F32)
    out = Memory.empty(desc)
    bound = Primitive(PrimitiveDesc.create("reorder", desc, desc)).bind(
        {SRC: Memory(desc, np.arange(4, dtype=np.float32)), DST: out}
    )
    assert isinstance(bound, BoundExecution)
    assert bound() == capi.dnnl_status_t.dnnl_success
    assert np.array_equal(out.view(), np.arange(4, dtype=np.float32))


# --- the library itself -----------------------------------------------------------------------


def test_missing_library_names_the_variable_and_the_package() -> None:
    code = "from dnnc.dnnl import capi; capi.library()"
    environment = dict(os.environ, **{capi.LIBRARY_VARIABLE: "/nonexistent/libdnnl.so.3"})
    result = subprocess.run(
        [sys.executable, "-c", code], env=environment, capture_output=True, text=True
    )
    assert result.returncode != 0
    assert "OneDnnLibraryError" in result.stderr
    assert capi.LIBRARY_VARIABLE in result.stderr and capi.PINNED_PACKAGE in result.stderr


def test_expected_args_copies_only_the_descriptors_there(monkeypatch: pytest.MonkeyPatch) -> None:
    """A reorder has a source and a destination: of the ~20 arguments expected_args asks for,
    only those two descriptors are copied (each a memory-desc clone: binding a new shape's
    primitives made one per candidate before)."""
    desc = MemoryDesc.of_layout((4,), F32)
    pd = PrimitiveDesc.create("reorder", desc, desc)
    copies = []
    copy_of = MemoryDesc.copy_of.__func__  # type: ignore[attr-defined]

    def counted(cls: type[MemoryDesc], handle: int) -> MemoryDesc:
        copies.append(handle)
        return copy_of(cls, handle)  # type: ignore[no-any-return]

    monkeypatch.setattr(MemoryDesc, "copy_of", classmethod(counted))
    expected = pd.expected_args()
    assert sorted(expected) == [SRC, DST] and all(d == desc for d in expected.values())
    assert len(copies) == 2
    assert pd.weights_desc() is None and len(copies) == 2  # absent: nothing to copy


def test_empty_descriptors_known_by_address(monkeypatch: pytest.MonkeyPatch) -> None:
    """expected_args finds the same arguments when an empty descriptor is known by its
    address as when each candidate's rank is asked (a matmul with a bias and a binary
    post-op: present and absent arguments), and asks fewer ranks."""
    lhs, rhs = MemoryDesc.of_layout((4, 8), F32), MemoryDesc.of_layout((8, 16), F32)
    bias, dst = MemoryDesc.of_layout((1, 16), F32), MemoryDesc.of_layout((4, 16), F32)
    post_ops = PostOps([BinaryPostOp(BinaryAlg.ADD)], [dst])
    ranks: list[int] = []
    borrowed = objects._borrowed_ndims

    def counted(handle: int) -> int:
        ranks.append(handle)
        return borrowed(handle)

    monkeypatch.setattr(objects, "_borrowed_ndims", counted)
    found = {}
    for empty in (None, (None, 0)):  # learnt, then unknown (every rank asked)
        monkeypatch.setattr(PrimitiveDesc, "_empty", empty)
        pd = PrimitiveDesc.create("matmul", lhs, rhs, bias, dst, attr=PrimitiveAttr(post_ops))
        ranks.clear()
        found[empty] = {arg: desc.key() for arg, desc in pd.expected_args().items()}
        found[empty, "ranks"] = len(ranks)
    expected = {SRC, capi.DNNL_ARG_WEIGHTS, capi.DNNL_ARG_BIAS, DST, post_op_arg(0)}
    assert set(found[None]) - {capi.DNNL_ARG_SCRATCHPAD} == expected
    assert found[None] == found[None, 0]
    assert found[None, "ranks"] < found[(None, 0), "ranks"] / 2


# --- run-time dimensions -----------------------------------------------------------------------


def test_one_matmul_primitive_serves_every_row_count() -> None:
    """A matmul created with DNNL_RUNTIME_DIM_VAL rows runs memories of any row count, each
    bound in its own descriptor (``MemoryDesc.admits``), and computes what numpy does."""
    rows = RUNTIME
    src = MemoryDesc.of_strides((rows, 8), F32, (8, 1))
    dst = MemoryDesc.of_strides((rows, 4), F32, (4, 1))
    weights = MemoryDesc.of_layout((8, 4), F32)
    primitive = Primitive(PrimitiveDesc.create("matmul", src, weights, None, dst))
    rng = np.random.default_rng(0)
    w = rng.standard_normal((8, 4)).astype(np.float32)
    for m in (1, 5, 33):
        x = rng.standard_normal((m, 8)).astype(np.float32)
        y = np.empty((m, 4), np.float32)
        args = {
            capi.DNNL_ARG_SRC: Memory(MemoryDesc.of_layout((m, 8), F32), x),
            capi.DNNL_ARG_WEIGHTS: Memory(weights, w),
            capi.DNNL_ARG_DST: Memory(MemoryDesc.of_layout((m, 4), F32), y),
        }
        primitive.execute(Stream.default(), args)
        Stream.default().wait()
        np.testing.assert_allclose(y, x @ w, rtol=1e-5, atol=1e-5)


def test_a_runtime_descriptor_admits_only_its_instances() -> None:
    general = MemoryDesc.of_strides((RUNTIME, 8), F32, (8, 1))
    assert general.admits(MemoryDesc.of_layout((5, 8), F32))
    assert general.admits(general)
    assert not general.admits(MemoryDesc.of_layout((5, 9), F32))  # other columns
    assert not general.admits(MemoryDesc.of_layout((5, 8), DataType.BF16))
    assert not general.admits(MemoryDesc.of_strides((5, 8), F32, (1, 5)))  # column-major
    assert not general.admits(MemoryDesc.of_layout((5, 8), F32, "BA16a64b"))
    concrete = MemoryDesc.of_layout((5, 8), F32)
    assert not concrete.admits(MemoryDesc.of_layout((6, 8), F32))  # no run-time dimension
    with pytest.raises(ValueError, match="non-negative"):
        MemoryDesc.of_layout((RUNTIME, 8), F32)  # only of_strides takes them
