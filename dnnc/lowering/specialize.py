"""Shape specialization: a dnn function with ``?`` dimensions made static for given shapes.

Fused post-ops those shapes make invalid are split off again.

``specialize(function, input_shapes)``
    A clone of ``function`` in which every tensor type is static. Each op's verifier runs as
    shape inference (``dnnc.dialects.dnn.base.inferring``): the same dnnc.core.shapes functions
    and checks as verification, now with every size known, so an input that breaks a
    constraint (a channel mismatch, a window larger than the padded image, a broadcast that
    does not fit) is a DnncError at that op naming the dimension. The inputs themselves must
    have the declared rank, the declared size wherever the type is static, and no dimension
    below 1 (dnnc has no zero-sized tensors); an error names the input, the dimension and the
    first op that reads it. ``dnn.reshape`` takes its new shape from its result type: a
    single ``?`` is what the element count leaves; several ``?`` take the size of the source
    dimension at the same position, which must be ``?`` too (the leading dimensions a
    reshape keeps), and the element counts are checked.
``unfuse_invalid_post_ops(function)``
    Rule: %z = anchor(...) post_args(..., %p, ...) {post_ops = [A..., #dnn.binary<alg>, B...]}
          where %p no longer broadcasts to the result in a form the anchor's primitive takes
          (dnnc.target.post_op_rules: per-tensor, per-channel, per-oc, full; pooling no full)
          ==> %y = anchor(...) {post_ops = [A...]}; %z = the rest as dnn.binary / dnn.eltwise /
              dnn.sum ops, in order, at the anchor's location.
    The values are the same: a post-op chain computes in f32 exactly what the separate ops
    compute. Returns the anchors it split, so a caller can say what changed.
Pre:  the function verifies.   Post: it verifies and every type is static.
"""

from __future__ import annotations

import math
from collections.abc import Container, Sequence

from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, FunctionType, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import Rewriter
from xdsl.utils.exceptions import VerifyException

from dnnc.core import shapes
from dnnc.core.diagnostics import error_at
from dnnc.core.kinds import BinaryPostOp, EltwisePostOp, PostOp, SumPostOp, takes_argument
from dnnc.core.symbols import parse_condition, untraced
from dnnc.dialects.dnn import (
    BinaryOp,
    DnnOp,
    EltwiseOp,
    ReshapeOp,
    SliceOp,
    SumOp,
    shape_of,
    symbolic,
)
from dnnc.dialects.dnn.base import (
    PostOpAnchor,
    i64_array,
    inferring,
    ints,
    stand_in,
    tensor_type,
)
from dnnc.ir.names import input_name
from dnnc.target.post_op_rules import anchor_rule, broadcast_kind


def is_dynamic(function: func.FuncOp) -> bool:
    """Whether any tensor type in the function has a ``?`` dimension."""
    values = [*function.body.block.args]
    values += [r for op in function.body.block.ops for r in op.results]
    return any(isinstance(v.type, TensorType) and shapes.DYNAMIC in shape_of(v) for v in values)


def _first_reader(function: func.FuncOp, arg: SSAValue) -> Operation:
    """The first op in program order that reads ``arg`` (the function if none does)."""
    readers = {use.operation for use in arg.uses}
    return next((op for op in function.body.block.ops if op in readers), function)


def _check_inputs(
    function: func.FuncOp, input_shapes: Sequence[shapes.Shape], skip: Container[int] = ()
) -> None:
    """Rank, declared static sizes and sizes >= 1 of every input but those of ``skip``
    (module docstring)."""
    args = function.body.block.args
    if len(input_shapes) != len(args):
        raise error_at(function, f"takes {len(args)} inputs, got {len(input_shapes)} shapes")
    for arg, shape in zip(args, input_shapes):
        if arg.index in skip:
            continue
        declared = shape_of(arg)
        where = f"input '{input_name(arg)}' ({shapes.format_shape(shape)})"
        if len(shape) != len(declared):
            raise error_at(
                _first_reader(function, arg),
                f"{where} has rank {len(shape)}, @{function.sym_name.data} declares "
                f"{shapes.format_shape(declared)}",
            )
        for dim, (size, want) in enumerate(zip(shape, declared)):
            if size < 1:
                raise error_at(
                    _first_reader(function, arg),
                    f"{where} dimension {dim} is {size}: every dimension must be >= 1",
                )
            if want != shapes.DYNAMIC and size != want:
                raise error_at(
                    _first_reader(function, arg),
                    f"{where} dimension {dim} is {size}, @{function.sym_name.data} declares {want}",
                )


