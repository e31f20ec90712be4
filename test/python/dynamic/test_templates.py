"""A dynamic function is traced once into a program template that serves every input
signature its guards admit: the pipeline and the import run once however many shapes
come, each shape's results agree with ONNX Runtime, and a signature that breaks a guard
is traced again instead of running a plan whose decisions do not hold for it."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import helper, numpy_helper

import dnnc
import dnnc.api
import dnnc.driver.dynamic
import dnnc.driver.onnx_shapes
import dnnc.frontend.onnx.graph
from dnnc.core.diagnostics import collect_remarks
from dnnc.driver.dynamic import DynamicExecutable
from dnnc.driver.onnx_shapes import OnnxDynamicExecutable, ShapeSpecializedExecutable
from dnnc.frontend.onnx.importer import Importer
from dnnc.runtime.lowered import SharedPayloads
from dnnc.target.host import isa_includes
from dnnc.tools.run import run as run_cli
from dnnc_testing.dynamic_graphs import bert, write_weights

HIDDEN, FFN = 16, 32
LENGTHS = [3, 5, 8, 11, 13, 16, 17, 20, 24, 29, 31, 32, 33, 40, 47, 50, 57, 63, 64, 70]


def attention_model() -> onnx.ModelProto:
    """Self-attention with an additive mask, residual, layer norm and a GELU MLP over
    [batch, seq, 16]: every size follows from the two ``?`` dimensions, no Shape op."""
    rng = np.random.default_rng(0)

    def weight(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * 0.3).astype(np.float32)

    weights = {
        "wq": weight(HIDDEN, HIDDEN),
        "wk": weight(HIDDEN, HIDDEN),
        "wv": weight(HIDDEN, HIDDEN),
        "scale": np.array(0.25, np.float32),
        "gamma": weight(HIDDEN) + 1.0,
        "beta": weight(HIDDEN),
        "w1": weight(HIDDEN, FFN),
        "b1": weight(FFN),
        "w2": weight(FFN, HIDDEN),
        "b2": weight(HIDDEN),
    }
    nodes = [
        helper.make_node("MatMul", ["x", "wq"], ["q"]),
        helper.make_node("MatMul", ["x", "wk"], ["k"]),
        helper.make_node("MatMul", ["x", "wv"], ["v"]),
        helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 2, 1]),
        helper.make_node("MatMul", ["q", "kt"], ["qk"]),
        helper.make_node("Mul", ["qk", "scale"], ["scaled"]),
        helper.make_node("Add", ["scaled", "mask"], ["masked"]),
        helper.make_node("Softmax", ["masked"], ["probs"], axis=-1),
        helper.make_node("MatMul", ["probs", "v"], ["context"]),
        helper.make_node("Add", ["context", "x"], ["residual"]),
        helper.make_node("LayerNormalization", ["residual", "gamma", "beta"], ["normed"], axis=-1),
        helper.make_node("MatMul", ["normed", "w1"], ["h1"]),
        helper.make_node("Add", ["h1", "b1"], ["h1b"]),
        helper.make_node("Relu", ["h1b"], ["act"]),
        helper.make_node("MatMul", ["act", "w2"], ["h2"]),
        helper.make_node("Add", ["h2", "b2"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "attention",
        [
            helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["batch", "seq", HIDDEN]),
            helper.make_tensor_value_info("mask", onnx.TensorProto.FLOAT, ["batch", 1, "seq"]),
        ],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, ["batch", "seq", HIDDEN])],
        [numpy_helper.from_array(a, name) for name, a in weights.items()],
    )
    made = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    made.ir_version = 8
    return made


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Counts of the pass driver's runs inside dynamic executables (either route of an ONNX
    model) and of ONNX imports (every kind: plain, symbolic, traced)."""
    counts = {"pipelines": 0, "imports": 0}
    run_passes, run_import = dnnc.driver.dynamic.run_passes, Importer.run

    def counted_run_passes(*args: object, **kwargs: object) -> None:
        counts["pipelines"] += 1
        run_passes(*args, **kwargs)  # type: ignore[arg-type]

    def counted_import(*args: object, **kwargs: object) -> object:
        counts["imports"] += 1
        return run_import(*args, **kwargs)  # type: ignore[arg-type]

    for module in (dnnc.driver.dynamic, dnnc.driver.onnx_shapes):
        monkeypatch.setattr(module, "run_passes", counted_run_passes)
    monkeypatch.setattr(Importer, "run", counted_import)
    return counts


