"""torchvision's model definitions next to the pinned CPU build of torch.

torchvision's wheel on the package index is a CUDA build whose compiled operators (detection:
nms, roi_align ...) do not load next to the CPU torch. The model definitions need none of
them, but ``import torchvision`` registers fake kernels for ``torchvision::nms`` and ``qnms``,
which fails unless their schemas exist: ``models()`` defines them first (schemas only, no
kernels), once per process. transformers imports torchvision too (its image processors):
``transformers()`` imports it after the same definitions.
"""

from __future__ import annotations

import functools
from types import ModuleType

import torch

_SCHEMAS: list[torch.library.Library] = []
"""Kept alive: a Library removes its definitions when collected."""


@functools.cache
def models() -> ModuleType:
    """``torchvision.models``, importable beside the CPU build of torch."""
    schemas = torch.library.Library("torchvision", "DEF")
    schemas.define("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
    schemas.define("qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
    _SCHEMAS.append(schemas)
    import torchvision

    return torchvision.models


def transformers() -> ModuleType:
    """The ``transformers`` package, importable beside the CPU build of torch."""
    models()
    import transformers

    return transformers
