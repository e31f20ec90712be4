"""Dynamic executables: a function with ``?`` dimensions, run with the shapes each call brings.

``dnnc.compile`` parses, verifies and optimizes a dynamic function once (passes that need a
size they cannot know leave the op alone) and returns a ``DynamicExecutable``. Its ``run``:
1. takes the input shapes as the signature (element types and ranks are checked first);
2. looks the signature up in the plan cache, an LRU bounded by entries and bytes;
3. on a miss takes a program template that admits the signature and instantiates it
   (dnnc.runtime.template: sizes evaluated, the arena planned, in plain Python), then binds
   it: an ``Executable`` that shares with every other plan the primitive cache
   (default_cache: only primitives of new sizes are created), one ``PackedConstants`` store
   (weights keep their memories across sizes: packed once) and one arena. No IR, no pass,
   no hashing per new signature;
4. runs that plan's Executable.

A template comes from one *trace*: the function specialized with its ``?`` input dimensions
as symbols (dnnc.core.symbols: ints whose value is this signature's and that carry their
expression), fused post-ops that no longer fit split off (``unfuse_invalid_post_ops``), the
optimization pipeline again on the now static function (the decisions that need sizes:
binary post-op fusion, kernel layouts, in-place results), the lowering, and the Program read
from it (Python's cyclic collector paused meanwhile: ``_collector_paused``). Every
comparison a size took part in during the trace is a guard: a template admits a signature
only if each guard evaluates as it did (a broadcast that stops fitting, a size that a
decision compared, a mask whose length differs from the sequence's). A
signature no template admits is traced again (``traces`` counts the pipeline runs); at most
``max_templates`` templates are kept. Decisions are thus taken once for every size the guards
admit: the kernel and weight layouts found for the traced sizes serve the others (oneDNN's
preferred weight layout does not move with the rows of a matmul), so weights are packed
once. Where they do not serve (oneDNN's choice of a convolution's weight layout may differ
between batches on AVX2, and a layout it did not choose can leave it only its reference
implementation, ``ref:any``, a thousand times slower): a trace also asks oneDNN with each symbol
at 1 (at 2 when traced at 1) and guards ``s == 1`` where the kind of kernel differs
(dnnc.target.kernel_table.Probe.primitive), and a new signature's plan that runs a
step on the reference implementation where the template's own plan did not is not used:
the signature is traced again (``kernel_traces``), so no size runs the reference kernel
where the sizes its template was traced at did not.

Why the pipeline runs on a specialization instead of the dynamic graph directly: oneDNN
cannot be asked for the preferred layout of a dynamic shape and a binary post-op's
broadcast class is unknown, so the dynamic graph is plain and less fused; traced, each plan
is the graph a static compile of those shapes makes as long as the guards hold (the same
primitives, so the same results bit for bit, once its matmuls have primitives of their own
rows: below).

With ``DynamicOptions.runtime_rows``, a new signature's plan runs each matmul whose rows vary
with the input sizes, where oneDNN can, on one primitive for every row count
(``DNNL_RUNTIME_DIM_VAL`` rows, plain weights: oneDNN 3.2's implementation of them is its jit
gemm) unless the cache holds one of its own rows: a new length creates no primitive for them.
oneDNN 3.2 takes run-time rows for matmul only, and refuses them in a binary post-op's
argument, so a matmul with a residual post-op [M, N] keeps a primitive per row count; one with
a bias [1, N] does not (in BERT-base, the Q/K/V and FFN-in projections: 2 of the 9 primitives
a new length creates). The gemm runs them 0-9% slower than primitives of their rows (those
projections at 24-200 rows, Zen 5, 1 thread), and the ``fixed_rows_after``-th repeat of a
signature rebuilds its plan (as a rebind does) on primitives of its own rows. Off by default:
measured on BERT-base-sized exports (bench/new_shape.py, 1 thread), it took a 1-layer
model's new length from 8.5 to 6.9 ms of CPU beyond its run, but made each run of the
12-layer model 3.7% slower (the 12 layers share the 2 primitives it saves, ~0.8 ms, and each
runs slower), so serving BERT-base costs more with it, even at each length's first call.

The arena grows only when the need of a new plan exceeds it, to that need or twice its
size, whichever is more (within ``max_arena_bytes``): a growing series of shapes (batch 1,
2, ... 16) then regrows it a logarithmic number of times. It never shrinks (so never below
the current plan's need). ``max_arena_bytes`` caps it: a plan that needs more is a
DnncError. A cached plan bound to an older arena is pointed at the current one on its next
use (``rebinds``: its memories' data handles and reference steps, no plan built again; it
kept the old buffer alive until then). A plan's
bytes, which the cache bounds, are its scratchpad and its primitives. The arena and the
constants are shared and reported apart (``stats``).

Threads: a lock guards the plan cache (lookup, building, arena growth); runs go on
concurrently. The plans' first execution contexts share the one arena, leased to one run at a
time (``arena_lock``): a run that finds it leased takes a context with an arena of its own
(Executable's pool), so concurrent callers get right results without waiting for each other.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import gc
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.passes import ModulePass

from dnnc.core import shapes
from dnnc.core.diagnostics import DnncError
from dnnc.core.symbols import SymbolicInt, tracing
from dnnc.dialects.dnn import ConstantOp, shape_of, symbolic
from dnnc.dialects.dnn.base import tensor_type
from dnnc.dialects.types import data_type_of
from dnnc.driver.pipelines import run_passes, verify_each_pass
from dnnc.ir.names import input_names, output_names
from dnnc.ir.text import make_context
from dnnc.lowering.specialize import specialize, unfuse_invalid_post_ops
from dnnc.runtime.cache import PrimitiveCache, default_cache, primitive_bytes
from dnnc.runtime.constants import PackedConstants
from dnnc.runtime.executor import Executable, ShippedByRecipe
from dnnc.runtime.io_binding import (
    TensorSpec,
    call_signature,
    check_special,
    chosen_outputs,
    input_error,
    ordered_inputs,
)
from dnnc.runtime.lowered import DIGEST_BYTES, SharedPayloads, program_of
from dnnc.runtime.plan import PlanMemo, PrimitiveStep, aligned_bytes, check_fits
from dnnc.runtime.program import Constant, Program
from dnnc.runtime.report import MemoryReport, StepTime
from dnnc.runtime.template import ProgramTemplate, Signature, Sized


@dataclass(frozen=True)
class DynamicOptions:
    """Bounds of a DynamicExecutable's plan cache and arena."""

    max_plans: int = 256
    """Plans (one per input signature) kept at most. A plan holds a scratchpad and its
    primitives (the weights and the arena are shared), so ``max_plan_bytes`` is the bound
    that matters; this one only caps the bookkeeping."""
    max_plan_bytes: int = 256 << 20
    """Bytes the kept plans hold at most: their scratchpads and primitives (``_Plan.bytes``)."""
    max_templates: int = 16
    """Templates (one per trace: a pipeline run) kept at most; for a
    ShapeSpecializedExecutable, compiled models (each with its own weights)."""
    max_arena_bytes: int | None = None
    """The largest arena a signature may need (None: no cap)."""
    runtime_rows: bool = False
    """Whether a new signature's plan runs the matmuls whose rows vary with the input sizes,
    where oneDNN can, on one primitive for every row count (Executable's ``runtime_rows``):
    it creates none for them, but runs them slower (module docstring). False: a primitive
    per row count, as a static compile has."""
    fixed_rows_after: int = 8
    """With ``runtime_rows``, how many runs of a signature such a plan serves: the next
    rebuilds it (as after an arena growth) on primitives of its own row counts."""

    def __post_init__(self) -> None:
        if self.max_plans < 1 or self.max_templates < 1 or self.max_plan_bytes < 0:
            raise DnncError(
                f"dynamic options: max_plans and max_templates must be >= 1 and "
                f"max_plan_bytes >= 0, got {self.max_plans}, {self.max_templates} and "
                f"{self.max_plan_bytes}"
            )
        if self.fixed_rows_after < 1:
            raise DnncError(
                f"dynamic options: fixed_rows_after must be >= 1, got {self.fixed_rows_after}"
            )
        if self.max_arena_bytes is not None and self.max_arena_bytes < 0:
            raise DnncError(
                f"dynamic options: max_arena_bytes must be >= 0, got {self.max_arena_bytes}"
            )


