"""Token-by-token generation with a decoder exported with its KV cache: ``dnnc.generate``.

The decoder interface is the one transformers' exporters, optimum and ONNX Runtime GenAI
write: inputs ``input_ids`` [B, T], optionally ``attention_mask`` [B, P + T] and
``position_ids`` [B, T], and the cache inputs (names starting with ``past``) [B, H, P, D];
outputs the logits [B, T, V] first, then the cache outputs (names starting with
``present``), in the order of the cache inputs. The first step runs the prompt on an empty
cache (P = 0); every later step runs the tokens just chosen, with the presents of the step
before as its past. Tokens are chosen greedily (``temperature`` 0) or sampled from
softmax(logits / temperature), restricted to the ``top_k`` largest, with a seeded numpy
generator.

Any object with ``inputs``/``outputs`` (``TensorSpec``s, ``?`` sizes -1) and
``run(inputs, as_dict=True)`` generates: dnnc's executables, or another engine wrapped so
(bench/generate.py).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from dnnc.core.diagnostics import InputError, ModelError
from dnnc.runtime.io_binding import TensorSpec


class Decoder(Protocol):
    """What generate runs (module docstring)."""

    @property
    def inputs(self) -> Sequence[TensorSpec]: ...

    @property
    def outputs(self) -> Sequence[TensorSpec]: ...

    def run(
        self, inputs: Mapping[str, object], *, as_dict: bool
    ) -> list[np.ndarray] | dict[str, np.ndarray]: ...


@dataclass
class Generated:
    """The new tokens [B, N], the logits each was chosen from ([B, V] per step) and what
    each step took (the prompt's first)."""

    tokens: np.ndarray
    logits: list[np.ndarray] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)

    @property
    def prefill_seconds(self) -> float:
        """The prompt's step: the first token."""
        return self.seconds[0]

    @property
    def tokens_per_second(self) -> float:
        """New tokens after the first per second of their steps (the steady rate)."""
        steps = self.seconds[1:]
        return len(steps) / sum(steps) if steps else 0.0


@dataclass(frozen=True)
class _Interface:
    """Which inputs and outputs of a decoder are which (module docstring)."""

    past: tuple[TensorSpec, ...]
    present: tuple[str, ...]
    logits: str
    attention_mask: bool
    position_ids: bool

    @staticmethod
    def of(decoder: Decoder) -> _Interface:
        names = {spec.name for spec in decoder.inputs}
        if "input_ids" not in names:
            raise ModelError(
                f"generate: the decoder has no input 'input_ids' (inputs: {sorted(names)})"
            )
        past = tuple(spec for spec in decoder.inputs if spec.name.startswith("past"))
        present = tuple(s.name for s in decoder.outputs if s.name.startswith("present"))
        if not past:
            raise ModelError(
                "generate: the decoder has no cache inputs (past*): each step would see only "
                "its new tokens (export it with its past and present key/values)"
            )
        if len(past) != len(present):
            raise ModelError(
                f"generate: {len(past)} cache inputs (past*) but {len(present)} cache outputs "
                "(present*): a decoder returns its grown cache for every cache input"
            )
        return _Interface(
            past,
            present,
            decoder.outputs[0].name,
            "attention_mask" in names,
            "position_ids" in names,
        )

    def empty_cache(self, batch: int) -> dict[str, np.ndarray]:
        """The cache inputs of the first step: batch ``batch``, every other ``?`` size 0."""
        return {
            spec.name: np.zeros(
                [batch if axis == 0 else max(size, 0) for axis, size in enumerate(spec.shape)],
                spec.dtype,
            )
            for spec in self.past
        }


def _choose(
    logits: np.ndarray, temperature: float, top_k: int | None, rng: np.random.Generator
) -> np.ndarray:
    """One token per row of ``logits`` [B, V] (module docstring)."""
    if temperature == 0:
        return np.argmax(logits, axis=-1)
    scaled = logits.astype(np.float64) / temperature
    if top_k is not None and top_k < scaled.shape[-1]:
        kth = np.partition(scaled, -top_k, axis=-1)[:, -top_k, None]
        scaled = np.where(scaled >= kth, scaled, -np.inf)
    weights = np.exp(scaled - scaled.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    return np.array([rng.choice(len(row), p=row) for row in weights])


def generate(
    decoder: Decoder,
    input_ids: np.ndarray,
    max_new_tokens: int,
    *,
    temperature: float = 0.0,
    top_k: int | None = None,
    seed: int | np.random.Generator | None = None,
) -> Generated:
    """``max_new_tokens`` tokens after the prompt ``input_ids`` [B, T] (module docstring):
    greedy with ``temperature`` 0, else sampled (``top_k`` largest only, if given) from a
    numpy generator seeded with ``seed``."""
    if max_new_tokens < 1 or temperature < 0 or (top_k is not None and top_k < 1):
        raise InputError(
            f"generate: max_new_tokens ({max_new_tokens}) and top_k ({top_k}) must be >= 1 "
            f"and temperature ({temperature}) >= 0"
        )
    ids = np.asarray(input_ids, np.int64)
    if ids.ndim != 2 or ids.shape[1] < 1:
        raise InputError(f"generate: input_ids must be [batch, length >= 1], got {ids.shape}")
    interface = _Interface.of(decoder)
    rng = np.random.default_rng(seed)
    batch, past_length = ids.shape[0], 0
    cache = interface.empty_cache(batch)
    generated = Generated(np.zeros((batch, max_new_tokens), np.int64))
    for step in range(max_new_tokens):
        inputs: dict[str, np.ndarray] = {"input_ids": ids, **cache}
        total = past_length + ids.shape[1]
        if interface.attention_mask:
            inputs["attention_mask"] = np.ones((batch, total), np.int64)
        if interface.position_ids:
            inputs["position_ids"] = np.broadcast_to(np.arange(past_length, total), ids.shape)
        start = time.perf_counter()
        outputs = decoder.run(inputs, as_dict=True)
        assert isinstance(outputs, dict)  # as_dict
        last = np.array(outputs[interface.logits][:, -1])
        chosen = _choose(last, temperature, top_k, rng)
        generated.seconds.append(time.perf_counter() - start)
        generated.logits.append(last)
        generated.tokens[:, step] = chosen
        cache = {spec.name: outputs[n] for spec, n in zip(interface.past, interface.present)}
        past_length, ids = total, chosen[:, None].astype(np.int64)
    return generated


__all__ = ["Decoder", "Generated", "generate"]
