"""The Python API: ``dnnc.compile(source) -> Executable``, then ``Executable.run(inputs)``.

``source`` is a ModuleOp (copied, never changed), an ONNX model (``onnx.ModelProto`` or a
``.onnx`` path, imported with dnnc.import_onnx), IR text, or a path to a ``.mlir`` file
(an ``os.PathLike``, or a ``str`` that names an existing file or ends in ``.mlir``; any other
``str`` is IR text). ``compile`` parses and verifies it, runs the optimization ``pipeline``,
then the lowering (``dnn-to-onednn``: memory plan, conversion, buffer check; skipped when
``pipeline`` already lowered the function), verifying after every pass, and builds the Executable
of one function. A function with ``?``
dimensions is optimized once and becomes a ``DynamicExecutable`` (dnnc.driver.dynamic) that
specializes, lowers and caches a plan per input signature, within ``dynamic`` (its
``DynamicOptions``); one whose sizes are expressions (``dnn.symbols``, docs/dialect.md
"Symbolic dimensions") is optimized by its traces only. An ONNX model whose shape arithmetic
reads ``?`` dimensions (the plain import's RunTimeShapeError) is imported symbolically and
becomes an ``OnnxDynamicExecutable`` (dnnc.driver.onnx_shapes), which traces that function
once per template and re-imports the model only for what the symbolic function cannot serve;
one whose shape arithmetic reads input *values* a ``ShapeSpecializedExecutable``. Primitives
come from ``cache`` (default: the process-wide one).
``dnn.weight`` files are resolved relative to the source file's directory (or
``weights_dir`` when given: the paths are then made absolute in the compiled copy, so that
constant folding reads the same files as the executor).
Every problem is a DnncError.

Executables pickle (to ship to worker processes: multiprocessing, Ray) as the recipe that
compiled them, ``CompileRecipe``: the source (a file path, or IR text), the pipeline, the
function and the weights directory; unpickling compiles again in the receiving process,
whose CPU may differ (its own kernels and layouts). A source given as a ModuleOp or an
``onnx.ModelProto`` object has no such recipe: pickling it is a DnncError that says to
compile from a path or text.
"""

from __future__ import annotations

import gc
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr

from dnnc.core.diagnostics import (
    DnncError,
    ModelError,
    RunTimeShapeError,
    RunTimeValueError,
    remark_at,
)
from dnnc.dialects.dnn import ConstantOp, WeightOp, deferred, symbolic
from dnnc.dialects.onednn import is_lowered
from dnnc.driver import saved
from dnnc.driver.dynamic import DynamicExecutable, DynamicOptions
from dnnc.driver.executables import AnyExecutable
from dnnc.driver.onnx_shapes import (
    OnnxDynamicExecutable,
    ShapeSpecializedExecutable,
    value_inputs,
)
from dnnc.driver.pipelines import parse_pipeline, run_passes, verify_each_pass
from dnnc.driver.values import ValueSpecializedExecutable
from dnnc.frontend.onnx import convert, import_onnx, read_model, release_failed_import
from dnnc.frontend.onnx.deferred import convert_deferred
from dnnc.frontend.onnx.graph import detach_weights, load_detached
from dnnc.frontend.onnx.symbolic import import_symbolic
from dnnc.ir.names import input_names
from dnnc.ir.text import make_context, parse_module, read_source, verify_module
from dnnc.ir.weights import COLLECTED_BYTES, weight_path
from dnnc.lowering.specialize import is_dynamic
from dnnc.runtime.cache import PrimitiveCache
from dnnc.runtime.executor import Executable
from dnnc.runtime.lowered import program_of

LOWERING = "dnn-to-onednn"
"""What turns an optimized dnn module into what the executor runs."""

Loadable = ModuleOp | str | os.PathLike[str] | onnx.ModelProto
"""A dnn module, IR text, a ``.mlir`` or ``.onnx`` path or an ONNX proto."""
Source = Loadable | bytes
"""What ``compile`` takes: a Loadable, or an ONNX model's bytes (as ONNX Runtime takes them)."""


