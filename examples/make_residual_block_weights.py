"""Write residual_block.npz, the weights of residual_block.mlir (fixed seed, so reproducible).

Run: .venv/bin/python examples/make_residual_block_weights.py
"""

from pathlib import Path

import numpy as np

CHANNELS = 16


def make_weights(seed: int = 0) -> dict[str, np.ndarray]:
    """Two 3x3 convolutions with bias and the batch-norm parameters after each."""
    rng = np.random.default_rng(seed)
    fan_in = CHANNELS * 3 * 3
    weights: dict[str, np.ndarray] = {}
    for layer in ("1", "2"):
        weights[f"conv{layer}.wei"] = rng.normal(
            0.0, np.sqrt(2.0 / fan_in), (CHANNELS, CHANNELS, 3, 3)
        )
        weights[f"conv{layer}.bias"] = rng.normal(0.0, 0.1, CHANNELS)
        weights[f"bn{layer}.scale"] = rng.uniform(0.5, 1.5, CHANNELS)
        weights[f"bn{layer}.shift"] = rng.normal(0.0, 0.1, CHANNELS)
        weights[f"bn{layer}.mean"] = rng.normal(0.0, 0.1, CHANNELS)
        weights[f"bn{layer}.variance"] = rng.uniform(0.5, 1.5, CHANNELS)
    return {name: array.astype(np.float32) for name, array in weights.items()}


def main() -> None:
    np.savez(Path(__file__).with_name("residual_block.npz"), **make_weights())


if __name__ == "__main__":
    main()
