"""dnnc as an ONNX backend (``onnx.backend.base.Backend``): ``dnnc.compile``, then run.

``DnncBackend.prepare(model)`` returns a ``DnncBackendRep``; its ``run(inputs)`` compiles the
model on first use, exactly as a user's ``dnnc.compile(model)`` does: graph inputs whose values
feed shapes, axes, bounds or scales are specialized on by dnnc itself, a plan per value set
(dnnc.driver.values). Only the CPU device exists.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import onnx
from onnx import helper
from onnx.backend.base import Backend, BackendRep, Device, DeviceType, namedtupledict

import dnnc
from dnnc.driver.executables import AnyExecutable


class DnncBackendRep(BackendRep):
    """A model ready to run: compiled by ``dnnc.compile`` on first use."""

    def __init__(self, model: onnx.ModelProto) -> None:
        self.model = model
        self._executable: AnyExecutable | None = None

    def run(self, inputs: Any, **kwargs: Any) -> tuple[Any, ...]:
        """The outputs for ``inputs`` (a sequence in graph-input order, or one array)."""
        arrays = [inputs] if isinstance(inputs, np.ndarray) else list(inputs)
        if self._executable is None:
            self._executable = dnnc.compile(self.model)
        results = self._executable.run(arrays)
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
