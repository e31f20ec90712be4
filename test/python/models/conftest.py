"""Real architectures built here with random weights and exported once per test session.

torchvision is imported through dnnc_testing.torchvision_models (it loads beside the CPU build
of torch there)."""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest
import torch

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing can be downloaded here

torch.backends.mha.set_fastpath_enabled(False)  # its fused kernel has no ONNX export


class Exported:
    """ONNX files of the session, exported once each (torch export takes seconds)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.seconds: dict[str, float] = {}

    def get(self, key: str, export: Callable[[Path], None]) -> Path:
        path = self.directory / f"{key}.onnx"
        if not path.exists():
            import time

            start = time.perf_counter()
            with warnings.catch_warnings(), torch.no_grad():
                warnings.simplefilter("ignore")
                export(path)
            self.seconds[key] = time.perf_counter() - start
        return path


@pytest.fixture(scope="session")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Exported:
    return Exported(tmp_path_factory.mktemp("exported"))
