"""ONNX models built here, never downloaded: torch modules with seeded random weights exported
with the TorchScript exporter (``dynamo=False``: no onnxscript needed), batch 1.

- ``resnet50``: ResNet-50 v1 (He et al. 2015; the stride of a downsampling bottleneck is on
  its first 1x1 convolution, as in the original and the ONNX model zoo's resnet50-v1; v1.5
  would put it on the 3x3), 1x3x224x224 -> 1x1000.
- ``mobilenet_v2``: MobileNetV2 1.0 (Sandler et al. 2018; ReLU6 exports as Clip), 224x224.
- ``bert_layer``: one BERT-base encoder layer (seq 128, hidden 768, 12 heads, FFN 3072, erf
  GELU, post-LayerNorm), 1x128x768 -> 1x128x768; exported without constant folding, so its
  ``view`` calls stay Constant -> Unsqueeze -> Concat -> Reshape subgraphs the importer folds.
- ``residual_chain``: a small conv / BN / ReLU residual chain with pooling and a classifier,
  exported without constant folding so BatchNormalization nodes stay in the graph.
- ``efficientnet_b0``: torchvision's EfficientNet-B0 (depthwise convolutions, SiLU,
  squeeze-and-excitation), 224x224, ``weights=None``.
- ``vit_b_16``: torchvision's ViT-B/16 (patch convolution, 12 encoder layers of
  ``nn.MultiheadAttention``), 224x224, ``weights=None``; its zero-initialized head is drawn
  at random so the logits are not all zero.

``build(name, directory, opset=...)`` writes ``<directory>/<name>.onnx`` and returns its path.
BatchNorm running statistics are random too, so no normalization is an identity.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import torch
from torch import nn

from dnnc_testing.torchvision_models import models as torchvision_models


def _conv_bn(
    inputs: int, outputs: int, kernel: int, stride: int = 1, groups: int = 1
) -> list[nn.Module]:
    return [
        nn.Conv2d(inputs, outputs, kernel, stride, kernel // 2, groups=groups, bias=False),
        nn.BatchNorm2d(outputs),
    ]


class Bottleneck(nn.Module):
    """ResNet v1 bottleneck: 1x1 (stride) -> 3x3 -> 1x1 (x4), projection shortcut if needed."""

    def __init__(self, inputs: int, width: int, stride: int) -> None:
        super().__init__()
        outputs = width * 4
        self.body = nn.Sequential(
            *_conv_bn(inputs, width, 1, stride),
            nn.ReLU(),
            *_conv_bn(width, width, 3),
            nn.ReLU(),
            *_conv_bn(width, outputs, 1),
        )
        projected = stride != 1 or inputs != outputs
        self.shortcut = (
            nn.Sequential(*_conv_bn(inputs, outputs, 1, stride)) if projected else nn.Identity()
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.body(x) + self.shortcut(x))


def resnet50() -> nn.Module:
    """ResNet-50 v1: stages of 3, 4, 6, 3 bottlenecks."""
    layers: list[nn.Module] = [*_conv_bn(3, 64, 7, 2), nn.ReLU(), nn.MaxPool2d(3, 2, 1)]
    inputs = 64
    for stage, (blocks, width) in enumerate(zip((3, 4, 6, 3), (64, 128, 256, 512))):
        for block in range(blocks):
            stride = 2 if block == 0 and stage > 0 else 1
            layers.append(Bottleneck(inputs, width, stride))
            inputs = width * 4
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(2048, 1000)]
    return nn.Sequential(*layers)


class InvertedResidual(nn.Module):
    """MobileNetV2 block: 1x1 expand -> 3x3 depthwise -> 1x1 linear project (+ x if same shape)."""

    def __init__(self, inputs: int, outputs: int, stride: int, expand: int) -> None:
        super().__init__()
        hidden = inputs * expand
        layers: list[nn.Module] = []
        if expand != 1:
            layers += [*_conv_bn(inputs, hidden, 1), nn.ReLU6()]
        layers += [*_conv_bn(hidden, hidden, 3, stride, groups=hidden), nn.ReLU6()]
        layers += _conv_bn(hidden, outputs, 1)
        self.body = nn.Sequential(*layers)
        self.residual = stride == 1 and inputs == outputs

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.body(x) if self.residual else self.body(x)


def mobilenet_v2() -> nn.Module:
    """MobileNetV2 1.0 (t, c, n, s table of the paper)."""
    layers: list[nn.Module] = [*_conv_bn(3, 32, 3, 2), nn.ReLU6()]
    inputs = 32
    for expand, outputs, repeats, stride in (
        (1, 16, 1, 1),
        (6, 24, 2, 2),
        (6, 32, 3, 2),
        (6, 64, 4, 2),
        (6, 96, 3, 1),
        (6, 160, 3, 2),
        (6, 320, 1, 1),
    ):
        for index in range(repeats):
            layers.append(InvertedResidual(inputs, outputs, stride if index == 0 else 1, expand))
            inputs = outputs
    layers += [
        *_conv_bn(inputs, 1280, 1),
        nn.ReLU6(),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Dropout(0.2),
        nn.Linear(1280, 1000),
    ]
    return nn.Sequential(*layers)


class BertLayer(nn.Module):
    """One BERT encoder layer: self-attention + residual + LayerNorm, FFN + residual + LayerNorm."""

    def __init__(self, hidden: int = 768, heads: int = 12, ffn: int = 3072) -> None:
        super().__init__()
        self.heads = heads
        self.query, self.key, self.value = (nn.Linear(hidden, hidden) for _ in range(3))
        self.attention_out = nn.Linear(hidden, hidden)
        self.attention_norm = nn.LayerNorm(hidden, eps=1e-12)
        self.intermediate = nn.Linear(hidden, ffn)
        self.output = nn.Linear(ffn, hidden)
        self.output_norm = nn.LayerNorm(hidden, eps=1e-12)

    def _split(self, x: torch.Tensor) -> torch.Tensor:
        batch, seq, hidden = x.size()
        return x.view(batch, seq, self.heads, hidden // self.heads).permute(0, 2, 1, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = self._split(self.query(x)), self._split(self.key(x)), self._split(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(q.size(-1))
        context = torch.matmul(torch.softmax(scores, dim=-1), v).permute(0, 2, 1, 3)
        context = context.reshape(x.size())
        x = self.attention_norm(x + self.attention_out(context))
        return self.output_norm(x + self.output(nn.functional.gelu(self.intermediate(x))))


def residual_chain() -> nn.Module:
    """conv-BN-ReLU stem, two residual 3x3 blocks, max pool, global average pool, classifier."""

    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.body = nn.Sequential(*_conv_bn(16, 16, 3), nn.ReLU(), *_conv_bn(16, 16, 3))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.relu(x + self.body(x))

    return nn.Sequential(
        *_conv_bn(3, 16, 3),
        nn.ReLU(),
        Block(),
        nn.MaxPool2d(2),
        Block(),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(16, 10),
    )


def efficientnet_b0() -> nn.Module:
    return torchvision_models().efficientnet_b0(weights=None)


def vit_b_16() -> nn.Module:
    model = torchvision_models().vit_b_16(weights=None)
    nn.init.normal_(model.heads.head.weight, std=768**-0.5)
    return model


@dataclass(frozen=True)
class ModelSpec:
    """How to make a model and its one input."""

    make: Callable[[], nn.Module]
    input_shape: tuple[int, ...]
    fold_constants: bool = True
    """torch's export-time constant folding (it also folds BatchNorm into Conv)."""


