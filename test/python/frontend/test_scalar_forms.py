"""Every one-element constant in every legal form, as a property of the whole ONNX frontend.

Each node test case the backend suite runs (test_onnx_backend.node_test_cases) is rewritten so
that its one-element values take each form: every one-element graph input, initializer and
``Constant`` value becomes an initializer (the converters read an operand as a scalar only
when it is known at import) of shape ``[]``, then of shape ``[1]``; and every
one-element graph input stays an input of the other shape (a run-time bound or exponent).
dnnc's results on the rewritten model are compared with ONNX Runtime's on the same model.
The suite's models (dnnc_testing.model_zoo) and torchvision's MobileNetV2 are rewritten the
same way.

A form is legal when ONNX's strict shape inference (dnnc runs it) and ONNX Runtime take the
rewritten model; a form they refuse (Range wants 0-d bounds, a Resize scale list is 1-D) is
skipped, and tried one value at a time when several were rewritten together. On every legal
form dnnc must agree; on an illegal one it may run or raise a DnncError, never anything
else. A case none of whose forms is legal, or that ONNX Runtime does not run at all (a newer
IR version), is skipped with the reason.
"""

from __future__ import annotations

import re
import warnings
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch
from onnx import helper, numpy_helper
from onnx.backend.test.case.test_case import TestCase
from onnx.backend.test.runner import Runner
from onnx_helpers import model
from test_onnx_backend import node_test_cases

import dnnc
from dnnc.core.diagnostics import DnncError, ModelError
from dnnc.frontend.onnx import import_onnx
from dnnc_testing.model_zoo import MODELS, build
from dnnc_testing.torchvision_models import models as torchvision_models

FORMS: dict[str, tuple[int, ...]] = {"0-d": (), "[1]": (1,)}
"""The legal shapes of a one-element tensor (older opsets' attributes were upgraded to these)."""


@dataclass(frozen=True)
class Subject:
    """A model to rewrite, the feeds of its graph inputs, and its tolerances."""

    name: str
    model: onnx.ModelProto
    feeds: dict[str, np.ndarray]
    rtol: float
    atol: float
    only: frozenset[str] | None = None
    """The one-element values to rewrite (None: all of them)."""


@dataclass(frozen=True)
class Variant:
    """A model with the one-element values ``names`` reshaped to ``shape`` (kept as graph
    inputs when ``as_input``, else all constants), and the feeds of its graph inputs."""

    names: tuple[str, ...]
    shape: tuple[int, ...]
    as_input: bool
    model: onnx.ModelProto
    feeds: list[np.ndarray]

    def __str__(self) -> str:
        if not self.names:
            return "the model as it is"
        kind = "inputs" if self.as_input else "constants"
        return f"{', '.join(self.names)} as {kind} of shape {list(self.shape)}"


def _constant_value(node: onnx.NodeProto) -> np.ndarray | None:
    """A Constant node's value (None for strings and sparse tensors)."""
    (attribute,) = node.attribute
    value = helper.get_attribute_value(attribute)
    if isinstance(value, onnx.TensorProto):
        return numpy_helper.to_array(value)
    if attribute.name in ("value_float", "value_floats"):
        return np.asarray(value, np.float32)
    if attribute.name in ("value_int", "value_ints"):
        return np.asarray(value, np.int64)
    return None


def one_element_values(subject: Subject) -> dict[str, np.ndarray]:
    """The one-element graph inputs (their feeds), initializers and Constant values."""
    graph = subject.model.graph
    candidates = [
        *subject.feeds.items(),
        *((tensor.name, numpy_helper.to_array(tensor)) for tensor in graph.initializer),
        *((n.output[0], _constant_value(n)) for n in graph.node if n.op_type == "Constant"),
    ]
    return {
        name: array
        for name, array in candidates
        if isinstance(array, np.ndarray) and array.dtype != object and array.size == 1
    }


