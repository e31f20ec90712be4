"""The four kinds of executable `dnnc.compile` returns, as one type.

An `Executable` (static shapes, dnnc.runtime.executor), a `DynamicExecutable` (a plan per input
shape, dnnc.driver.dynamic; an ONNX model with shape arithmetic on `?` dimensions is its
subclass `OnnxDynamicExecutable`), a `ShapeSpecializedExecutable` (an ONNX model imported
again per value of the inputs its shapes read, dnnc.driver.onnx_shapes) or a
`ValueSpecializedExecutable` (a function compiled per value of its value arguments,
dnnc.driver.values): each has `inputs`, `outputs` and a thread-safe `run`.
"""

from dnnc.driver.dynamic import DynamicExecutable
from dnnc.driver.onnx_shapes import ShapeSpecializedExecutable
from dnnc.driver.values import ValueSpecializedExecutable
from dnnc.runtime.executor import Executable

AnyExecutable = (
    Executable | DynamicExecutable | ShapeSpecializedExecutable | ValueSpecializedExecutable
)
