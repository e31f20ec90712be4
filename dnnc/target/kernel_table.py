"""The kernel table: what runs each dnn op, in which data types and which layouts.

Data types are the target's answer: oneDNN is asked whether it implements a data type on
this CPU and with a real kernel (``kernel_support``: per primitive kind through
``dnnc.target``, per op for bf16/f16, where the answer depends on shapes and post-ops);
nothing here assumes an ISA. One table (``LAYOUT_RULES``) says how
each op class stands to layouts:

- ``PREFERRED``: the primitive has a layout of its own choice (convolution, matmul, inner
  product); it runs in a layout oneDNN picks when asked with format ``any``;
- ``AGNOSTIC``: the primitive computes the same in any layout oneDNN supports for it (eltwise,
  binary, pooling, batch norm, sum, concat, LRN, softmax): it takes its producer's layout;
- ``PLAIN``: plain (row-major) layouts only: reference kernels (top_k, every op on s64 or
  boolean values, a slice with steps, a binary broadcasting its left operand without
  swapping), layer norm, reduce, transpose, slices and reshape (a view of plain data).

Whether an op runs a reference kernel is the lowering's decision (``kernel_calls.kernel_call``),
taken from there so that the two never disagree. ``Probe`` asks oneDNN itself: the layouts it
prefers for a primitive and whether (and with which implementation) it runs an op in given
layouts; the answers are cached per pass run.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING

from xdsl.dialects import func
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, Operation, SSAValue

from dnnc.core.kinds import DataType
from dnnc.core.layouts import Layout, plain_layout
from dnnc.core.shapes import same_shape
from dnnc.core.symbols import (
    SymbolicInt,
    evaluate,
    is_tracing,
    pinned,
    separate,
    symbol_index,
    symbols_read,
)
from dnnc.dialects.dnn import (
    BatchNormOp,
    BinaryOp,
    CastOp,
    ConcatOp,
    ConstantOp,
    Conv2DOp,
    Deconv2DOp,
    DequantizeOp,
    DnnOp,
    EltwiseOp,
    InnerProductOp,
    KernelAttr,
    KernelLibrary,
    LayerNormOp,
    LogSoftmaxOp,
    LrnOp,
    MatmulOp,
    PoolOp,
    QConv2DOp,
    QMatmulOp,
    QuantizeOp,
    ReduceOp,
    ReorderOp,
    ResizeOp,
    SliceOp,
    SoftmaxOp,
    SumOp,
    TransposeOp,
    WeightOp,
    is_view,
)
from dnnc.dialects.dnn.base import tensor_type
from dnnc.dialects.types import data_type_of
from dnnc.target import implementation
from dnnc.target.kernel_calls import KERNEL, KernelCall, kernel_call, params_of

if TYPE_CHECKING:  # oneDNN is loaded on first use, not at import
    from dnnc.dnnl.objects import MemoryDesc, PrimitiveDesc
    from dnnc.dnnl.primitives.base import PrimitiveHandler


class LayoutRule(Enum):
    """How an op stands to layouts (module docstring)."""

    PREFERRED = "preferred"
    AGNOSTIC = "agnostic"
    PLAIN = "plain"


LAYOUT_RULES: dict[type[DnnOp], LayoutRule] = {
    Conv2DOp: LayoutRule.PREFERRED,
    QConv2DOp: LayoutRule.PREFERRED,
    QMatmulOp: LayoutRule.PREFERRED,
    Deconv2DOp: LayoutRule.PREFERRED,
    MatmulOp: LayoutRule.PREFERRED,
    InnerProductOp: LayoutRule.PREFERRED,
    PoolOp: LayoutRule.AGNOSTIC,
    BatchNormOp: LayoutRule.AGNOSTIC,
    LrnOp: LayoutRule.AGNOSTIC,
    SoftmaxOp: LayoutRule.AGNOSTIC,
    LogSoftmaxOp: LayoutRule.AGNOSTIC,
    EltwiseOp: LayoutRule.AGNOSTIC,
    BinaryOp: LayoutRule.AGNOSTIC,
    SumOp: LayoutRule.AGNOSTIC,
    ConcatOp: LayoutRule.AGNOSTIC,
    ReorderOp: LayoutRule.AGNOSTIC,
    CastOp: LayoutRule.AGNOSTIC,
    QuantizeOp: LayoutRule.AGNOSTIC,
    DequantizeOp: LayoutRule.AGNOSTIC,
    LayerNormOp: LayoutRule.PLAIN,
    ReduceOp: LayoutRule.PLAIN,
    TransposeOp: LayoutRule.PLAIN,
    SliceOp: LayoutRule.PLAIN,
    ResizeOp: LayoutRule.PLAIN,
}
"""Per op class that runs a oneDNN primitive: how it stands to layouts (module docstring);
the ops that run reference kernels only are plain."""

DATA_MOVEMENT_KINDS = frozenset({"reorder", "concat"})
"""Primitive kinds that move data without arithmetic: they run in their operand's type."""


