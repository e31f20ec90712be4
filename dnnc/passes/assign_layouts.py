"""dnn-assign-layouts: choose the layout each op reads its operands in, for the least cost.

Rule: %y = dnn.<op> %x, %w ...          [the op runs a kernel or is dnn.reshape]
      ==> %y = dnn.<op> %x, %w ... {dnn.operand_layouts = [#dnn.layout<nhwc>, #dnn.layout<Acdb64a>]}
      one entry per operand: the layout the op expects to read it in, plain ones included
      (``#dnn.layout<nchw>``; a rank-0 operand has ``#builtin.none``).
The decision only: dnn-insert-data-transforms materializes it (writes the layouts into the
tensor types and inserts the dnn.reorder ops), as Fluid's data transform does from the
"expected kernel type". In the dnn dialect an op writes its first operand's layout, so the
layout k an op runs in is that of its first operand, of its result (same rank) and of every
operand of the result's shape (residual adds, sum post-op arguments, concat inputs): the
"tied" operands. Weights of conv2d, matmul and inner_product take the layout oneDNN packs
them in for k (free at run time: the executor packs constants once); other operands (bias,
statistics, broadcast operands) are read plain.

Each op chooses among its candidates (``_Graph.__init__``): oneDNN's picks for the ops it
prefers a layout for, the layouts around them for layout-agnostic ops, plain for the rest;
function arguments and results stay plain (the caller's arrays).
``cost``: ``bytes`` the reorder traffic a choice implies, ``measured`` the time of the kernels
and reorders on this CPU (``_Graph.__init__`` and ``_measure``), ``auto`` measured under
``DNNC_TUNE=on``, else bytes. Reading a constant costs nothing either way; a remark on each op
whose measured choice is not oneDNN's own says what won and by how much.
``strategy``: ``global`` the least total cost (``_Graph.optimal``: dynamic programming, then
improvement sweeps), ``greedy`` each op its first candidate (oneDNN's pick; plain for
agnostic ops; never measured), ``plain`` no change.
Pre:  the IR verifies; dnn-select-kernels ran if the compute types differ from the operand
      types (dnn-assign-precision). Fusion ran before (post-op arguments need layouts too).
Post: every op that runs a kernel, and every dnn.reshape, has ``dnn.operand_layouts``; a remark
      per function gives the run-time reorders and bytes the choice implies (and, measured,
      the kernels' and reorders' time).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, NoneAttr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass

from dnnc.core.diagnostics import remark
from dnnc.core.layouts import Layout, plain_layout
from dnnc.core.shapes import same_shape
from dnnc.dialects.dnn import (
    CastOp,
    ConcatOp,
    ConstantOp,
    DnnOp,
    LayoutAttr,
    ReorderOp,
    ReshapeOp,
    WeightOp,
    layout_of,
)
from dnnc.dialects.dnn.base import tensor_type
from dnnc.ir.decisions import OPERAND_LAYOUTS
from dnnc.passes.data_transforms import moved_bytes
from dnnc.passes.functions import dnn_functions
from dnnc.target.kernel_table import (
    LayoutRule,
    Probe,
    is_fallback,
    layout_rule,
    roles_of,
    weight_indices,
)
from dnnc.target.timings import PrimitiveTimes, reorder_cost, tuning_enabled

Strategy = Literal["global", "greedy", "plain"]
Cost = Literal["auto", "measured", "bytes"]
_SWEEPS = 20


def _plain(value: SSAValue) -> Layout:
    return plain_layout(tensor_type(value).get_num_dims())


@dataclass
class _Node:
    """One op whose layout is decided: its candidates and, per candidate, weight layouts."""

    op: DnnOp
    candidates: list[Layout]
    tied: set[int]
    """Operand indices read in the op's layout."""
    weights: dict[Layout, dict[int, Layout]] = field(default_factory=dict)
    implementations: dict[Layout, str] = field(default_factory=dict)
    """oneDNN's implementation per candidate of a preferred op (``brgconv:avx512_core``)."""
    times: dict[Layout, float] = field(default_factory=dict)
    """Measured microseconds per candidate (cost=measured, ops with a choice only)."""

    @cached_property
    def roles(self) -> list[tuple[str, int]]:
        """roles_of(op), asked once (a kernel_call) for all the candidates tried."""
        return roles_of(self.op)

    def result_layout(self, k: Layout, value: SSAValue) -> Layout:
        """The layout the op writes `value` in when it runs in `k`."""
        return k if tensor_type(value).get_num_dims() == k.rank else _plain(value)

    def expected(self, k: Layout, index: int) -> Layout:
        """The layout the op reads operand `index` in when it runs in `k`."""
        if index in self.tied:
            return k
        return self.weights.get(k, {}).get(index) or _plain(self.op.operands[index])


