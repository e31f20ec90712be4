"""Real architectures (torchvision with weights=None, Hugging Face transformers from a config
object: nothing is downloaded), exported with torch.onnx.export by both of torch's exporters:
the TorchScript one (``dynamo=False``) at opsets 13 and 17, and the default one (dynamo, its
own opset; what ``torch.onnx.export(model, args, path)`` gives a new user), with the sequence
axis of the text models dynamic. Each is compiled by dnnc and checked against ONNX Runtime
output by output name.

Weights are random but the outputs are made O(1) and checked to be (a relative tolerance on
outputs near 1e-9 would test nothing): BatchNorm statistics come from a batch of the inputs
(train mode with momentum 1), classifiers are re-initialized with unit-scale weights.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
import torch
from conftest import Exported
from torch import nn

import dnnc
from dnnc_testing.torchvision_models import models as torchvision_models
from dnnc_testing.torchvision_models import transformers


@dataclass(frozen=True)
class Architecture:
    name: str
    build: Callable[[], nn.Module]
    inputs: Callable[[int, int], dict[str, np.ndarray]]
    """Example inputs for a batch size and a sequence length (which image and audio models
    ignore), by input name."""
    outputs: tuple[str, ...]
    sequence: bool = False
    """Whether axis 1 of every input is a sequence (dynamic in the dynamo export)."""


def _images(size: int) -> Callable[[int, int], dict[str, np.ndarray]]:
    return lambda batch, length=0: {
        "pixels": np.random.default_rng(batch)
        .standard_normal((batch, 3, size, size))
        .astype(np.float32)
    }


def _calibrated(model: nn.Module, example: dict[str, np.ndarray]) -> nn.Module:
    """BatchNorm statistics of a batch (momentum 1), classifier weights of unit scale."""
    torch.manual_seed(0)
    for module in model.modules():
        if isinstance(module, nn.modules.batchnorm._BatchNorm):
            module.momentum = 1.0
        if isinstance(module, nn.Linear) and module.out_features <= 1000:
            nn.init.normal_(module.weight, std=1.0 / module.in_features**0.5)
    model.train()
    with torch.no_grad():
        model(*(torch.from_numpy(a) for a in example.values()))
    return model.eval()


def _torchvision(name: str, **kwargs: object) -> Callable[[], nn.Module]:
    def build() -> nn.Module:
        torch.manual_seed(0)
        model = getattr(torchvision_models(), name)(weights=None, **kwargs)
        return _calibrated(model, _images(64)(8, 0))

    return build


def _vit() -> nn.Module:
    torch.manual_seed(0)
    model = torchvision_models().vision_transformer.VisionTransformer(
        image_size=32,
        patch_size=8,
        num_layers=2,
        num_heads=2,
        hidden_dim=32,
        mlp_dim=64,
        num_classes=10,
    )
    return _calibrated(model, _images(32)(2, 0))


class _Segmentation(nn.Module):
    """torchvision's LR-ASPP MobileNetV3 (bilinear upsampling: ONNX Resize): the "out" map."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        model = torchvision_models().segmentation.lraspp_mobilenet_v3_large(
            weights=None, weights_backbone=None, num_classes=5
        )
        self.model = _calibrated(model, _images(64)(4, 0))

    def forward(self, pixels: torch.Tensor) -> torch.Tensor:
        return self.model(pixels)["out"]


