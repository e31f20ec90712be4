"""dnn-dense-as-inner-product: a dense layer whose matmul falls back runs as an inner product.

Rule: %y = dnn.matmul %x, %w[, %b] post_args(P) {post_ops} : (tensor<MxK>, tensor<KxN>[, B])
          -> tensor<MxN>      [%w a dnn.constant or dnn.weight; B absent, N or 1xN]
      ==> %t = dnn.constant <%w transposed> : tensor<NxK>
          %y = dnn.inner_product %x, %t[, %b as N] post_args(P) {post_ops} : ... -> tensor<MxN>
      the same product (dst[m, n] = sum_k x[m, k] * w[k, n] + b[n]), post-ops and arguments:
      a [1, N] binary post-op argument is per output channel for both.
``when``:
- ``fallback`` (default): where oneDNN runs the matmul with its gemm or reference fallback and
  the inner product with a real kernel (oneDNN 3.2 on AVX2 has a brgemm inner product but no
  brgemm matmul: BERT's 128x768x3072 layer 6.4 -> 3.5 ms; on AVX-512 both run brgemm and
  nothing changes); oneDNN is asked with the op's shapes and post-ops (kernel_table.Probe);
- ``always``: every matmul the rule matches (the IR is then the same on every CPU);
- ``never``: no change.
A remark per matched matmul says what oneDNN runs each as, and which was taken.

A matmul over rows of dynamic count is left to the static graph of each input shape
(dnnc.driver.dynamic runs dnn-optimize on it).

Pre:  the IR verifies; dnn-fuse-post-ops ran (the post-ops are part of what oneDNN is asked).
Post: every matched matmul meeting ``when`` is a dnn.inner_product; the transposed weights are
      a dnn.constant (a dnn.weight's data are read here); results are the matmul's, up to
      the order of the sums.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    InsertPoint,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from dnnc.core import shapes
from dnnc.core.arrays import transposed
from dnnc.core.diagnostics import remark
from dnnc.dialects.dnn import ConstantOp, InnerProductOp, MatmulOp, ReshapeOp, WeightOp, shape_of
from dnnc.dialects.dnn.base import tensor_type
from dnnc.ir.weights import source_value
from dnnc.passes.constants import constant_op, erase_dead_sources
from dnnc.target.kernel_calls import pinned_to_reference
from dnnc.target.kernel_table import Probe, is_fallback

When = Literal["fallback", "always", "never"]


@dataclass
class DenseAsInnerProduct(RewritePattern):
    """The rule of the module docstring."""

    when: When
    probe: Probe = field(default_factory=Probe)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MatmulOp, rewriter: PatternRewriter, /) -> None:
        weights = op.rhs.owner
        if (
            len(shape_of(op.lhs)) != 2
            or len(shape_of(op.rhs)) != 2
            or not isinstance(weights, ConstantOp | WeightOp)
            or pinned_to_reference(op)
        ):
            return  # not a dense layer over constant weights
        if shapes.DYNAMIC in shape_of(op.lhs):
            return  # decided per input shape, once dnnc.driver.dynamic has specialized it
        k, n = shape_of(op.rhs)
        if op.bias is not None and shape_of(op.bias) not in ((n,), (1, n)):
            return  # a bias varying along the rows: not an inner product's
        probing = self.when == "fallback"
        as_matmul = self.probe.implementation(op, {"weights": None}) if probing else None
        if probing and as_matmul is not None and not is_fallback(as_matmul):
            remark(op, f"matmul kept: oneDNN runs it with {as_matmul}")
            return  # a real matmul kernel: nothing to gain (and no weights transposed)
        rows = transposed(source_value(weights), (1, 0))
        element = tensor_type(op.rhs).get_element_type()
        added: list[Operation] = [constant_op(rows, TensorType(element, [n, k]), weights)]
        bias = op.bias
        if bias is not None and shape_of(bias) != (n,):
            added.append(ReshapeOp(bias, [n]))
            bias = added[-1].results[0]
        dense = InnerProductOp(
            op.lhs,
            added[0].results[0],
            bias,
            post_ops=op.post_op_chain,
            post_args=op.post_args,
            result_type=tensor_type(op.result),
        )
        dense.location = op.location
        if probing:
            as_dense = self.probe.implementation(dense, {"weights": None})
            found = f"oneDNN runs it as matmul with {as_matmul}, as inner product with {as_dense}"
            if as_dense is None or is_fallback(as_dense):
                remark(op, f"matmul kept: {found}")
                return  # no better as an inner product
            remark(op, f"inner product taken: {found}")
        dense.results[0].name_hint = op.result.name_hint
        rewriter.insert(added, InsertPoint.before(op))
        rewriter.replace(op, dense)
        erase_dead_sources(rewriter, [weights.results[0]])


@dataclass(frozen=True)
class DenseAsInnerProductPass(ModulePass):
    """Run dense layers as inner products where matmul falls back (module docstring)."""

    name = "dnn-dense-as-inner-product"

    when: When = "fallback"
    """``fallback``, ``always`` or ``never`` (module docstring)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.when == "never":
            return
        walker = PatternRewriteWalker(DenseAsInnerProduct(self.when), apply_recursively=False)
        walker.rewrite_module(op)