MODELS: dict[str, ModelSpec] = {
    "resnet50": ModelSpec(resnet50, (1, 3, 224, 224)),
    "mobilenet_v2": ModelSpec(mobilenet_v2, (1, 3, 224, 224)),
    "bert_layer": ModelSpec(BertLayer, (1, 128, 768), fold_constants=False),
    "residual_chain": ModelSpec(residual_chain, (1, 3, 32, 32), fold_constants=False),
    "efficientnet_b0": ModelSpec(efficientnet_b0, (1, 3, 224, 224)),
    "vit_b_16": ModelSpec(vit_b_16, (1, 3, 224, 224)),
}
"""Every model by name."""

INPUT_NAME = "input"


def _randomize_statistics(module: nn.Module, generator: torch.Generator) -> None:
    """Random BatchNorm running mean / variance and affine parameters."""
    for layer in module.modules():
        if isinstance(layer, nn.BatchNorm2d):
            channels = layer.num_features
            assert layer.running_mean is not None and layer.running_var is not None  # tracked
            layer.running_mean.copy_(torch.randn(channels, generator=generator) * 0.1)
            layer.running_var.copy_(torch.rand(channels, generator=generator) + 0.5)
            layer.weight.data.copy_(torch.rand(channels, generator=generator) + 0.5)
            layer.bias.data.copy_(torch.randn(channels, generator=generator) * 0.1)


