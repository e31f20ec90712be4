"""Real architectures built here with random weights and exported once per test session.

torch is the CPU build pinned in the test extra; torchvision's wheel on the package index is
a CUDA build whose compiled operators (detection: nms, roi_align ...) do not load next to it.
The model definitions need none of them, but ``import torchvision`` registers fake kernels
for ``torchvision::nms`` and ``qnms``, which fails unless their schemas exist: they are
defined here first (schemas only, no kernels).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest
import torch

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing can be downloaded here

torch.backends.mha.set_fastpath_enabled(False)  # its fused kernel has no ONNX export

_SCHEMAS = torch.library.Library("torchvision", "DEF")
_SCHEMAS.define("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
_SCHEMAS.define("qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")


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