def _attention(tmp_path: Path) -> tuple[DynamicExecutable, ort.InferenceSession]:
    """The attention model compiled by dnnc.compile, and ONNX Runtime's session of it."""
    path = tmp_path / "attention.onnx"
    onnx.save(attention_model(), path)
    executable = dnnc.compile(path)
    assert isinstance(executable, DynamicExecutable)
    return executable, ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])


def test_twenty_lengths_one_pipeline_run(tmp_path: Path, counted: dict[str, int]) -> None:
    executable, session = _attention(tmp_path)
    rng = np.random.default_rng(1)
    for length in LENGTHS:
        x = rng.standard_normal((2, length, HIDDEN)).astype(np.float32)
        mask = np.where(rng.random((2, 1, length)) < 0.2, -1e4, 0.0).astype(np.float32)
        got = executable.run({"x": x, "mask": mask})[0]
        want = session.run(None, {"x": x, "mask": mask})[0]
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4, err_msg=f"seq {length}")
    stats = executable.stats()
    assert (stats.misses, stats.hits, stats.traces) == (len(LENGTHS), 0, 1)
    assert counted == {"pipelines": 1, "imports": 1}
    assert stats.miss_seconds > 0 and stats.seconds_per_miss == stats.miss_seconds / 20
    assert 0 < stats.trace_seconds < stats.miss_seconds and stats.seconds_per_instance > 0
    assert 0 < stats.trace_cpu_seconds  # the calling thread's CPU in the one trace


@pytest.fixture
def bert_path(tmp_path: Path) -> Path:
    write_weights(tmp_path)
    path = tmp_path / "bert.mlir"
    path.write_text(bert(None, None))
    return path


