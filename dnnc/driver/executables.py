"""The three kinds of executable `dnnc.compile` returns, as one type.

An `Executable` (static shapes, dnnc.runtime.executor), a `DynamicExecutable` (a plan per input
shape, dnnc.driver.dynamic) or a `ShapeSpecializedExecutable` (an ONNX model imported again per
input shape, dnnc.driver.onnx_shapes): each has `inputs`, `outputs` and a thread-safe `run`.
"""

from dnnc.driver.dynamic import DynamicExecutable
from dnnc.driver.onnx_shapes import ShapeSpecializedExecutable
from dnnc.runtime.executor import Executable

AnyExecutable = Executable | DynamicExecutable | ShapeSpecializedExecutable
