"""The main job (`make run`): a small ONNX model built here, imported, compiled, run, checked,
timed.

1. Builds a small residual CNN classifier as ONNX (onnx.helper, seeded random weights: nothing is
   downloaded) into out/small_cnn.onnx.
2. Imports it with dnnc (out/small_cnn.mlir + out/small_cnn.npz, the IR a user can read and
   run with dnnc-opt / dnnc-run), compiles it with the default pipeline and runs it; draws the
   optimized graph to out/small_cnn.svg.
3. Checks the result against the numpy reference interpreter and against ONNX Runtime, and
   prints the median latency of both engines and dnnc's memory plan.
Exit status 1 when a check fails.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import dnnc
from dnnc.api import find_function, load_module
from dnnc.reference.interpreter import compare, interpret
from dnnc.tools.import_onnx import run as import_onnx_file
from dnnc.tools.opt import main as dnnc_opt

OUT = Path("out")
INPUT_SHAPE = (1, 3, 64, 64)


def _conv_bn_relu(
    nodes: list[onnx.NodeProto],
    weights: list[onnx.TensorProto],
    rng: np.random.Generator,
    name: str,
    src: str,
    channels: tuple[int, int],
    *,
    stride: int = 1,
    relu: bool = True,
) -> str:
    """conv 3x3 (pad 1) + batch norm (+ relu); returns the output name."""
    cin, cout = channels
    scale = np.sqrt(2.0 / (cin * 9))
    arrays = {
        f"{name}.w": rng.normal(0, scale, (cout, cin, 3, 3)),
        f"{name}.b": rng.normal(0, 0.1, cout),
        f"{name}.gamma": rng.uniform(0.5, 1.5, cout),
        f"{name}.beta": rng.normal(0, 0.1, cout),
        f"{name}.mean": rng.normal(0, 0.1, cout),
        f"{name}.var": rng.uniform(0.5, 1.5, cout),
    }
    weights += [numpy_helper.from_array(a.astype(np.float32), k) for k, a in arrays.items()]
    nodes.append(
        helper.make_node(
            "Conv",
            [src, f"{name}.w", f"{name}.b"],
            [f"{name}.conv"],
            pads=[1, 1, 1, 1],
            strides=[stride, stride],
            kernel_shape=[3, 3],
        )
    )
    bn_inputs = [f"{name}.conv"] + [f"{name}.{k}" for k in ("gamma", "beta", "mean", "var")]
    nodes.append(helper.make_node("BatchNormalization", bn_inputs, [f"{name}.bn"]))
    if not relu:
        return f"{name}.bn"
    nodes.append(helper.make_node("Relu", [f"{name}.bn"], [f"{name}.relu"]))
    return f"{name}.relu"


def build_model(path: Path, seed: int = 0) -> None:
    """A residual CNN: stem, two residual blocks, downsampling, global pool, classifier."""
    rng = np.random.default_rng(seed)
    nodes: list[onnx.NodeProto] = []
    weights: list[onnx.TensorProto] = []
    x = _conv_bn_relu(nodes, weights, rng, "stem", "image", (3, 32))
    for block in ("block1", "block2"):
        y = _conv_bn_relu(nodes, weights, rng, f"{block}.a", x, (32, 32))
        y = _conv_bn_relu(nodes, weights, rng, f"{block}.b", y, (32, 32), relu=False)
        nodes.append(helper.make_node("Add", [y, x], [f"{block}.add"]))
        nodes.append(helper.make_node("Relu", [f"{block}.add"], [f"{block}.out"]))
        x = f"{block}.out"
    nodes.append(helper.make_node("MaxPool", [x], ["pool"], kernel_shape=[2, 2], strides=[2, 2]))
    x = _conv_bn_relu(nodes, weights, rng, "down", "pool", (32, 64), stride=2)
    nodes.append(helper.make_node("GlobalAveragePool", [x], ["gap"]))
    nodes.append(helper.make_node("Flatten", ["gap"], ["features"]))
    weights.append(numpy_helper.from_array(rng.normal(0, 0.1, (10, 64)).astype(np.float32), "fc.w"))
    weights.append(numpy_helper.from_array(np.zeros(10, np.float32), "fc.b"))
    nodes.append(helper.make_node("Gemm", ["features", "fc.w", "fc.b"], ["logits"], transB=1))
    nodes.append(helper.make_node("Softmax", ["logits"], ["probabilities"], axis=1))
    graph = helper.make_graph(
        nodes,
        "small_cnn",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, INPUT_SHAPE)],
        [helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, (1, 10))],
        weights,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.checker.check_model(model)
    onnx.save(model, path)


def median_ms(run: Callable[[], object], repeats: int = 200) -> float:
    for _ in range(10):
        run()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1e3


def main() -> int:
    import onnxruntime

    OUT.mkdir(exist_ok=True)
    onnx_path, mlir_path = OUT / "small_cnn.onnx", OUT / "small_cnn.mlir"
    build_model(onnx_path)
    start = time.perf_counter()
    import_onnx_file(str(onnx_path), str(mlir_path))  # what `dnnc-import -o` does
    imported = time.perf_counter()
    executable = dnnc.compile(mlir_path)
    compiled = time.perf_counter()
    print(f"imported {onnx_path} -> {mlir_path} in {(imported - start) * 1e3:.0f} ms")
    print(
        f"compiled with dnn-optimize in {(compiled - imported) * 1e3:.0f} ms, "
        f"{len(executable.plan.step_infos)} steps"
    )

    picture = OUT / "small_cnn.svg"
    dnnc_opt([str(mlir_path), "-p", "dnn-optimize", "--view-graph", str(picture), "-o", os.devnull])
    print(f"graph after dnn-optimize drawn to {picture} (what `dnnc-opt --view-graph` does)")

    image = np.random.default_rng(1).standard_normal(INPUT_SHAPE, dtype=np.float32)
    (result,) = executable.run([image])
    print(f"top class {int(result.argmax())} with p = {float(result.max()):.4f}")

    module, weights_dir = load_module(mlir_path)
    (expected,) = interpret(find_function(module), [image], weights_dir=weights_dir)
    session = onnxruntime.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    (peer,) = session.run(None, {"image": image})
    failures = 0
    for name, reference in (("reference interpreter", expected), ("ONNX Runtime", peer)):
        comparison = compare(result, reference)
        failures += not comparison.ok
        print(
            f"check vs {name}: max abs error {comparison.max_abs_error:.2e}, "
            f"max rel error {comparison.max_rel_error:.2e}: "
            f"{'ok' if comparison.ok else 'FAILED'}"
        )

    dnnc_ms = median_ms(lambda: executable.run([image]))
    ort_ms = median_ms(lambda: session.run(None, {"image": image}))
    print(
        f"latency (median of 200, batch 1): dnnc {dnnc_ms:.3f} ms, "
        f"ONNX Runtime {ort_ms:.3f} ms, ratio dnnc/ORT {dnnc_ms / ort_ms:.2f}"
    )
    report = executable.memory_report()
    print(
        f"memory: planned arena {report.planned_bytes} bytes, lower bound "
        f"{report.lower_bound_bytes}, allocated {report.arena_bytes}, scratchpad "
        f"{report.scratchpad_bytes}, constants {report.constant_bytes}"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
