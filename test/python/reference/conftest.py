"""Fixtures of the reference-kernel tests (helpers are in reference_helpers.py)."""

import numpy as np
import pytest


@pytest.fixture
def rng() -> np.random.Generator:
    """A seeded generator: every run draws the same data."""
    return np.random.default_rng(0)
