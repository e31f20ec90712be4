"""The names the caller knows a function's inputs and results by.

An SSA name holds only letters, digits and ``_$.-``, so a model's own names (``input:0``,
``logits/Softmax:0``, ``data_0``) are kept exactly in the function's argument and result
attributes as ``{dnn.name = "input:0"}``; the SSA name hint is a readable spelling of it.
Without the attribute an input is known by its SSA name and a result as ``result<i>``. The
lowering writes the names into ``onednn.inputs`` / ``onednn.outputs``, which the executor
reads.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, StringAttr
from xdsl.ir import Attribute, BlockArgument

NAME = "dnn.name"
"""The argument and result attribute holding a caller-visible name."""


def named(
    names: Sequence[str | None], extra: Mapping[int, Mapping[str, Attribute]] | None = None
) -> ArrayAttr[DictionaryAttr]:
    """``arg_attrs`` / ``res_attrs`` carrying ``names`` (None: no attribute), and the
    ``extra`` attributes of some of them, by index."""
    extra = extra or {}
    return ArrayAttr(
        [
            DictionaryAttr(
                ({} if name is None else {NAME: StringAttr(name)}) | dict(extra.get(index, {}))
            )
            for index, name in enumerate(names)
        ]
    )


def _name_of(attrs: ArrayAttr[DictionaryAttr] | None, index: int) -> str | None:
    if attrs is None or index >= len(attrs.data):
        return None
    value = attrs.data[index].data.get(NAME)
    return value.data if isinstance(value, StringAttr) else None


def input_name(arg: BlockArgument) -> str:
    """The caller's name of a function argument (module docstring)."""
    function = arg.block.parent_op()
    attrs = function.arg_attrs if isinstance(function, func.FuncOp) else None
    return _name_of(attrs, arg.index) or arg.name_hint or f"arg{arg.index}"


def input_names(function: func.FuncOp) -> list[str]:
    """The caller's name of each argument (module docstring)."""
    return [input_name(arg) for arg in function.body.block.args]


def output_names(function: func.FuncOp) -> list[str]:
    """The caller's name of each result (module docstring)."""
    return [
        _name_of(function.res_attrs, index) or f"result{index}"
        for index in range(len(function.function_type.outputs.data))
    ]
