"""Token-by-token generation of tiny transformers decoders exported with their KV cache
(dnnc_testing/decoders.py): ONNX Runtime reproduces transformers' own greedy generate on the
export, and ``dnnc.generate`` reproduces ONNX Runtime's tokens and logits, starting from an
empty cache (the prompt's step has a past of length 0), on a one-token and a 16-token prompt.

The long runs are slow: every new past length is a new trace in dnnc today (0.5-2 s per token
on a 2-core Zen 4), so the quick tests take a handful of steps."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

import dnnc
from dnnc.driver.generation import Generated
from dnnc.tools.run import run
from dnnc_testing import decoders, engines

PROMPT = 16
STEPS = 5
LONG = 64


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
    """ONNX Runtime's tokens (test_onnxruntime_matches_transformers_generate checks them)."""
    return dnnc.generate(engines.decoder_engine("onnxruntime", path), prompt, steps)


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


def _check_greedy(executable, path: Path, prompt: np.ndarray, steps: int) -> None:
    expected = _expected(path, prompt, steps)
    ours = dnnc.generate(executable, prompt, steps)
    assert ours.tokens.tolist() == expected.tokens.tolist()
    for got, want in zip(ours.logits, expected.logits, strict=True):
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-4 * np.abs(want).max())


@pytest.mark.parametrize("length", [1, PROMPT])
def test_dnnc_generates_onnxruntime_tokens(exported, executable, length: int) -> None:
    _check_greedy(executable, exported[1], _prompt(length), STEPS)


@pytest.mark.slow
def test_dnnc_generates_64_onnxruntime_tokens(exported, executable) -> None:
    """LLaMA's is most of this file's time: its rotary positions make every past length a
    new trace today (GPT-2's reuse one template)."""
    _check_greedy(executable, exported[1], _prompt(), LONG)


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