def draw(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def test_a_new_length_binds_the_memories_over_weights_made_before(tmp_path: Path) -> None:
    """The weights' oneDNN memories are made by the first plan and bound by every later one
    (PackedConstants.memory): a new length makes none, and still agrees with ONNX Runtime."""
    executable, session = _attention(tmp_path)
    rng = np.random.default_rng(2)
    made = []
    for length in LENGTHS[:3]:
        x = rng.standard_normal((2, length, HIDDEN)).astype(np.float32)
        mask = np.zeros((2, 1, length), np.float32)
        got = executable.run({"x": x, "mask": mask})[0]
        np.testing.assert_allclose(
            got, session.run(None, {"x": x, "mask": mask})[0], rtol=1e-4, atol=1e-4
        )
        made.append(executable.stats().constant_memories)
    assert made[0] >= executable.stats().constant_entries > 0
    assert made == [made[0]] * 3


def test_a_broken_guard_traces_again(bert_path: Path, counted: dict[str, int]) -> None:
    """Batch 1 makes the mask's batch dimension broadcast in another class than batch 2
    does (a guard `s == 1` of the trace): each batch class gets its own template, every
    other length reuses it, and each plan equals the static compile of its shapes."""
    executable = dnnc.compile(bert_path)
    assert isinstance(executable, DynamicExecutable)
    rng = np.random.default_rng(2)
    shapes = [(2, 5), (2, 9), (1, 5), (1, 12), (3, 7), (1, 4)]
    for b, s in shapes:
        x, mask = draw(rng, b, s, 32), draw(rng, b, 1, s)
        static_path = bert_path.with_name(f"bert_{b}_{s}.mlir")
        static_path.write_text(bert(b, s))
        want = dnnc.compile(static_path).run([x, mask])[0]
        np.testing.assert_array_equal(executable.run([x, mask])[0], want)
    assert executable.stats().traces == 2
    assert counted["pipelines"] == 2


def test_a_mask_of_another_length_is_refused_at_its_op(bert_path: Path) -> None:
    """The trace compared the mask's length with the sequence's: a template does not admit
    a signature where they differ, and the new trace names the op that fails."""
    executable = dnnc.compile(bert_path)
    rng = np.random.default_rng(3)
    executable.run([draw(rng, 2, 5, 32), draw(rng, 2, 1, 5)])
    with pytest.raises(dnnc.DnncError, match="dnn\\."):
        executable.run([draw(rng, 2, 6, 32), draw(rng, 2, 1, 5)])


def test_hits_after_the_first_round(bert_path: Path) -> None:
    executable = dnnc.compile(bert_path)
    rng = np.random.default_rng(4)
    for _ in range(2):
        for s in (3, 4, 5):
            executable.run([draw(rng, 2, s, 32), draw(rng, 2, 1, s)])
    stats = executable.stats()
    assert (stats.misses, stats.hits, stats.traces) == (3, 3, 1)


def heads_model(hidden: int = HIDDEN) -> onnx.ModelProto:
    """Multi-head attention as PyTorch exports ``x.view(batch, seq, heads, -1)``: the
    reshape targets come from Shape -> Gather -> Unsqueeze -> Concat of the input."""
    rng = np.random.default_rng(5)
    heads = 4
    weights = {
        "wq": (rng.standard_normal((hidden, hidden)) * 0.3).astype(np.float32),
        "wk": (rng.standard_normal((hidden, hidden)) * 0.3).astype(np.float32),
        "zero": np.array([0], np.int64),
        "one": np.array(1, np.int64),
        "axis0": np.array([0], np.int64),
        "tail": np.array([heads, -1], np.int64),
        "merged": np.array([hidden], np.int64),
    }
    n = helper.make_node
    nodes = [
        n("Shape", ["x"], ["shape"]),
        n("Gather", ["shape", "zero"], ["batch"], axis=0),
        n("Gather", ["shape", "one"], ["seq0"], axis=0),
        n("Unsqueeze", ["seq0", "axis0"], ["seq"]),
        n("Concat", ["batch", "seq", "tail"], ["split"], axis=0),
        n("Concat", ["batch", "seq", "merged"], ["merge"], axis=0),
        n("MatMul", ["x", "wq"], ["q0"]),
        n("MatMul", ["x", "wk"], ["k0"]),
        n("Reshape", ["q0", "split"], ["q1"]),
        n("Reshape", ["k0", "split"], ["k1"]),
        n("Transpose", ["q1"], ["q"], perm=[0, 2, 1, 3]),
        n("Transpose", ["k1"], ["k"], perm=[0, 2, 3, 1]),
        n("MatMul", ["q", "k"], ["scores"]),
        n("Softmax", ["scores"], ["probs"], axis=-1),
        n("Transpose", ["x"], ["xt"], perm=[0, 1, 2]),
        n("Reshape", ["xt", "split"], ["v1"]),
        n("Transpose", ["v1"], ["v"], perm=[0, 2, 1, 3]),
        n("MatMul", ["probs", "v"], ["context"]),
        n("Transpose", ["context"], ["context_t"], perm=[0, 2, 1, 3]),
        n("Reshape", ["context_t", "merge"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "heads",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["batch", "seq", hidden])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, ["batch", "seq", hidden])],
        [numpy_helper.from_array(a, name) for name, a in weights.items()],
    )
    made = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    made.ir_version = 8
    return made