def rewrite(
    subject: Subject, names: Sequence[str], shape: tuple[int, ...], as_input: bool
) -> Variant:
    """The subject's model with its one-element values ``names`` reshaped (Variant)."""
    values = {name: array.reshape(shape) for name, array in one_element_values(subject).items()}
    model = onnx.ModelProto()
    model.CopyFrom(subject.model)
    graph = model.graph
    feeds = dict(subject.feeds)
    kept = []
    for info in graph.input:
        if info.name not in names:
            kept.append(info)
        elif as_input:
            feeds[info.name] = values[info.name]
            element = info.type.tensor_type.elem_type
            kept.append(helper.make_tensor_value_info(info.name, element, shape))
        else:
            graph.initializer.append(numpy_helper.from_array(values[info.name], info.name))
            del feeds[info.name]
    del graph.input[:]
    graph.input.extend(kept)
    for tensor in graph.initializer:
        if tensor.name in names:
            tensor.CopyFrom(numpy_helper.from_array(values[tensor.name], tensor.name))
    constants = [n for n in graph.node if n.op_type == "Constant" and n.output[0] in names]
    for node in constants:
        graph.node.remove(node)
        graph.initializer.append(numpy_helper.from_array(values[node.output[0]], node.output[0]))
    # the outputs' shapes may change with the form (a Gather of a [1] index)
    for output in graph.output:
        output.type.tensor_type.ClearField("shape")
    del graph.value_info[:]
    return Variant(tuple(names), shape, as_input, model, [feeds[i.name] for i in kept])


def run_onnxruntime(variant: Variant) -> list[np.ndarray] | str:
    """ONNX Runtime's results, or why the rewritten model is not legal ONNX."""
    try:
        onnx.shape_inference.infer_shapes(variant.model, check_type=True, strict_mode=True)
        session = ort.InferenceSession(
            variant.model.SerializeToString(), providers=["CPUExecutionProvider"]
        )
        names = [i.name for i in session.get_inputs()]
        return session.run(None, dict(zip(names, variant.feeds, strict=True)))
    except Exception as error:  # shape inference and ONNX Runtime raise many types
        return f"{variant}: {str(error).strip().splitlines()[0]}"


def variants(subject: Subject) -> list[Variant]:
    """Every form of every one-element value (module docstring)."""
    values = {
        name: array
        for name, array in one_element_values(subject).items()
        if subject.only is None or name in subject.only
    }
    made = []
    for shape in FORMS.values():
        made.append(rewrite(subject, list(values), shape, as_input=False))
        reshaped = [n for n in values if n in subject.feeds and values[n].shape != shape]
        if reshaped:
            made.append(rewrite(subject, reshaped, shape, as_input=True))
    return made


def legal_variants(
    subject: Subject,
) -> tuple[list[tuple[Variant, list[np.ndarray]]], list[tuple[Variant, str]]]:
    """The legal variants with ONNX Runtime's results, and the others with why they are not
    legal (a refused variant of several values is tried again one value at a time)."""
    legal, refused = [], []
    pending = variants(subject)
    while pending:
        variant = pending.pop(0)
        result = run_onnxruntime(variant)
        if isinstance(result, str):
            refused.append((variant, result))
            if len(variant.names) > 1:
                pending.extend(
                    rewrite(subject, [name], variant.shape, variant.as_input)
                    for name in variant.names
                )
        else:
            legal.append((variant, result))
    return legal, refused


def check_forms(subject: Subject) -> list[Variant]:
    """Assert that dnnc agrees with ONNX Runtime on every legal variant, and refuses an
    illegal one with a DnncError if at all (never another exception); return the legal."""
    original = run_onnxruntime(rewrite(subject, [], (), as_input=False))
    if isinstance(original, str):
        pytest.skip(f"ONNX Runtime does not run the case itself: {original}")
    legal, refused = legal_variants(subject)
    for variant, _ in refused:
        try:
            dnnc.compile(variant.model).run(variant.feeds)
        except DnncError:
            pass  # named as a user error, as ONNX Runtime refused it
    if not legal:
        pytest.skip("no form is legal ONNX: " + "; ".join(reason for _, reason in refused))
    for variant, expected in legal:
        got = dnnc.compile(variant.model).run(variant.feeds)
        assert isinstance(got, list)
        try:
            Runner.assert_similar_outputs(expected, got, subject.rtol, subject.atol)
        except AssertionError as error:
            raise AssertionError(f"{subject.name} with {variant}: {error}") from error
    return [variant for variant, _ in legal]


def _node_subject(case: TestCase) -> Subject:
    assert case.model is not None and case.data_sets is not None  # generated in memory
    inputs, _ = case.data_sets[0]
    feeds = {
        info.name: np.asarray(value)  # a 0-d input comes as a numpy scalar
        for info, value in zip(case.model.graph.input, inputs)
        if isinstance(value, np.ndarray | np.generic)  # not an excluded case's sequence
    }
    return Subject(case.name, case.model, feeds, case.rtol, case.atol)