def _reshape_result(
    op: ReshapeOp, known: dict[SSAValue, shapes.Shape], values: Sequence[int]
) -> shapes.Shape:
    """The static result shape of a reshape with ``?`` in its result type (module docstring)."""
    target = symbolic.evaluate_dims(op, values)
    if target is not None:
        return target
    declared = shape_of(op.result)
    unknown = [d for d, size in enumerate(declared) if size == shapes.DYNAMIC]
    src = known[op.src]
    out = list(declared)
    if len(unknown) == 1:
        rest = math.prod(size for size in declared if size != shapes.DYNAMIC)
        out[unknown[0]] = math.prod(src) // rest
        return tuple(out)
    declared_src = tuple(shapes.DYNAMIC if d < 0 else d for d in tensor_type(op.src).get_shape())
    for dim in unknown:
        if dim >= len(declared_src) or declared_src[dim] != shapes.DYNAMIC:
            raise error_at(
                op,
                f"result dimension {dim} is one of {len(unknown)} dynamic ones and src "
                f"dimension {dim} is not dynamic: the new size cannot be inferred",
            )
        out[dim] = src[dim]
    return tuple(out)


def _slice_result(op: SliceOp, values: Sequence[int]) -> shapes.Shape:
    """A slice's result shape from its ``dnn.dims``; its ends made to agree (a unit-step axis
    of size n ends at start + n)."""
    sizes = symbolic.evaluate_dims(op, values)
    assert sizes is not None  # the caller checked dnn.dims
    declared = shape_of(op.result)
    starts, ends = ints(op.starts) or (), ints(op.ends) or ()
    op.ends = i64_array(
        *(
            start + size if want == shapes.DYNAMIC else end
            for start, end, size, want in zip(starts, ends, sizes, declared, strict=True)
        )
    )
    return sizes


def _infer(
    function: func.FuncOp, input_shapes: Sequence[shapes.Shape], values: Sequence[int]
) -> dict[SSAValue, shapes.Shape]:
    """Every value's static shape, op by op (the verifiers' checks, module docstring)."""
    args = function.body.block.args
    known: dict[SSAValue, shapes.Shape] = dict(zip(args, map(tuple, input_shapes)))
    signature = ", ".join(
        f"{input_name(a)}: {shapes.format_shape(s)}" for a, s in zip(args, input_shapes)
    )
    with inferring(known):
        for op in function.body.block.ops:
            if not isinstance(op, DnnOp):
                continue
            try:
                if isinstance(op, ReshapeOp):
                    known[op.result] = _reshape_result(op, known, values)
                elif isinstance(op, SliceOp) and symbolic.dims_of(op) is not None:
                    sizes = _slice_result(op, values)
                    with untraced():  # its packed ends hold the traced sizes only
                        op.verify_op()
                    known[op.result] = sizes  # with their expressions
                    continue
                op.verify_op()
            except (shapes.ShapeError, VerifyException) as error:
                raise error_at(op, f"{error} (inputs {signature})") from None
            for result in op.results:
                shape = known.setdefault(result, shape_of(result))
                if shapes.DYNAMIC in shape:
                    raise error_at(op, f"result shape {shapes.format_shape(shape)} stays dynamic")
    return known


def _with_computed(
    function: func.FuncOp, input_shapes: Sequence[shapes.Shape]
) -> tuple[list[shapes.Shape], list[int]]:
    """Every argument's shape (the shape functions' from the symbols, when ``input_shapes``
    gives the caller's arguments only) and the symbols' values; the import's guards checked."""
    computed = symbolic.shape_functions(function)
    declared = symbolic.declared_arguments(function)
    full: list[shapes.Shape] = list(input_shapes)
    if computed and len(input_shapes) == len(declared):
        full = [()] * len(function.body.block.args)
        for index, shape in zip(declared, input_shapes, strict=True):
            full[index] = tuple(shape)
    _check_inputs(function, full, skip=computed)
    values = symbolic.symbol_values(function, full)
    for index, text in computed.items():
        full[index] = symbolic.shape_function_shape(text, values)
    for guard in symbolic.guards_of(function):
        if not parse_condition(guard, values):
            signature = ", ".join(shapes.format_shape(full[i]) for i in declared)
            raise error_at(
                function,
                f"input shapes {signature} break '{guard}', a condition its import holds "
                f"under (symbols {', '.join(f's{k} = {v}' for k, v in enumerate(values))})",
            )
    return full, values


