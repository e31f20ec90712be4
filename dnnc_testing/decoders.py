"""Tiny transformers decoders (GPT-2- and LLaMA-style, random weights from a config object)
exported to ONNX as generation runs them (dnnc_testing.engines.decoder_engine runs them in
ONNX Runtime and OpenVINO behind the decoder interface of ``dnnc.generate``).

``export_decoder`` writes the KV-cache interface the ONNX Runtime GenAI / optimum exports use:
inputs ``input_ids`` [B, T], ``attention_mask`` [B, P + T], ``position_ids`` [B, T] (unless
asked not to) and ``past_key_<i>`` /
``past_value_<i>`` [B, Hkv, P, D] per layer; outputs ``logits`` [B, T, V] and
``present_key_<i>`` / ``present_value_<i>`` [B, Hkv, P + T, D]; batch, sequence and past
length are dynamic axes. ``export_logits`` writes the cache-free form at one fixed shape.
Both use the TorchScript exporter (``dynamo=False``).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import torch
from torch import nn

from dnnc_testing.torchvision_models import transformers

Family = Literal["gpt2", "llama"]
FAMILIES: tuple[Family, ...] = ("gpt2", "llama")


@dataclass(frozen=True)
class Size:
    """A decoder's dimensions; ``kv_heads`` is LLaMA's (GPT-2 has as many as ``heads``)."""

    vocabulary: int = 128
    layers: int = 2
    hidden: int = 64
    heads: int = 4
    kv_heads: int = 2
    positions: int = 256


TINY = Size()
"""The tests' decoders: LLaMA's key/value heads are grouped (2 for 4 query heads: repeat_kv
in the graph)."""
BENCH = Size(vocabulary=8000, layers=4, hidden=512, heads=8, kv_heads=4, positions=1024)
"""bench/generate.py's: a realistic small decoder (issue 30's)."""
VOCABULARY = TINY.vocabulary
LAYERS = TINY.layers
HIDDEN = TINY.hidden
HEADS = TINY.heads
KV_HEADS = {"gpt2": TINY.heads, "llama": TINY.kv_heads}


def decoder(
    family: Family, attention: Literal["sdpa", "eager"] = "sdpa", seed: int = 0, size: Size = TINY
) -> nn.Module:
    """A causal LM of `family` and `size` (2 layers, hidden 64 by default) with seeded random
    weights (initializer range 0.2, ten times the default: greedy tokens then vary from step
    to step), in eval mode. ``attention`` is transformers' implementation: ``sdpa`` exports
    through torch's scaled_dot_product_attention, ``eager`` as explicit MatMul/Softmax."""
    torch.manual_seed(seed)
    library = transformers()
    if family == "gpt2":
        config = library.GPT2Config(
            vocab_size=size.vocabulary,
            n_positions=size.positions,
            n_embd=size.hidden,
            n_layer=size.layers,
            n_head=size.heads,
            initializer_range=0.2,
            bos_token_id=0,
            eos_token_id=0,
            attn_implementation=attention,
        )
        return library.GPT2LMHeadModel(config).eval()
    config = library.LlamaConfig(
        vocab_size=size.vocabulary,
        hidden_size=size.hidden,
        intermediate_size=2 * size.hidden,
        num_hidden_layers=size.layers,
        num_attention_heads=size.heads,
        num_key_value_heads=size.kv_heads,
        initializer_range=0.2,
        max_position_embeddings=size.positions,
        bos_token_id=0,
        eos_token_id=0,
        attn_implementation=attention,
    )
    return library.LlamaForCausalLM(config).eval()