def _constant_bytes(module: ModuleOp) -> int:
    """The bytes of a module's dnn.constant payloads (COLLECTED_BYTES)."""
    return sum(len(op.value.data.data) for op in module.walk() if isinstance(op, ConstantOp))


def _is_path(source: str | os.PathLike[str]) -> bool:
    """Whether ``source`` names a file rather than holding IR text: a path object, or one line
    that ends in .mlir, names a file, or has no ``{`` (a module has a body: a directory or a
    missing file is then reported as such, not as unparsable IR)."""
    if isinstance(source, os.PathLike):
        return True
    return "\n" not in source and (
        source.endswith(".mlir") or "{" not in source or Path(source).is_file()
    )


Detached = tuple[onnx.ModelProto, dict[str, np.ndarray]]
"""An ONNX file read once with its large initializers apart (graph.load_detached)."""


def load_module(source: Loadable, detached: Detached | None = None) -> tuple[ModuleOp, str | None]:
    """The verified module of ``source`` (a copy if it is a ModuleOp) and the directory its
    weights are relative to (the file's; None for text and modules: the ops' locations).
    ``detached``: an ONNX file ``source`` as compile read it (imported from that instead)."""
    if isinstance(source, ModuleOp):
        module = source.clone()
        verify_module(module)
        return module, None
    if detached is not None:
        return convert(detached[0], weights=detached[1])[0], None
    if isinstance(source, onnx.ModelProto) or str(source).endswith(".onnx"):
        # weights inline: nothing is written; a model whose shape arithmetic reads `?` is
        # imported symbolically by compile (_per_input_shape), its weights detached once
        return import_onnx(source, symbolic=False), None
    if not _is_path(source):
        module = parse_module(str(source), "<string>", make_context())
        verify_module(module)
        return module, None
    path = Path(source)
    text = read_source(path)
    module = parse_module(text, str(path), make_context())
    try:
        verify_module(module)
    except DnncError as error:
        raise error.with_source(text) from None
    return module, str(path.resolve().parent)


def functions_of(module: ModuleOp) -> list[func.FuncOp]:
    """The functions of a module with a body, in order."""
    return [op for op in module.body.block.ops if isinstance(op, func.FuncOp) and op.body.blocks]


def find_function(module: ModuleOp, name: str | None = None) -> func.FuncOp:
    """The function ``@name``, or the only function when ``name`` is None."""
    functions = functions_of(module)
    names = ", ".join(f"@{f.sym_name.data}" for f in functions) or "none"
    if name is None:
        if len(functions) != 1:
            raise DnncError(f"the module has {len(functions)} functions ({names}): name one")
        return functions[0]
    for function in functions:
        if function.sym_name.data == name.removeprefix("@"):
            return function
    raise DnncError(f"no function @{name.removeprefix('@')} in the module (functions: {names})")


def _anchor_weights(module: ModuleOp, directory: str) -> None:
    """Make every dnn.weight path absolute against ``directory``, so that every pass that
    reads weights (dnn-fold-constants) and the executor find the same files."""
    for op in module.walk():
        if isinstance(op, WeightOp):
            op.file = StringAttr(str(weight_path(op, directory)))


def _is_onnx(source: Loadable) -> bool:
    return isinstance(source, onnx.ModelProto) or (
        not isinstance(source, ModuleOp) and str(source).endswith(".onnx")
    )


def _symbolic_function(
    model: onnx.ModelProto, weights: dict[str, np.ndarray]
) -> func.FuncOp | None:
    """The function of the symbolic import of ``model`` (its large initializers' data
    ``weights``), the route OnnxDynamicExecutable takes where it can; None, with a remark
    saying why, when that import refuses the model."""
    try:
        module = import_symbolic(model, weights)
    except ModelError as refusal:
        remark_at(
            model.graph.name or "model",
            "traced per input shape from the ONNX model: the symbolic import refuses it: "
            + refusal.message,
        )
        return None
    return find_function(module)