def _drop_symbols(function: func.FuncOp) -> None:
    """Remove what a static function no longer needs: every size is in its types."""
    for name in (symbolic.SYMBOLS, symbolic.GUARDS):
        function.attributes.pop(name, None)
    for op in function.body.block.ops:
        op.attributes.pop(symbolic.DIMS, None)
    if function.arg_attrs is not None:
        function.arg_attrs = ArrayAttr(
            [
                DictionaryAttr({k: v for k, v in a.data.items() if k != symbolic.SHAPE_FUNCTION})
                for a in function.arg_attrs.data
            ]
        )


def specialize(function: func.FuncOp, input_shapes: Sequence[shapes.Shape]) -> func.FuncOp:
    """A clone of ``function`` with static types for ``input_shapes`` (module docstring)."""
    clone = function.clone()
    full, values = _with_computed(clone, input_shapes)
    known = _infer(clone, full, values)
    _drop_symbols(clone)
    for value, shape in list(known.items()):
        type_ = tensor_type(value)
        if tuple(type_.get_shape()) != shape:
            new = TensorType(type_.get_element_type(), shape, type_.encoding)
            name = value.name_hint
            Rewriter.replace_value_with_new_type(value, new).name_hint = name
    returned = clone.body.block.last_op
    if not isinstance(returned, func.ReturnOp):
        raise error_at(clone, "does not end with func.return")
    clone.function_type = FunctionType.from_lists(
        [a.type for a in clone.body.block.args], [v.type for v in returned.operands]
    )
    return clone


def _invalid_binary(op: PostOpAnchor) -> int | None:
    """The index in ``post_ops`` of the first binary post-op whose argument the anchor's
    primitive cannot take for the current shapes, None if all fit."""
    rule = anchor_rule(op)
    dst = shape_of(op.result)
    args = iter(op.post_args)
    for index, post_op in enumerate(op.post_op_chain):
        if not takes_argument(post_op):
            continue
        arg = next(args)
        if isinstance(post_op, BinaryPostOp) and (
            broadcast_kind(shape_of(arg), dst, rule.oc_axis) not in rule.broadcasts
        ):
            return index
    return None


def _separate_op(post_op: PostOp, value: SSAValue, arg: SSAValue | None) -> Operation:
    """One post-op as its own dnn op on ``value`` (``arg``: its argument, if it takes one)."""
    if isinstance(post_op, EltwisePostOp):
        return EltwiseOp(post_op.alg, value, alpha=post_op.alpha, beta=post_op.beta)
    assert arg is not None  # binary and sum post-ops take one
    if isinstance(post_op, BinaryPostOp):
        return BinaryOp(post_op.alg, value, arg, result_type=tensor_type(value))
    assert isinstance(post_op, SumPostOp)
    return SumOp([value, arg], scales=[1.0, post_op.scale])


def _split(op: PostOpAnchor, at: int) -> None:
    """``op`` keeps post-ops before ``at``; the others become separate ops after it."""
    chain = op.post_op_chain
    post_args = list(op.post_args)
    kept = sum(takes_argument(p) for p in chain[:at])
    anchor = stand_in(op.with_post_ops(chain[:at], post_args[:kept]), op)
    block = op.parent_block()
    assert block is not None  # a function body op
    block.insert_op_before(anchor, op)
    value: SSAValue = anchor.results[0]
    rest = iter(post_args[kept:])
    for post_op in chain[at:]:
        separate = _separate_op(post_op, value, next(rest) if takes_argument(post_op) else None)
        separate.location = op.location
        block.insert_op_before(separate, op)
        value = separate.results[0]
    value.name_hint = op.results[0].name_hint
    op.results[0].replace_all_uses_with(value)
    block.erase_op(op)


def unfuse_invalid_post_ops(function: func.FuncOp) -> list[DnnOp]:
    """Split every anchor whose binary post-op argument no longer fits (module docstring)."""
    split: list[DnnOp] = []
    for op in list(function.body.block.ops):
        if not isinstance(op, PostOpAnchor):
            continue
        at = _invalid_binary(op)
        if at is not None:
            _split(op, at)
            split.append(op)
    return split


__all__ = ["is_dynamic", "specialize", "unfuse_invalid_post_ops"]
