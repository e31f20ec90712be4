"""Special values (NaN, +-inf, +-0, denormals, large magnitudes) through every ONNX op the
importer supports, against ONNX Runtime.

The cases are the ONNX package's node tests (onnx.backend.test): for each op type dnnc
converts, the first CASES_PER_OP test cases with float inputs that dnnc compiles and ONNX
Runtime runs, a third of each float input's elements replaced by special values (seeded).
Each runs three ways, and each must agree with the oracle or refuse clearly, never answer wrongly:
- compiled with SPECIAL_VALUES_PIPELINE (dnn-propagate-special-values first): must agree;
- compiled with the default pipeline: agrees, or raises InputError naming that pipeline (when
  a oneDNN kernel of the plan drops special values: dnnc.target.special_values);
- the reference interpreter (the oracle of ``dnnc-run --check``), where the model imports.

Oracle: ONNX Runtime (CPU, graph optimizations off), except where its answer is not ONNX's
(each op with the reason):
- NAN_FREE ops get the other special values and no NaN;
- ONNX_REFERENCE_OUTPUTS are checked against onnx.reference (ONNX's own implementation).
Agreement: NaN exactly where the oracle has NaN, the same infinities, finite values within
1e-4 of max(|expected|, 1) plus 1e-6 of the largest finite input (3e18 and -3e18 summed in
another order cancel to other small values).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from functools import cache

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx.backend.test.case.node import collect_testcases
from onnx.reference import ReferenceEvaluator

import dnnc
from dnnc.api import find_function
from dnnc.core.diagnostics import DnncError, InputError
from dnnc.driver.values import with_values
from dnnc.frontend.onnx.converters import CONVERTERS
from dnnc.frontend.onnx.deferred import convert_deferred
from dnnc.ir.names import input_names
from dnnc.reference.interpreter import interpret
from dnnc.runtime.io_binding import SPECIAL_VALUES_PIPELINE

CASES_PER_OP = 3
SPECIALS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, -1e-40, 3e18, -3e18], np.float32)
_VECTOR_MAX = (
    "ONNX Runtime's vector max keeps its second operand, so a NaN counts or not by where it "
    "lies (MaxPool of [nan, 1] is 1, of [1, nan] nan); dnnc ignores NaN in max pooling (as "
    "oneDNN and onnx.reference do) and propagates it through max/min reductions (as numpy)"
)
_ARG_NAN = (
    "ONNX Runtime's ArgMax/ArgMin count a NaN only as the first element (argmax of "
    "[nan, 1, 2] is 0, of [1, nan, 2] 2); dnnc runs them as a top-1 and refuses NaN"
)
NAN_FREE = {
    "MaxPool": _VECTOR_MAX,
    "GlobalMaxPool": _VECTOR_MAX,
    "ReduceMax": _VECTOR_MAX,
    "ReduceMin": _VECTOR_MAX,
    "TopK": (
        "ONNX leaves the order of NaN open and ONNX Runtime's is arbitrary (its top 3 of "
        "[nan, 1, 2, 3, 4] are [2, 1, nan]): dnnc refuses NaN (test_top_k_refuses_nan)"
    ),
    "ArgMax": _ARG_NAN,
    "ArgMin": _ARG_NAN,
}
"""Ops tested without NaN, and why."""
FINITE_INPUTS = {"PRelu": (1,), "DynamicQuantizeLinear": (0,)}
"""Inputs (by index) given finite special values only, and why: PRelu is relu(x) + slope *
min(x, 0), so a NaN or infinite slope makes a positive x NaN where ONNX gives x (slopes are
weights in real models). DynamicQuantizeLinear of a range with an infinity has an infinite
scale, so every finite value quantizes to the zero point, and ONNX Runtime's zero point of
such a range (inf / inf) follows its clamping order (255 for [-inf, 1], 0 for [1, inf]);
NaN, which ONNX Runtime leaves out of the range and quantizes to 0, is tested."""
QUANTIZATION_SCALES = {"QLinearMatMul": (1, 4, 6), "QLinearConv": (1, 4, 6)}
"""Inputs (by index) given no special value at all: the scales of linear quantization, which
ONNX defines for positive finite values only (a zero, NaN or infinite scale has no quantized
meaning, and ONNX Runtime's integer answer then follows its clamping order). The data inputs
of these ops are integers."""
ONNX_REFERENCE_OUTPUTS: dict[str, tuple[int, ...] | None] = {
    "LayerNormalization": (1, 2),  # ONNX Runtime's Mean of a row holding inf is NaN
    "LRN": None,  # ONNX Runtime's running window sum turns one inf into NaN for later channels
}
"""Outputs (None: all) checked against onnx.reference instead, and why."""


@cache
def node_cases() -> dict[str, list[onnx.backend.test.case.test_case.TestCase]]:
    """The node test cases with float32 inputs, by op type (single-op-type models only)."""
    by_op: dict[str, list] = {}
    for case in sorted(collect_testcases(None), key=lambda c: c.name):
        model = case.model
        if model is None or not case.data_sets or "_expanded" in case.name:
            continue
        ops = {node.op_type for node in model.graph.node}
        inputs = case.data_sets[0][0]
        floats = [isinstance(a, np.ndarray) and a.dtype == np.float32 for a in inputs]
        if len(ops) == 1 and any(floats):
            by_op.setdefault(ops.pop(), []).append(case)
    return by_op


def laced(array: np.ndarray, seed: int, specials: np.ndarray) -> np.ndarray:
    """A copy of a float32 array with a third of its elements (at random places, one at
    least) special, taking the specials in turn from the ``seed``-th on (so that each appears
    where there are enough places, and the inputs of an op start on different ones); the
    others unchanged."""
    if not isinstance(array, np.ndarray) or array.dtype != np.float32 or array.size == 0:
        return array
    rng = np.random.default_rng(seed)
    flat = array.copy().reshape(-1)
    chosen = rng.choice(flat.size, size=max(1, flat.size // 3), replace=False)
    flat[chosen] = specials[(np.arange(len(chosen)) + 3 * seed) % len(specials)]
    return flat.reshape(array.shape)


def disagreement(got: np.ndarray, want: np.ndarray, scale: float) -> str | None:
    """Why ``got`` is not ``want`` (module docstring), or None."""
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape or got.dtype != want.dtype:
        return f"{got.dtype}{list(got.shape)} where {want.dtype}{list(want.shape)} is expected"
    if want.dtype.kind != "f":
        wrong = got != want
    else:
        nan_got, nan_want = np.isnan(got), np.isnan(want)
        numbers = ~nan_got & ~nan_want
        infinite = numbers & (np.isinf(got) | np.isinf(want))
        finite = numbers & ~infinite
        error = np.zeros(got.shape)
        error[finite] = np.abs(got[finite].astype(np.float64) - want[finite])
        allowed = 1e-4 * np.maximum(np.abs(want.astype(np.float64)), 1.0) + 1e-6 * scale
        wrong = (nan_got != nan_want) | (infinite & (got != want)) | (error > allowed)
    if not wrong.any():
        return None
    at = np.flatnonzero(wrong)[:4]
    return (
        f"{int(wrong.sum())} of {got.size} differ: got {got.reshape(-1)[at]} where "
        f"{want.reshape(-1)[at]} is expected"
    )


def onnxruntime_outputs(model: onnx.ModelProto, feeds: dict) -> list[np.ndarray]:
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    return session.run(None, feeds)


def expected_outputs(op: str, model: onnx.ModelProto, feeds: dict) -> list[np.ndarray]:
    """The oracle's outputs (module docstring)."""
    outputs = onnxruntime_outputs(model, feeds)
    if op not in ONNX_REFERENCE_OUTPUTS:
        return outputs
    reference = ReferenceEvaluator(model).run(None, feeds)
    chosen = ONNX_REFERENCE_OUTPUTS[op]
    return [reference[i] if chosen is None or i in chosen else out for i, out in enumerate(outputs)]


def compiled(model: onnx.ModelProto, pipeline: str) -> object | None:
    """dnnc's executable of the model, None when dnnc refuses it (an unsupported case)."""
    try:
        return dnnc.compile(model, pipeline)
    except DnncError:
        return None


Usable = tuple[onnx.ModelProto, dict, list[np.ndarray], object]
"""A case's model, laced feeds, expected outputs and default-pipeline executable."""


def usable_cases(op: str) -> list[Usable]:
    """The op's first CASES_PER_OP cases dnnc compiles and ONNX Runtime runs on laced inputs."""
    without_nan = SPECIALS[~np.isnan(SPECIALS)]
    finite = SPECIALS[np.isfinite(SPECIALS)]
    found: list[Usable] = []
    for case in node_cases().get(op, []):
        if len(found) == CASES_PER_OP:
            break
        model = case.model
        initialized = {t.name for t in model.graph.initializer}
        names = [i.name for i in model.graph.input if i.name not in initialized]
        arrays = case.data_sets[0][0]
        if len(names) != len(arrays):
            continue
        chosen = [
            finite
            if i in FINITE_INPUTS.get(op, ())
            else without_nan
            if op in NAN_FREE
            else SPECIALS
            for i in range(len(names))
        ]
        scales = QUANTIZATION_SCALES.get(op, ())
        feeds = {
            n: np.asarray(a) if i in scales else laced(np.asarray(a), i, chosen[i])
            for i, (n, a) in enumerate(zip(names, arrays))
        }
        executable = compiled(model, "dnn-optimize")
        if executable is None:
            continue
        try:
            expected = expected_outputs(op, model, feeds)
        except Exception:  # ONNX Runtime refuses some node tests' models (their opset)
            continue
        found.append((model, feeds, expected, executable))
    return found


def check_all(
    what: str, got: Sequence[np.ndarray], expected: Sequence[np.ndarray], scale: float
) -> None:
    for index, (g, e) in enumerate(zip(got, expected, strict=True)):
        why = disagreement(g, e, scale)
        assert why is None, f"{what}, output {index}: {why}"


def largest_finite(feeds: dict) -> float:
    floats = [a[np.isfinite(a)] for a in feeds.values() if a.dtype == np.float32 and a.size]
    return max((float(np.abs(f).max()) for f in floats if f.size), default=1.0)


@pytest.mark.parametrize("op", sorted(set(node_cases()) & set(CONVERTERS)))
def test_special_values_agree_with_onnxruntime(op: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = usable_cases(op)
    if not cases:
        pytest.skip(f"no {op} node test case that dnnc compiles and ONNX Runtime runs")
    for case in cases:
        check_case(*case)


def check_case(
    model: onnx.ModelProto, feeds: dict, expected: list[np.ndarray], default: object
) -> None:
    """The three ways of the module docstring."""
    scale = largest_finite(feeds)
    exact = dnnc.compile(model, SPECIAL_VALUES_PIPELINE)
    check_all(f"{SPECIAL_VALUES_PIPELINE}", exact.run(feeds), expected, scale)  # type: ignore[attr-defined]
    try:
        outputs = default.run(feeds)  # type: ignore[attr-defined]
    except InputError as error:
        assert SPECIAL_VALUES_PIPELINE in str(error)
    else:
        check_all("dnn-optimize", outputs, expected, scale)
    # inputs whose values the import needs: the function of these values (dnn.value_arg)
    function = with_values(find_function(dnnc.import_onnx(model)), feeds, convert_deferred)
    taken = [feeds[name] for name in input_names(function)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        interpreted = interpret(function, taken)
    check_all("reference interpreter", interpreted, expected, scale)


def test_top_k_refuses_nan() -> None:
    """TopK of NaN: a clear InputError, compiled and interpreted alike (NAN_FREE)."""
    (case, *_) = node_cases()["TopK"]
    names = [i.name for i in case.model.graph.input]
    feeds = dict(zip(names, case.data_sets[0][0], strict=True))
    feeds[names[0]] = feeds[names[0]].copy()
    feeds[names[0]].flat[0] = np.nan
    for pipeline in ("dnn-optimize", SPECIAL_VALUES_PIPELINE):
        with pytest.raises(InputError, match="top_k: NaN values are not supported"):
            dnnc.compile(case.model, pipeline).run(feeds)  # type: ignore[union-attr]


def test_every_supported_op_with_float_inputs_is_covered() -> None:
    """The node tests reach most converters (not those only models with integer or boolean
    inputs reach), so that the test above cannot pass by testing nothing."""
    covered = set(node_cases()) & set(CONVERTERS)
    assert len(covered) >= 60, sorted(covered)
