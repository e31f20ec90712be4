"""Fuzzing the public API: mutated IR text and ONNX models give a DnncError or a result,
never another exception (a traceback for the user) and never a hang.

IR: examples/residual_block.mlir with seeded mutations (a cut, a duplicated span, a deleted
line, a token or a number replaced by another plausible one, random characters), compiled
and run. ONNX: a small Conv/ReLU/MaxPool/Reshape/MatMul/Softmax model with seeded mutations
(bytes of the serialized proto flipped; an attribute, op type, input dimension, opset or
initializer changed), imported, compiled and run. Each mutation that passes is run on
random inputs too. ``DNNC_FUZZ_CASES`` sets the number of cases of each (CI: 300).
Found so far, each fixed where it was: an xDSL lexer pattern that backtracks forever on an
unterminated string, use before definition accepted by the verifier, attributes xDSL cannot
build, unreadable initializers and attributes, inputs no node defines.
"""

from __future__ import annotations

import copy
import os
import random
import re
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import dnnc
from dnnc.core.diagnostics import DnncError

CASES = int(os.environ.get("DNNC_FUZZ_CASES", 300))
SECONDS_PER_CASE = 20
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
NUMBER = re.compile(r"\d+")
WORDS = (
    "relu",
    "tanh",
    "gelu_erf",
    "add",
    "mul",
    "sub",
    "max",
    "avg_include_pad",
    "f32",
    "bf16",
    "i8",
    "f16",
    "nhwc",
    "nChw16c",
    "conv2d",
    "pool",
    "eltwise",
    "binary",
    "batch_norm",
    "x",
    "c1",
    "r1",
)
WORD = re.compile(r"\b(" + "|".join(WORDS) + r")\b")


@contextmanager
def time_limit(seconds: int) -> Iterator[None]:
    """Fail the test (instead of hanging CI) if the block takes longer than `seconds`."""

    def expire(signum: int, frame: object) -> None:
        raise TimeoutError(f"no answer within {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def mutated_text(text: str, rng: random.Random) -> str:
    kind = rng.randrange(8)
    i, j = sorted(rng.randrange(len(text) + 1) for _ in range(2))
    if kind == 0:
        return text[:i] + text[j:]
    if kind == 1:
        return text[:i] + text[i:j] * 2 + text[j:]
    if kind == 2:
        lines = text.splitlines()
        del lines[rng.randrange(len(lines))]
        return "\n".join(lines)
    if kind == 3:
        return text[:i] + "".join(chr(rng.randrange(32, 127)) for _ in range(3)) + text[j:]
    pattern = NUMBER if kind < 6 else WORD
    spot = rng.choice(list(pattern.finditer(text)))
    new = (
        str(rng.choice([0, 1, 2, 3, 7, 16, 17, 64, 1000000]))
        if pattern is NUMBER
        else rng.choice(WORDS)
    )
    return text[: spot.start()] + new + text[spot.end() :]


def base_model() -> onnx.ModelProto:
    rng = np.random.default_rng(0)
    initializers = [
        numpy_helper.from_array(rng.standard_normal((8, 3, 3, 3)).astype(np.float32), "w"),
        numpy_helper.from_array(rng.standard_normal((8,)).astype(np.float32), "b"),
        numpy_helper.from_array(rng.standard_normal((128, 5)).astype(np.float32), "fc"),
        numpy_helper.from_array(np.array([1, -1], np.int64), "shape"),
    ]
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"]),
        helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Reshape", ["p", "shape"], ["f"]),
        helper.make_node("MatMul", ["f", "fc"], ["m"]),
        helper.make_node("Softmax", ["m"], ["y"], axis=-1),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 5])],
        initializers,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def mutated_model(base: onnx.ModelProto, rng: random.Random) -> onnx.ModelProto | bytes:
    model = copy.deepcopy(base)
    kind = rng.randrange(6)
    node = rng.choice(model.graph.node)
    if kind == 0:
        data = bytearray(model.SerializeToString())
        for _ in range(rng.randrange(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        return bytes(data)
    if kind == 1 and node.attribute:
        attribute = rng.choice(node.attribute)
        if attribute.ints:
            attribute.ints[rng.randrange(len(attribute.ints))] = rng.choice([-1, 0, 3, 9, 1 << 40])
        else:
            attribute.i = rng.choice([-2, -1, 0, 1, 5, 1 << 40])
    elif kind == 2:
        node.op_type = rng.choice(
            ["Relu", "Add", "Conv", "Gemm", "Transpose", "Flatten", "Concat", "Squeeze"]
        )
    elif kind == 3:
        dim = model.graph.input[0].type.tensor_type.shape.dim[rng.randrange(4)]
        if rng.random() < 0.3:
            dim.dim_param = "N"
        else:
            dim.dim_value = rng.choice([0, 1, 2, 5, 100])
    elif kind == 4:
        model.opset_import[0].version = rng.choice([1, 9, 11, 17, 21, 22, 30])
    else:
        tensor = rng.choice(model.graph.initializer)
        array = numpy_helper.to_array(tensor)
        array = (
            array.reshape(-1)[:-1]
            if rng.random() < 0.5
            else array.astype(rng.choice([np.float64, np.int32, np.float16]))
        )
        tensor.CopyFrom(numpy_helper.from_array(array, tensor.name))
    return model


def compile_and_run(make: Callable[[], dnnc.Executable | dnnc.DynamicExecutable]) -> None:
    """DnncError or success; anything else fails the test with its traceback."""
    with time_limit(SECONDS_PER_CASE):
        try:
            executable = make()
            rng = np.random.default_rng(0)
            executable.run(
                [
                    rng.uniform(-1, 1, [d if d >= 0 else 2 for d in spec.shape]).astype(spec.dtype)
                    for spec in executable.inputs
                ]
            )
        except DnncError:
            pass


@pytest.mark.parametrize("chunk", range(4))
def test_mutated_ir_gives_an_error_or_a_result(chunk: int) -> None:
    text = (EXAMPLES / "residual_block.mlir").read_text()
    rng = random.Random(chunk)
    for _ in range(CASES // 4):
        mutant = mutated_text(text, rng)
        compile_and_run(lambda: dnnc.compile(mutant, weights_dir=EXAMPLES))


@pytest.mark.parametrize("chunk", range(4))
def test_mutated_onnx_gives_an_error_or_a_result(chunk: int, tmp_path: Path) -> None:
    base, rng = base_model(), random.Random(chunk)
    for _ in range(CASES // 4):
        mutant = mutated_model(base, rng)
        if isinstance(mutant, bytes):
            (tmp_path / "m.onnx").write_bytes(mutant)
            source: onnx.ModelProto | str = str(tmp_path / "m.onnx")
        else:
            source = mutant
        compile_and_run(lambda: dnnc.compile(dnnc.import_onnx(source)))


def test_an_unterminated_string_is_an_error_not_a_hang() -> None:
    """xDSL's string pattern backtracked forever here (dnnc.ir.text replaces it)."""
    text = 'func.func @f() -> () {\n  %w = dnn.weight "' + "w" * 64 + " : tensor<4xf32>\n}"
    with time_limit(SECONDS_PER_CASE), pytest.raises(DnncError, match="string literal"):
        dnnc.compile(text)