def test_shape_driven_reshapes_run_the_pipeline_once(
    tmp_path: Path, counted: dict[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Shape -> Gather -> Concat -> Reshape becomes reshape sizes that are expressions of the
    input dimensions, written into the IR by the symbolic import: dnnc.compile(path) reads
    the file once and imports the model three times (the plain import, which stops at the
    first such size, then the symbolic import's two with other stand-in sizes) and runs the
    pipeline once; every length is then an instantiation, with no check trace, and agrees
    with ONNX Runtime."""
    path = tmp_path / "heads.onnx"
    onnx.save(heads_model(), path)
    reads = []
    read = dnnc.frontend.onnx.graph._read_detached
    monkeypatch.setattr(
        dnnc.frontend.onnx.graph, "_read_detached", lambda p: reads.append(p) or read(p)
    )
    executable = dnnc.compile(path)
    assert reads == [path]
    assert isinstance(executable, OnnxDynamicExecutable)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(6)
    for length in LENGTHS:
        x = rng.standard_normal((2, length, HIDDEN)).astype(np.float32)
        got = executable.run({"x": x})[0]
        want = session.run(None, {"x": x})[0]
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5, err_msg=f"seq {length}")
    stats = executable.stats()
    assert (stats.misses, stats.traces, executable.mismatches) == (len(LENGTHS), 1, 0)
    assert counted == {"pipelines": 1, "imports": 3}


def test_no_weight_is_hashed_however_many_traces(tmp_path: Path) -> None:
    """Both routes' templates hold the same two 16 KiB weights: the IR route's (lengths 5, 9
    and 14) the symbolic import's constants, the traced route's (length 1, which breaks the
    import's guard '(s0*s1) != s0') a new import of the same arrays. Bound as they are, they
    are keyed by their shared payloads (dnnc.runtime.lowered.SharedPayloads), never hashed,
    so the two traces' constants are one source each, packed once. A weight that
    dnn-fold-constants packed into a new constant (an inner product's blocked weights, as on
    AVX2 CPUs) is a payload of one trace: hashed once per trace, and one entry per distinct
    packing (length 1 may pick another weight layout than 5). A path is read with its
    weights detached (graph.load_detached), a proto detached by compile: the same results."""
    hidden = 64
    path = tmp_path / "heads.onnx"
    onnx.save(heads_model(hidden), path)
    executable, from_proto = dnnc.compile(path), dnnc.compile(onnx.load(path))
    assert isinstance(executable, OnnxDynamicExecutable)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(7)
    for length in (5, 9, 1, 14):
        x = rng.standard_normal((2, length, hidden)).astype(np.float32)
        got = executable.run({"x": x})[0]
        np.testing.assert_allclose(got, session.run(None, {"x": x})[0], rtol=1e-4, atol=1e-5)
        np.testing.assert_array_equal(from_proto.run({"x": x})[0], got)
    folded, keys = 0, set()
    for template in executable._templates:
        kinds = [c.key[2] for c in template.program.constants]
        folded += kinds.count("sha256")
        keys.update(c.key for c in template.program.constants)
        assert len(kinds) == 2 and kinds.count("shared") + kinds.count("sha256") == 2
    if isa_includes("avx512_core"):  # brgemm matmuls take the weights as imported
        assert (folded, len(keys)) == (0, 2)
    for stats in (executable.stats(), from_proto.stats()):  # type: ignore[attr-defined]
        assert (stats.traces, stats.hashed, stats.constant_entries) == (2, folded, len(keys))


def test_a_payload_not_shared_is_keyed_by_its_digest() -> None:
    """Keys of shared payloads are their indices; any other payload's its SHA-256 (equal
    bytes, equal keys), computed on every read."""
    kept, other = b"k" * 5000, b"o" * 5000
    shared = SharedPayloads([b"x" * 5000, kept])
    for _ in range(3):
        assert shared.key(kept) == ("shared", 1)
        assert shared.key(bytes(bytearray(kept))) == ("sha256", hashlib.sha256(kept).digest())
        assert shared.key(other) == ("sha256", hashlib.sha256(other).digest())
    assert shared.hashed == 6


def test_a_size_used_as_data_pins_the_template(tmp_path: Path) -> None:
    """Shape of a ? dimension cast to float and through an op without a shape rule here
    (Sqrt: dnnc.frontend.onnx.sized) has no expression: the symbolic import refuses the
    model (a remark says why), and on the traced route the template holds for that size
    only, so another length is traced again and the results stay right."""
    n = helper.make_node
    nodes = [
        n("Shape", ["x"], ["shape"]),
        n("Gather", ["shape", "one"], ["seq"], axis=0),
        n("Cast", ["seq"], ["seq_f"], to=onnx.TensorProto.FLOAT),
        n("ReduceSum", ["x", "axes"], ["total"], keepdims=1),
        n("Sqrt", ["seq_f"], ["root"]),
        n("Div", ["total", "root"], ["mean"]),
        n("Mul", ["mean", "w"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "mean",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2, "seq", 3])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2, 1, 3])],
        [
            numpy_helper.from_array(np.array(1, np.int64), "one"),
            numpy_helper.from_array(np.array([1], np.int64), "axes"),
            numpy_helper.from_array(np.array([0.5, 2.0, -1.0], np.float32), "w"),
        ],
    )
    made = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    made.ir_version = 8
    with collect_remarks() as remarks:
        executable = dnnc.compile(made)
    assert isinstance(executable, OnnxDynamicExecutable)
    (refused,) = [r.message for r in remarks if r.pass_name is None]
    assert refused.startswith(
        "traced per input shape from the ONNX model: the symbolic import refuses it: "
        "'func.func' op a size follows the input dimensions in a way the IR cannot write"
    )
    rng = np.random.default_rng(7)
    for length in (4, 9, 4, 13):
        x = rng.standard_normal((2, length, 3)).astype(np.float32)
        want = x.sum(axis=1, keepdims=True) / np.sqrt(length) * np.array([0.5, 2.0, -1.0])
        np.testing.assert_allclose(executable.run([x])[0], want, rtol=1e-5)
    assert executable.stats().traces == 3  # 4, 9 and 13: the pin admits no other length
    # every trace loads its constants from the first trace's sources, so the IR (and its
    # copy of the weights) of the others is not kept alive by their templates
    shared: dict[object, object] = {}
    for template in executable._templates:
        for constant in template.program.constants:
            assert shared.setdefault(constant.key, constant) is constant
    assert len(shared) == 4  # the weight once, the divisor of each length


def positions_model() -> onnx.ModelProto:
    """x + table[Range(0, Shape(x)[1])]: position embeddings as exporters write them."""
    rng = np.random.default_rng(8)
    n = helper.make_node
    nodes = [
        n("Shape", ["x"], ["shape"]),
        n("Gather", ["shape", "one"], ["seq"], axis=0),
        n("Range", ["zero", "seq", "one"], ["positions"]),
        n("Gather", ["table", "positions"], ["embedded"], axis=0),
        n("Add", ["x", "embedded"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "positions",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["batch", "seq", HIDDEN])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, ["batch", "seq", HIDDEN])],
        [
            numpy_helper.from_array(np.array(0, np.int64), "zero"),
            numpy_helper.from_array(np.array(1, np.int64), "one"),
            numpy_helper.from_array(rng.standard_normal((128, HIDDEN)).astype(np.float32), "table"),
        ],
    )
    made = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    made.ir_version = 8
    return made


def test_positions_from_range_of_shape_are_computed_per_signature() -> None:
    """Position ids Range(0, Shape(x)[1]) feed a Gather of an embedding table: data that
    follows the sequence length. It becomes an input computed once per signature (a shape
    function of the symbolic import), so one template, one trace, serves every length, each
    equal to ONNX Runtime."""
    made = positions_model()
    rng = np.random.default_rng(10)
    executable = dnnc.compile(made)
    assert isinstance(executable, OnnxDynamicExecutable)
    session = ort.InferenceSession(made.SerializeToString(), providers=["CPUExecutionProvider"])
    for length in LENGTHS[:10]:
        x = rng.standard_normal((2, length, HIDDEN)).astype(np.float32)
        want = session.run(None, {"x": x})[0]
        np.testing.assert_allclose(executable.run([x])[0], want, rtol=1e-6, err_msg=f"{length}")
    assert (executable.stats().traces, executable.mismatches) == (1, 0)


def rotary_model() -> onnx.ModelProto:
    """x * cos(theta) + x * sin(theta), theta = Range(P, P + T) * freq, P the past length:
    rotary position embeddings as LLaMA exports compute them from Shape(past)."""
    n = helper.make_node
    nodes = [
        n("Shape", ["past"], ["past_shape"]),
        n("Gather", ["past_shape", "one"], ["start"], axis=0),
        n("Shape", ["x"], ["x_shape"]),
        n("Gather", ["x_shape", "one"], ["seq"], axis=0),
        n("Add", ["start", "seq"], ["end"]),
        n("Range", ["start", "end", "one"], ["positions"]),
        n("Unsqueeze", ["positions", "last"], ["column"]),
        n("Cast", ["column"], ["column_f"], to=onnx.TensorProto.FLOAT),
        n("Mul", ["column_f", "freq"], ["theta"]),
        n("Cos", ["theta"], ["cos"]),
        n("Sin", ["theta"], ["sin"]),
        n("Mul", ["x", "cos"], ["x_cos"]),
        n("Mul", ["x", "sin"], ["x_sin"]),
        n("Add", ["x_cos", "x_sin"], ["rotated"]),
        n("Concat", ["past", "rotated"], ["present"], axis=1),
    ]
    freq = 1.0 / 100.0 ** (np.arange(HIDDEN, dtype=np.float32) / HIDDEN)
    graph = helper.make_graph(
        nodes,
        "rotary",
        [
            helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1, "seq", HIDDEN]),
            helper.make_tensor_value_info("past", onnx.TensorProto.FLOAT, [1, "past", HIDDEN]),
        ],
        [helper.make_tensor_value_info("present", onnx.TensorProto.FLOAT, [1, "all", HIDDEN])],
        [
            numpy_helper.from_array(np.array(1, np.int64), "one"),
            numpy_helper.from_array(np.array([1], np.int64), "last"),
            numpy_helper.from_array(freq.astype(np.float32), "freq"),
        ],
    )
    made = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    made.ir_version = 8
    return made


def test_rotary_positions_from_the_past_length_are_computed_per_signature() -> None:
    """cos/sin of positions Range(P, P + T) are data that follow the past length (Cos and
    Sin have a shape rule: dnnc.frontend.onnx.sized): one template serves every past length
    of a one-token step, as a decoder's steady generation needs, each equal to ONNX Runtime.
    Without the rule, each P pinned its own trace. A one-token step at batch 1 keeps the
    symbolic import's guards (a broadcast of equal sizes guards no 's0 != 1'): the IR
    route's one trace serves every step, with no check trace."""
    made = rotary_model()
    rng = np.random.default_rng(11)
    executable = dnnc.compile(made)
    assert isinstance(executable, OnnxDynamicExecutable)
    session = ort.InferenceSession(made.SerializeToString(), providers=["CPUExecutionProvider"])
    for past in range(3, 11):
        feeds = {
            "x": rng.standard_normal((1, 1, HIDDEN)).astype(np.float32),
            "past": rng.standard_normal((1, past, HIDDEN)).astype(np.float32),
        }
        want = session.run(None, feeds)[0]
        np.testing.assert_allclose(executable.run(feeds)[0], want, rtol=1e-5, atol=1e-6)
    assert (executable.stats().traces, executable.mismatches) == (1, 0)


def cache_model() -> onnx.ModelProto:
    """present = Concat(past, x) along the sequence, flattened per batch row by a Reshape to
    Shape(present)[0], -1: a KV cache's append, whose past is empty at a decoder's first
    step."""
    n = helper.make_node
    nodes = [
        n("Concat", ["past", "x"], ["present"], axis=1),
        n("Shape", ["present"], ["shape"]),
        n("Gather", ["shape", "zero"], ["batch"], axis=0),
        n("Concat", ["batch", "minus_one"], ["flat"], axis=0),
        n("Reshape", ["present", "flat"], ["rows"]),
        n("Mul", ["rows", "two"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "cache",
        [
            helper.make_tensor_value_info("past", onnx.TensorProto.FLOAT, [2, "past", HIDDEN]),
            helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2, "seq", HIDDEN]),
        ],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2, "all"])],
        [
            numpy_helper.from_array(np.array([0], np.int64), "zero"),
            numpy_helper.from_array(np.array([-1], np.int64), "minus_one"),
            numpy_helper.from_array(np.array(2.0, np.float32), "two"),
        ],
    )
    made = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    made.ir_version = 8
    return made


