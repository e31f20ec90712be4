"""dnn-recover-kv-append on the exported tiny decoders (dnnc_testing/decoders.py), compiled
with dnn-optimize (which runs it) and without it: the pass finds the cache's concats (one
per key and value of each layer); one decoding step at several past lengths computes what
ONNX Runtime computes both ways, called plainly and with each present bound over its past
(the append in place: bit for bit the plain run's outputs, the past never copied); a
CacheSession appends in place only with the rewrite, and gives the same logits without it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest

import dnnc
from dnnc.core.diagnostics import collect_remarks
from dnnc.driver.generation import CacheSession
from dnnc_testing import decoders
from dnnc_testing.differential import optimize_without

LENGTHS = (3, 8, 40)
"""Past lengths of the step (40: beyond the first capacities CacheSession takes)."""


@pytest.fixture(scope="module", params=decoders.FAMILIES)
def compiled(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[decoders.Family, Path, dnnc.DynamicExecutable, dnnc.DynamicExecutable]]:
    """A family's export, compiled with dnn-optimize and without dnn-recover-kv-append."""
    family: decoders.Family = request.param
    path = tmp_path_factory.mktemp(family) / "d.onnx"
    decoders.export_decoder(decoders.decoder(family), family, path)
    yield (
        family,
        path,
        dnnc.compile(path),
        dnnc.compile(path, optimize_without("dnn-recover-kv-append", "f32")),
    )