class _Graph:
    """The decided ops of one function and the cost of an assignment (module docstring)."""

    def __init__(
        self, function: func.FuncOp, probe: Probe, times: PrimitiveTimes | None = None
    ) -> None:
        """The candidates of every op of `function` (kernel_table's layout rule):
        - PREFERRED ops run in a layout oneDNN picks with format ``any`` (its src or dst
          choice); measured (`times` given), an op on images or volumes is also a candidate
          in channels-last, 16- and 8-channel blocks and plain, where oneDNN runs it with a
          real kernel (``_preferred``, ``_adopt``);
        - AGNOSTIC ops in plain or any candidate layout of the same rank that oneDNN runs
          them in with a non-reference implementation;
        - PLAIN ops in plain.
        The cost model: with `times` (``cost=measured``), the time of every op in its layout
        plus that of the reorders between them, measured on this CPU (``_measure``), a
        reorder costing a time per step plus per byte (measured by each compile); without
        (``cost=bytes``, the analytic model; why measuring is opt-in: dnnc.target.timings), a
        value produced in layout a and read in layouts {b...} costs, per distinct b != a, the
        bytes of reading it in a plus writing it in b (padding included), and ops nothing."""
        self.function = function
        self.probe = probe
        self.measured = times is not None
        self.per_reorder, self.per_byte = reorder_cost() if times else (0.0, 1.0)
        """What a reorder costs: microseconds per step and per byte, or 0 and 1 (bytes)."""
        rules: dict[DnnOp, LayoutRule] = {}  # each op's asked once (a kernel_call each)
        preferred: dict[DnnOp, _Node] = {}
        for op in function.body.block.ops:
            if isinstance(op, DnnOp):
                rules[op] = layout_rule(op)
                if rules[op] is LayoutRule.PREFERRED:
                    preferred[op] = self._preferred(op)
        pool: dict[int, list[Layout]] = {}
        for node in preferred.values():
            for k in node.candidates:
                if k not in pool.setdefault(k.rank, []):
                    pool[k.rank].append(k)
        for node in preferred.values():
            self._adopt(node, pool)
        self.nodes: dict[Operation, _Node] = {}
        """In program order, which the DP needs (producers first)."""
        for op, rule in rules.items():
            if isinstance(op, ReorderOp | CastOp | ConstantOp | WeightOp):
                continue  # an explicit transform or a source: not a choice
            if op in preferred:
                self.nodes[op] = preferred[op]
            elif rule is LayoutRule.AGNOSTIC:
                self.nodes[op] = self._agnostic(op, pool)
            else:
                self.nodes[op] = _Node(op, [_plain(op.operands[0])], _tied(op))
        if times is not None:
            for node in self.nodes.values():
                self._measure(node, times)

    def _preferred(self, op: DnnOp) -> _Node:
        node = _Node(op, [], _tied(op))
        choice = self.probe.choose(op, {}, ("src", "weights", *self._dst_role(op))) or {}
        for k in [choice.get("src"), *[choice.get(r) for r in self._dst_role(op)]]:
            if k is not None and k.rank == _plain(op.operands[0]).rank:
                self._try(node, k)
        if self.measured:
            for k in _measured_candidates(_plain(op.operands[0]).rank):
                self._try(node, k)
        if not node.candidates:
            node.candidates.append(_plain(op.operands[0]))  # oneDNN chose nothing usable
        return node

    def _tied_layouts(self, node: _Node, k: Layout) -> dict[str, Layout]:
        """The layout of every tied role of `node`'s primitive (and dst) when it runs in `k`."""
        op = node.op
        return {r: k for r, i in node.roles if i in node.tied} | {r: k for r in self._dst_role(op)}

    def _layouts(self, node: _Node, k: Layout) -> dict[str, Layout | None]:
        """Every role's layout when `node` runs in `k`; weights as oneDNN packs them (None)."""
        layouts: dict[str, Layout | None] = dict(self._tied_layouts(node, k))
        if layout_rule(node.op) is LayoutRule.PREFERRED:
            layouts["weights"] = None
        return layouts

    def _measure(self, node: _Node, times: PrimitiveTimes) -> None:
        """Time `node`'s primitive in each of its candidates (nothing to compare for one, nor
        where every spatial extent is 1: the layouts then lay out the same bytes).
        dnnc.target.timings runs the primitive on zeroed buffers and keeps the least of a
        few runs, on disk per CPU, ISA and oneDNN version, so a second compile measures only
        primitives it has not seen."""
        shape = tensor_type(node.op.operands[0]).get_shape()
        if len(node.candidates) < 2 or all(extent == 1 for extent in shape[2:]):
            return
        for k in node.candidates:
            created = self.probe.primitive(node.op, self._layouts(node, k))
            if created is not None:
                node.times[k] = times.time(*created)

    def _adopt(self, node: _Node, pool: dict[int, list[Layout]]) -> None:
        """Where oneDNN runs a preferred op only on a fallback kernel (gemm or reference) in
        its candidates, try the layouts it picks for the other ops, and keep only those with
        a direct kernel if there are any: oneDNN's own pick for a convolution on 3 channels
        reads nchw and writes nChw16c, which one dnn layout cannot say, and the plain
        fallback runs gemm (13x slower than the direct kernel in nhwc with a fused clip:
        MobileNetV2's stem on AVX-512). Bytes alone cannot see that."""
        if any(not is_fallback(i) for i in node.implementations.values()):
            return  # a direct kernel already
        for k in pool.get(_plain(node.op.operands[0]).rank, []):
            self._try(node, k)
        direct = [
            k
            for k in node.candidates
            if k in node.implementations and not is_fallback(node.implementations[k])
        ]
        if direct:
            node.candidates = direct

    def _try(self, node: _Node, k: Layout) -> None:
        """Make `k` a candidate of `node` if oneDNN runs its op in `k`, weights packed as it
        likes, with a real (non-reference) kernel, or any kernel when it has no other."""
        if k in node.candidates:
            return
        op = node.op
        tied = self._tied_layouts(node, k)
        answer = self.probe.choose_with_implementation(op, tied, ("weights",))
        if answer is None:
            return  # oneDNN cannot run the op so
        packed, implementation = answer  # weights as oneDNN likes them
        weights = {
            i: packed["weights"] for i in weight_indices(op, node.roles) if packed["weights"]
        }
        if implementation.startswith("ref") and node.candidates:
            return  # only oneDNN's reference kernel: orders of magnitude slower
        node.candidates.append(k)
        node.weights[k] = weights
        node.implementations[k] = implementation

    def _agnostic(self, op: DnnOp, pool: dict[int, list[Layout]]) -> _Node:
        node = _Node(op, [_plain(op.operands[0])], _tied(op))
        tied_roles = [r for r, i in node.roles if i in node.tied] + self._dst_role(op)
        for k in pool.get(node.candidates[0].rank, []):
            implementation = self.probe.implementation(op, {r: k for r in tied_roles})
            if k not in node.candidates and implementation and not implementation.startswith("ref"):
                node.candidates.append(k)  # oneDNN runs it fast in k
        return node

    @staticmethod
    def _dst_role(op: DnnOp) -> list[str]:
        same = (
            tensor_type(op.results[0]).get_num_dims() == tensor_type(op.operands[0]).get_num_dims()
        )
        return ["dst"] if same else []

    # --- cost ---------------------------------------------------------------------------------

    def produced(self, value: SSAValue, choice: dict[Operation, Layout]) -> Layout | None:
        """The layout `value` is written in (None for a constant: any layout is free)."""
        owner = value.owner
        if isinstance(owner, ConstantOp | WeightOp):
            return None
        if isinstance(owner, Operation) and owner in self.nodes:
            return self.nodes[owner].result_layout(choice[owner], value)
        return layout_of(tensor_type(value))  # an argument or an explicit transform

    def readers(self, value: SSAValue, choice: dict[Operation, Layout]) -> Iterator[Layout]:
        """The layouts the users of `value` read it in."""
        for use in value.uses:
            user = use.operation
            if user in self.nodes:
                yield self.nodes[user].expected(choice[user], use.index)
            elif isinstance(user, func.ReturnOp):
                yield layout_of(self.function.function_type.outputs.data[use.index])
            else:
                yield layout_of(tensor_type(value))

    def value_cost(self, value: SSAValue, choice: dict[Operation, Layout]) -> tuple[int, int]:
        """(reorders, bytes) `value` needs: one reorder per distinct layout it is read in."""
        src = self.produced(value, choice)
        if src is None:
            return 0, 0  # constants are packed once, before the first run
        shape = tuple(tensor_type(value).get_shape())
        targets = {t for t in self.readers(value, choice) if not src.same_bytes(t, shape)}
        return len(targets), sum(moved_bytes(value, src, t) for t in targets)

    def values(self) -> Iterator[SSAValue]:
        yield from self.function.body.block.args
        for op in self.function.body.block.ops:
            yield from op.results

    def cost(self, choice: dict[Operation, Layout]) -> tuple[int, int]:
        costs = [self.value_cost(v, choice) for v in self.values()]
        return sum(c for c, _ in costs), sum(b for _, b in costs)

    def weigh(self, reorders: int, moved: int) -> float:
        """The cost of `reorders` steps moving `moved` bytes: bytes, or microseconds."""
        return reorders * self.per_reorder + moved * self.per_byte

    def transfer(self, value: SSAValue, src: Layout, dst: Layout) -> float:
        """The cost of reading `value`, written in `src`, in `dst`."""
        moved = moved_bytes(value, src, dst)
        return 0.0 if moved == 0 else self.weigh(1, moved)

    def op_cost(self, op: Operation, k: Layout) -> float:
        """Measured microseconds of `op` running in `k` (0 when not measured)."""
        return self.nodes[op].times.get(k, 0.0)

    def kernel_time(self, choice: dict[Operation, Layout]) -> float:
        return sum(self.op_cost(op, k) for op, k in choice.items())

    def local_cost(self, op: Operation, choice: dict[Operation, Layout]) -> float:
        """The cost of the values `op` reads or writes and of `op` itself (what its choice
        changes)."""
        values = {*op.operands, *op.results}
        return self.op_cost(op, choice[op]) + sum(
            self.weigh(*self.value_cost(v, choice)) for v in values
        )

    # --- strategies ---------------------------------------------------------------------------

    def greedy(self) -> dict[Operation, Layout]:
        return {op: node.candidates[0] for op, node in self.nodes.items()}

    def optimal(self) -> dict[Operation, Layout]:
        """The assignment of least total cost (``strategy=global``).

        Dynamic programming over the candidate layouts in program order: best[op][k] is the
        cheapest way to compute op's inputs given that op runs in k (``_inputs_cost``). The
        choices are then made backwards from the results, each op taking the layout that
        minimizes best plus the cost of its results' readers already decided. Exact on chains
        and trees; on DAGs (a value read twice) the DP counts a shared producer once per
        reader, so improvement sweeps follow: each op takes its best layout given its
        neighbours' (``local_cost``), until nothing changes or ``_SWEEPS`` ran."""
        best: dict[Operation, dict[Layout, float]] = {}
        for op, node in self.nodes.items():
            best[op] = {
                k: self.op_cost(op, k) + self._inputs_cost(node, k, best) for k in node.candidates
            }
        choice: dict[Operation, Layout] = {}
        for op in reversed(list(self.nodes)):  # readers are decided before their producers
            costs = {}
            for k in self.nodes[op].candidates:
                choice[op] = k
                costs[k] = best[op][k] + sum(
                    self.weigh(*self.value_cost(v, choice)) for v in op.results
                )
            choice[op] = min(costs, key=costs.__getitem__)
        for _ in range(_SWEEPS):
            changed = False
            for op, node in self.nodes.items():
                current = choice[op]
                costs = {}
                for k in node.candidates:
                    choice[op] = k
                    costs[k] = self.local_cost(op, choice)
                better = min(costs, key=costs.__getitem__)
                choice[op] = better if costs[better] < costs[current] else current
                changed |= choice[op] != current
            if not changed:
                break
        return choice

    def _inputs_cost(
        self, node: _Node, k: Layout, best: dict[Operation, dict[Layout, float]]
    ) -> float:
        """The cheapest cost of the ops producing `node`'s operands, `node` running in k."""
        total = 0.0
        for index, value in enumerate(node.op.operands):
            want, owner = node.expected(k, index), value.owner
            if isinstance(owner, ConstantOp | WeightOp):
                continue  # packed once
            if isinstance(owner, Operation) and owner in best:
                producer = self.nodes[owner]
                total += min(
                    cost + self.transfer(value, producer.result_layout(kp, value), want)
                    for kp, cost in best[owner].items()
                )
            else:
                total += self.transfer(value, layout_of(tensor_type(value)), want)
        return total

    def annotate(self, choice: dict[Operation, Layout]) -> None:
        for op, node in self.nodes.items():
            layouts: list[Attribute] = []
            for index in range(len(op.operands)):
                want = node.expected(choice[op], index)
                layouts.append(LayoutAttr(want) if want.rank else NoneAttr())  # rank 0: no layout
            op.attributes[OPERAND_LAYOUTS] = ArrayAttr(layouts)


