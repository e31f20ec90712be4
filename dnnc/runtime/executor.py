"""The executor: a lowered (``onednn`` dialect) function made runnable, built once.

An ``Executable`` is built from the function's `Program` (dnnc.runtime.program: the lowered
function as plain data; dnnc.runtime.lowered reads it from the IR, dnnc.driver.saved from
disk). It holds the `Plan` (dnnc.runtime.plan: primitives, packed constants,
where every byte is), shared read-only by every run, and a pool of `ExecutionContext`s
(dnnc.runtime.context: arena, scratchpad, stream, bound steps), one per run under way. ``run``
takes an idle context from the pool (a new one when every context is busy: the pool holds as
many as ever ran at once), so any number of threads may call ``run`` on one Executable and each
gets its own bytes. The first context is made at build time, so a single caller never
allocates one in ``run``.

``run`` validates the inputs against the signature (dnnc.runtime.io_binding) and refuses an
input holding a special value that the compiler found can reach a oneDNN kernel dropping it
(the Program's ``guards``, from dnn-guard-special-values), naming that kernel and the pipeline
that computes them as ONNX does (rather than return a silently wrong answer); it then binds
the caller's
arrays zero copy, allocates and binds the output arrays, calls the steps in order on the
context's stream, waits, and returns the outputs. Inputs are never written (the lowering
guarantees it and onednn-verify-buffers checks it). Options: ``poison_freed`` fills the bytes
of every arena value with 0xFF (NaN in every float type) once its last use is over, so that a
wrong reuse shows; ``profile`` times each step (under the thread count a run gives it:
dnnc.runtime.context).

Sharing (dnnc.driver.dynamic builds one Executable per input shape): ``arena`` runs the
first context in a caller's buffer (at least ``onednn.arena_bytes``) instead of a new one,
shared with other Executables under ``arena_lock``: the first context is taken only when that
lock is free (held until the run ends), any other run takes a context of its own, and
``constants`` is a ``PackedConstants`` store several Executables take their constants from,
so each source array is loaded once and packed once per memory descriptor; ``runtime_rows``
runs the matmuls whose rows vary with the input shape on primitives shared by every row count
(dnnc.runtime.plan.build_plan); ``remake`` gives the Program again, so that the plan need not
keep its calls (``Plan.recall``: a template instantiates it again).
"""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np

from dnnc.core.diagnostics import DnncError
from dnnc.dnnl.objects import Engine
from dnnc.dnnl.threads import running_on, thread_count
from dnnc.runtime.cache import PrimitiveCache, default_cache
from dnnc.runtime.constants import PackedConstants
from dnnc.runtime.context import ExecutionContext
from dnnc.runtime.io_binding import (
    Inputs,
    aliased_inputs,
    check_special,
    chosen_outputs,
    input_error,
    ordered_inputs,
    output_arrays,
)
from dnnc.runtime.plan import PlanMemo, build_plan
from dnnc.runtime.program import Program
from dnnc.runtime.report import MemoryReport, StepTime

Outputs = list[np.ndarray] | dict[str, np.ndarray]
"""What `run` returns: the outputs in order, or by name (``as_dict``)."""


class Recipe(Protocol):
    """How an executable was compiled: enough to compile it again (dnnc.api.CompileRecipe)."""

    def compile(self) -> object: ...


class ShippedByRecipe:
    """Pickles as its ``recipe``: unpickling compiles again in the receiving process."""

    recipe: Recipe | None = None

    def __reduce__(self) -> tuple[object, tuple[()]]:
        if self.recipe is None:
            raise DnncError(
                "this executable cannot be pickled: it was compiled from a ModuleOp or an "
                "onnx.ModelProto object, which leave nothing to compile again from; compile "
                "from a file path or IR text to ship it to other processes"
            )
        return self.recipe.compile, ()