@dataclass(frozen=True)
class DynamicStats:
    """Counters and sizes of a DynamicExecutable, as read at one moment."""

    hits: int
    misses: int
    """Plans built (a template instantiated and bound): one per new or evicted signature."""
    traces: int
    """Pipeline runs (specialize, optimize, lower): one per template (module docstring)."""
    miss_seconds: float
    """Time spent building plans, traces included."""
    trace_seconds: float
    """The part of ``miss_seconds`` spent tracing (the pipeline runs)."""
    trace_cpu_seconds: float
    """The CPU time of the calling thread in those traces (a loaded machine stretches
    ``trace_seconds``, not this)."""
    evictions: int
    rebinds: int
    """Executables of kept plans pointed at the arena after it grew (``Executable.rebase``:
    their memories' data handles; no plan is built again)."""
    kernel_traces: int
    """Of ``traces``, those of a signature whose plan from a kept template ran a step on
    oneDNN's reference implementation where the template's own plan did not (module
    docstring)."""
    unfused: int
    """Anchors whose post-op chain was split, over every plan built."""
    fixed_rows: int
    """Plans rebuilt on primitives of their own row counts (``fixed_rows_after``)."""
    runtime_rows_steps: int
    """Steps of the cached plans on primitives that take their rows when they run."""
    plans: int
    plan_bytes: int
    arena_bytes: int
    constant_entries: int
    constant_bytes: int
    constant_packs: int
    constant_memories: int
    """oneDNN memory objects over the constants, shared by every plan (PackedConstants.memory):
    a new signature makes one only for a constant in a descriptor no plan bound before."""
    hashed: int
    """SHA-256 digests of large constants computed: none for the weights every trace shares
    (dnnc.runtime.lowered.SharedPayloads), one per trace for a large constant it folded."""

    @property
    def seconds_per_miss(self) -> float:
        """The mean time a new signature cost before its run (0 before the first)."""
        return self.miss_seconds / self.misses if self.misses else 0.0

    @property
    def seconds_per_instance(self) -> float:
        """The mean time a new signature cost besides tracing: a template instantiated and
        bound (0 before the first miss)."""
        return (self.miss_seconds - self.trace_seconds) / self.misses if self.misses else 0.0