class Support(Enum):
    """How oneDNN implements an op's primitive in a data type on this CPU."""

    NATIVE = "native"
    """A real kernel (jit, brgemm, gemm, simple ...)."""
    REFERENCE = "reference"
    """Only oneDNN's reference implementation (``ref:any``), orders of magnitude slower."""
    NONE = "none"
    """No implementation: creating the primitive fails."""


def kernel_kind(op: DnnOp) -> str:
    """The oneDNN primitive kind `op` lowers to (``convolution``, ``eltwise`` ...)."""
    return kernel_call(op).kind


REDUCED_FLOATS = frozenset({DataType.BF16, DataType.F16})
"""Data types whose support oneDNN decides per primitive, not per kind (kernel_support)."""


def kernel_support(op: DnnOp, data_type: DataType, probe: Probe) -> Support:
    """How oneDNN implements `op` in `data_type` here. For a reduced float type oneDNN is
    asked with the op's own shapes, parameters and post-ops in plain layouts (oneDNN 3.2
    runs a bf16 matmul with a full-shape binary post-op on ``ref:any`` where the plain bf16
    matmul is jit); otherwise, and for an op with ``?`` or rank-0 values, which oneDNN
    cannot be asked about as they are, its kind's answer (dnnc.target, once per process)."""
    if data_type in REDUCED_FLOATS and _has_onednn_shapes(op):
        found = probe.implementation(op, {}, data_type)
    else:
        found = implementation(kernel_kind(op), data_type)
    if found is None:
        return Support.NONE
    return Support.REFERENCE if found.startswith("ref") else Support.NATIVE


KEEP_F32: tuple[type[DnnOp], ...] = (LogSoftmaxOp,)
"""Ops dnn-assign-precision keeps in f32 (module docstring of dnnc.passes.assign_precision)."""


def runs_kernel(op: Operation) -> bool:
    """Whether an op runs a kernel (every dnn op but sources and views: dnn.reshape, a
    dnn.transpose or dnn.reorder that is one)."""
    return isinstance(op, DnnOp) and not (isinstance(op, ConstantOp | WeightOp) or is_view(op))


def is_reference(op: DnnOp) -> bool:
    """Whether the lowering runs `op` with a numpy reference kernel."""
    return kernel_call(op).reference


def layout_rule(op: DnnOp) -> LayoutRule:
    """How `op` stands to layouts: reference kernels, views and dynamic shapes are plain."""
    if not runs_kernel(op) or is_reference(op):
        return LayoutRule.PLAIN  # reshape views plain data; reference kernels read plain
    if _is_dynamic(op):
        return LayoutRule.PLAIN  # oneDNN cannot be asked about a dynamic shape
    return LAYOUT_RULES[type(op)]


def _is_dynamic(op: DnnOp) -> bool:
    return any(d < 0 for v in (*op.operands, *op.results) for d in tensor_type(v).get_shape())


def _has_onednn_shapes(op: DnnOp) -> bool:
    """Whether every value of `op` has a static shape of rank 1 or more, as oneDNN takes."""
    return not _is_dynamic(op) and all(
        tensor_type(v).get_shape() for v in (*op.operands, *op.results)
    )


def kernel_of(op: Operation) -> KernelAttr | None:
    """The #dnn.kernel an op carries, if any."""
    attr = op.attributes.get(KERNEL)
    return attr if isinstance(attr, KernelAttr) else None


