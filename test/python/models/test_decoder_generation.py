"""Token-by-token generation of tiny transformers decoders exported with their KV cache
(dnnc_testing/decoders.py): ONNX Runtime reproduces transformers' own greedy generate on the
export, and ``dnnc.generate`` reproduces ONNX Runtime's tokens and logits, starting from an
empty cache, on a one-token and a 16-token prompt, through both ways of carrying the cache:
plain (each step's presents are the next step's past, ONNX Runtime's reference) and in
capacity buffers (CacheSession: masked unused slots, true position ids, each present bound
over its past so that a step appends in place). In capacity buffers, steady decoding builds
no plan, creates no primitive and allocates no output array, and the resident memory grows
only at the doublings.

The plain way is slow: every new past length is a new plan in dnnc (25-45 ms per token for
these tiny decoders on a 2-core Zen 4), so its long run is marked slow."""

from __future__ import annotations

import ctypes
import json
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
import torch

import dnnc
import dnnc.runtime.plan as plan_module
from dnnc.dnnl.threads import running_on
from dnnc.driver.generation import CacheSession, Generated
from dnnc.driver.onnx_shapes import OnnxDynamicExecutable
from dnnc.driver.saved_dynamic import CONSTANTS, INITIALIZERS
from dnnc.runtime.cache import default_cache
from dnnc.tools.run import run
from dnnc_testing import decoders, engines
from dnnc_testing.differential import optimize_without
from dnnc_testing.engines import status_kib

PROMPT = 16
STEPS = 5
LONG = 64
HEAD_SIZE = decoders.HIDDEN // decoders.HEADS


def _prompt(length: int = PROMPT) -> np.ndarray:
    return np.random.default_rng(7).integers(0, decoders.VOCABULARY, (1, length))


@pytest.fixture(scope="module", params=decoders.FAMILIES)
def exported(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[decoders.Family, Path]:
    family: decoders.Family = request.param
    model = decoders.decoder(family)
    return family, decoders.export_decoder(
        model, family, tmp_path_factory.mktemp(family) / "d.onnx"
    )


@pytest.fixture(scope="module")
def executable(exported) -> dnnc.DynamicExecutable:
    """One executable per family: the tests' steps repeat input shapes, which it keeps."""
    return dnnc.compile(exported[1])


def _expected(path: Path, prompt: np.ndarray, steps: int) -> Generated:
    """ONNX Runtime's tokens with the plain cache (test_onnxruntime_matches_transformers_generate
    checks them)."""
    decoder = engines.decoder_engine("onnxruntime", path)
    return dnnc.generate(decoder, prompt, steps, padded=False)


def test_onnxruntime_matches_transformers_generate(exported) -> None:
    """The export against transformers' generate on the same weights with eager attention (in
    torch itself, GPT-2's sdpa path disagrees with its eager path at these weights, by several
    units of the logits; the export agrees with the eager one, and so does dnnc)."""
    family, path = exported
    model = decoders.decoder(family, "eager")
    ours = _expected(path, _prompt(), STEPS)
    with torch.no_grad():
        generated = model.generate(
            torch.from_numpy(_prompt()), max_new_tokens=STEPS, do_sample=False, pad_token_id=0
        )
    assert ours.tokens[0].tolist() == generated[0, PROMPT:].tolist()
    assert len(set(ours.tokens[0].tolist())) > 1  # the tokens vary: agreeing on them says something


def _check_greedy(
    executable,
    path: Path,
    prompt: np.ndarray,
    steps: int,
    padded: bool,
    capacity: int | None = None,
) -> None:
    expected = _expected(path, prompt, steps)
    ours = dnnc.generate(executable, prompt, steps, padded=padded, capacity=capacity)
    assert ours.tokens.tolist() == expected.tokens.tolist()
    for got, want in zip(ours.logits, expected.logits, strict=True):
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-4 * np.abs(want).max())


@pytest.mark.parametrize(
    ("length", "padded"),
    [(1, True), (1, False), (PROMPT, False)],
    ids=["1-capacity", "1-plain", f"{PROMPT}-plain"],
)
def test_dnnc_generates_onnxruntime_tokens(exported, executable, length: int, padded: bool) -> None:
    """A 16-token prompt in capacity buffers: test_dnnc_generates_64_onnxruntime_tokens."""
    _check_greedy(executable, exported[1], _prompt(length), STEPS, padded)