def test_an_empty_past_takes_the_traced_route(counted: dict[str, int]) -> None:
    """The symbolic import's sizes are >= 1: an empty past (P = 0) is traced from the ONNX
    model instead (a remark says so), whose import takes the size 0, and that template
    admits no past of another size, nor does the IR route's admit P = 0 (a prompt of 3
    after it): every call agrees with ONNX Runtime; the IR route's template is not checked
    by a second trace, the traced route's is at its first reuse (the prompt of 3)."""
    made = cache_model()
    with collect_remarks() as remarks:
        executable = dnnc.compile(made)
        assert isinstance(executable, OnnxDynamicExecutable)
        session = ort.InferenceSession(made.SerializeToString(), providers=["CPUExecutionProvider"])
        rng = np.random.default_rng(12)
        for past, length in ((0, 4), (4, 1), (5, 1), (0, 4), (9, 2), (0, 3)):
            feeds = {"past": draw(rng, 2, past, HIDDEN), "x": draw(rng, 2, length, HIDDEN)}
            np.testing.assert_array_equal(executable.run(feeds)[0], session.run(None, feeds)[0])
    assert [r.message for r in remarks if r.pass_name is None] == [
        f"input shapes 2x0x16, 2x{length}x16 traced from the ONNX model: a size is 0, and "
        "the symbolic import's sizes are >= 1"
        for length in (4, 3)
    ]
    stats = executable.stats()
    assert (stats.misses, stats.hits, stats.traces, executable.mismatches) == (5, 1, 3, 0)
    assert counted == {"pipelines": 3, "imports": 5}  # plain, symbolic twice, traced twice