def compute_type(op: DnnOp) -> DataType:
    """The data type `op` computes in: its kernel's, else its first operand's."""
    kernel = kernel_of(op)
    if kernel is not None:
        return kernel.data_type.data
    return data_type_of(tensor_type(op.operands[0]).get_element_type())


def library_of(op: DnnOp) -> KernelLibrary:
    return KernelLibrary.REFERENCE if is_reference(op) else KernelLibrary.ONEDNN


def roles_of(op: DnnOp, call: KernelCall | None = None) -> list[tuple[str, int]]:
    """The primitive role of each operand the kernel call binds (``call``: kernel_call(op),
    when the caller has it), with the operand index."""
    index_of = op.operand_indices()
    roles: list[tuple[str, int]] = []
    for role, operand in (call or kernel_call(op)).ins:
        indices = index_of.get(operand, ())
        if role.endswith("_"):
            roles.extend((f"{role}{i}", index) for i, index in enumerate(indices))
        else:
            roles.extend((role, index) for index in indices)
    return roles


def weight_indices(op: DnnOp, roles: Sequence[tuple[str, int]] | None = None) -> list[int]:
    """The operands oneDNN packs in a layout of its own: those the kernel call binds to the
    ``weights`` role (conv2d's and inner_product's wei, matmul's rhs). ``roles``:
    roles_of(op), when the caller has them."""
    roles = roles_of(op) if roles is None else roles
    return [index for role, index in roles if role == "weights"]


def is_fallback(implementation: str) -> bool:
    """Whether oneDNN runs a kernel with its fallback: gemm (im2col, or a matmul without a
    brgemm kernel on this ISA) or reference."""
    name = f":{implementation}"  # gemm:jit:f32, x64:gemm:jit; not brgemm:avx2
    return implementation.startswith("ref") or ":gemm:" in name