def test_a_decoder_saved_from_its_file_loads_with_both_routes(exported, tmp_path: Path) -> None:
    """``dnnc.compile(path, save_to=...)`` of a decoder (its shape arithmetic reads the ?
    sizes) saves the symbolic function and the ONNX model, each array once; the loaded
    executable generates ONNX Runtime's tokens plainly from an empty past: the first step
    has a size 0 (the traced route: the symbolic function alone refused it), the next ones
    take the symbolic function's route."""
    path = exported[1]
    compiled = dnnc.compile(path, save_to=tmp_path)
    loaded = dnnc.load(tmp_path)
    assert type(loaded) is type(compiled) is OnnxDynamicExecutable
    assert loaded.symbolic_function is not None
    # each array once on disk: an initializer is saved apart only when the function holds
    # no constant of its data (GPT-2's Gemm weights, which the import transposes)
    with np.load(tmp_path / CONSTANTS) as arrays:
        constants = [arrays[k] for k in arrays.files]
    apart = []
    if (tmp_path / INITIALIZERS).exists():
        with np.load(tmp_path / INITIALIZERS) as arrays:
            apart = [arrays[k] for k in arrays.files]
    assert len(constants) + len(apart) >= len(loaded.onnx_model[1])
    assert not any(np.array_equal(a, c) for a in apart for c in constants if a.shape == c.shape)
    _check_greedy(loaded, path, _prompt(1), STEPS, padded=False)


@pytest.mark.parametrize(
    ("length", "padded"),
    [
        (1, True),
        (PROMPT, True),
        pytest.param(PROMPT, False, marks=pytest.mark.slow),
    ],
    ids=["1-capacity", f"{PROMPT}-capacity", f"{PROMPT}-plain"],
)
def test_dnnc_generates_64_onnxruntime_tokens(
    exported, executable, length: int, padded: bool
) -> None:
    """From an empty cache, after a one-token and a 16-token prompt. In capacity buffers
    every step appends in place; the one-token prompt takes generate's capacity (64 slots:
    never grows), the 16-token one starts at 32 slots and crosses two doublings (32 -> 64
    -> 128). Plainly (a plan per token), the 16-token prompt only; a one-token prompt runs
    plainly in test_dnnc_generates_onnxruntime_tokens."""
    capacity = 32 if length == PROMPT and padded else None
    _check_greedy(executable, exported[1], _prompt(length), LONG, padded, capacity)


@pytest.mark.parametrize("exported", ["gpt2"], indirect=True)
def test_small_steps_on_one_thread_change_no_token(
    exported, executable, monkeypatch: pytest.MonkeyPatch
) -> None:
    """dnnc.runtime.step_threads: at 2 threads, a token step of this tiny decoder runs its
    small primitives on one thread; compiled with every step on the caller's count instead,
    generate gives the same tokens and logits within 1e-5 of their largest (GPT-2 only:
    LLaMA's steps differ in no way that matters here, and each compile costs seconds)."""
    with running_on(2):
        ours = dnnc.generate(executable, _prompt(), STEPS)
        session = CacheSession(executable, capacity=32)
        session.step(_prompt())
        session.step(ours.tokens[:, :1])
        assert session._out is not None  # the steady step's signature and output arrays
        steady = executable.plan_for(session._out[0])
        assert 1 in {info.threads for info in steady.plan.step_infos}
        monkeypatch.setattr(plan_module, "runs_alone", lambda *_: False)
        without = dnnc.compile(exported[1])
        theirs = dnnc.generate(without, _prompt(), STEPS)
    assert ours.tokens.tolist() == theirs.tokens.tolist()
    for got, want in zip(ours.logits, theirs.logits, strict=True):
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-5 * np.abs(want).max())


@pytest.mark.parametrize("exported", ["llama"], indirect=True)
def test_a_step_reads_the_grouped_cache_unrepeated(exported, executable) -> None:
    """LLaMA's 2 key/value heads for 4 query heads: in the traced import, repeat_kv's Expand
    to sizes that follow the inputs is dnn.where %all, %x, %x, which dnn-recover-attention
    reads through, so no step copies the cache into the query heads. One decoding step as
    CacheSession runs it (16 slots, the last 3 unused and masked): logits and presents agree
    with and without dnn-recover-attention and with ONNX Runtime."""
    path = exported[1]
    rng = np.random.default_rng(3)
    capacity, filled = 16, 13
    mask = np.zeros((1, capacity + 1), np.int64)
    mask[:, :filled] = mask[:, -1] = 1
    inputs = {
        "input_ids": rng.integers(0, decoders.VOCABULARY, (1, 1)),
        "attention_mask": mask,
        "position_ids": np.array([[filled]]),
    }
    for name in decoders.cache_names("past"):
        cache = rng.standard_normal((1, decoders.KV_HEADS["llama"], capacity, HEAD_SIZE))
        cache[:, :, filled:] = 0.0
        inputs[name] = cache.astype(np.float32)
    unrewritten = dnnc.compile(path, optimize_without("dnn-recover-attention", "f32"))
    signature = tuple(a.shape for a in inputs.values())

    def repeats(decoder: dnnc.DynamicExecutable) -> int:
        infos = decoder.plan_for(signature).plan.step_infos
        return sum("self_attn/Expand" in s.location for s in infos)

    assert (repeats(executable), repeats(unrewritten)) == (0, 2 * decoders.LAYERS)
    oracle = ort.InferenceSession(str(path)).run(None, inputs)
    for decoder in (executable, unrewritten):
        for got, want in zip(decoder.run(inputs), oracle, strict=True):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())


