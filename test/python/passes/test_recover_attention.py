"""dnn-recover-attention (with dnn-expand-attention after it) on attention as PyTorch and
transformers export it: every attention is recovered, the expansion runs on oneDNN (no
reference sdpa step, no repeat of the grouped keys and values), and the results agree with the
unrewritten graph and with ONNX Runtime at several lengths, with causal and padding masks and
grouped heads."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
import torch
import torch.nn.functional as F
from torch import nn

import dnnc
from dnnc.api import load_module
from dnnc.dialects.dnn import SdpaOp
from dnnc.driver.pipelines import parse_pipeline, run_passes
from dnnc.ir.text import make_context
from dnnc_testing import decoders
from dnnc_testing.differential import optimize_without

WITHOUT = optimize_without("dnn-recover-attention", "f32")
HEAD_SIZE = 8


class _Sdpa(nn.Module):
    """F.scaled_dot_product_attention: causal, or with a boolean mask input (torch exports it
    as an additive -inf mask and guards the softmax against rows masked entirely)."""

    def __init__(self, causal: bool) -> None:
        super().__init__()
        self.causal = causal

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, *mask: torch.Tensor):
        attn_mask = mask[0] if mask else None
        return F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask, is_causal=self.causal)


class _Explicit(nn.Module):
    """LLaMA's eager attention: repeat_kv on k and v, MatMul, scale, additive mask, Softmax,
    MatMul."""

    def __init__(self, group: int) -> None:
        super().__init__()
        self.group = group

    def _repeat(self, x: torch.Tensor) -> torch.Tensor:
        b, h, s, d = x.shape
        if self.group == 1:
            return x
        return x[:, :, None].expand(b, h, self.group, s, d).reshape(b, h * self.group, s, d)

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor):
        scores = torch.matmul(q, self._repeat(k).transpose(2, 3)) / math.sqrt(HEAD_SIZE)
        probabilities = torch.softmax(scores + mask, dim=-1)
        return torch.matmul(probabilities, self._repeat(v))


class _WhereMasked(nn.Module):
    """GPT-2's older eager attention: masked scores replaced by the lowest f32 with a where."""

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, keep: torch.Tensor):
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(HEAD_SIZE)
        scores = torch.where(keep, scores, torch.finfo(torch.float32).min)
        return torch.matmul(torch.softmax(scores, dim=-1), v)


def _export(module: nn.Module, inputs: dict[str, np.ndarray], path: Path) -> Path:
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")  # the TorchScript exporter's deprecation notice
        torch.onnx.export(
            module,
            tuple(torch.from_numpy(a) for a in inputs.values()),
            str(path),
            dynamo=False,
            opset_version=17,
            input_names=list(inputs),
        )
    return path


def _recovered(path: Path) -> int:
    """How many dnn.sdpa dnn-recover-attention builds in the imported model."""
    module, _ = load_module(path)
    run_passes(make_context(), module, parse_pipeline("dnn-recover-attention"))
    return sum(isinstance(op, SdpaOp) for op in module.walk())


def _assert_agree(
    path: Path, inputs: dict[str, np.ndarray], expected_sdpa: int, repeats: int = 0
) -> None:
    """`expected_sdpa` attentions recovered, none left on its reference kernel, `repeats`
    repeat_kv copies (expand steps) gone; the outputs agree with and without the rewrite and
    with ONNX Runtime."""
    assert _recovered(path) == expected_sdpa
    recovered, unrewritten = dnnc.compile(path), dnnc.compile(path, WITHOUT)
    kinds = [s.kind for s in recovered.plan.step_infos]
    unrewritten_kinds = [s.kind for s in unrewritten.plan.step_infos]
    assert "sdpa" not in kinds
    assert unrewritten_kinds.count("expand") - kinds.count("expand") == repeats
    oracle = ort.InferenceSession(str(path)).run(None, inputs)[0]
    scale = np.abs(oracle).max()
    for executable in (recovered, unrewritten):
        result = executable.run(inputs)[0]
        np.testing.assert_allclose(result, oracle, rtol=1e-5, atol=1e-5 * scale)


def _qkv(rng: np.random.Generator, heads: int, kv_heads: int, length: int) -> dict[str, np.ndarray]:
    return {
        "q": rng.standard_normal((2, heads, length, HEAD_SIZE)).astype(np.float32),
        "k": rng.standard_normal((2, kv_heads, length, HEAD_SIZE)).astype(np.float32),
        "v": rng.standard_normal((2, kv_heads, length, HEAD_SIZE)).astype(np.float32),
    }