class _Wav2Vec2(nn.Module):
    """A small wav2vec 2.0 from a config (1-D convolutions, group norm, attention)."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        config = transformers().Wav2Vec2Config(
            hidden_size=32,
            num_hidden_layers=2,
            num_attention_heads=2,
            intermediate_size=64,
            conv_dim=(16, 16, 16),
            conv_stride=(5, 2, 2),
            conv_kernel=(10, 3, 3),
            num_feat_extract_layers=3,
            num_conv_pos_embeddings=16,
            num_conv_pos_embedding_groups=4,
        )
        self.model = transformers().Wav2Vec2Model(config).eval()

    def forward(self, audio: torch.Tensor) -> torch.Tensor:
        return self.model(audio).last_hidden_state


def _audio(batch: int, length: int = 0) -> dict[str, np.ndarray]:
    return {"audio": np.random.default_rng(batch).standard_normal((batch, 1600)).astype(np.float32)}


class _Encoder(nn.Module):
    """A 2-layer transformers model from a config, with its attention mask: last hidden
    state. ``family`` is the name of its classes: ``Bert``, ``Roberta`` (whose position ids
    are a CumSum of the padding mask), ``DistilBert`` (its own names for the sizes) or
    ``Llama`` (a decoder: RMSNorm, rotary positions, SiLU gates, a causal mask, here two
    query heads sharing one key/value head), ``GPT2`` (learned positions from the length, a
    causal mask) or ``T5`` with ``model="EncoderModel"`` (relative position buckets computed
    from the length)."""

    def __init__(self, family: str, model: str = "Model", **sizes: object) -> None:
        super().__init__()
        torch.manual_seed(0)
        config = getattr(transformers(), f"{family}Config")(
            vocab_size=100,
            max_position_embeddings=64,
            attn_implementation="eager",
            **(
                sizes
                or dict(
                    hidden_size=32,
                    num_hidden_layers=2,
                    num_attention_heads=2,
                    intermediate_size=64,
                )
            ),
        )
        self.encoder = getattr(transformers(), f"{family}{model}")(config).eval()

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        return self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state


def _tokens(batch: int, length: int = 16) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(batch)
    mask = np.ones((batch, length), np.int64)
    mask[:, length * 3 // 4 :] = 0  # padding at the end, as a tokenizer writes it
    return {
        "input_ids": rng.integers(0, 100, (batch, length)).astype(np.int64),
        "attention_mask": mask,
    }


_DISTILBERT = dict(dim=32, n_layers=2, n_heads=2, hidden_dim=64)
_LLAMA = dict(
    hidden_size=32,
    num_hidden_layers=2,
    num_attention_heads=2,
    num_key_value_heads=1,
    intermediate_size=64,
    use_cache=False,
)


ARCHITECTURES = [
    Architecture("resnet18", _torchvision("resnet18"), _images(64), ("logits",)),
    Architecture(
        "mobilenet_v3_small", _torchvision("mobilenet_v3_small"), _images(64), ("logits",)
    ),
    Architecture("efficientnet_b0", _torchvision("efficientnet_b0"), _images(64), ("logits",)),
    Architecture("vit", _vit, _images(32), ("logits",)),
    Architecture("bert", lambda: _Encoder("Bert"), _tokens, ("last_hidden_state",), True),
    Architecture("roberta", lambda: _Encoder("Roberta"), _tokens, ("last_hidden_state",), True),
    Architecture(
        "distilbert",
        lambda: _Encoder("DistilBert", **_DISTILBERT),
        _tokens,
        ("last_hidden_state",),
        True,
    ),
    Architecture(
        "llama", lambda: _Encoder("Llama", **_LLAMA), _tokens, ("last_hidden_state",), True
    ),
    Architecture("lraspp_mobilenet_v3", _Segmentation, _images(64), ("out",)),
    Architecture("wav2vec2", _Wav2Vec2, _audio, ("last_hidden_state",)),
]
# torch exports scaled_dot_product_attention (ViT) from opset 14 on: the ViT takes 14 and 17.

DEFAULT_EXPORTER = None
"""The opset of a case exported by torch's default (dynamo) exporter: the one it picks."""


def export(architecture: Architecture, opset: int | None, dynamic: bool) -> Callable[[Path], None]:
    """Write the architecture's ONNX export: with the TorchScript exporter at ``opset``
    (``dynamic``: the batch axis), or with the default one (``opset`` DEFAULT_EXPORTER;
    ``dynamic``: the sequence axis)."""

    def write(path: Path) -> None:
        model = architecture.build()
        example = architecture.inputs(2, 16)
        args = tuple(torch.from_numpy(a) for a in example.values())
        names = {"input_names": list(example), "output_names": list(architecture.outputs)}
        if opset is DEFAULT_EXPORTER:
            sequence = {name: {1: torch.export.Dim("sequence")} for name in example}
            torch.onnx.export(
                model, args, str(path), dynamic_shapes=sequence if dynamic else None, **names
            )
            return
        axes = {name: {0: "batch"} for name in (*example, *architecture.outputs)}
        torch.onnx.export(
            model,
            args,
            str(path),
            opset_version=opset,
            dynamo=False,
            dynamic_axes=axes if dynamic else None,
            **names,
        )

    return write