@dataclass
class Probe:
    """oneDNN's answers about dnn ops, one primitive descriptor per structural key.

    oneDNN is loaded on the first question only, so passes that never ask (strategy=plain,
    reference kernels) run without it.
    """

    _descs: dict[object, tuple[PrimitiveHandler, PrimitiveDesc] | None] = field(
        default_factory=dict
    )
    _memories: dict[tuple[tuple[int, ...], DataType, Layout | None], MemoryDesc] = field(
        default_factory=dict
    )
    """The memory descriptors made, by dims, data type and layout (None: any)."""
    _picked: dict[tuple[int, str], Layout | None] = field(default_factory=dict)
    """The layouts read off a primitive descriptor of ``_descs`` (by its id) per role."""
    _separated: set[object] = field(default_factory=set)
    """The keys of the questions whose answers at other sizes were compared (``primitive``)."""

    def choose(
        self, op: DnnOp, fixed: Mapping[str, Layout], free: tuple[str, ...] = ()
    ) -> dict[str, Layout | None] | None:
        """The layout oneDNN picks for each role of `free` (given as format any), the other
        roles in `fixed` or plain; None when oneDNN cannot run `op` so. A picked layout is
        None when no layout of the role's logical dims describes it (blocked grouped
        weights)."""
        answer = self.choose_with_implementation(op, fixed, free)
        return None if answer is None else answer[0]

    def choose_with_implementation(
        self, op: DnnOp, fixed: Mapping[str, Layout], free: tuple[str, ...] = ()
    ) -> tuple[dict[str, Layout | None], str] | None:
        """``choose``'s layouts and the implementation oneDNN runs `op` with in them (as
        ``implementation`` with `free` given as None): one question, not two."""
        created = self.primitive(op, {**fixed, **{role: None for role in free}})
        return None if created is None else (self._chosen(created, free), created[1].impl_info)

    def _chosen(
        self, created: tuple[PrimitiveHandler, PrimitiveDesc] | None, roles: Sequence[str]
    ) -> dict[str, Layout | None]:
        """The layout oneDNN chose for each of `roles` in `created` (None: no layout of the
        role's logical dims describes it); empty when it has no primitive."""
        if created is None:
            return {}
        from dnnc.dnnl.primitives.base import logical_layout

        handler, desc = created
        picked = {}
        for role in roles:
            key = (id(created), role)  # _descs keeps `created`: its id is not reused
            if key not in self._picked:
                dims = handler.descs[role].dims
                self._picked[key] = logical_layout(desc.exec_arg_desc(handler.args[role]), dims)
            picked[role] = self._picked[key]
        return picked

    def implementation(
        self, op: DnnOp, fixed: Mapping[str, Layout | None], data_type: DataType | None = None
    ) -> str | None:
        """oneDNN's implementation name for `op` with the roles in `fixed` (plain when not
        given, oneDNN's choice when None), computing in `data_type` (default: its
        compute_type), e.g. ``brg:avx512_core``; None when it has none."""
        created = self.primitive(op, fixed, data_type)
        return None if created is None else created[1].impl_info

    def primitive(
        self, op: DnnOp, layouts: Mapping[str, Layout | None], data_type: DataType | None = None
    ) -> tuple[PrimitiveHandler, PrimitiveDesc] | None:
        """(handler, primitive descriptor) of `op` in `layouts` (None = any), computing in
        `data_type` (default: compute_type), or None. The destination is in `data_type`
        where the result has the first operand's element type; an op that converts (a
        quantize, dequantize or cast) writes its result's own type.

        Traced (dnnc.core.symbols), sizes that follow the input sizes are asked at the traced
        values, and the decisions taken from the answer serve other sizes: they must run
        there as well. Batch 1 is where oneDNN 3.2 answers otherwise most (its kernels have a
        path for one image: AVX2's brgconv packs the weights of ResNet-18's 3x3 convolutions
        of 128 channels on 16x16 pixels for 16 output channels at batch 1 and 24 at 2 to 24,
        and has no kernel for the other packing: reference, 100x slower). So each symbol the
        sizes read is also asked at 1 (traced at 1: at 2), the others at their traced
        values, with the layouts oneDNN chose at the traced sizes fixed: where it then runs
        another kind of kernel (none, reference, a fallback, a direct one), the guard
        ``s == 1`` keeps the decisions to the traced side. Other sizes are not asked (a
        question per size would cost the trace more than a trace costs): on AVX-512 the
        layouts of ResNet-18, ResNet-50 and DenseNet-121 are the same for batches 1 to 16; on
        AVX2, DenseNet-121, ResNet-50 and EfficientNet-B0 traced at 2 run some convolutions
        on the reference at batches of 3 and more."""
        data_type = data_type or compute_type(op)
        call = kernel_call(op)
        roles = roles_of(op, call)
        shapes = {
            role: tuple(tensor_type(op.results[0] if index < 0 else op.operands[index]).get_shape())
            for role, index in [*roles, ("dst", -1)]
        }
        ask = _Question(
            op, call, roles, operand_data_types(op, data_type, roles), data_type, layouts
        )
        handler = self._handler(ask, shapes)
        created = None if handler is None else self._created(handler)
        key = None if handler is None else handler.key()
        if is_tracing() and key not in self._separated:
            self._separate_sizes_of_one(ask, shapes, created)
            if key is not None:
                self._separated.add(key)  # its guards are recorded: once is enough
        return created

    def _handler(
        self, ask: _Question, shapes: Mapping[str, tuple[int, ...]]
    ) -> PrimitiveHandler | None:
        """The handler of `ask` for the roles' `shapes`, None if it refuses them."""
        from dnnc.dnnl.objects import MemoryDesc
        from dnnc.dnnl.primitives import handler_for
        from dnnc.ir.values import attribute_value

        op = ask.op
        result, first = (tensor_type(v).get_element_type() for v in (op.results[0], op.operands[0]))
        destination = ask.data_type if result == first else data_type_of(result)
        descs = {}
        for role, index in [*ask.roles, ("dst", -1)]:
            shape = tuple(map(int, shapes[role]))  # oneDNN's: plain ints
            element = ask.elements[index] if index >= 0 else destination
            layout = ask.layouts.get(role, plain_layout(len(shape)))
            if not shape:  # a scalar: one element of rank 1 to oneDNN, as the runtime has it
                shape, layout = (1,), plain_layout(1)
            key = (shape, element, layout)
            if key not in self._memories:
                self._memories[key] = (
                    MemoryDesc.any(shape, element)
                    if layout is None
                    else MemoryDesc.of_layout(shape, element, layout)
                )
            descs[role] = self._memories[key]
        params = {name: attribute_value(a) for name, a in params_of(op, ask.call).items()}
        try:
            return handler_for(ask.call.kind, descs, params)
        except ValueError:
            return None  # the handler refuses these descriptors

    def _created(self, handler: PrimitiveHandler) -> tuple[PrimitiveHandler, PrimitiveDesc] | None:
        """(`handler`, its primitive descriptor), None when oneDNN has no implementation."""
        from dnnc.dnnl.objects import DnnlError, Engine

        key = handler.key()
        if key not in self._descs:
            try:
                self._descs[key] = (handler, handler.create(Engine.default()))
            except DnnlError:
                self._descs[key] = None  # oneDNN has no implementation
        return self._descs[key]

    def _separate_sizes_of_one(
        self,
        ask: _Question,
        shapes: Mapping[str, tuple[int, ...]],
        created: tuple[PrimitiveHandler, PrimitiveDesc] | None,
    ) -> None:
        """Guard ``s == 1`` for each symbol of `shapes` at whose other side oneDNN runs the
        traced decisions on another kind of kernel (``primitive``)."""
        sizes = [size for shape in shapes.values() for size in shape]
        read = set().union(*map(symbols_read, sizes))
        if not read:
            return
        hints = _traced_values(ask.op)
        if not read <= hints.keys():  # not input dimensions' symbols: cannot be asked elsewhere
            for size in sizes:
                pinned(size)
            return
        chosen = self._chosen(created, ask.any_roles)
        again = dataclasses.replace(ask, layouts={**ask.layouts, **chosen})
        unexpressed = [role for role, layout in chosen.items() if layout is None]
        kind = _implementation_kind(created)
        traced = [hints.get(k, 0) for k in range(max(hints) + 1)]
        for symbol in sorted(read):
            values = list(traced)
            values[symbol] = 2 if traced[symbol] == 1 else 1
            try:
                other = {role: tuple(evaluate(d, values) for d in s) for role, s in shapes.items()}
            except ZeroDivisionError:
                other = {}
            valid = other and all(d >= 1 for s in other.values() for d in s)
            handler = self._handler(again, other) if valid else None
            elsewhere = None if handler is None else self._created(handler)
            if _implementation_kind(elsewhere) != kind or any(
                self._chosen(elsewhere, unexpressed).values()  # oneDNN's choice, none fit
            ):
                separate(SymbolicInt.symbol(symbol, traced[symbol]), 1)