@pytest.mark.parametrize("length", [1, 5, 16])
def test_torch_sdpa_causal(tmp_path: Path, length: int) -> None:
    inputs = _qkv(np.random.default_rng(length), 4, 4, length)
    path = _export(_Sdpa(causal=True), inputs, tmp_path / "sdpa_causal.onnx")
    _assert_agree(path, inputs, 1)


@pytest.mark.parametrize("length", [3, 12])
def test_torch_sdpa_boolean_padding_mask_with_a_row_masked_entirely(
    tmp_path: Path, length: int
) -> None:
    inputs = _qkv(np.random.default_rng(length), 2, 2, length)
    keep = np.ones((2, 1, length, length), bool)
    keep[1, :, :, :2] = False  # the second sequence's first two keys are padding
    keep[0, :, 1, :] = False  # a query that sees nothing: NaN in the softmax, 0 after the guard
    inputs["mask"] = keep
    path = _export(_Sdpa(causal=False), inputs, tmp_path / "sdpa_mask.onnx")
    _assert_agree(path, inputs, 1)


@pytest.mark.parametrize("length", [2, 7])
def test_where_masked_scores(tmp_path: Path, length: int) -> None:
    inputs = _qkv(np.random.default_rng(length), 2, 2, length)
    keep = np.tril(np.ones((length, length), bool))[None, None].repeat(2, axis=0)
    keep[1, ..., 0] = False  # padding, but the diagonal keeps every row one key
    keep[1, 0, 0, 0] = True
    inputs["keep"] = keep
    path = _export(_WhereMasked(), inputs, tmp_path / "where.onnx")
    _assert_agree(path, inputs, 1)


@pytest.mark.parametrize(("heads", "kv_heads"), [(4, 4), (4, 2), (6, 1)])
@pytest.mark.parametrize("length", [4, 11])
def test_explicit_grouped_heads_padding_and_causal_mask(
    tmp_path: Path, heads: int, kv_heads: int, length: int
) -> None:
    inputs = _qkv(np.random.default_rng(heads * length), heads, kv_heads, length)
    mask = np.triu(np.full((length, length), np.finfo(np.float32).min, np.float32), 1)
    mask = np.broadcast_to(mask, (2, 1, length, length)).copy()
    mask[1, ..., 0] = np.finfo(np.float32).min  # padding: the second sequence's first key
    inputs["mask"] = mask
    path = _export(_Explicit(heads // kv_heads), inputs, tmp_path / "explicit.onnx")
    _assert_agree(path, inputs, 1, repeats=0 if heads == kv_heads else 2)


@pytest.mark.parametrize(("heads", "kv_heads"), [(4, 2), (6, 1)])
@pytest.mark.parametrize("keys", [1, 9])
def test_explicit_grouped_single_query_padding_mask(
    tmp_path: Path, heads: int, kv_heads: int, keys: int
) -> None:
    """A decoding step: one query over `keys` keys, a padding mask [B, 1, 1, S] (the query
    heads of a key/value head stacked as rows by the expansion)."""
    rng = np.random.default_rng(keys)
    inputs = {
        "q": rng.standard_normal((2, heads, 1, HEAD_SIZE)).astype(np.float32),
        "k": rng.standard_normal((2, kv_heads, keys, HEAD_SIZE)).astype(np.float32),
        "v": rng.standard_normal((2, kv_heads, keys, HEAD_SIZE)).astype(np.float32),
        "mask": np.zeros((2, 1, 1, keys), np.float32),
    }
    inputs["mask"][1, ..., -1] = np.finfo(np.float32).min if keys > 1 else 0.0
    path = _export(_Explicit(heads // kv_heads), inputs, tmp_path / "step.onnx")
    _assert_agree(path, inputs, 1, repeats=2)


@pytest.mark.parametrize("attention", ["sdpa", "eager"])
@pytest.mark.parametrize("family", decoders.FAMILIES)
def test_transformers_decoder(tmp_path: Path, family: decoders.Family, attention: str) -> None:
    path = decoders.export_logits(
        decoders.decoder(family, attention), tmp_path / f"{family}.onnx", batch=2, length=12
    )
    rng = np.random.default_rng(0)
    mask = np.ones((2, 12), np.int64)
    mask[1, :3] = 0  # left padding, as a batch of prompts of different lengths is fed
    inputs = {"input_ids": rng.integers(0, decoders.VOCABULARY, (2, 12)), "attention_mask": mask}
    grouped = decoders.KV_HEADS[family] < decoders.HEADS
    _assert_agree(path, inputs, decoders.LAYERS, repeats=2 * decoders.LAYERS if grouped else 0)