def _per_input_shape(
    source: Loadable,
    detached: Detached | None,
    pipeline: str,
    function: str | None,
    weights_dir: str | os.PathLike[str] | None,
    dynamic: DynamicOptions | None,
    cache: PrimitiveCache | None,
    error: RunTimeValueError,
) -> OnnxDynamicExecutable | ShapeSpecializedExecutable:
    """An ONNX model whose shape arithmetic reads `?` dimensions: imported symbolically and
    traced into program templates, re-imported only where that function cannot serve
    (OnnxDynamicExecutable); or one whose shape arithmetic reads input values: imported and
    compiled again per input-shape signature and value (ShapeSpecializedExecutable).
    ``error``, the import's, is raised again when no graph input explains it; ``detached``:
    the file ``source`` as compile read it (None for a proto)."""
    assert not isinstance(source, ModuleOp)  # an ONNX source (_is_onnx)
    if isinstance(source, onnx.ModelProto):
        model, weights = source, None
    else:
        assert detached is not None  # compile read the file
        model, weights = detached
    if not value_inputs(model):
        if not isinstance(error, RunTimeShapeError):
            raise error  # an operand computed at run time, but from no graph input
        if weights is None:  # one detached copy: both routes' constants share its arrays
            model, weights = detach_weights(model)
        traced = OnnxDynamicExecutable(
            model,
            (*parse_pipeline(pipeline), *parse_pipeline(LOWERING)),
            function=_symbolic_function(model, weights),
            options=dynamic,
            cache=cache,
            weights=weights,
        )
        traced.recipe = _recipe(
            source, pipeline, function or traced.name, _weights_of(source, weights_dir), dynamic
        )
        return traced
    remark_at(
        model.graph.name or "model",
        f"compiled per value of {', '.join(sorted(value_inputs(model)))}: those values reach "
        "an operand dnn needs at compile time (a shape, axes, bounds), so each value set is "
        "imported again (ShapeSpecializedExecutable)",
    )

    def compile_fixed(fixed: onnx.ModelProto) -> Executable:
        """The model for one input-shape (and value) signature: static throughout."""
        compiled = compile(fixed, pipeline, function=function, cache=cache)
        if not isinstance(compiled, Executable):
            raise ModelError(
                f"{error.message}; with every input's shape and value fixed, shapes still "
                "depend on data"
            )
        return compiled

    if weights is not None:  # each fixed copy is compiled with its weights inline
        model = onnx.load(os.fspath(source))
    executable = ShapeSpecializedExecutable(
        model,
        compile_fixed,
        max_models=(dynamic or DynamicOptions()).max_templates,
    )
    executable.recipe = _recipe(
        source, pipeline, function or executable.name, _weights_of(source, weights_dir), dynamic
    )
    return executable


def _per_value(
    function: func.FuncOp,
    pipeline: str,
    weights: str | None,
    dynamic: DynamicOptions | None,
    cache: PrimitiveCache | None,
) -> ValueSpecializedExecutable:
    """A function whose dnn.deferred ops wait for its value arguments: compiled per value set
    of them (dnnc.driver.values), each specialization as any module."""

    def compile_module(specialized: ModuleOp) -> Executable | DynamicExecutable:
        compiled = compile(specialized, pipeline, weights_dir=weights, dynamic=dynamic, cache=cache)
        assert isinstance(compiled, Executable | DynamicExecutable)  # it has no value arguments
        return compiled

    names = [input_names(function)[i] for i in deferred.value_args(function)]
    remark_at(
        function.sym_name.data,
        f"compiled per value of {', '.join(names)}: dnn.deferred ops wait for them (a shape, "
        "axes, bounds), so each value set is specialized and compiled (ValueSpecializedExecutable)",
    )
    return ValueSpecializedExecutable(
        function,
        convert_deferred,
        compile_module,
        weights_dir=weights,
        max_models=(dynamic or DynamicOptions()).max_templates,
    )