def _step(family: decoders.Family, past: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(past)
    cache = {
        name: rng.standard_normal((*a.shape[:2], past, *a.shape[3:])).astype(np.float32)
        for name, a in decoders.empty_cache(family).items()
    }
    return {
        "input_ids": rng.integers(0, decoders.VOCABULARY, (1, 1)),
        "attention_mask": np.ones((1, past + 1), np.int64),
        "position_ids": np.array([[past]]),
        **cache,
    }


def test_the_pass_finds_each_cache_append(compiled) -> None:
    family, path, _, _ = compiled
    with collect_remarks({"dnn-recover-kv-append"}) as remarks:
        dnnc.compile(path).run(_step(family, 3))
    appends = [r.message for r in remarks if r.message == "cache append"]
    assert len(appends) == 2 * decoders.LAYERS


def _bound_over_past(
    executable: dnnc.DynamicExecutable, inputs: dict[str, np.ndarray]
) -> tuple[dict[str, np.ndarray], list[np.ndarray]]:
    """The inputs with each past a view of its present's array, and the outputs' arrays."""
    plan = executable.plan_for(tuple(inputs[s.name].shape for s in executable.inputs))
    bound = dict(inputs)
    out = []
    for spec in plan.outputs:
        array = np.empty(spec.shape, spec.dtype)
        if spec.name.startswith("present"):
            past = spec.name.replace("present", "past")
            length = inputs[past].shape[2]
            array[:, :, :length] = inputs[past]
            bound[past] = array[:, :, :length]
        out.append(array)
    return bound, out


@pytest.mark.parametrize("past", LENGTHS)
def test_a_step_computes_what_onnxruntime_does(
    compiled, past: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With and without the rewrite, plainly and (with it) bound over the past: ONNX
    Runtime's outputs; bound, the plain run's bit for bit, and no append copies its past
    (every np.copyto of the run is counted: the plain run copies each past once)."""
    family, path, appended, concatenated = compiled
    inputs = _step(family, past)
    expected = ort.InferenceSession(str(path)).run(None, inputs)
    plan = appended.plan_for(tuple(inputs[s.name].shape for s in appended.inputs))
    assert sorted(plan.plan.appends) == list(range(1, 1 + 2 * decoders.LAYERS))
    without = concatenated.plan_for(tuple(inputs[s.name].shape for s in concatenated.inputs))
    assert without.plan.appends == {}
    copied: list[tuple[int, ...]] = []
    copyto = np.copyto

    def counted(dst: np.ndarray, src: np.ndarray, **kwargs: object) -> None:
        copied.append(dst.shape)
        copyto(dst, src, **kwargs)

    monkeypatch.setattr(np, "copyto", counted)
    plain = appended.run(inputs)
    past_shape = inputs["past_key_0"].shape
    assert copied.count(past_shape) == 2 * decoders.LAYERS
    copied.clear()
    bound, out = _bound_over_past(appended, inputs)
    in_place = appended.run(bound, out=out)
    assert copied.count(past_shape) == 0 and copied.count((*past_shape[:2], 1, past_shape[3]))
    monkeypatch.undo()
    for ours, bound_out in zip(plain, in_place, strict=True):
        np.testing.assert_array_equal(bound_out, ours)
    for ours, theirs, want in zip(plain, concatenated.run(inputs), expected, strict=True):
        np.testing.assert_allclose(ours, want, rtol=0, atol=1e-4 * np.abs(want).max())
        np.testing.assert_allclose(theirs, want, rtol=0, atol=1e-4 * np.abs(want).max())


def test_out_bound_over_another_input_is_refused(compiled) -> None:
    """Only a present over its own past is an append in place; over another cache's past,
    or one slot into its own, it shares memory with an input and is refused."""
    family, _, appended, _ = compiled
    inputs = _step(family, 5)
    bound, out = _bound_over_past(appended, inputs)
    appended.run(bound, out=out)  # these arrays bound: the checks below still compare them
    crossed = {**bound, "past_key_0": bound["past_value_0"], "past_value_0": bound["past_key_0"]}
    with pytest.raises(dnnc.InputError, match="'present_key_0' shares memory with an input"):
        appended.run(crossed, out=out)
    shifted = {**bound, "past_key_0": out[1][:, :, 1:]}
    with pytest.raises(dnnc.InputError, match="'present_key_0' shares memory with an input"):
        appended.run(shifted, out=out)


def test_a_run_compares_only_the_arrays_it_did_not_bind_last(
    compiled, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A decoding loop passes the same caches and outputs every step: a run binding the
    arrays the run before bound compares no pair of them for shared memory again, and one
    new input is compared with each output."""
    family, _, appended, _ = compiled
    bound, out = _bound_over_past(appended, _step(family, 5))
    appended.run(bound, out=out)
    compared = []
    shares = np.shares_memory

    def counted(a: np.ndarray, b: np.ndarray, *args: object) -> bool:
        compared.append((a, b))
        return shares(a, b, *args)

    monkeypatch.setattr(np, "shares_memory", counted)
    appended.run(bound, out=out)
    assert compared == []
    appended.run({**bound, "input_ids": bound["input_ids"].copy()}, out=out)
    assert len(compared) == len(out)


def test_a_past_bound_over_its_present_is_not_scanned(compiled) -> None:
    """A NaN in a past reaches the softmax, so a plain run refuses it (the input guard: a
    scan of every past per step, 8 MB at 1,024 slots for the benchmark's LLaMA); bound over
    its present, the past is the state earlier steps appended (keys and values they
    computed, which their own attention already read unguarded) and is not scanned: the run
    goes on, whatever a caller wrote into the buffer."""
    family, _, appended, _ = compiled
    inputs = _step(family, 5)
    inputs["past_key_0"][0, 0, 2, 3] = np.nan
    with pytest.raises(dnnc.InputError, match="input 'past_key_0' holds nan"):
        appended.run(inputs)
    bound, out = _bound_over_past(appended, inputs)
    appended.run(bound, out=out)


def test_a_session_appends_in_place_only_with_the_rewrite(compiled) -> None:
    """A 3-token prompt then three tokens in 16 slots: the same logits either way, in
    place only where the plan appends."""
    _, _, appended, concatenated = compiled
    logits = []
    for executable in (appended, concatenated):
        session = CacheSession(executable, capacity=16)
        ids = np.random.default_rng(1).integers(0, decoders.VOCABULARY, (1, 3))
        steps = []
        for _ in range(4):
            steps.append(np.array(session.step(ids)))
            ids = np.argmax(steps[-1][:, -1:], axis=-1)
        logits.append(steps)
        assert session.in_place == (executable is appended)
    for ours, theirs in zip(*logits, strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-5 * np.abs(theirs).max())


def test_an_append_reads_the_new_slots_from_the_arena_it_runs_in(tmp_path: Path) -> None:
    """A kv_append step holds a view of its new slots in the arena; when a longer past grows
    the shared arena, an earlier length's plan is pointed at the new arena (rebase) and its
    appends read there too: ONNX Runtime's presents again, before and after the growth."""
    family: decoders.Family = "llama"
    path = tmp_path / "d.onnx"
    decoders.export_decoder(decoders.decoder(family), family, path)
    executable = dnnc.compile(path)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    for past in (2, 300, 2):
        inputs = _step(family, past)
        for ours, theirs in zip(executable.run(inputs), session.run(None, inputs), strict=True):
            np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-4 * np.abs(theirs).max())
    assert executable.stats().rebinds >= 1