def torch_model(name: str, seed: int = 0) -> nn.Module:
    """The model ``name`` in eval mode with weights from ``seed``."""
    torch.manual_seed(seed)
    module = MODELS[name].make().eval()
    _randomize_statistics(module, torch.Generator().manual_seed(seed))
    return module


def build(name: str, directory: str | Path, *, opset: int = 17, seed: int = 0) -> Path:
    """Export model ``name`` to ``<directory>/<name>.onnx`` (input named ``input``)."""
    spec = MODELS[name]
    path = Path(directory) / f"{name}.onnx"
    example = torch.randn(spec.input_shape, generator=torch.Generator().manual_seed(seed))
    torch.backends.mha.set_fastpath_enabled(False)  # its fused kernel has no ONNX export
    with torch.no_grad():
        torch.onnx.export(
            torch_model(name, seed),
            (example,),
            str(path),
            dynamo=False,
            opset_version=opset,
            input_names=[INPUT_NAME],
            output_names=["output"],
            do_constant_folding=spec.fold_constants,
        )
    return path


def export(module: nn.Module, shape: tuple[int, ...], path: Path) -> Path:
    """`module` in eval mode exported to `path` (TorchScript exporter, quietly) on a random
    input of `shape` named ``x``, as the pass tests build their small graphs."""
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")  # the TorchScript exporter's deprecation notice
        torch.onnx.export(
            module.eval(), (torch.randn(shape),), str(path), dynamo=False, input_names=["x"]
        )
    return path


def build_all(
    names: Iterable[str], directory: str | Path
) -> Iterator[tuple[str, Path, tuple[int, ...]]]:
    """(name, ONNX path, input shape) of each model, exported quietly into ``directory``."""
    for name in names:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            path = build(name, directory)
        yield name, path, MODELS[name].input_shape


def export_bert_base(path: Path, layers: int = 12) -> None:
    """BERT-base (BertConfig's defaults; ``layers`` encoder layers), random weights, exported
    to ``path`` with dynamic batch and sequence axes (inputs ``input_ids`` and ``mask``, output
    ``hidden``): bench/dynamic.py's, bench/doors.py's and bench/new_shape.py's encoder."""
    import torch

    from dnnc_testing.torchvision_models import transformers

    torch.manual_seed(0)
    config = transformers().BertConfig(attn_implementation="eager", num_hidden_layers=layers)
    encoder = transformers().BertModel(config).eval()

    class Encoder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.encoder = encoder  # a submodule: the exporter takes its weights as such

        def forward(self, input_ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
            return self.encoder(input_ids=input_ids, attention_mask=mask).last_hidden_state

    axes = {"input_ids": {0: "batch", 1: "seq"}, "mask": {0: "batch", 1: "seq"}}
    example = (torch.ones(1, 16, dtype=torch.int64), torch.ones(1, 16, dtype=torch.int64))
    torch.onnx.export(
        Encoder(),
        example,
        str(path),
        opset_version=17,
        dynamo=False,
        input_names=["input_ids", "mask"],
        output_names=["hidden"],
        dynamic_axes={**axes, "hidden": {0: "batch", 1: "seq"}},
    )
