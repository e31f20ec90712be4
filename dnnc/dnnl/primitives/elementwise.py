"""Handlers of the element-wise primitives: eltwise, softmax, binary."""

from __future__ import annotations

from collections.abc import Mapping

from dnnc.core.kinds import BinaryAlg, EltwiseAlg
from dnnc.dnnl import capi
from dnnc.dnnl.objects import BINARY_ALGS, MemoryDesc, eltwise_algorithm
from dnnc.dnnl.primitives.base import (
    FORWARD_INFERENCE,
    POST_OPS,
    UNARY_ARGS,
    Param,
    PrimitiveHandler,
    choice,
    integer,
    number,
    with_rank,
)

SOFTMAX_ALGS: Mapping[str, capi.dnnl_alg_kind_t] = {
    "accurate": capi.dnnl_alg_kind_t.dnnl_softmax_accurate,
    "log": capi.dnnl_alg_kind_t.dnnl_softmax_log,
}
"""``dnn.softmax`` is ``accurate``, ``dnn.log_softmax`` is ``log``."""


class EltwiseHandler(PrimitiveHandler):
    kind = "eltwise"
    primitive = "eltwise_forward"
    args = UNARY_ARGS
    params_spec = {
        "alg": Param(choice(EltwiseAlg)),
        "alpha": Param(number, 0.0),
        "beta": Param(number, 0.0),
    }

    def _arguments(self, descs: Mapping[str, MemoryDesc]) -> tuple[object, ...]:
        alg, alpha, beta = eltwise_algorithm(
            self.params["alg"], self.params["alpha"], self.params["beta"]
        )
        return (FORWARD_INFERENCE, alg, descs["src"], descs["dst"], alpha, beta)


class SoftmaxHandler(PrimitiveHandler):
    kind = "softmax"
    primitive = "softmax_forward"
    args = UNARY_ARGS
    params_spec = {"axis": Param(integer), "alg": Param(choice(SOFTMAX_ALGS), "accurate")}

    def _check(self) -> None:
        self._normalize_axis(self.descs["src"].ndims)

    def _arguments(self, descs: Mapping[str, MemoryDesc]) -> tuple[object, ...]:
        return (
            FORWARD_INFERENCE,
            SOFTMAX_ALGS[self.params["alg"]],
            descs["src"],
            descs["dst"],
            self.params["axis"],
        )


class BinaryHandler(PrimitiveHandler):
    """``dnn.binary``: operands of lower rank get leading 1s; oneDNN then broadcasts src_1
    (dims of size 1) but never src_0, which must have dst's dims."""

    kind = "binary"
    primitive = "binary"
    args = {"src_0": capi.DNNL_ARG_SRC_0, "src_1": capi.DNNL_ARG_SRC_1, "dst": capi.DNNL_ARG_DST}
    params_spec = {"alg": Param(choice(BinaryAlg)), **POST_OPS}

    def _check(self) -> None:
        src_0, dst = self.descs["src_0"].dims, self.descs["dst"].dims
        if (1,) * (len(dst) - len(src_0)) + src_0 != dst:
            raise self._error(
                f"src_0 {src_0} must have dst's dims {dst}: oneDNN broadcasts src_1 only"
            )

    def _arguments(self, descs: Mapping[str, MemoryDesc]) -> tuple[object, ...]:
        rank = descs["dst"].ndims
        return (
            BINARY_ALGS[self.params["alg"]],
            with_rank(descs["src_0"], rank),
            with_rank(descs["src_1"], rank),
            descs["dst"],
        )