def _measured_candidates(rank: int) -> list[Layout]:
    """The layouts the measured cost model also times a preferred op of `rank` in (images
    and volumes): channels last, 16- and 8-channel blocks, plain."""
    if rank not in (4, 5):
        return []
    plain = plain_layout(rank)
    channels_last = Layout((0, *range(2, rank), 1))
    return [channels_last, *(Layout(plain.order, ((1, size),)) for size in (16, 8)), plain]


def _tied(op: DnnOp) -> set[int]:
    """Operands read in the op's own layout: the first, concat inputs, and operands shaped
    like a result of the first operand's rank; never weights, never dnn.reshape's."""
    if isinstance(op, ReshapeOp):
        return set()  # reads plain, whatever its operand
    first = tensor_type(op.operands[0])
    result = tensor_type(op.results[0])
    weights = {op.operands[i] for i in weight_indices(op)}
    same_rank = result.get_num_dims() == first.get_num_dims()
    return {
        i
        for i, v in enumerate(op.operands)
        if i == 0
        or isinstance(op, ConcatOp)
        or (
            same_rank
            and v not in weights
            and same_shape(tensor_type(v).get_shape(), result.get_shape())
        )
    }


@dataclass(frozen=True)
class AssignLayoutsPass(ModulePass):
    """Choose the layout each op reads its operands in (module docstring)."""

    name = "dnn-assign-layouts"

    strategy: Strategy = "global"
    """``global`` (least cost), ``greedy`` (each op its own pick) or ``plain``."""

    cost: Cost = "auto"
    """``measured`` (kernel and reorder times on this CPU), ``bytes`` (reorder traffic) or
    ``auto``: measured if ``DNNC_TUNE=on``, else bytes."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.strategy == "plain":
            return  # no change: every value stays in the layout its type has
        measured = self.cost == "measured" or (self.cost == "auto" and tuning_enabled())
        times = PrimitiveTimes() if measured and self.strategy == "global" else None
        probe = Probe()
        for function in dnn_functions(op):
            graph = _Graph(function, probe, times)
            choice = graph.optimal() if self.strategy == "global" else graph.greedy()
            graph.annotate(choice)
            count, moved = graph.cost(choice)
            message = f"{self.strategy}: {count} run-time reorders moving {moved} bytes"
            if times is not None:
                _remark_measured(graph, choice)
                message += (
                    f"; measured: kernels {graph.kernel_time(choice):.0f} us, reorders "
                    f"{graph.weigh(count, moved):.0f} us"
                )
            elif self.strategy == "global":
                message += f" (greedy: {graph.cost(graph.greedy())[1]} bytes)"
            remark(function, message)
        if times is not None:
            times.save()


def _remark_measured(graph: _Graph, choice: dict[Operation, Layout]) -> None:
    """Where the measured choice of a preferred op is not oneDNN's pick, say what won and by
    how much."""
    for op, node in graph.nodes.items():
        first, chosen = node.candidates[0], choice[op]
        if chosen == first or not {first, chosen} <= node.times.keys() & node.implementations:
            continue
        remark(
            op,
            f"runs in {chosen.name} ({node.implementations.get(chosen, 'its kernel')}, "
            f"{node.times[chosen]:.1f} us) rather than {first.name} "
            f"({node.implementations.get(first, 'its kernel')}, {node.times[first]:.1f} us)",
        )
