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

Two ways to carry the cache from step to step:
* *plain*: each step's past is the presents of the step before, of length P, as the model's
  interface says. Every step has new input shapes (P grows by one), so a dnnc executable
  builds a plan per token (primitives of the new sizes, a new context).
* *in capacity buffers* (``CacheSession``; the default when the decoder declares both
  ``attention_mask`` and ``position_ids``): the cache lives in buffers [B, H, C, D] of a
  capacity C >= P, their unused tail zero. Each step passes the whole buffers as the past,
  an ``attention_mask`` that is 0 over the unused slots (exact masking: their scores get
  the model's masked value, whose softmax weight is exactly 0, and their values are zero)
  and the true positions as ``position_ids`` (the model's own positions would count the
  capacity), then copies the new keys/values (the last T slots of each present) into the
  buffers after the P filled ones. The input shapes change only when the capacity doubles
  (with one copy of the cache), so steady decoding reuses one plan: no plan, no primitive
  per token. Attention then spans C instead of P slots, at most twice as many. A dnnc
  DynamicExecutable also writes its outputs (the logits, the presents) into arrays the
  session holds for the current input shapes, made again only when they change: a steady
  step allocates no output array (its logits are then overwritten by the next step).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from dnnc.core.diagnostics import InputError, ModelError
from dnnc.driver.dynamic import DynamicExecutable
from dnnc.runtime.io_binding import TensorSpec

MIN_CAPACITY = 16
"""generate's smallest first capacity: fewer doublings (plans) for a short prompt."""


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

    @property
    def padded(self) -> bool:
        """Whether the cache may live in capacity buffers (module docstring)."""
        return self.attention_mask and self.position_ids

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


class CacheSession:
    """A decoder's KV cache kept in capacity buffers from step to step (module docstring):
    ``step(input_ids)`` runs the new tokens after the ones before and returns their logits
    [B, T, V]; ``reset()`` empties the cache. The capacity starts at ``capacity`` (at least
    1) and doubles, at least to what a step needs, with one copy of the filled part. The
    logits a step returns are valid until the next step (module docstring)."""

    def __init__(self, decoder: Decoder, *, batch: int = 1, capacity: int = 16) -> None:
        self._interface = _Interface.of(decoder)
        if not self._interface.padded:
            declared = [s.name for s in decoder.inputs if not s.name.startswith("past")]
            raise ModelError(
                "generate: a cache in capacity buffers needs the inputs attention_mask (to "
                "mask the unused slots) and position_ids (the true positions); this decoder "
                f"declares {declared} besides its cache"
            )
        if batch < 1 or capacity < 1:
            raise InputError(f"generate: batch ({batch}) and capacity ({capacity}) must be >= 1")
        self._decoder = decoder
        self._batch = batch
        self._initial = capacity
        self.growths = 0
        """Times the capacity grew (each one copy of the cache and new input shapes)."""
        self._out: tuple[tuple[tuple[int, ...], ...], list[np.ndarray]] | None = None
        """The input shapes and the arrays a DynamicExecutable writes its outputs into."""
        self.reset()

    def reset(self) -> None:
        """An empty cache of the initial capacity."""
        self.length = 0
        """The filled slots: the tokens run so far."""
        self._buffers = self._allocate(self._initial)
        self._filled = np.zeros((self._batch, self._initial), np.int64)

    @property
    def capacity(self) -> int:
        return self._filled.shape[1]

    def _allocate(self, capacity: int) -> dict[str, np.ndarray]:
        empty = self._interface.empty_cache(self._batch)
        return {
            name: np.zeros((*a.shape[:2], capacity, *a.shape[3:]), a.dtype)
            for name, a in empty.items()
        }

    def _grow(self, needed: int) -> None:
        """Buffers of at least twice the capacity and ``needed``, the filled slots copied."""
        capacity = max(2 * self.capacity, needed)
        buffers = self._allocate(capacity)
        for name, old in self._buffers.items():
            buffers[name][:, :, : self.length] = old[:, :, : self.length]
        filled = np.zeros((self._batch, capacity), np.int64)
        filled[:, : self.length] = 1
        self._buffers, self._filled = buffers, filled
        self.growths += 1

    def step(self, input_ids: np.ndarray) -> np.ndarray:
        """The logits [B, T, V] of ``input_ids`` [B, T] after the tokens run before."""
        ids = np.asarray(input_ids, np.int64)
        if ids.ndim != 2 or ids.shape[0] != self._batch or ids.shape[1] < 1:
            raise InputError(
                f"generate: input_ids must be [{self._batch}, length >= 1], got {ids.shape}"
            )
        count = ids.shape[1]
        end = self.length + count
        if end > self.capacity:
            self._grow(end)
        capacity = self.capacity
        mask = np.ones((self._batch, capacity + count), np.int64)
        mask[:, :capacity] = self._filled
        positions = np.broadcast_to(np.arange(self.length, end), ids.shape)
        inputs = {"input_ids": ids, "attention_mask": mask, "position_ids": positions}
        outputs = self._run({**inputs, **self._buffers})
        for spec, name in zip(self._interface.past, self._interface.present, strict=True):
            self._buffers[spec.name][:, :, self.length : end] = outputs[name][:, :, capacity:]
        self._filled[:, self.length : end] = 1
        self.length = end
        return outputs[self._interface.logits]

    def _run(self, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The decoder's outputs by name; a DynamicExecutable's in the held arrays."""
        decoder = self._decoder
        if not isinstance(decoder, DynamicExecutable):
            outputs = decoder.run(inputs, as_dict=True)
            assert isinstance(outputs, dict)  # as_dict
            return outputs
        signature = tuple(inputs[spec.name].shape for spec in decoder.inputs)
        if self._out is None or self._out[0] != signature:
            specs = decoder.plan_for(signature).outputs
            self._out = signature, [np.empty(spec.shape, spec.dtype) for spec in specs]
        written = decoder.run(inputs, as_dict=True, out=self._out[1])
        assert isinstance(written, dict)  # as_dict
        return written


def generate(
    decoder: Decoder,
    input_ids: np.ndarray,
    max_new_tokens: int,
    *,
    temperature: float = 0.0,
    top_k: int | None = None,
    seed: int | np.random.Generator | None = None,
    capacity: int | None = None,
    padded: bool | None = None,
) -> Generated:
    """``max_new_tokens`` tokens after the prompt ``input_ids`` [B, T] (module docstring):
    greedy with ``temperature`` 0, else sampled (``top_k`` largest only, if given) from a
    numpy generator seeded with ``seed``. The cache lives in capacity buffers
    (``CacheSession``, starting at ``capacity``: by default the smallest power of two above
    the prompt's length, at least MIN_CAPACITY) when ``padded`` (by default: when the
    decoder allows it), else it is passed back plainly."""
    if max_new_tokens < 1 or temperature < 0 or (top_k is not None and top_k < 1):
        raise InputError(
            f"generate: max_new_tokens ({max_new_tokens}) and top_k ({top_k}) must be >= 1 "
            f"and temperature ({temperature}) >= 0"
        )
    ids = np.asarray(input_ids, np.int64)
    if ids.ndim != 2 or ids.shape[1] < 1:
        raise InputError(f"generate: input_ids must be [batch, length >= 1], got {ids.shape}")
    interface = _Interface.of(decoder)
    if padded is None:
        padded = interface.padded
    rng = np.random.default_rng(seed)
    batch = ids.shape[0]
    if padded:
        start = max(MIN_CAPACITY, 1 << ids.shape[1].bit_length())
        session = CacheSession(decoder, batch=batch, capacity=capacity or start)
        step = session.step
    else:
        step = PlainSession(decoder, batch=batch).step
    generated = Generated(np.zeros((batch, max_new_tokens), np.int64))
    for index in range(max_new_tokens):
        begin = time.perf_counter()
        last = np.array(step(ids)[:, -1])
        chosen = _choose(last, temperature, top_k, rng)
        generated.seconds.append(time.perf_counter() - begin)
        generated.logits.append(last)
        generated.tokens[:, index] = chosen
        ids = chosen[:, None].astype(np.int64)
    return generated


class PlainSession:
    """Steps that pass each step's presents back as the next one's past (module docstring),
    with CacheSession's ``step``."""

    def __init__(self, decoder: Decoder, *, batch: int = 1) -> None:
        self._decoder = decoder
        self._interface = _Interface.of(decoder)
        self._cache = self._interface.empty_cache(batch)
        self._length = 0

    def step(self, input_ids: np.ndarray) -> np.ndarray:
        """The logits of ``input_ids`` after the tokens run before."""
        ids, interface = input_ids, self._interface
        inputs: dict[str, np.ndarray] = {"input_ids": ids, **self._cache}
        total = self._length + ids.shape[1]
        if interface.attention_mask:
            inputs["attention_mask"] = np.ones((ids.shape[0], total), np.int64)
        if interface.position_ids:
            inputs["position_ids"] = np.broadcast_to(np.arange(self._length, total), ids.shape)
        outputs = self._decoder.run(inputs, as_dict=True)
        assert isinstance(outputs, dict)  # as_dict
        self._cache = {
            spec.name: outputs[name]
            for spec, name in zip(interface.past, interface.present, strict=True)
        }
        self._length = total
        return outputs[interface.logits]


__all__ = ["CacheSession", "Decoder", "Generated", "PlainSession", "generate"]