def test_a_reshape_target_from_tensor_data_stays_a_refusal() -> None:
    """A Reshape whose target is computed from an input's *values* cannot be known per
    signature: the import refuses it, naming the operand; dnnc.compile then compiles per
    value of that input (ShapeSpecializedExecutable), not a trace."""
    n = helper.make_node
    graph = helper.make_graph(
        [
            n("Cast", ["x"], ["as_int"], to=onnx.TensorProto.INT64),
            n("ReduceMax", ["as_int"], ["target"], keepdims=0),
            n("Unsqueeze", ["target", "axis0"], ["target1"]),
            n("Reshape", ["x", "target1"], ["y"]),
        ],
        "data_target",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["n"])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, ["m"])],
        [numpy_helper.from_array(np.array([0], np.int64), "axis0")],
    )
    made = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    made.ir_version = 8
    with pytest.raises(dnnc.DnncError, match="input 1 \\(shape\\) must be a constant"):
        dnnc.import_onnx(made)
    with collect_remarks() as remarks:
        executable = dnnc.compile(made)
    assert isinstance(executable, ShapeSpecializedExecutable)
    assert [r.message for r in remarks] == [
        "compiled per value of x: those values reach an operand dnn needs at compile time (a "
        "shape, axes, bounds), so each value set is imported again (ShapeSpecializedExecutable)"
    ]
    x = np.array([2.0, 3.0, 1.0], np.float32)
    np.testing.assert_array_equal(executable.run([x])[0], x)


