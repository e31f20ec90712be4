"""Batch inference over a dataset with Ray Data and a dnnc executable per worker.

The executable is compiled once here and shipped to Ray's workers pickled (as the recipe
that compiled it: each worker compiles again, for its own CPU). ``map_batches`` runs it over
the dataset with a pool of actors; the outputs are compared with a single-process run and
the throughput is printed.

    .venv/bin/pip install -e '.[ray]'
    .venv/bin/python examples/ray_batch_inference.py [--images 256] [--actors 2]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

import dnnc

MODEL = Path(__file__).resolve().parent / "residual_block.mlir"
INPUT_SHAPE = (16, 32, 32)


class Classify:
    """A Ray Data callable class: one executable per actor, each batch run image by image."""

    def __init__(self, executable: dnnc.Executable) -> None:
        self.executable = executable  # arrived pickled: compiled again in this worker

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        images = batch["image"]
        outputs = [self.executable.run([image[None]])[0][0] for image in images]
        return {"index": batch["index"], "output": np.stack(outputs)}


def images(count: int) -> np.ndarray:
    return np.random.default_rng(0).uniform(-1, 1, (count, *INPUT_SHAPE)).astype(np.float32)


def run_with_ray(count: int, actors: int, batch_size: int = 16) -> tuple[np.ndarray, float]:
    """The outputs of `count` images in dataset order, and the images per second."""
    import ray

    executable = dnnc.compile(MODEL)
    data = images(count)
    ray.init(
        num_cpus=actors, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True
    )
    try:
        dataset = ray.data.from_items([{"index": i, "image": data[i]} for i in range(count)])
        start = time.perf_counter()
        result = dataset.map_batches(
            Classify,
            fn_constructor_args=(executable,),
            batch_size=batch_size,
            compute=ray.data.ActorPoolStrategy(size=actors),
            num_cpus=1,
        ).take_all()
        seconds = time.perf_counter() - start
    finally:
        ray.shutdown()
    outputs = np.stack([row["output"] for row in sorted(result, key=lambda r: r["index"])])
    return outputs, count / seconds


def run_in_process(count: int) -> np.ndarray:
    executable = dnnc.compile(MODEL)
    return np.stack([executable.run([image[None]])[0][0] for image in images(count)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=256)
    parser.add_argument("--actors", type=int, default=2)
    options = parser.parse_args()
    outputs, rate = run_with_ray(options.images, options.actors)
    same = np.array_equal(outputs, run_in_process(options.images))
    print(
        f"{options.images} images on {options.actors} Ray actors: {rate:.1f} images/s "
        f"(Ray Data start-up and transfers included); identical to one process: {same}"
    )
    raise SystemExit(0 if same else 1)


if __name__ == "__main__":
    main()