def _weights_of(source: Loadable, weights_dir: str | os.PathLike[str] | None) -> str | None:
    """The directory dnn.weight files are relative to (see load_module)."""
    if weights_dir is not None:
        return os.fspath(weights_dir)
    if isinstance(source, ModuleOp | onnx.ModelProto) or not _is_path(source):
        return None
    return None if str(source).endswith(".onnx") else str(Path(source).resolve().parent)


def _cache_material(
    source: Loadable,
    pipeline: str,
    function: str | None,
    weights_dir: str | os.PathLike[str] | None,
) -> list[bytes]:
    """What identifies a compilation for the compile cache: the source's bytes, the options,
    and the name, size and modification time of every dnn.weight file it reads."""
    options = repr((pipeline, function, None if weights_dir is None else os.fspath(weights_dir)))
    if isinstance(source, onnx.ModelProto):
        return [source.SerializeToString(), options.encode()]
    if isinstance(source, ModuleOp):
        module, text = source, str(source).encode()
    elif _is_path(source):
        text = Path(source).read_bytes()
        if str(source).endswith(".onnx"):
            return [text, options.encode()]
        module = parse_module(text.decode(), os.fspath(source), make_context())
    else:
        text = str(source).encode()
        module = parse_module(str(source), "<string>", make_context())
    directory = _weights_of(source, weights_dir)
    files = []
    for op in module.walk():
        if isinstance(op, WeightOp):
            path = weight_path(op, directory)
            stat = path.stat() if path.is_file() else None
            files.append((str(path.resolve()), stat and (stat.st_size, stat.st_mtime_ns)))
    return [text, options.encode(), repr(files).encode()]


@dataclass(frozen=True)
class CompileRecipe:
    """What ``compile`` was given, enough to compile again elsewhere (module docstring)."""

    source: str
    """An absolute path (``.mlir`` or ``.onnx``), or IR text."""
    pipeline: str
    function: str
    weights_dir: str | None
    dynamic: DynamicOptions | None

    def compile(self) -> AnyExecutable:
        return compile(
            self.source,
            self.pipeline,
            function=self.function,
            weights_dir=self.weights_dir,
            dynamic=self.dynamic,
        )


def _recipe(
    source: Loadable,
    pipeline: str,
    function: str,
    weights_dir: str | None,
    dynamic: DynamicOptions | None,
) -> CompileRecipe | None:
    """The recipe of a path or text source; None for objects (module docstring)."""
    if isinstance(source, ModuleOp | onnx.ModelProto):
        return None
    text = os.fspath(source)
    if _is_path(text):
        text = str(Path(text).resolve())
    return CompileRecipe(text, pipeline, function, weights_dir, dynamic)