def test_a_decoder_without_position_ids_keeps_the_plain_cache(tmp_path: Path) -> None:
    """Without position_ids the model would count the capacity as positions: generate passes
    the cache plainly, and CacheSession refuses it, saying why."""
    path = decoders.export_decoder(
        decoders.decoder("gpt2"), "gpt2", tmp_path / "d.onnx", position_ids=False
    )
    executable = dnnc.compile(path)
    ours = dnnc.generate(executable, _prompt(), STEPS)
    assert ours.tokens.tolist() == _expected(path, _prompt(), STEPS).tokens.tolist()
    assert executable.stats().misses == STEPS  # a plan per past length: the plain way
    with pytest.raises(dnnc.ModelError, match=r"needs the inputs attention_mask .* position_ids"):
        CacheSession(executable)


@pytest.mark.slow
@pytest.mark.parametrize("exported", ["llama"], indirect=True)
def test_steady_decoding_builds_no_plan_and_creates_no_primitive(exported, executable) -> None:
    """1,000 tokens after a 16-token prompt in capacity buffers from 16 slots (LLaMA: its
    rotary positions have no table to run past; GPT-2's learned ones stop at 256): a plan
    and primitives are made only at the first one-token step and at the capacity's six
    doublings (32 ... 1024), never in a steady step, and the resident memory grows by no
    more than the cache plus what the doublings made. Tolerances, measured on a 2-core Zen
    4: each doubling's plan (its new primitives' code, its context) added 0.5-3 MiB, so 4
    MiB each are allowed; the 500 steady tokens after the last one added nothing, so 1 MiB
    is allowed for the allocator's noise. The resident memory is read after glibc returned
    its free heap pages (``_held_bytes``): in a test process that ran others before, the heap
    kept 4 MiB more of freed pages once (pytest-xdist worker, load 6) where a 3,000-token
    run alone grows 92 KiB."""
    session = CacheSession(executable, capacity=16)
    logits = session.step(_prompt())
    cache = default_cache()
    made = []  # per token: (plans built, primitives created, doublings)
    held = {}  # token index -> bytes held, after each doubling and at the end
    for index in range(1000):
        before = (executable.stats().misses, cache.misses, session.growths)
        logits = session.step(np.argmax(logits[:, -1:], axis=-1))
        after = (executable.stats().misses, cache.misses, session.growths)
        made.append(tuple(a - b for a, b in zip(after, before, strict=True)))
        if made[-1][2]:
            held[index] = _held_bytes()
    end = _held_bytes()
    assert session.growths == 6 and session.capacity == 1024 and session.in_place
    assert made[0][2] == 1  # the prompt filled 16 slots: the first token doubles
    steady = [m for m in made[1:] if m[2] == 0]
    assert len(steady) == 1000 - 6 and all(m[:2] == (0, 0) for m in steady)
    assert all(m[0] <= 1 for m in made if m[2])  # one plan per doubling (none if kept)
    last_doubling = max(held)
    assert len(made) - last_doubling > 500
    assert end - held[last_doubling] <= 1 << 20
    buffers = session.capacity * decoders.LAYERS * 2 * decoders.KV_HEADS["llama"]
    cache_growth = buffers * (decoders.HIDDEN // decoders.HEADS) * 4 // 2  # 512 -> 1024 slots
    assert end - held[0] <= cache_growth + 5 * (4 << 20)


def _held_bytes() -> int:
    """The process's resident anonymous memory after glibc's allocator gave back the free
    pages of its heaps (malloc_trim): what is held, not what the allocator kept."""
    ctypes.CDLL(None).malloc_trim(0)
    return status_kib("RssAnon") * 1024


def _transient_bytes(run: Callable[[], object]) -> int:
    """The most bytes ``run`` held at once beyond what was held before it (numpy reports
    its arrays' data to tracemalloc)."""
    tracemalloc.reset_peak()
    before = tracemalloc.get_traced_memory()[0]
    run()
    return tracemalloc.get_traced_memory()[1] - before


@pytest.mark.parametrize("exported", ["llama"], indirect=True)
def test_steady_steps_allocate_no_output_array(exported, executable) -> None:
    """In capacity buffers a steady step writes the logits and presents into arrays the
    session holds (DynamicExecutable.run's ``out``, made again only when the input shapes
    change: at a doubling). After a one-token prompt and a first step in 256 slots, 10
    steady steps each hold less than one present's bytes (33 KB) beyond what they held
    before (the per-step inputs, the attention mask 2 KB, and Python's objects: 4-5 KB
    measured), while a run without ``out`` holds every output it returns (4 presents and
    the logits)."""
    session = CacheSession(executable, capacity=256)
    ids = np.argmax(session.step(_prompt(1))[:, -1:], axis=-1)
    ids = np.argmax(session.step(ids)[:, -1:], axis=-1)
    present = decoders.KV_HEADS["llama"] * 257 * HEAD_SIZE * 4  # bytes of one present
    plans = executable.stats().misses
    held = []
    tracemalloc.start()
    try:
        for _ in range(10):
            logits: list[np.ndarray] = []
            held.append(_transient_bytes(lambda: logits.append(session.step(ids))))
            ids = np.argmax(logits[0][:, -1:], axis=-1)
        inputs = {
            "input_ids": ids,
            "attention_mask": np.ones((1, 257), np.int64),
            "position_ids": np.array([[session.length]]),
            **session.past(),
        }
        fresh = _transient_bytes(lambda: executable.run(inputs))
    finally:
        tracemalloc.stop()
    assert (executable.stats().misses, session.growths, session.capacity) == (plans, 0, 256)
    assert all(bytes_ < present for bytes_ in held), held
    assert fresh >= sum(a.nbytes for a in executable.run(inputs))


@pytest.mark.parametrize("exported", ["llama"], indirect=True)
def test_run_out_refuses_arrays_that_do_not_fit(exported, executable) -> None:
    """``out`` must match the outputs one by one and share no byte with an input or another
    output; what fits is written and returned."""
    session = CacheSession(executable, capacity=16)
    session.step(_prompt(1))
    inputs = {
        "input_ids": np.zeros((1, 1), np.int64),
        "attention_mask": np.ones((1, 17), np.int64),
        "position_ids": np.array([[1]]),
        **session.past(),
    }
    out = [np.empty(a.shape, a.dtype) for a in executable.run(inputs)]
    written = executable.run(inputs, out=out)
    assert all(w is o for w, o in zip(written, out, strict=True))
    with pytest.raises(dnnc.InputError, match=r"out: 2 arrays given for \d+ outputs"):
        executable.run(inputs, out=out[:2])
    with pytest.raises(dnnc.InputError, match="output 'logits' needs a writeable C-contiguous"):
        executable.run(inputs, out=[out[0].astype(np.float64), *out[1:]])
    with pytest.raises(dnnc.InputError, match="'present_value_0' shares memory with an input"):
        executable.run(inputs, out=[out[0], out[1], out[1], *out[3:]])


def test_sampling_is_seeded_and_keeps_to_the_top_k(executable) -> None:
    """Sampled with a seed: the same seed gives the same tokens, each among the top_k of the
    logits it was drawn from; top_k 1 is greedy."""
    first, again = (
        dnnc.generate(executable, _prompt(), 3, temperature=1.5, top_k=5, seed=11) for _ in range(2)
    )
    assert first.tokens.tolist() == again.tokens.tolist()
    for token, logits in zip(first.tokens[0], first.logits, strict=True):
        assert token in np.argsort(logits[0])[-5:]
    greedy = dnnc.generate(executable, _prompt(), 3)
    one = dnnc.generate(executable, _prompt(), 3, temperature=1.5, top_k=1, seed=11)
    assert one.tokens.tolist() == greedy.tokens.tolist()


def test_generate_refuses_a_model_without_its_cache_outputs(tmp_path: Path) -> None:
    path = decoders.export_logits(decoders.decoder("gpt2"), tmp_path / "l.onnx", 1, 4)
    with pytest.raises(dnnc.ModelError, match="no cache inputs"):
        dnnc.generate(dnnc.compile(path), _prompt(4), 1)


def test_dnnc_run_generate_prints_onnxruntime_tokens(
    exported, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = exported[1]
    np.save(tmp_path / "ids.npy", _prompt())
    argv = [str(path), "--generate", "3", "--input", f"input_ids={tmp_path / 'ids.npy'}"]
    assert run([*argv, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["tokens"] == _expected(path, _prompt(), 3).tokens.tolist()
    assert result["prompt_tokens"] == PROMPT and result["tokens_per_second"] > 0