NODE_SUBJECTS = [
    subject
    for subject in (_node_subject(case) for case in node_test_cases())
    if one_element_values(subject)
]


@pytest.mark.parametrize("subject", NODE_SUBJECTS, ids=[s.name for s in NODE_SUBJECTS])
def test_node_case_forms_agree_with_onnxruntime(subject: Subject) -> None:
    check_forms(subject)


def _image(shape: tuple[int, ...]) -> np.ndarray:
    return np.random.default_rng(0).standard_normal(shape).astype(np.float32)


def _model_subject(name: str, path: Path, shape: tuple[int, ...], rtol: float) -> Subject:
    """A suite model on a random image, atol relative to the largest output (random weights
    make outputs of any scale; accumulation order differs between oneDNN and ONNX Runtime)."""
    proto = onnx.load(path)
    feeds = {proto.graph.input[0].name: _image(shape)}
    subject = Subject(name, proto, feeds, rtol, 0.0)
    expected = run_onnxruntime(rewrite(subject, [], (), as_input=False))
    assert not isinstance(expected, str), expected
    return replace(subject, atol=1e-5 * max(float(np.abs(e).max()) for e in expected))


def _op_counts(model: onnx.ModelProto) -> Counter[str]:
    module = import_onnx(model)
    return Counter(op.name for op in module.walk())


def check_model_forms(subject: Subject, scalars: set[str]) -> None:
    """check_forms, and: each of the constants ``scalars`` took each form in a legal variant,
    and dnnc imports every constant form into the ops of the model as it is (no form loses a
    fusion such as the erf GELU)."""
    assert scalars and scalars <= set(one_element_values(subject))
    constant = [v for v in check_forms(replace(subject, only=frozenset(scalars))) if not v.as_input]
    for shape in FORMS.values():
        covered = {name for v in constant if v.shape == shape for name in v.names}
        assert scalars <= covered, f"{scalars - covered} never legal as shape {list(shape)}"
    original = _op_counts(subject.model)
    for variant in constant:
        assert _op_counts(variant.model) == original, f"{variant} imports to other ops"


SUITE_MODELS = {
    "mobilenet_v2": 17,
    "bert_layer": 17,
    "bert_layer@14": 14,  # LayerNormalization written out, recovered from its constants
}
"""The suite models (dnnc_testing.model_zoo) with one-element constants, with their opsets.
ResNet-50, EfficientNet-B0 and the residual chain export none; ViT-B/16 (the erf-GELU and
attention-scale constants of the BERT layer, 12 times) is left out for time: 15 s to export."""