class Executable(ShippedByRecipe):
    """A lowered function ready to run (module docstring). Build with ``dnnc.compile``."""

    def __init__(
        self,
        program: Program,
        *,
        engine: Engine | None = None,
        cache: PrimitiveCache | None = None,
        arena: np.ndarray | None = None,
        arena_lock: threading.Lock | None = None,
        constants: PackedConstants | None = None,
        runtime_rows: bool = False,
        remake: Callable[[], Program] | None = None,
        memo: PlanMemo | None = None,
    ) -> None:
        self.engine = engine or Engine.default()
        self.constants = constants or PackedConstants()
        """The constants this Executable binds, by source and memory (dnnc.driver.saved
        writes them)."""
        self.plan = build_plan(
            program,
            engine=self.engine,
            cache=cache or default_cache(),
            constants=self.constants,
            runtime_rows=runtime_rows,
            remake=remake,
            memo=memo,
        )
        if arena is not None and arena.nbytes < self.plan.planned_bytes:
            raise program.error(
                f"needs an arena of {self.plan.planned_bytes} bytes, the one given has "
                f"{arena.nbytes}"
            )
        self.name = self.plan.name
        self.guards = program.guards
        """Per input, the special values refused in it, with why."""
        self._guarded = any(self.guards)
        """Whether any input is scanned for special values at all (most are not)."""
        self.inputs = self.plan.inputs
        self.outputs = self.plan.outputs
        self._input_names = tuple(spec.name for spec in self.inputs)
        self._lock = threading.Lock()
        self._first = self._new_context(arena)
        self._idle = [self._first]
        self._arena_lock = arena_lock if arena is not None else None
        """Held while the first context runs in a caller's shared arena (module docstring)."""
        self.contexts = 1
        """Execution contexts made so far: the most runs that were ever under way at once."""

    def _new_context(self, arena: np.ndarray | None = None) -> ExecutionContext:
        """A context for one run at a time."""
        try:
            return ExecutionContext(self.plan, self.engine, self.constants, arena)
        except ValueError as error:
            raise DnncError(f"@{self.name}: cannot bind its memories: {error}") from error

    def rebase(self, arena: np.ndarray) -> None:
        """Run the first context in another caller's buffer (``arena``, at least the plan's
        bytes) from now on, under the same ``arena_lock``, which the caller holds: no run is
        under way in the old one (dnnc.driver.dynamic, when its shared arena grows)."""
        if arena.nbytes < self.plan.planned_bytes:
            raise DnncError(f"@{self.name}: an arena of {arena.nbytes} bytes is too small")
        self._first.rebase(arena)

    def signature(self) -> str:
        """``@name(x: float32[1, 16, 8, 8]) -> (result0: float32[...])``."""
        inputs = ", ".join(map(str, self.inputs))
        outputs = ", ".join(map(str, self.outputs))
        return f"@{self.name}({inputs}) -> ({outputs})"

    def _checked_inputs(self, inputs: Inputs) -> list[np.ndarray]:
        """The inputs in order as arrays, each of its spec's element type and shape."""
        arrays = ordered_inputs(inputs, self._input_names, self.signature)
        for spec, array in zip(self.inputs, arrays, strict=True):
            if array.dtype != spec.dtype or array.shape != spec.shape:
                raise input_error(spec.name, array, self.signature())
        return arrays

    @property
    def arena(self) -> np.ndarray:
        """The first context's arena (the one a caller running alone always runs in)."""
        return self._first.arena

    def _take_context(self) -> ExecutionContext:
        """An idle context for one run (a new one if none is idle: another thread is
        running in each, or the shared arena is leased); give it back with
        ``_return_context``."""
        with self._lock:
            lease = self._arena_lock
            for index in range(len(self._idle) - 1, -1, -1):
                shared = self._idle[index] is self._first and lease is not None
                if shared and lease is not None and not lease.acquire(blocking=False):
                    continue  # another run is in the shared arena
                return self._idle.pop(index)
            self.contexts += 1
        return self._new_context()

    def _return_context(self, context: ExecutionContext) -> None:
        with self._lock:
            self._idle.append(context)
            if context is self._first and self._arena_lock is not None:
                self._arena_lock.release()

    def run(
        self,
        inputs: Inputs,
        *,
        as_dict: bool = False,
        output_names: Sequence[str] | None = None,
        poison_freed: bool = False,
        out: Sequence[np.ndarray] | None = None,
    ) -> Outputs:
        """The outputs for ``inputs`` (by name or in order): a list, or a dict by output name;
        only those of ``output_names``, in that order, when given (ONNX Runtime's
        ``session.run(output_names, feeds)``). With ``out``, every output is written into
        the caller's array instead of a new one (``io_binding.output_arrays`` says which
        arrays fit) and those arrays are returned. An output a kv_append step writes
        (``plan.appends``) may be bound over its past: the past input a view of that array's
        leading slots (``io_binding.aliased_inputs``); the step then writes only the new
        slots, and that input is not scanned for special values: its slots are what earlier
        steps appended (computed values, which their own step read unguarded) or what the
        caller put there, so a NaN written there is not refused. Safe to call from several
        threads at once (module docstring), with an ``out`` of its own each."""
        arrays = self._checked_inputs(inputs)
        return self.run_checked(
            arrays, as_dict=as_dict, output_names=output_names, poison_freed=poison_freed, out=out
        )

    def run_checked(
        self,
        arrays: Sequence[np.ndarray],
        *,
        as_dict: bool = False,
        output_names: Sequence[str] | None = None,
        poison_freed: bool = False,
        made: int = 0,
        out: Sequence[np.ndarray] | None = None,
    ) -> Outputs:
        """``run`` for arrays in order already checked against ``inputs`` (element types and
        shapes), as DynamicExecutable checks them, so that no run checks twice. The last
        ``made`` arrays were checked for special values when they were made (a
        DynamicExecutable's inputs computed once per signature), so no run scans them."""
        chosen = None if output_names is None else chosen_outputs(self.outputs, output_names)
        given = len(arrays) - made
        aliases = aliased_inputs(self.plan.appends, arrays, out)
        aliased = frozenset(aliases.values())
        if self._guarded:
            guards = [{} if i in aliased else g for i, g in enumerate(self.guards[:given])]
            check_special(self.inputs[:given], arrays[:given], guards)
        context = self._take_context()
        try:
            given_out = (
                None
                if out is None
                else output_arrays(self.outputs, out, arrays, aliases, context.bound)
            )
            outputs = context.bind(arrays, self.outputs, given_out, aliased)
            context.execute(poison_freed)
        finally:
            self._return_context(context)
        specs = self.outputs
        if chosen is not None:
            specs = tuple(self.outputs[i] for i in chosen)
            outputs = [outputs[i] for i in chosen]
        if as_dict:
            return {spec.name: array for spec, array in zip(specs, outputs, strict=True)}
        return outputs

    def profile(self, inputs: Inputs, repeats: int = 10, *, alone: bool = False) -> list[StepTime]:
        """The median time of each step over ``repeats`` runs (after one warm-up run), each
        step timed up to the end of its work (the stream is waited for after it). With
        ``alone``, each step instead runs its warm-up and ``repeats`` runs back to back, after
        the steps before it ran once: its operands and weights are as warm in the caches as
        they get, so what a step takes in the network beyond that is waiting for the bytes
        the other steps evicted (bench/memory_stalls.py)."""
        arrays = self._checked_inputs(inputs)
        times: list[list[float]] = [[] for _ in self.plan.steps]
        context = self._take_context()
        try:
            context.bind(arrays, self.outputs)
            steps = list(zip(context.steps, context.thread_counts(thread_count()), times))
            if alone:
                for step, threads, samples in steps:
                    samples += _timed(step, threads, context, repeats + 1)
            else:
                for _ in range(repeats + 1):
                    for step, threads, samples in steps:
                        samples += _timed(step, threads, context, 1)
        finally:
            self._return_context(context)
        infos = self.plan.step_infos
        return [
            StepTime(info, statistics.median(s[1:])) for info, s in zip(infos, times, strict=True)
        ]

    def memory_report(self) -> MemoryReport:
        return MemoryReport(
            planned_bytes=self.plan.planned_bytes,
            lower_bound_bytes=self.plan.lower_bound_bytes,
            arena_bytes=self.arena.nbytes,
            scratchpad_bytes=self.plan.scratchpad_bytes,
            constant_bytes=sum(self.plan.constant_sizes.values()),
        )


def _timed(
    step: Callable[[], object], threads: int, context: ExecutionContext, runs: int
) -> list[float]:
    """The seconds of each of `runs` runs of `step` under `threads` OpenMP threads (as a run
    executes it), up to the end of its work."""
    seconds = []
    with running_on(threads):
        for _ in range(runs):
            start = time.perf_counter()
            step()
            context.stream.wait()
            seconds.append(time.perf_counter() - start)
    return seconds