CASES = [
    pytest.param(
        a,
        opset,
        False,
        id=f"{a.name}-opset{opset}",
        marks=[pytest.mark.slow] if a.name == "efficientnet_b0" else [],
    )
    for a in ARCHITECTURES
    for opset in {
        "vit": (14, 17),
        "lraspp_mobilenet_v3": (17,),
        "wav2vec2": (17,),
        "roberta": (17,),
        "distilbert": (17,),
        "llama": (17,),
    }.get(a.name, (13, 17))
] + [
    pytest.param(a, 17, True, id=f"{a.name}-opset17-dynamic-batch")
    for a in ARCHITECTURES
    if a.name in ("resnet18", "bert")
]
"""BERT with a dynamic batch computes its reshapes from Shape: dnnc.compile gives an
OnnxDynamicExecutable, which imports it with the batch as a symbol (dnnc.driver.onnx_shapes)."""

DEFAULT_EXPORTER_CASES = [
    pytest.param(
        a,
        DEFAULT_EXPORTER,
        a.sequence,
        id=f"{a.name}-dynamo{'-dynamic-sequence' if a.sequence else ''}",
        marks=[pytest.mark.slow] if a.name == "efficientnet_b0" else [],
    )
    for a in ARCHITECTURES
]
"""Every architecture through torch's default exporter, the text models with a dynamic
sequence axis (checked at two lengths)."""


@pytest.mark.parametrize(("architecture", "opset", "dynamic"), CASES + DEFAULT_EXPORTER_CASES)
def test_dnnc_agrees_with_onnx_runtime(
    architecture: Architecture, opset: int | None, dynamic: bool, exported: Exported
) -> None:
    exporter = "dynamo" if opset is DEFAULT_EXPORTER else opset
    key = f"{architecture.name}-{exporter}{'-dynamic' if dynamic else ''}"
    path = exported.get(key, export(architecture, opset, dynamic))
    start = time.perf_counter()
    executable = dnnc.compile(path)
    compile_seconds = time.perf_counter() - start
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    assert [s.name for s in executable.outputs] == [o.name for o in session.get_outputs()]
    worst = 0.0
    if not dynamic:
        sizes = [(2, 16)]
    elif opset is DEFAULT_EXPORTER:
        sizes = [(2, 16), (2, 7)]  # sequence lengths
    else:
        sizes = [(1, 16), (3, 16)]  # batch sizes
    for batch, length in sizes:
        feeds = architecture.inputs(batch, length)
        want = dict(zip(architecture.outputs, session.run(list(architecture.outputs), feeds)))
        got = executable.run(feeds, as_dict=True)
        for name, expected in want.items():
            assert expected.std() > 1e-2, f"{name}: degenerate outputs, the check tests nothing"
            scale = float(np.abs(expected).max())
            np.testing.assert_allclose(got[name], expected, rtol=1e-3, atol=1e-4 * scale)
            worst = max(worst, float(np.abs(got[name] - expected).max()) / scale)
    print(f"{key}: compile {compile_seconds:.2f} s, max |dnnc - ORT| / max |ORT| = {worst:.1e}")


Door = Callable[[Path], object]
"""How a user hands dnnc an ONNX file: an executable of it."""

DOORS: dict[str, Door] = {
    "compile": lambda path: dnnc.compile(path),
    "import_onnx": lambda path: dnnc.compile(dnnc.import_onnx(path)),
}
"""The doors, by name: ``dnnc.import_onnx`` imports these models once with their sizes as
expressions (docs/dialect.md, "Symbolic dimensions")."""

SYMBOLIC_REFUSALS = {
    "t5_encoder": "the symbolic import pins the sequence (its relative position buckets), "
    "which no expression in the IR says: it refuses the model",
}
"""The architectures ``dnnc.import_onnx`` refuses, and why."""

_GPT2 = dict(n_embd=32, n_layer=2, n_head=2, n_inner=64, n_positions=64)
_T5 = dict(d_model=32, d_kv=16, d_ff=64, num_layers=2, num_heads=2)


def _samples(batch: int, length: int) -> dict[str, np.ndarray]:
    """Audio whose length follows ``length`` (the feature encoder strides by 20)."""
    rng = np.random.default_rng(batch * 100 + length)
    return {"audio": rng.standard_normal((batch, 400 + 40 * length)).astype(np.float32)}


DYNAMIC_ARCHITECTURES = [
    Architecture("bert", lambda: _Encoder("Bert"), _tokens, ("last_hidden_state",), True),
    Architecture("roberta", lambda: _Encoder("Roberta"), _tokens, ("last_hidden_state",), True),
    Architecture("gpt2", lambda: _Encoder("GPT2", **_GPT2), _tokens, ("last_hidden_state",), True),
    Architecture("vit", _vit, _images(32), ("logits",)),
    Architecture("wav2vec2", _Wav2Vec2, _samples, ("last_hidden_state",), True),
    Architecture(
        "t5_encoder",
        lambda: _Encoder("T5", "EncoderModel", **_T5),
        _tokens,
        ("last_hidden_state",),
        True,
    ),
    Architecture(
        "llama", lambda: _Encoder("Llama", **_LLAMA), _tokens, ("last_hidden_state",), True
    ),
]
"""Exported with a dynamic batch and, but for the ViT (whose position table fixes its
number of patches), a dynamic sequence: the shape arithmetic of attention, positions and
masks reads both."""

