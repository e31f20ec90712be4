"""dnn-guard-special-values: decide which inputs the executable checks for NaN, infinities
and subnormals: those from which such a value can reach a kernel that drops it.

Rule: a forward dataflow analysis over each function. A floating-point input may hold every
special value (`Special`); each value of the function carries, per (input, kind the input
holds), the kinds it may then hold:
  - a value that is not floating point (comparisons, IsNaN / IsInf, logic, indices) holds
    none: the special values stop there;
  - reshape, transpose, slice, concat, gather(s), expand and reorder move values: the
    kinds of their floating-point operands, unchanged;
  - %y = dnn.where %c, %a, %b keeps of each branch the kinds %c does not rule out where it
    takes that branch: %c = dnn.compare ne %x, %x (IsNaN) is true exactly where %x is NaN, so
    dnn.where %c, %zero, %x holds no NaN from %x; a comparison of %x with a constant
    (IsInf's, `x > 0`) rules out each of NaN, +inf and -inf that it decides; and / or / not
    combine the conditions;
  - dnn.eltwise clip keeps NaN, and an infinity only where that bound is infinite;
  - anything else may turn NaN or an infinity of an operand into any kind (inf - inf = NaN,
    inf * 0 = NaN), a subnormal into any finite number, subnormals included.
A kernel that drops special values (dnnc.target.special_values: the op's oneDNN kernel or a
fused post-op, which reads the op's result) guards each input whose kinds reach it as one it
mishandles. Where the analysis is unsure, a value propagates: what it cannot match keeps
every kind. It follows what the inputs hold, not values computed from finite ones (an
overflow to inf) nor constants.

Post: each function carries ``dnn.special_value_guards``, per argument a dictionary from the
kinds to check to why (the first kernel they reach); convert-dnn-to-onednn carries it to the
executor, which refuses an input holding one of them (dnnc.runtime.io_binding.check_special).
A remark per guarded (input, kind) says what reaches which kernel; one per floating-point
input that needs no check says so.
Pre:  every kernel decided (dnn-to-onednn runs it after dnn-select-kernels and
      dnn-insert-data-transforms).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import AnyFloat, ArrayAttr, DictionaryAttr, ModuleOp, StringAttr
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass

from dnnc.core.diagnostics import location_of, remark
from dnnc.core.kinds import CompareAlg, EltwiseAlg, LogicalAlg
from dnnc.dialects.dnn import (
    CompareOp,
    ConcatOp,
    ConstantOp,
    DnnOp,
    EltwiseOp,
    ExpandOp,
    GatherElementsOp,
    GatherNDOp,
    GatherOp,
    LogicalOp,
    ReorderOp,
    ReshapeOp,
    SliceOp,
    TransposeOp,
    WhereOp,
)
from dnnc.dialects.dnn.base import tensor_type
from dnnc.ir.decisions import SPECIAL_VALUE_GUARDS
from dnnc.ir.names import input_name
from dnnc.ir.values import attribute_value
from dnnc.ir.weights import constant_value
from dnnc.passes.functions import dnn_functions
from dnnc.target.kernel_calls import kernel_call, params_of
from dnnc.target.special_values import ANY_SPECIAL, Masking, Special, kernel_masks, post_op_masks

Origin = tuple[int, Special]
"""An input (argument index) and a kind of special value it may hold."""
Flow = dict[Origin, frozenset[Special]]
"""Per origin, the kinds a value may hold because of it."""

MOVES: tuple[type[DnnOp], ...] = (ReshapeOp, TransposeOp, SliceOp, ConcatOp, GatherOp)
MOVES += (GatherElementsOp, GatherNDOp, ExpandOp, ReorderOp)
"""Ops whose result holds only values of their operands."""

_FINITE = frozenset({Special.SUBNORMAL})
"""The kinds that are finite numbers: arithmetic on them gives finite numbers (overflow aside,
which the analysis does not follow for any input)."""

_VALUES = {Special.NAN: np.nan, Special.POS_INF: np.inf, Special.NEG_INF: -np.inf}
"""The kinds that are one value each, so that a comparison with a constant decides them."""
_COMPARE = {
    CompareAlg.EQ: np.equal,
    CompareAlg.NE: np.not_equal,
    CompareAlg.LT: np.less,
    CompareAlg.LE: np.less_equal,
    CompareAlg.GT: np.greater,
    CompareAlg.GE: np.greater_equal,
}
_MIRRORED = {CompareAlg.LT: CompareAlg.GT, CompareAlg.LE: CompareAlg.GE}
_MIRRORED |= {b: a for a, b in _MIRRORED.items()} | {CompareAlg.EQ: CompareAlg.EQ}
_MIRRORED |= {CompareAlg.NE: CompareAlg.NE}
"""a <alg> b is b <mirrored alg> a."""


def _is_float(value: SSAValue) -> bool:
    return isinstance(tensor_type(value).get_element_type(), AnyFloat)


def _source(value: SSAValue) -> SSAValue:
    """`value` before any reorders (which change the layout, not the values)."""
    while isinstance(value.owner, ReorderOp):
        value = value.owner.src
    return value


def _merged(flows: Iterable[Flow]) -> Flow:
    merged: Flow = {}
    for flow in flows:
        for origin, kinds in flow.items():
            merged[origin] = merged.get(origin, frozenset()) | kinds
    return merged


def _ruled_out(condition: SSAValue, branch: SSAValue, when: bool) -> frozenset[Special]:
    """The kinds `branch` cannot hold at an element where `condition` is `when`."""
    owner = condition.owner
    if isinstance(owner, LogicalOp):
        if owner.alg.data is LogicalAlg.XOR and _all_true(owner.rhs):
            return _ruled_out(owner.lhs, branch, not when)  # Not lhs
        if owner.alg.data is LogicalAlg.XOR:
            return frozenset()
        left, right = (_ruled_out(v, branch, when) for v in (owner.lhs, owner.rhs))
        if (owner.alg.data is LogicalAlg.AND) == when:
            return left | right  # both conditions are `when` there
        return left & right  # one of them is
    if not isinstance(owner, CompareOp):
        return frozenset()
    lhs, rhs, alg = _source(owner.lhs), _source(owner.rhs), owner.alg.data
    target = _source(branch)
    if lhs == rhs == target:
        if alg not in (CompareAlg.EQ, CompareAlg.NE):
            return frozenset()
        holds_at_nan = alg is CompareAlg.NE  # x != x is true at NaN alone (IsNaN), x == x false
        return ANY_SPECIAL - {Special.NAN} if when == holds_at_nan else frozenset({Special.NAN})
    if rhs == target:
        lhs, rhs, alg = rhs, lhs, _MIRRORED[alg]
    if lhs != target or not isinstance(rhs.owner, ConstantOp):
        return frozenset()
    other = constant_value(rhs.owner).astype(np.float64)
    with np.errstate(invalid="ignore"):
        return frozenset(
            kind
            for kind, value in _VALUES.items()
            if not np.any(_COMPARE[alg](value, other) == when)
        )


def _all_true(value: SSAValue) -> bool:
    owner = value.owner
    return isinstance(owner, ConstantOp) and bool(np.all(constant_value(owner)))


@dataclass
class _Analysis:
    """One function's flows and guards (module docstring)."""

    flows: dict[SSAValue, Flow]
    guards: dict[Origin, str]

    def flow(self, value: SSAValue) -> Flow:
        return self.flows.get(value, {})

    def visit(self, op: DnnOp) -> None:
        self.check_kernel(op)
        for result in op.results:
            self.flows[result] = self.transfer(op) if _is_float(result) else {}

    def transfer(self, op: DnnOp) -> Flow:
        floats = [v for v in op.operands if _is_float(v)]
        if isinstance(op, MOVES):
            return _merged(self.flow(v) for v in floats)
        if isinstance(op, WhereOp):
            kept = []
            for branch, when in ((op.lhs, True), (op.rhs, False)):
                gone = _ruled_out(op.condition, branch, when)
                kept.append({o: k - gone for o, k in self.flow(branch).items() if k - gone})
            return _merged(kept)
        if isinstance(op, EltwiseOp) and op.alg.data is EltwiseAlg.CLIP:
            bounds = {Special.NEG_INF: op.alpha.value.data, Special.POS_INF: op.beta.value.data}
            gone = frozenset(k for k, bound in bounds.items() if np.isfinite(bound))
            return {o: k - gone for o, k in self.flow(op.src).items() if k - gone}
        return {
            origin: _FINITE if kinds <= _FINITE else ANY_SPECIAL
            for origin, kinds in _merged(self.flow(v) for v in floats).items()
        }

    def check_kernel(self, op: DnnOp) -> None:
        call = kernel_call(op)
        if call.reference:
            return  # the numpy kernels compute as ONNX does
        params = {name: attribute_value(a) for name, a in params_of(op, call).items()}
        own = kernel_masks(call.kind, params)
        if own is not None:
            self.reach(op, _merged(self.flow(v) for v in op.operands if _is_float(v)), own)
        fused = post_op_masks(params.get("post_ops", ()))
        if fused:
            result = self.transfer(op)  # what the post-ops read: the op's own result
            for masking in fused:
                self.reach(op, result, masking)

    def reach(self, op: DnnOp, flow: Flow, masking: Masking) -> None:
        for origin, kinds in sorted(flow.items()):
            dropped = [kind for kind in Special if kind in kinds & masking.kinds]
            if dropped and origin not in self.guards:
                self.guards[origin] = (
                    f"{dropped[0]} reaches {op.name} at {location_of(op)}, whose oneDNN "
                    f"kernel differs: {masking.how}"
                )


