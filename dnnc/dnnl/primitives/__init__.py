"""One handler per oneDNN primitive kind, after PaddlePaddle's Acquire API.

The executor builds a handler from each ``onednn.primitive <kind>`` op (``handler_for``),
acquires its primitive from the cache (keyed by ``handler.key()``), and binds the memory of
each role to ``handler.exec_args()[role]``. ``base.py`` holds what all kinds share; the
other modules hold the kinds, grouped like the reference kernels.
"""

from __future__ import annotations

from collections.abc import Mapping

from dnnc.dnnl.objects import MemoryDesc
from dnnc.dnnl.primitives.base import PrimitiveHandler
from dnnc.dnnl.primitives.compute import (
    ConvolutionHandler,
    DeconvolutionHandler,
    InnerProductHandler,
    MatmulHandler,
    PoolingHandler,
)
from dnnc.dnnl.primitives.elementwise import BinaryHandler, EltwiseHandler, SoftmaxHandler
from dnnc.dnnl.primitives.movement import ConcatHandler, ReorderHandler, SumHandler
from dnnc.dnnl.primitives.normalization import (
    BatchNormalizationHandler,
    LayerNormalizationHandler,
    LrnHandler,
    ReductionHandler,
    ResamplingHandler,
)

HANDLERS: dict[str, type[PrimitiveHandler]] = {
    handler.kind: handler
    for handler in (
        ConvolutionHandler,
        DeconvolutionHandler,
        MatmulHandler,
        InnerProductHandler,
        EltwiseHandler,
        SoftmaxHandler,
        BinaryHandler,
        SumHandler,
        ConcatHandler,
        PoolingHandler,
        BatchNormalizationHandler,
        LayerNormalizationHandler,
        LrnHandler,
        ResamplingHandler,
        ReductionHandler,
        ReorderHandler,
    )
}
"""Primitive kind (the ``onednn.primitive`` kind string) -> handler class."""


def handler_for(
    kind: str, descs: Mapping[str, MemoryDesc], params: Mapping[str, object]
) -> PrimitiveHandler:
    """The handler of a kind for one op; ValueError naming the kind and the valid ones."""
    if kind not in HANDLERS:
        raise ValueError(f"unknown primitive kind '{kind}' (valid: {', '.join(sorted(HANDLERS))})")
    return HANDLERS[kind](descs, params)


__all__ = ["HANDLERS", "PrimitiveHandler", "handler_for"]
