"""Token-by-token generation of tiny transformers decoders exported with their KV cache
(dnnc_testing/decoders.py): ONNX Runtime reproduces transformers' own greedy generate on the
export, and dnnc reproduces ONNX Runtime's tokens and logits on a 16-token prompt then greedy
steps, each step feeding the presents back as the next past.

Slow: dnnc compiles every step anew today (the past length is a new input shape each time, and
the model reads it through Shape, so it takes the per-shape path: an ONNX import and the whole
pass pipeline per token, 0.5-2.5 s each on a 2-core Zen 4), hence only a handful of steps."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
import torch

import dnnc
from dnnc_testing import decoders

PROMPT = 16
STEPS = 5
"""The prompt step then four single-token steps: five compiles in dnnc."""


def _prompt() -> np.ndarray:
    return np.random.default_rng(7).integers(0, decoders.VOCABULARY, (1, PROMPT))


@pytest.fixture(scope="module", params=decoders.FAMILIES)
def exported(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    family: decoders.Family = request.param
    model = decoders.decoder(family)
    return family, decoders.export_decoder(
        model, family, tmp_path_factory.mktemp(family) / "d.onnx"
    )


def test_onnxruntime_matches_transformers_generate(exported) -> None:
    """The export against transformers' generate on the same weights with eager attention (in
    torch itself, GPT-2's sdpa path disagrees with its eager path at these weights, by several
    units of the logits; the export agrees with the eager one, and so does dnnc)."""
    family, path = exported
    model = decoders.decoder(family, "eager")
    session = ort.InferenceSession(str(path))
    ours = decoders.greedy(lambda x: session.run(None, x), family, _prompt(), STEPS)
    with torch.no_grad():
        generated = model.generate(
            torch.from_numpy(_prompt()), max_new_tokens=STEPS, do_sample=False, pad_token_id=0
        )
    assert ours.tokens == generated[0, PROMPT:].tolist()
    assert len(set(ours.tokens)) > 1  # the tokens vary: agreeing on them says something


@pytest.mark.slow
def test_dnnc_generates_onnxruntime_tokens(exported) -> None:
    family, path = exported
    session = ort.InferenceSession(str(path))
    expected = decoders.greedy(lambda x: session.run(None, x), family, _prompt(), STEPS)
    executable = dnnc.compile(path)
    ours = decoders.greedy(executable.run, family, _prompt(), STEPS)
    assert ours.tokens == expected.tokens
    for got, want in zip(ours.logits, expected.logits):
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-4 * np.abs(want).max())