def test_a_transformers_bert_export_is_traced_once(tmp_path: Path) -> None:
    """BertModel from a config (eager attention, an attention mask), exported with dynamic
    batch and sequence: its Shape-driven reshapes, position ids sliced up to the length and
    the mask built from Range and Expand follow the sizes, written into the IR by the
    symbolic import, so one trace serves every length of a batch class; each run agrees
    with ONNX Runtime."""
    torch = pytest.importorskip("torch")
    from dnnc_testing.torchvision_models import transformers

    torch.manual_seed(0)
    config = transformers().BertConfig(
        vocab_size=100,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
        attn_implementation="eager",
    )
    encoder = transformers().BertModel(config).eval()

    class Encoder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.encoder = encoder

        def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
            return self.encoder(input_ids=ids, attention_mask=mask).last_hidden_state

    path = tmp_path / "bert.onnx"
    axes = {"ids": {0: "batch", 1: "seq"}, "mask": {0: "batch", 1: "seq"}}
    torch.onnx.export(
        Encoder(),
        (torch.ones(2, 8, dtype=torch.int64), torch.ones(2, 8, dtype=torch.int64)),
        str(path),
        opset_version=17,
        dynamo=False,
        input_names=["ids", "mask"],
        output_names=["hidden"],
        dynamic_axes={**axes, "hidden": {0: "batch", 1: "seq"}},
    )
    executable = dnnc.compile(path)
    assert isinstance(executable, OnnxDynamicExecutable)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(9)
    for length in (12, 5, 30, 17):
        feeds = {"ids": rng.integers(0, 100, (2, length)), "mask": np.ones((2, length), np.int64)}
        feeds["mask"][1, length // 2 :] = 0  # padding
        want = session.run(None, feeds)[0]
        np.testing.assert_allclose(
            executable.run(feeds)[0], want, rtol=1e-4, atol=1e-4, err_msg=f"{length}"
        )
    assert (executable.stats().traces, executable.mismatches) == (1, 0)


def test_dnnc_run_gives_the_plan_its_computed_inputs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """dnnc-run runs the plan of --shape with the data computed from those sizes."""
    path = tmp_path / "positions.onnx"
    onnx.save(positions_model(), path)
    assert run_cli([str(path), "--shape", "x=2x7x16", "--json"]) == 0
    assert '"shape": [\n        2,\n        7,\n        16\n      ]' in capsys.readouterr().out
