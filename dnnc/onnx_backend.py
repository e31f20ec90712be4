"""dnnc as an ONNX backend (``onnx.backend.base.Backend``): import, ``dnnc.compile``, run.

``DnncBackend.prepare(model)`` returns a ``DnncBackendRep``; its ``run(inputs)`` compiles on
first use. Graph inputs of type int64 (shapes, axes, starts, repeats), rank-0 inputs (Clip
bounds, Pow exponents: attributes in disguise) and those Resize (or Upsample) reads as its
roi, scales or sizes are taken as constants: the model is specialized on their values when it
is run, once per distinct value set, as the importer would fold an initializer (exported models
hold them as initializers; the node tests pass them as inputs). Every other input is a
run-time tensor. Only the CPU device exists.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx.backend.base import Backend, BackendRep, Device, DeviceType, namedtupledict

import dnnc
from dnnc.driver.executables import AnyExecutable
from dnnc.frontend.onnx import import_onnx


class DnncBackendRep(BackendRep):
    """A model ready to run: compiled per value set of its int64 inputs."""

    def __init__(self, model: onnx.ModelProto) -> None:
        self.model = model
        initializers = {t.name for t in model.graph.initializer}
        self.inputs = [i for i in model.graph.input if i.name not in initializers]
        self._compiled: dict[bytes, AnyExecutable] = {}
        self._resize_parameters = {
            name
            for node in model.graph.node
            if node.op_type in ("Resize", "Upsample")
            for name in node.input[1:]
        }

    def _is_constant(self, value_info: onnx.ValueInfoProto) -> bool:
        """int64, rank-0 and Resize-parameter inputs are specialized on (module docstring)."""
        tensor = value_info.type.tensor_type
        return (
            tensor.elem_type == TensorProto.INT64
            or (tensor.HasField("shape") and len(tensor.shape.dim) == 0)
            or value_info.name in self._resize_parameters
        )

    def _executable(self, arrays: Sequence[np.ndarray]) -> AnyExecutable:
        """The executable specialized on the int64 inputs among ``arrays``."""
        constants = {
            info.name: np.asarray(array)
            for info, array in zip(self.inputs, arrays)
            if self._is_constant(info)
        }
        key = b"".join(
            name.encode() + str((a.dtype, a.shape)).encode() + a.tobytes()
            for name, a in constants.items()
        )
        if key not in self._compiled:
            model = onnx.ModelProto()
            model.CopyFrom(self.model)
            graph = model.graph
            kept = [i for i in graph.input if i.name not in constants]
            del graph.input[:]
            graph.input.extend(kept)
            graph.initializer.extend(numpy_helper.from_array(a, n) for n, a in constants.items())
            self._compiled[key] = dnnc.compile(import_onnx(model))
        return self._compiled[key]

    def run(self, inputs: Any, **kwargs: Any) -> tuple[Any, ...]:
        """The outputs for ``inputs`` (a sequence in graph-input order, or one array)."""
        arrays = [inputs] if isinstance(inputs, np.ndarray) else list(inputs)
        executable = self._executable(arrays)
        tensors = [a for info, a in zip(self.inputs, arrays) if not self._is_constant(info)]
        results = executable.run(tensors)
        names = [o.name for o in self.model.graph.output]
        return namedtupledict("Outputs", names)(*results)


class DnncBackend(Backend):
    """The ONNX Backend API on dnnc (CPU only)."""

    @classmethod
    def prepare(cls, model: onnx.ModelProto, device: str = "CPU", **kwargs: Any) -> DnncBackendRep:
        super().prepare(model, device, **kwargs)  # checks the model
        return DnncBackendRep(model)

    @classmethod
    def run_model(
        cls, model: onnx.ModelProto, inputs: Any, device: str = "CPU", **kwargs: Any
    ) -> tuple[Any, ...]:
        return cls.prepare(model, device, **kwargs).run(inputs)

    @classmethod
    def run_node(
        cls,
        node: onnx.NodeProto,
        inputs: Any,
        device: str = "CPU",
        outputs_info: Sequence[tuple[np.dtype, tuple[int, ...]]] | None = None,
        **kwargs: Any,
    ) -> tuple[Any, ...]:
        """One node as a model whose graph inputs are the node's inputs (typed from
        ``inputs``), at the opset in ``kwargs['opset_version']`` or the newest supported."""
        arrays = [np.asarray(a) for a in inputs]
        graph = helper.make_graph(
            [node],
            "node",
            [
                helper.make_tensor_value_info(
                    name, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape
                )
                for name, a in zip(node.input, arrays)
            ],
            [helper.make_empty_tensor_value_info(name) for name in node.output],
        )
        opset = int(kwargs.get("opset_version", 21))
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        return cls.run_model(model, arrays, device)

    @classmethod
    def supports_device(cls, device: str) -> bool:
        return Device(device).type == DeviceType.CPU


prepare = DnncBackend.prepare
run_model = DnncBackend.run_model
run_node = DnncBackend.run_node
supports_device = DnncBackend.supports_device