def guard_function(function: func.FuncOp) -> None:
    """Analyse `function` and write its guards (module docstring)."""
    args = function.body.block.args
    analysis = _Analysis(
        {a: {(a.index, k): frozenset({k}) for k in Special} if _is_float(a) else {} for a in args},
        {},
    )
    for op in function.body.block.ops:
        if isinstance(op, DnnOp):
            analysis.visit(op)
    per_argument = []
    for arg in args:
        guards = {
            kind: why
            for (index, kind), why in sorted(analysis.guards.items())
            if index == arg.index
        }
        for kind, why in guards.items():
            remark(function, f"input '{input_name(arg)}' guarded against {kind}: {why}")
        if _is_float(arg) and not guards:
            remark(
                function,
                f"input '{input_name(arg)}' unguarded: none of its special values reaches a "
                "kernel that drops it",
            )
        per_argument.append(DictionaryAttr({k: StringAttr(v) for k, v in guards.items()}))
    function.attributes[SPECIAL_VALUE_GUARDS] = ArrayAttr(per_argument)


@dataclass(frozen=True)
class GuardSpecialValuesPass(ModulePass):
    """Decide which inputs are checked for which special values (module docstring)."""

    name = "dnn-guard-special-values"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in dnn_functions(op):
            guard_function(function)