class _Logits(nn.Module):
    """input_ids, attention_mask -> logits, without a cache."""

    def __init__(self, model: nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        return self.model(
            input_ids=input_ids, attention_mask=attention_mask, use_cache=False
        ).logits


class _WithCache(nn.Module):
    """input_ids, attention_mask, [position_ids,] past_key_0, past_value_0, ... -> logits,
    present_key_0, present_value_0, ... (the cache as flat tensors)."""

    def __init__(self, model: nn.Module, position_ids: bool) -> None:
        super().__init__()
        self.model = model
        self.position_ids = position_ids

    def forward(
        self, input_ids: torch.Tensor, attention_mask: torch.Tensor, *rest: torch.Tensor
    ) -> tuple[torch.Tensor, ...]:
        positions, past = (rest[0], rest[1:]) if self.position_ids else (None, rest)
        pairs = [(past[2 * i], past[2 * i + 1]) for i in range(len(past) // 2)]
        cache = transformers().DynamicCache(pairs, config=self.model.config)
        out = self.model(
            input_ids=input_ids,
            attention_mask=attention_mask,
            position_ids=positions,
            past_key_values=cache,
            use_cache=True,
        )
        presents = out.past_key_values
        flat = [t for layer in presents.layers for t in (layer.keys, layer.values)]
        return (out.logits, *flat)


def cache_names(kind: Literal["past", "present"], layers: int = LAYERS) -> list[str]:
    """``<kind>_key_0, <kind>_value_0, ...`` in layer order."""
    return [f"{kind}_{part}_{i}" for i in range(layers) for part in ("key", "value")]


def empty_cache(family: Family, batch: int = 1) -> dict[str, np.ndarray]:
    """The past tensors of an empty cache (past length 0) of a TINY decoder."""
    shape = (batch, KV_HEADS[family], 0, HIDDEN // HEADS)
    return {name: np.zeros(shape, np.float32) for name in cache_names("past")}


def export_logits(model: nn.Module, path: Path, batch: int, length: int) -> Path:
    """``model`` without a cache at input_ids [batch, length] (fixed shape) -> logits."""
    ids = torch.zeros((batch, length), dtype=torch.int64)
    mask = torch.ones((batch, length), dtype=torch.int64)
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")  # the TorchScript exporter's deprecation notice
        torch.onnx.export(
            _Logits(model),
            (ids, mask),
            str(path),
            dynamo=False,
            opset_version=17,
            input_names=["input_ids", "attention_mask"],
            output_names=["logits"],
        )
    return path


def export_decoder(
    model: nn.Module, family: Family, path: Path, *, position_ids: bool = True
) -> Path:
    """``model`` with its KV cache as inputs and outputs (module docstring), dynamic axes;
    without the input ``position_ids`` when not ``position_ids`` (the model then counts
    positions from the past's length)."""
    config: Any = model.config  # a transformers PretrainedConfig
    layers, heads = config.num_hidden_layers, config.num_attention_heads
    kv_heads = heads if family == "gpt2" else config.num_key_value_heads
    past, present = cache_names("past", layers), cache_names("present", layers)
    # traced with a past of 1 and 2 new tokens so that no length is 0 or 1 in the trace
    traced = [torch.zeros((1, kv_heads, 1, config.hidden_size // heads)) for _ in past]
    ids = torch.zeros((1, 2), dtype=torch.int64)
    mask = torch.tensor([[0, 1, 1]])  # a hole in the past: the padding mask is traced too
    names = ["input_ids", "attention_mask"]
    given = [ids, mask]
    axes = {"input_ids": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "total"}}
    if position_ids:
        names.append("position_ids")
        given.append(torch.tensor([[1, 2]]))
        axes["position_ids"] = {0: "batch", 1: "sequence"}
    axes |= {name: {0: "batch", 2: "past"} for name in past}
    axes |= {name: {0: "batch", 2: "total"} for name in present}
    axes["logits"] = {0: "batch", 1: "sequence"}
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")  # the exporter's deprecation and tracer warnings
        torch.onnx.export(
            _WithCache(model, position_ids),
            (*given, *traced),
            str(path),
            dynamo=False,
            opset_version=17,
            input_names=[*names, *past],
            output_names=["logits", *present],
            dynamic_axes=axes,
        )
    return path