@dataclass
class _Plan:
    """One signature's Executable, and how to make its Program again (``Plan.recall``)."""

    remake: Callable[[], Program]
    executable: Executable
    bytes: int
    """What it holds besides the shared arena and constants (``_held_bytes``)."""
    memo: PlanMemo
    """Its template's (``ProgramTemplate.memo``), for a rebuild (``fixed_rows_after``)."""
    sized: tuple[np.ndarray, ...] = ()
    """The arrays computed from the input sizes that the Program takes after the inputs
    (dnnc.frontend.onnx.sized: position ids, masks built from the sizes)."""
    runs: int = 0
    """Runs served since its Executable was built with run-time rows (``fixed_rows_after``)."""


class DynamicExecutable(ShippedByRecipe):
    """A dynamic function ready to run with any valid input shapes (module docstring)."""

    smallest_size = 1
    """The smallest input size a trace takes (dnnc's own IR has no zero-sized tensors)."""

    def __init__(
        self,
        function: func.FuncOp,
        passes: Sequence[ModulePass],
        lowering: Sequence[ModulePass],
        *,
        weights_dir: str | None = None,
        options: DynamicOptions | None = None,
        cache: PrimitiveCache | None = None,
    ) -> None:
        self._function = function
        self._passes = (*passes, *lowering)
        self._weights_dir = weights_dir
        self._context = make_context()
        args = function.body.block.args
        declared = symbolic.declared_arguments(function)
        self._shape_functions = tuple(symbolic.shape_functions(function).values())
        """The host shape functions of the arguments after the caller's (their order)."""
        inputs = tuple(
            TensorSpec(n, shape_of(a), data_type_of(tensor_type(a).get_element_type()).numpy)
            for n, a in zip(input_names(function), args, strict=True)
            if a.index in declared
        )
        outputs = []
        for name, t in zip(
            output_names(function), function.function_type.outputs.data, strict=True
        ):
            assert isinstance(t, TensorType)  # a verified dnn function returns tensors
            dims = tuple(max(d, -1) for d in t.get_shape())
            outputs.append(TensorSpec(name, dims, data_type_of(t.get_element_type()).numpy))
        payloads = (op.value.data.data for op in function.walk() if isinstance(op, ConstantOp))
        self._setup(function.sym_name.data, inputs, tuple(outputs), options, cache, payloads)

    def _setup(
        self,
        name: str,
        inputs: tuple[TensorSpec, ...],
        outputs: tuple[TensorSpec, ...],
        options: DynamicOptions | None,
        cache: PrimitiveCache | None,
        payloads: Iterable[bytes],
    ) -> None:
        """The state every dynamic executable has, whatever it traces; ``payloads``: the
        constants' bytes every trace shares (keyed without hashing: ``SharedPayloads``)."""
        self.name = name
        self.options = options or DynamicOptions()
        self._cache = cache or default_cache()
        self._constants = PackedConstants()
        self._arena = aligned_bytes(0)
        self._arena_lock = threading.Lock()
        """Leases the shared arena to one run at a time (module docstring)."""
        self._lock = threading.Lock()
        self._plans: OrderedDict[Signature, _Plan] = OrderedDict()
        self._templates: list[ProgramTemplate] = []
        """Most recently used first."""
        self._plan_bytes = 0
        self._hits = self._misses = self._evictions = self._rebinds = self._unfused = 0
        self._fixed = 0
        self._traces = self._kernel_traces = 0
        self._miss_seconds = self._trace_seconds = self._trace_cpu_seconds = 0.0
        self._shared = SharedPayloads(p for p in payloads if len(p) > DIGEST_BYTES)
        self._sources: dict[tuple[object, ...], Constant] = {}
        """Every trace's constants by key, the first trace's source kept (_trace)."""
        self.inputs = inputs
        """The inputs as declared, ``?`` dimensions as -1 (as Executable.inputs)."""
        self.outputs = outputs
        """The results as declared, ``?`` dimensions as -1 (as Executable.outputs)."""
        self.input_names = tuple(spec.name for spec in inputs)
        self._dtypes = tuple(spec.dtype for spec in inputs)
        self._declared = tuple(spec.shape for spec in inputs)
        self._ranks = tuple(map(len, self._declared))

    @property
    def function(self) -> func.FuncOp:
        """The dynamic function each trace specializes (dnnc.driver.saved_dynamic saves it)."""
        return self._function

    @property
    def weights_dir(self) -> str | None:
        """The directory its dnn.weight files are relative to."""
        return self._weights_dir

    def signature(self) -> str:
        """``@name(x: float32[?, 3, ?, ?])``: the inputs as declared."""
        return call_signature(self.name, self.inputs)

    def run(
        self,
        inputs: Mapping[str, object] | Sequence[object],
        *,
        as_dict: bool = False,
        output_names: Sequence[str] | None = None,
        poison_freed: bool = False,
        out: Sequence[np.ndarray] | None = None,
    ) -> list[np.ndarray] | dict[str, np.ndarray]:
        """The outputs for ``inputs`` (by name or in order), as ``Executable.run`` (``out``
        too: arrays of the output shapes of this plan). The
        inputs are checked once, here: element types and ranks, and the plan of their
        shapes takes exactly those shapes."""
        arrays = self._checked_inputs(inputs)
        chosen_outputs(self.outputs, output_names)  # a wrong name fails before any plan
        with self._lock:  # the plan cache; the run itself goes on outside it
            executable, sized = self._bound(tuple(a.shape for a in arrays))
        return executable.run_checked(
            [*arrays, *sized],
            as_dict=as_dict,
            output_names=output_names,
            poison_freed=poison_freed,
            made=len(sized),
            out=out,
        )

    def profile(
        self,
        inputs: Mapping[str, object] | Sequence[object],
        repeats: int = 10,
        *,
        alone: bool = False,
    ) -> list[StepTime]:
        """The step times of the plan of these inputs' shapes (as ``Executable.profile``)."""
        arrays = self._checked_inputs(inputs)
        with self._lock:
            executable, sized = self._bound(tuple(a.shape for a in arrays))
        return executable.profile([*arrays, *sized], repeats, alone=alone)

    def _checked_inputs(self, inputs: Mapping[str, object] | Sequence[object]) -> list[np.ndarray]:
        """The inputs in order, each of its declared element type and rank."""
        arrays = ordered_inputs(inputs, self.input_names, self.signature)
        for name, dtype, rank, array in zip(self.input_names, self._dtypes, self._ranks, arrays):
            if array.dtype != dtype or array.ndim != rank:
                raise input_error(name, array, self.signature())
        return arrays

    def plan_for(self, signature: Signature) -> Executable:
        """The Executable for these input shapes: the cached plan's, else a new plan's (made
        under the plan cache's lock, as ``run`` makes one: a generation session's thread and a
        caller's may ask at once)."""
        with self._lock:
            return self._bound(signature)[0]

    def sized_inputs(self, signature: Signature) -> dict[str, np.ndarray]:
        """The inputs the plan of ``signature`` takes after the declared ones, by name: data
        computed from the input sizes (``_Plan.sized``; none for a dnn function)."""
        with self._lock:
            executable, sized = self._bound(signature)
        names = [spec.name for spec in executable.inputs[len(self.inputs) :]]
        return dict(zip(names, sized, strict=True))

    def _bound(self, signature: Signature) -> tuple[Executable, tuple[np.ndarray, ...]]:
        """The plan's Executable and the arrays it takes after the inputs (``_Plan``)."""
        plan = self._plans.get(signature)
        if plan is None:
            self._misses += 1
            start = time.perf_counter()
            template = self._template_for(signature)
            remake = functools.partial(template.instantiate, signature)
            built = self._executable(remake(), remake, template.memo)
            reference = built.plan.reference_steps()
            if template.reference_steps is None:  # its trace's own signature
                assert self._templates[0] is template  # _template_for keeps it first
                self._templates[0] = dataclasses.replace(template, reference_steps=reference)
            elif not reference <= template.reference_steps:
                self._kernel_traces += 1
                template = self._new_template(signature)
                remake = functools.partial(template.instantiate, signature)
                built = self._executable(remake(), remake, template.memo)
                self._templates[0] = dataclasses.replace(
                    template, reference_steps=built.plan.reference_steps()
                )
            values = template.values(signature)
            sized = tuple(np.ascontiguousarray(compute(values)) for compute in template.sized)
            given = len(built.inputs) - len(sized)
            check_special(built.inputs[given:], sized, built.guards[given:])  # once (run)
            plan = _Plan(remake, built, _held_bytes(built), template.memo, sized)
            self._miss_seconds += time.perf_counter() - start
            self._plans[signature] = plan
            self._plan_bytes += plan.bytes
        else:
            self._hits += 1
            self._plans.move_to_end(signature)
            if plan.executable.arena is not self._arena:  # bound before the arena grew
                self._rebinds += 1
                with self._arena_lock:  # no run is under way in the shared arena
                    plan.executable.rebase(self._arena)
            if plan.runs >= 0 and plan.executable.plan.runtime_rows_steps:
                plan.runs += 1
                if plan.runs >= self.options.fixed_rows_after:
                    self._fixed += 1
                    plan.executable = self._executable(
                        plan.remake(), plan.remake, plan.memo, fixed=True
                    )
                    plan.runs = -1  # fixed for good
                    held = _held_bytes(plan.executable)
                    self._plan_bytes += held - plan.bytes
                    plan.bytes = held
        self._evict()
        return plan.executable, plan.sized

    def _template_for(self, signature: Signature) -> ProgramTemplate:
        """The most recently used template that admits ``signature``, else a new trace's."""
        fits = all(
            size >= self.smallest_size and declared in (size, shapes.DYNAMIC)
            for shape, declared_shape in zip(signature, self._declared, strict=True)
            for size, declared in zip(shape, declared_shape, strict=True)
        )
        if not fits:
            self._refuse(signature)
        for index, template in enumerate(self._templates):
            if template.admits(signature):
                self._templates.insert(0, self._templates.pop(index))
                return self._checked(template, signature)
        return self._new_template(signature)

    def _new_template(self, signature: Signature) -> ProgramTemplate:
        """A trace's template of ``signature``, kept first (the most recently used)."""
        template = self._trace(signature)
        self._templates.insert(0, template)
        del self._templates[self.options.max_templates :]
        return template

    def _trace(self, signature: Signature) -> ProgramTemplate:
        """Specialize to symbolic sizes, unfuse, optimize, lower and read the Program, with
        every size comparison recorded as a guard (module docstring)."""
        symbols: list[tuple[int, int]] = []
        sizes: list[tuple[int, ...]] = []
        for index, shape in enumerate(signature):
            dims: list[int] = []
            for dim, (declared, size) in enumerate(zip(self._declared[index], shape, strict=True)):
                if declared == shapes.DYNAMIC:
                    dims.append(SymbolicInt.symbol(len(symbols), size))
                    symbols.append((index, dim))
                else:
                    dims.append(size)
            sizes.append(tuple(dims))
        start, cpu = time.perf_counter(), time.thread_time()
        with _collector_paused(), tracing(self._smallest(signature)) as guards:
            program, sized = self._lower(sizes)
        self._traces += 1
        self._trace_seconds += time.perf_counter() - start
        self._trace_cpu_seconds += time.thread_time() - cpu
        # the constants of a later trace load from the first trace's sources: the IR of a
        # trace is then dropped with its template, not kept for its copy of every weight
        sources = tuple(self._sources.setdefault(c.key, c) for c in program.constants)
        program = dataclasses.replace(program, constants=sources)
        return ProgramTemplate.of(program, symbols, list(guards.values()), sized)

    def _smallest(self, signature: Signature) -> int:
        """The least value a symbol of a signature the trace of ``signature`` admits can
        have: the comparisons that come out the same for every such value record no guard
        (dnnc.core.symbols.tracing). ``_template_for`` admits no size below smallest_size."""
        return self.smallest_size

    def _lower(self, sizes: Sequence[tuple[int, ...]]) -> tuple[Program, tuple[Sized, ...]]:
        """The Program of the function specialized to ``sizes`` (symbolic where ``?``), and
        how to compute each input it takes after the declared ones: its arguments' host
        shape functions (``dnn.shape_function``, dnnc.dialects.dnn.symbolic)."""
        function = specialize(self._function, sizes)
        self._unfused += len(unfuse_invalid_post_ops(function))
        module = ModuleOp([function])
        run_passes(self._context, module, self._passes, verify_each=verify_each_pass())
        lowered = module.body.block.first_op
        assert isinstance(lowered, func.FuncOp)  # the lowering keeps the one function
        sized = tuple(map(symbolic.shape_function_compute, self._shape_functions))
        return program_of(lowered, self._weights_dir, shared=self._shared), sized

    def _refuse(self, signature: Signature) -> None:
        """Raise the error of a signature whose sizes break the declared ones."""
        specialize(self._function, signature)

    def _checked(self, template: ProgramTemplate, signature: Signature) -> ProgramTemplate:
        """The template to serve ``signature`` with (a subclass may check it first)."""
        return template

    def _executable(
        self,
        program: Program,
        remake: Callable[[], Program],
        memo: PlanMemo | None,
        fixed: bool = False,
    ) -> Executable:
        """An Executable of a lowered plan in the shared arena, grown first if too small;
        ``remake`` gives ``program`` again (the Executable does not keep it: ``Plan.recall``);
        ``memo``: what the plans of its template's instances share (``ProgramTemplate.memo``);
        ``fixed``: every matmul on a primitive of its own rows (``fixed_rows_after``)."""
        size = program.arena_bytes
        cap = self.options.max_arena_bytes
        if cap is not None and size > cap:
            raise program.error(
                f"needs an arena of {size} bytes for these input shapes, more than "
                f"max_arena_bytes={cap}"
            )
        if size > self._arena.nbytes:
            check_fits(f"@{self.name} for these input shapes", {"arena": size})
            doubled = 2 * self._arena.nbytes  # fewer growths, so fewer rebinds (docstring)
            self._arena = aligned_bytes(max(size, min(doubled, cap or doubled)))
        return Executable(
            program,
            cache=self._cache,
            arena=self._arena,
            arena_lock=self._arena_lock,
            constants=self._constants,
            runtime_rows=self.options.runtime_rows and not fixed,
            remake=remake,
            memo=memo,
        )

    def _evict(self) -> None:
        while len(self._plans) > self.options.max_plans or (
            self._plan_bytes > self.options.max_plan_bytes and self._plans
        ):
            _, plan = self._plans.popitem(last=False)
            self._plan_bytes -= plan.bytes
            self._evictions += 1

    def memory_report(self) -> MemoryReport:
        """Bytes held now besides the caller's arrays: the shared arena, every cached plan's
        scratchpad and the shared constants; planned and lower-bound bytes are the largest of
        the cached plans' (what the arena must hold)."""
        with self._lock:
            reports = [p.executable.memory_report() for p in self._plans.values()]
            return MemoryReport(
                planned_bytes=max((r.planned_bytes for r in reports), default=0),
                lower_bound_bytes=max((r.lower_bound_bytes for r in reports), default=0),
                arena_bytes=self._arena.nbytes,
                scratchpad_bytes=sum(r.scratchpad_bytes for r in reports),
                constant_bytes=self._constants.bytes,
            )

    def stats(self) -> DynamicStats:
        """The counters and sizes now."""
        return DynamicStats(
            hits=self._hits,
            misses=self._misses,
            traces=self._traces,
            miss_seconds=self._miss_seconds,
            trace_seconds=self._trace_seconds,
            trace_cpu_seconds=self._trace_cpu_seconds,
            evictions=self._evictions,
            rebinds=self._rebinds,
            kernel_traces=self._kernel_traces,
            unfused=self._unfused,
            fixed_rows=self._fixed,
            runtime_rows_steps=sum(
                p.executable.plan.runtime_rows_steps for p in self._plans.values()
            ),
            plans=len(self._plans),
            plan_bytes=self._plan_bytes,
            arena_bytes=self._arena.nbytes,
            constant_entries=self._constants.entries,
            constant_bytes=self._constants.bytes,
            constant_packs=self._constants.packs,
            constant_memories=self._constants.memories,
            hashed=self._shared.hashed,
        )


