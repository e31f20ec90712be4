"""The functions the dnn passes and the lowering work on."""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType

from dnnc.dialects.dnn import DnnOp


def is_dnn_function(function: func.FuncOp) -> bool:
    """Whether a function is one the lowering handles: it holds dnn ops or passes tensors."""
    signature = [*function.function_type.inputs, *function.function_type.outputs]
    return any(isinstance(t, TensorType) for t in signature) or any(
        isinstance(op, DnnOp) for op in function.body.ops
    )


def dnn_functions(module: ModuleOp) -> list[func.FuncOp]:
    """The functions of `module` with a body that hold dnn ops or pass tensors, listed before
    a pass changes any of them."""
    return [
        function
        for function in module.walk()
        if isinstance(function, func.FuncOp) and function.body.blocks and is_dnn_function(function)
    ]