@pytest.mark.slow
@pytest.mark.parametrize("key", list(SUITE_MODELS))
def test_suite_model_forms_agree_with_onnxruntime(key: str, tmp_path: Path) -> None:
    name = key.split("@")[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the TorchScript exporter's deprecation notice
        path = build(name, tmp_path, opset=SUITE_MODELS[key])
    subject = _model_subject(key, path, MODELS[name].input_shape, rtol=1e-4)
    # the float ones (bounds, exponents, epsilons, scales) are legal in both forms; the
    # integer ones are shape plumbing (Gather indices, Unsqueeze axes), which the node cases
    # above rewrite: left alone here, as each would be tried alone (ONNX wants one form)
    values = one_element_values(subject).items()
    check_model_forms(subject, {name for name, array in values if array.dtype.kind == "f"})


@pytest.mark.slow
def test_torchvision_mobilenet_v2_with_clip_bounds_of_shape_1(tmp_path: Path) -> None:
    """torchvision's MobileNetV2 (ReLU6: Clip with constant bounds) with every Clip bound a
    shape-[1] initializer, as several converters write them, imports, compiles and agrees
    with ONNX Runtime (it stopped with a TypeError in convert_clip)."""
    torch.manual_seed(0)
    network = torchvision_models().mobilenet_v2(weights=None).eval()
    shape = (1, 3, 64, 64)
    path = tmp_path / "mobilenet_v2.onnx"
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(network, (torch.randn(shape),), str(path), dynamo=False)
    subject = _model_subject("torchvision mobilenet_v2", path, shape, rtol=1e-4)
    bounds = {
        name
        for node in subject.model.graph.node
        if node.op_type == "Clip"
        for name in node.input[1:]
    }
    assert len(bounds) >= 2  # ReLU6's 0 and 6
    check_model_forms(subject, bounds)
    variant = rewrite(subject, sorted(bounds), (1,), as_input=False)
    shapes = [list(t.dims) for t in variant.model.graph.initializer if t.name in bounds]
    assert shapes == [[1]] * len(bounds)


TWO_ELEMENTS = {
    "Clip": (1, "min", np.array([0.0, 1.0], np.float32)),
    "Pad": (2, "constant_value", np.array([0.0, 1.0], np.float32)),
    "CumSum": (1, "the axis", np.array([0, 1], np.int64)),
}
"""An op reading an operand as a scalar -> (the operand, its name, a value of two elements).
(TopK's K of two elements is refused by ONNX shape inference before any converter runs.)"""


@pytest.mark.parametrize("op_type", list(TWO_ELEMENTS))
def test_a_scalar_operand_of_two_elements_is_a_model_error_naming_the_node(op_type: str) -> None:
    index, what, value = TWO_ELEMENTS[op_type]
    x = _image((2, 3))
    operands = {"Pad": ["x", "pads", "value"]}.get(op_type, ["x", "value"])
    initializers = {"value": value, "pads": np.array([0, 1, 0, 1], np.int64)}
    node = helper.make_node(op_type, operands, ["y"], name="the_node")
    made = model([node], {"x": x}, initializers=initializers)
    message = (
        f"ONNX {op_type} (node 'the_node', opset 17): input {index} ({what}) must hold one "
        "element (a 0-d or a [1] tensor), got shape [2]"
    )
    with pytest.raises(ModelError, match=re.escape(message)):
        dnnc.compile(made)


def test_clip_bounds_as_attributes_of_opset_6() -> None:
    """Before opset 11 Clip's bounds are attributes: the upgraded model reads them as 0-d
    inputs."""
    x = _image((2, 3)) * 4
    node = helper.make_node("Clip", ["x"], ["y"], min=-1.0, max=2.5)
    made = model([node], {"x": x}, opset=6)
    (got,) = dnnc.compile(made).run([x])
    (expected,) = run_onnxruntime(Variant((), (), False, made, [x]))
    np.testing.assert_array_equal(got, expected)
    assert got.min() == -1.0 and got.max() == 2.5


def _folded_model(op_type: str, shape: tuple[int, ...]) -> onnx.ModelProto:
    """x + ConstantOfShape([2, 3]) with a value attribute of ``shape``, or x + Range(0, 3, 1)
    with bounds of ``shape``: nodes of constants that fold at import."""
    if op_type == "ConstantOfShape":
        value = numpy_helper.from_array(np.full(shape, 2.5, np.float32))
        made = helper.make_node("ConstantOfShape", ["shape"], ["c"], value=value)
        initializers = {"shape": np.array([2, 3], np.int64)}
    else:
        made = helper.make_node("Range", ["start", "limit", "delta"], ["c"])
        bounds = {"start": 0.0, "limit": 3.0, "delta": 1.0}
        initializers = {k: np.full(shape, v, np.float32) for k, v in bounds.items()}
    add = helper.make_node("Add", ["x", "c"], ["y"])
    return model([made, add], {"x": _image((2, 3))}, initializers=initializers)


@pytest.mark.parametrize("form", list(FORMS))
@pytest.mark.parametrize("op_type", ["ConstantOfShape", "Range"])
def test_folded_one_element_operands_follow_onnx(op_type: str, form: str) -> None:
    """ConstantOfShape's value (a [1] tensor) and Range's bounds (0-d) in both forms: the
    legal one folds and agrees with ONNX Runtime, the other is the ModelError of ONNX's
    shape inference, as ONNX Runtime refuses it."""
    made = _folded_model(op_type, FORMS[form])
    x = _image((2, 3))
    expected = run_onnxruntime(Variant((), (), False, made, [x]))
    legal = FORMS[form] == ((1,) if op_type == "ConstantOfShape" else ())
    assert isinstance(expected, str) != legal, expected
    if not legal:
        with pytest.raises(ModelError, match="ONNX shape inference failed"):
            dnnc.compile(made)
        return
    (got,) = dnnc.compile(made).run([x])
    np.testing.assert_allclose(got, expected[0], rtol=1e-6)