class _CollectorPause:
    """Python's cyclic garbage collector off while any trace runs, in any thread.

    A trace allocates some 50,000 objects that live until it ends (the specialized IR, its
    attributes and symbolic sizes), so the collections their allocation triggers find
    nearly nothing to free while each traverses the growing young generations. The pause
    is process-wide, so it nests: the first trace to start turns the collector off, the
    last to end turns it on again if it was on when the first started (a thread that turns
    the collector off meanwhile sees it back on after the last trace)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._depth = 0
        self._was_enabled = False

    @contextlib.contextmanager
    def __call__(self) -> Iterator[None]:
        with self._lock:
            if self._depth == 0:
                self._was_enabled = gc.isenabled()
                gc.disable()
            self._depth += 1
        try:
            yield
        finally:
            with self._lock:
                self._depth -= 1
                if self._depth == 0 and self._was_enabled:
                    gc.enable()


_collector_paused = _CollectorPause()


def _held_bytes(executable: Executable) -> int:
    """A plan's bytes: its scratchpad and its primitives (oneDNN's estimate, scratchpads
    included; a primitive other plans share is counted in each, an upper bound)."""
    steps = executable.plan.steps
    primitives = {id(s.primitive): s.primitive for s in steps if isinstance(s, PrimitiveStep)}
    return executable.plan.scratchpad_bytes + sum(map(primitive_bytes, primitives.values()))
