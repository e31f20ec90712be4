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
  ``attention_mask`` and ``position_ids``): the cache lives in buffers [B, H, C + T, D] of a
  capacity C >= P and room for a step's T new slots, their unused slots zero. Each step
  passes each buffer's first C slots as the past, an ``attention_mask`` that is 0 over the
  unused ones (exact masking: their scores get the model's masked value, whose softmax
  weight is exactly 0, and their values are zero) and the true positions as
  ``position_ids`` (the model's own positions would count the capacity), then moves the
  new keys/values (the last T slots of each present) after the P filled ones. The input
  shapes change only when the capacity doubles (with one copy of the cache) or T changes
  (the prompt's step, then one token each), so steady decoding reuses one plan: no plan,
  no primitive per token. Attention then spans C + T instead of P + T slots; ``generate``
  takes the capacity its prompt and new tokens need (``capacity_for``), so it never grows.
  A dnnc DynamicExecutable writes its outputs into arrays the session holds (``out``,
  made again only when the input shapes change), and when its plan appends every cache
  (dnn.kv_append, ``Plan.appends``) each present is the buffer itself, bound over its
  past: the step writes only the T new slots of each cache (no copy of the cache per
  layer), its attention reads the cache where it lives, and the session then moves those
  T slots (``in_place``). A steady step allocates no output array (its logits are
  overwritten by the next step).
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
"""generate's capacities are multiples of it (capacity_for)."""


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

    _capacity: int
    _buffers: dict[str, np.ndarray]
    """Per cache input, [B, H, capacity + room, D]: the slots and a step's new ones."""
    _past: dict[str, np.ndarray]
    """Per cache input, its buffer's first ``capacity`` slots (a view)."""
    _mask: np.ndarray
    """The attention mask [B, capacity + room]: 1 over the filled and the new slots."""

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
        self.in_place = False
        """Whether the last step appended in place (module docstring): the decoder is a
        DynamicExecutable whose plan appends every present to the past it is paired with
        (dnnc.runtime.plan.Plan.appends)."""
        self._out: tuple[tuple[tuple[int, ...], ...], list[np.ndarray]] | None = None
        """The input shapes and the arrays a DynamicExecutable writes its outputs into."""
        self.reset()

    def reset(self) -> None:
        """An empty cache of the initial capacity."""
        self.length = 0
        """The filled slots: the tokens run so far."""
        self._resize(self._initial, 1)

    @property
    def capacity(self) -> int:
        return self._capacity

    def past(self) -> dict[str, np.ndarray]:
        """The cache inputs of the next step: views [B, H, capacity, D] of the buffers, their
        first ``length`` slots filled, the others zero."""
        return dict(self._past)

    def _resize(self, capacity: int, room: int) -> None:
        """Buffers of ``capacity`` slots and ``room`` more for a step's new ones (the
        present's: module docstring), the filled slots copied (none after reset)."""
        empty = self._interface.empty_cache(self._batch)
        buffers = {}
        for name, a in empty.items():
            buffer = np.zeros((*a.shape[:2], capacity + room, *a.shape[3:]), a.dtype)
            if self.length:
                buffer[:, :, : self.length] = self._buffers[name][:, :, : self.length]
            buffers[name] = buffer
        self._capacity, self._buffers = capacity, buffers
        self._past = {name: b[:, :, :capacity] for name, b in buffers.items()}
        self._mask = np.ones((self._batch, capacity + room), np.int64)
        self._mask[:, self.length : capacity] = 0
        self._out = None

    def step(self, input_ids: np.ndarray) -> np.ndarray:
        """The logits [B, T, V] of ``input_ids`` [B, T] after the tokens run before."""
        ids = np.asarray(input_ids, np.int64)
        if ids.ndim != 2 or ids.shape[0] != self._batch or ids.shape[1] < 1:
            raise InputError(
                f"generate: input_ids must be [{self._batch}, length >= 1], got {ids.shape}"
            )
        count = ids.shape[1]
        end = self.length + count
        capacity = self.capacity
        if end > capacity:
            capacity = max(2 * capacity, end)
            self.growths += 1
        if capacity != self.capacity or self._mask.shape[1] != capacity + count:
            self._resize(capacity, count)
        positions = np.broadcast_to(np.arange(self.length, end), ids.shape)
        inputs = {"input_ids": ids, "attention_mask": self._mask, "position_ids": positions}
        outputs = self._run({**inputs, **self._past})
        for spec, name in zip(self._interface.past, self._interface.present, strict=True):
            self._buffers[spec.name][:, :, self.length : end] = outputs[name][:, :, capacity:]
        self._mask[:, self.length : end] = 1
        self.length = end
        return outputs[self._interface.logits]

    def _run(self, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The decoder's outputs by name; a DynamicExecutable's in held arrays, its presents
        in the buffers themselves when its plan appends every cache in place."""
        decoder = self._decoder
        if not isinstance(decoder, DynamicExecutable):
            outputs = decoder.run(inputs, as_dict=True)
            assert isinstance(outputs, dict)  # as_dict
            return outputs
        signature = tuple(inputs[spec.name].shape for spec in decoder.inputs)
        if self._out is None or self._out[0] != signature:
            executable = decoder.plan_for(signature)
            names = [spec.name for spec in executable.outputs]
            present = dict(zip(self._interface.present, self._interface.past, strict=True))
            given = [spec.name for spec in executable.inputs]
            appends = executable.plan.appends  # output index -> the input it appends to
            self.in_place = all(
                appends.get(names.index(name)) == given.index(past.name)
                for name, past in present.items()
            )
            self._out = (
                signature,
                [
                    self._buffers[present[spec.name].name]
                    if self.in_place and spec.name in present
                    else np.empty(spec.shape, spec.dtype)
                    for spec in executable.outputs
                ],
            )
        written = decoder.run(inputs, as_dict=True, out=self._out[1])
        assert isinstance(written, dict)  # as_dict
        return written


def capacity_for(prompt: int, max_new_tokens: int) -> int:
    """The capacity that holds a prompt of ``prompt`` tokens and ``max_new_tokens`` new ones
    (the last one is chosen, not run), rounded up to a multiple of MIN_CAPACITY: generate's,
    so that its cache never grows (ONNX Runtime GenAI's buffer of the maximum length)."""
    needed = prompt + max_new_tokens - 1
    return -(-needed // MIN_CAPACITY) * MIN_CAPACITY


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
    (``CacheSession``, starting at ``capacity``: by default ``capacity_for`` the prompt and
    the new tokens, so it never grows) when ``padded`` (by default: when the decoder allows
    it), else it is passed back plainly."""
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
        needed = capacity or capacity_for(ids.shape[1], max_new_tokens)
        session = CacheSession(decoder, batch=batch, capacity=needed)
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


__all__ = ["CacheSession", "Decoder", "Generated", "PlainSession", "capacity_for", "generate"]