def _traced_values(op: DnnOp) -> dict[int, int]:
    """The traced value of each symbol that is an input dimension of `op`'s function (of its
    operands', for an op not inserted yet: a rewrite's candidate)."""
    function = _function_of(op)
    if function is None:
        return {}
    values: dict[int, int] = {}
    for arg in function.body.block.args:
        if isinstance(arg.type, TensorType):
            for size in arg.type.get_shape():
                index = symbol_index(size)
                if index is not None:
                    values[index] = int(size)
    return values


def _function_of(op: Operation) -> func.FuncOp | None:
    """The function `op` is in, or that of its operands for an op not inserted yet (a
    rewrite's candidate, maybe reading other candidates); None if there is none."""
    pending: list[Operation | None] = [op]
    seen: set[Operation] = set()
    while pending:
        node = pending.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        parent: Operation | None = node
        while parent is not None and not isinstance(parent, func.FuncOp):
            parent = parent.parent_op()
        if parent is not None:
            return parent
        for value in node.operands:
            owner = value.owner
            pending.append(owner.parent_op() if isinstance(owner, Block) else owner)
    return None


@dataclass(frozen=True)
class _Question:
    """What ``Probe.primitive`` asks oneDNN about `op`, but for the sizes."""

    op: DnnOp
    call: KernelCall
    roles: list[tuple[str, int]]
    """Each primitive role the operands bind and its operand index."""
    elements: list[DataType]
    """The element type of each operand (operand_data_types)."""
    data_type: DataType
    layouts: Mapping[str, Layout | None]

    @property
    def any_roles(self) -> list[str]:
        """The roles oneDNN chooses the layout of (given as any)."""
        return [role for role, layout in self.layouts.items() if layout is None]