BATCHES_AND_LENGTHS = [(2, 16), (3, 7), (2, 11)]
"""Two traces a model (the template, at the first pair, and its check, at the second; batch 1
would be a third: its broadcasts differ) and one instance."""


def export_batch_and_sequence(architecture: Architecture) -> Callable[[Path], None]:
    """The TorchScript export (opset 17) with axis 0 of every input and output dynamic, and
    axis 1 too for a sequence model."""

    def write(path: Path) -> None:
        model = architecture.build()
        example = architecture.inputs(2, 16)
        axes = {0: "batch", 1: "sequence"} if architecture.sequence else {0: "batch"}
        torch.onnx.export(
            model,
            tuple(torch.from_numpy(a) for a in example.values()),
            str(path),
            opset_version=17,
            dynamo=False,
            input_names=list(example),
            output_names=list(architecture.outputs),
            dynamic_axes={name: axes for name in (*example, *architecture.outputs)},
        )

    return write


@pytest.mark.slow
@pytest.mark.parametrize(
    ("architecture", "door"),
    [
        pytest.param(
            architecture,
            door,
            id=f"{architecture.name}-{name}",
            marks=[pytest.mark.xfail(strict=True, reason=SYMBOLIC_REFUSALS[architecture.name])]
            if name == "import_onnx" and architecture.name in SYMBOLIC_REFUSALS
            else [],
        )
        for architecture in DYNAMIC_ARCHITECTURES
        for name, door in DOORS.items()
    ],
)
def test_one_executable_serves_every_batch_and_length(
    architecture: Architecture, door: Door, exported: Exported
) -> None:
    """One executable runs each (batch, length) pair and agrees with ONNX Runtime."""
    path = exported.get(
        f"{architecture.name}-batch-sequence", export_batch_and_sequence(architecture)
    )
    executable = door(path)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    for batch, length in BATCHES_AND_LENGTHS:
        feeds = architecture.inputs(batch, length)
        want = dict(zip(architecture.outputs, session.run(list(architecture.outputs), feeds)))
        got = executable.run(feeds, as_dict=True)  # type: ignore[attr-defined]
        for name, expected in want.items():
            assert expected.std() > 1e-2, f"{name}: degenerate outputs, the check tests nothing"
            scale = float(np.abs(expected).max())
            np.testing.assert_allclose(
                got[name], expected, rtol=1e-3, atol=1e-4 * scale, err_msg=f"{batch}x{length}"
            )


def test_a_dynamic_batch_cnn_serves_batches_1_to_16_from_one_trace(exported: Exported) -> None:
    """ResNet-18 exported with a dynamic batch: no decision compares the batch with another
    size (a shape against a weight's, min() over a shape, a layout test on unit dims), so
    batches 2 to 16 come from one trace (4 before: guards ``s0 > 2``, ``s0 > 4``, ``s0 > 8``
    from the pixels). Batch 1 may have a trace of its own only where oneDNN answers otherwise
    for one image (kernel_table.Probe.primitive: AVX2 packs some weights for 16 output
    channels at batch 1, 24 above, with no kernel for the other packing). Outputs agree with
    ONNX Runtime at batches 1, 3 and 16."""
    [resnet] = [a for a in ARCHITECTURES if a.name == "resnet18"]
    path = exported.get("resnet18-17-dynamic", export(resnet, 17, True))
    executable = dnnc.compile(path)
    for batch in range(2, 17):
        executable.plan_for(((batch, 3, 64, 64),))  # type: ignore[attr-defined]
    assert executable.stats().traces == 1  # type: ignore[attr-defined]
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    for batch in (1, 3, 16):
        feeds = resnet.inputs(batch, 0)
        [expected] = session.run(["logits"], feeds)
        [got] = executable.run(feeds)  # type: ignore[misc]
        np.testing.assert_allclose(got, expected, rtol=1e-3, atol=1e-4 * np.abs(expected).max())
    assert executable.stats().traces <= 2  # type: ignore[attr-defined]
