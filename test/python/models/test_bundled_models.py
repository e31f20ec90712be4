"""The real CNNs the onnx package ships as test models (``onnx/backend/test/data/light``:
AlexNet, DenseNet-121, Inception v1/v2, ResNet-50, ShuffleNet, SqueezeNet, VGG-19, ZFNet-512,
all opset 9): each imports (upgraded to opset 13), compiles and agrees with ONNX Runtime.

The light models fill every weight with one value (a ConstantOfShape), which makes their
outputs uniform: any engine agrees on those. So the weights are first made random (seeded,
He-scaled for kernels, positive for 1-D statistics), and the outputs checked to vary.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import numpy_helper

import dnnc

LIGHT = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"
LARGE = {"bvlc_alexnet", "vgg19", "zfnet512"}
"""Models with fully connected layers of 100-400 MB: seconds each."""
MODELS = [
    pytest.param(name, marks=[pytest.mark.slow] if name in LARGE else [])
    for name in sorted(p.stem.removeprefix("light_") for p in LIGHT.glob("light_*.onnx"))
]


def _randomized(path: Path, seed: int = 0) -> onnx.ModelProto:
    """The model with each ConstantOfShape weight replaced by a seeded random initializer."""
    model = onnx.load(path)
    rng = np.random.default_rng(seed)
    constants = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    kept = []
    for node in model.graph.node:
        if node.op_type != "ConstantOfShape" or node.input[0] not in constants:
            kept.append(node)
            continue
        shape = tuple(int(d) for d in constants[node.input[0]])
        if len(shape) >= 2:
            fan_in = int(np.prod(shape[1:]))
            values = rng.standard_normal(shape, dtype=np.float32) * np.float32(np.sqrt(2 / fan_in))
        else:
            values = rng.uniform(0.5, 1.5, shape).astype(np.float32)
        model.graph.initializer.append(numpy_helper.from_array(values, node.output[0]))
    del model.graph.node[:]
    model.graph.node.extend(kept)
    model.ir_version = 4  # from 4 on, an initializer need not be a graph input too
    return model


def test_every_bundled_model_is_found() -> None:
    assert len(MODELS) == 9, MODELS


@pytest.mark.parametrize("name", MODELS)
def test_a_bundled_model_agrees_with_onnx_runtime(name: str) -> None:
    model = _randomized(LIGHT / f"light_{name}.onnx")
    executable = dnnc.compile(model)
    (spec,) = executable.inputs
    x = np.random.default_rng(1).standard_normal(spec.shape).astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        options = ort.SessionOptions()
        options.log_severity_level = 3
        session = ort.InferenceSession(model.SerializeToString(), options)
    (want,) = session.run(None, {spec.name: x})
    (got,) = executable.run({spec.name: x})
    assert want.std() > 1e-5, "degenerate outputs: the comparison would test nothing"
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-4 * float(np.abs(want).max()))