def _implementation_kind(created: tuple[PrimitiveHandler, PrimitiveDesc] | None) -> str | None:
    """What the passes read of the implementation oneDNN runs a primitive with: none (None),
    its reference (``ref``), a fallback by name (``gemm:jit``: two fallbacks are compared) or
    a direct kernel (``direct``: which one is oneDNN's choice per size at run time)."""
    if created is None:
        return None
    implementation = created[1].impl_info
    if implementation.startswith("ref"):
        return "ref"
    return implementation if is_fallback(implementation) else "direct"


def _is_depthwise(conv: Conv2DOp) -> bool:
    """Whether every group of `conv` reads one input channel (groups = input channels > 1)."""
    groups = conv.groups.value.data
    return groups > 1 and tensor_type(conv.src).get_shape()[1] == groups


def data_operands(op: DnnOp, roles: Sequence[tuple[str, int]] | None = None) -> list[SSAValue]:
    """The operands a kernel reads in its compute type (dnn-insert-data-transforms casts
    them): the first operand, weights, the same-shaped operands of its element type, a
    depthwise convolution's bias; not other biases, statistics, broadcast post-op arguments
    (oneDNN reads them in f32) or indices.

    A depthwise convolution's bias follows because oneDNN 3.2's depthwise brgemm kernel
    (``brdgmm_dw``) takes a bias only in the destination's type: with an f32 bias a bf16
    depthwise convolution runs ``jit_dw``, 1.4-1.6x slower (AMX host, 144 channels at 56x56:
    114 vs 74 us). Other convolutions, inner products and matmuls get the same kernel at the
    same speed either way, so their bias keeps f32's precision. ``roles``: roles_of(op),
    when the caller has them."""
    if isinstance(op, ReorderOp | CastOp):
        return [op.src]
    first = op.operands[0]
    result_shape = tensor_type(op.results[0]).get_shape() if op.results else None
    computed = {first, *(op.operands[i] for i in weight_indices(op, roles))}
    if isinstance(op, Conv2DOp) and op.bias is not None and _is_depthwise(op):
        computed.add(op.bias)
    element = tensor_type(first).get_element_type()
    return [
        v
        for v in op.operands
        if v in computed
        or (
            result_shape is not None
            and same_shape(tensor_type(v).get_shape(), result_shape)
            and tensor_type(v).get_element_type() == element  # not gather's indices
        )
    ]


F32_ROLES = frozenset({"bias", "mean", "variance", "scale", "shift"})
"""Roles oneDNN reads in f32 whatever its kernel computes in (a depthwise convolution's bias
excepted: data_operands); so are post-op arguments (``post_arg_<i>``) that are not data."""


def operand_data_types(
    op: DnnOp, data_type: DataType, roles: Sequence[tuple[str, int]] | None = None
) -> list[DataType]:
    """The element type the kernel of `op`, computing in `data_type`, reads each operand in:
    the data operands (data_operands) in `data_type`; a bf16 or f16 bias, normalization
    parameter or post-op argument (F32_ROLES: a reduced-precision model's) in f32, as oneDNN
    reads them (an f32 convolution with an f16 bias has no implementation); a zero point of
    run-time quantization in s32, as oneDNN takes it; int8 weights in s8 (oneDNN's); the
    rest as they are (a concat's other inputs, a binary's broadcast operand, integers).
    ``roles``: roles_of(op), when the caller has them."""
    roles = roles_of(op) if roles is None else roles
    computed = set(data_operands(op, roles))
    types = [
        data_type if v in computed else data_type_of(tensor_type(v).get_element_type())
        for v in op.operands
    ]
    for role, index in roles:
        auxiliary = role in F32_ROLES or role.startswith("post_arg_")
        if auxiliary and op.operands[index] not in computed and types[index] in REDUCED_FLOATS:
            types[index] = DataType.F32
        if role.endswith("_zero_point"):  # a oneDNN reorder's (reference kernels': zero_point)
            types[index] = DataType.S32
        if role == "weights" and data_type in (DataType.S8, DataType.U8):
            types[index] = DataType.S8  # oneDNN's int8 weights are s8, whatever src is
    return types