def compile(
    source: Source,
    pipeline: str = "dnn-optimize",
    *,
    function: str | None = None,
    weights_dir: str | os.PathLike[str] | None = None,
    dynamic: DynamicOptions | None = None,
    cache: PrimitiveCache | None = None,
    save_to: str | os.PathLike[str] | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
) -> AnyExecutable:
    """Optimize, lower and build ``source`` (module docstring); with ``save_to``, also write
    the compiled model to that directory for ``dnnc.load`` (dnnc.driver.saved). With
    ``cache_dir`` (OpenVINO's CACHE_DIR), a static function compiled before from the same
    source, options and weight files on this target is loaded from there instead, and
    saved there otherwise."""
    loaded: Loadable = read_model(source) if isinstance(source, bytes) else source
    if cache_dir is not None and save_to is None:
        entry = saved.cache_entry(
            cache_dir, _cache_material(loaded, pipeline, function, weights_dir)
        )
        if (entry / saved.MANIFEST).is_file():
            try:
                executable: AnyExecutable = saved.load(entry, cache=cache, dynamic=dynamic)
            except DnncError:
                pass  # unreadable: compiled again below, and replaced
            else:
                executable.recipe = _recipe(
                    loaded, pipeline, executable.name, _weights_of(loaded, weights_dir), dynamic
                )
                return executable
        save_to = entry
    # an ONNX file is read once, its weights apart: the plain import reads that, and so do
    # the symbolic imports after it when its shape arithmetic reads `?` (_per_input_shape)
    detached = (
        load_detached(loaded)
        if isinstance(loaded, str | os.PathLike) and str(loaded).endswith(".onnx")
        else None
    )
    try:
        module, source_dir = load_module(loaded, detached)
    except RunTimeValueError as error:  # what the import needs is computed at run time
        if not _is_onnx(loaded) or isinstance(loaded, ModuleOp):
            raise
        release_failed_import(error, loaded)
        per_shape = _per_input_shape(
            loaded, detached, pipeline, function, weights_dir, dynamic, cache, error
        )
        if save_to is None:
            return per_shape
        if isinstance(per_shape, OnnxDynamicExecutable):
            saved.save_dynamic(per_shape, (pipeline, LOWERING), save_to)
        elif cache_dir is None:
            raise DnncError(
                f"{error.message}: a model compiled per value of its inputs cannot be "
                "saved; make the inputs whose values shape it initializers to save it",
                error.location,
            ) from None
        return per_shape
    del detached  # as the plain import of a path dropped its read before
    chosen = find_function(module, function).sym_name.data
    directory = weights_dir if weights_dir is not None else source_dir
    weights = None if directory is None else os.fspath(directory)
    if weights is not None:
        _anchor_weights(module, weights)
    recipe = _recipe(loaded, pipeline, chosen, weights, dynamic)
    if deferred.value_args(find_function(module, chosen)):
        if save_to is not None and cache_dir is None:
            raise DnncError(
                f"@{chosen} has value arguments (dnn.value_arg): save_to saves static "
                "functions only"
            )
        per_value = _per_value(find_function(module, chosen), pipeline, weights, dynamic, cache)
        per_value.recipe = recipe
        return per_value
    optimize, lowering = parse_pipeline(pipeline), parse_pipeline(LOWERING)
    dynamic_shapes = is_dynamic(find_function(module, chosen))
    # The source is not held past here: `module` is this compile's own (a clone of a
    # ModuleOp shares its constants' payloads), so a temporary source, as in
    # compile(import_onnx(m)), is freed before the weights are packed and the payloads go
    # as the lowering gives each up (program_of's consume): no door holds them twice.
    cloned = isinstance(loaded, ModuleOp)
    del source, loaded
    if cloned and _constant_bytes(module) > COLLECTED_BYTES:
        gc.collect()  # a module's ops are in reference cycles
    verify_each = verify_each_pass()
    if not (dynamic_shapes and symbolic.bindings_of(find_function(module, chosen))):
        # a function whose sizes are expressions (docs/dialect.md, "Symbolic dimensions") is
        # optimized by each trace only: a pass rebuilding a reshape would drop its dnn.dims
        run_passes(make_context(), module, optimize, verify_each=verify_each)
    if dynamic_shapes:
        executable = DynamicExecutable(
            find_function(module, chosen),
            optimize,
            lowering,
            weights_dir=weights,
            options=dynamic,
            cache=cache,
        )
        executable.recipe = recipe
        if save_to is not None:
            saved.save_dynamic(executable, (pipeline, LOWERING), save_to)
        return executable
    if not is_lowered(find_function(module, chosen)):
        # unless `pipeline` already lowered it
        run_passes(make_context(), module, lowering, verify_each=verify_each)
    lowered = find_function(module, chosen)
    if not is_lowered(lowered):
        raise DnncError(f"@{chosen} was not lowered to the onednn dialect by '{LOWERING}'")
    # saving keeps the payloads: int8 weights are saved logical (dnnc.driver.saved)
    program = program_of(lowered, weights, consume=save_to is None)
    executable = Executable(program, cache=cache)
    executable.recipe = recipe
    if save_to is not None:
        saved.save(program, executable, save_to)
    return executable
