"""A lowered function as plain data: what building an Executable needs, without the IR.

`dnnc.runtime.lowered.program_of` reads a lowered (``onednn`` dialect) function into a
`Program`; `dnnc.driver.saved` writes one to disk and reads it back without xDSL; the plan
(`dnnc.runtime.plan.build_plan`) is built from it. A Program says, for every kernel call in
order, each operand's memory (`MemorySpec`: shape, element type, layout) and where its bytes
are (`Place`: an arena offset, an argument, a constant), so that nothing after it needs an SSA
value. Errors found while building from a Program blame the op it came from (`Call.error`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from xdsl.utils.lexer import Location

from dnnc.core.diagnostics import DnncError
from dnnc.core.kinds import DataType
from dnnc.core.layouts import Layout
from dnnc.runtime.io_binding import TensorSpec


@dataclass(frozen=True, slots=True)
class MemorySpec:
    """An ``!onednn.memory``: static shape, element type and layout. Slots: no instance
    dict, which a cached ``nbytes`` would make (one more object for the garbage collector to
    track per memory of every plan's reference steps)."""

    shape: tuple[int, ...]
    data_type: DataType
    layout: Layout
    _nbytes: int | None = field(default=None, init=False, repr=False, compare=False)
    _hash: int | None = field(default=None, init=False, repr=False, compare=False)

    def __hash__(self) -> int:
        """The hash of its fields, computed once (a plan keys its step kinds, constants and
        descriptors by memories: a layout's dataclass hash is a Python call per field)."""
        found = self._hash
        if found is None:
            found = hash((self.shape, self.data_type, self.layout))
            object.__setattr__(self, "_hash", found)
        return found

    @property
    def nbytes(self) -> int:
        """Bytes of the physical buffer, padding of blocked dimensions included (computed
        once: a plan reads it per operand, a new input signature per plan)."""
        nbytes = self._nbytes
        if nbytes is None:
            nbytes = self.layout.num_elements(self.shape) * self.data_type.itemsize
            object.__setattr__(self, "_nbytes", nbytes)
        return nbytes

    def __str__(self) -> str:
        """``1x16x8x8xf32`` and ``,<layout>`` when it is not plain."""
        dims = "".join(f"{d}x" for d in self.shape)
        layout = "" if self.layout.is_plain else f",{self.layout.name}"
        return f"{dims}{self.data_type.mlir}{layout}"


Guards = dict[str, str]
"""The special values (``nan``, ``+inf``, ``-inf``, ``subnormal``) refused in one input, each
with why (dnnc.runtime.io_binding.check_special)."""

ARENA, ARGUMENT, CONSTANT = "arena", "argument", "constant"
"""The bases a Place may have."""


@dataclass(frozen=True)
class Place:
    """Where a memory's bytes are: ``offset`` bytes into the arena, argument ``index``, or
    constant ``index`` of the Program (at offset 0)."""

    base: str
    index: int
    offset: int
    root: int = -1
    """In the arena: which value owns the bytes (a reshape or a view shares its source's
    root), for the lifetimes of the memory report and of ``poison_freed``."""


@dataclass(frozen=True)
class Operand:
    """One memory a kernel call reads or writes, by its role (``src``, ``weights``, ...)."""

    role: str
    memory: MemorySpec
    place: Place


@dataclass(frozen=True)
class Call:
    """One kernel call: a oneDNN primitive or a numpy reference kernel, its operands in role
    order (inputs, then outputs) and its parameters."""

    library: str  # "onednn" or "reference"
    kind: str
    ins: tuple[Operand, ...]
    outs: tuple[Operand, ...]
    params: dict[str, object] = field(hash=False)
    op_name: str = ""
    location: Location | None = None
    variable_rows: bool = False
    """Whether the rows of its src and dst (a matmul's M) are an expression of the input
    sizes: set in a program template's instance (dnnc.runtime.template), where a plan may
    run it on a primitive that takes its rows when it runs (dnnc.runtime.plan)."""

    def packs_own_weights(self) -> bool:
        """An int8 primitive (it takes run-time scales) with constant weights: they are
        packed from their logical array into the primitive's own descriptor, which holds
        oneDNN's compensation, not into their memory's layout (dnnc.runtime.plan). Weights
        computed at run time (an int8 matmul of two activations) keep their layout."""
        return (
            self.library == "onednn"
            and any(o.role == "weights_scale" for o in self.ins)
            and any(o.role == "weights" and o.place.base == CONSTANT for o in self.ins)
        )

    def error(self, message: str) -> DnncError:
        """An error blaming the op this call came from, worded like ``error_at``'s."""
        return DnncError(f"'{self.op_name}' op {message}", self.location)

    @property
    def where(self) -> str:
        """``file:line:col`` of the op, or ``<unknown>``."""
        return str(self.location) if self.location is not None else "<unknown>"


@dataclass(frozen=True)
class Constant:
    """A constant operand's data: ``key`` identifies its source for PackedConstants (loaded
    once, packed once per memory), ``load`` gives the logical (plain) array; None when the
    arrays are preloaded under ``key`` (a saved model's, packed already)."""

    key: tuple[object, ...]
    load: Callable[[], np.ndarray] | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Program:
    """A lowered function (module docstring)."""

    name: str
    inputs: tuple[TensorSpec, ...]
    outputs: tuple[TensorSpec, ...]
    arena_bytes: int
    calls: tuple[Call, ...]
    constants: tuple[Constant, ...]
    arena_roots: tuple[tuple[int, int], ...]
    """The (start, end) bytes of each arena root (`Place.root`)."""
    guards: tuple[Guards, ...]
    """Per input, the special values the executor refuses in it (`onednn.guards`)."""
    location: Location | None = None
    """Where the function is: errors about the whole function blame it."""
    root_memories: tuple[MemorySpec, ...] = ()
    """The memory of each arena root, when read from IR (dnnc.runtime.template sizes the
    roots again from them for another input signature)."""

    def error(self, message: str) -> DnncError:
        return DnncError(f"'func.func' op {message}", self.location)

    def bound_constants(self) -> dict[int, set[MemorySpec]]:
        """The memories the calls bind each constant in (a reshape's, not the source's)."""
        bound: dict[int, set[MemorySpec]] = {}
        for call in self.calls:
            for operand in (*call.ins, *call.outs):
                if operand.place.base == CONSTANT:
                    bound.setdefault(operand.place.index, set()).add(operand.memory)
        return bound
