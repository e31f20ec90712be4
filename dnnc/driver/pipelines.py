"""Named pipelines, and the pass driver that dnnc-opt and the Python API share.

A named pipeline is a `PipelinePass`: a pass whose `steps` are pass specs, so it is usable
wherever a pass name is (`-p dnn-optimize,cse`, `--pass-pipeline='builtin.module(dnn-optimize)'`,
`PassPipeline`). The driver `run_passes` expands pipelines into their steps before running, so
each step is verified and shows up in `--print-ir-after-all` and remarks under its own name.
Adding a pass to a pipeline is one line in its `steps`, e.g. `"dnn-fuse-post-ops{max-post-ops=4}"`.
"""

import os
import re
import typing
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.arg_spec import ArgSpec
from xdsl.utils.arg_spec import parse_pipeline as parse_xdsl_pipeline
from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException

from dnnc.core.diagnostics import DnncError, running_pass
from dnnc.core.symbols import untraced
from dnnc.dialects.onednn import is_lowered
from dnnc.driver.registry import get_all_passes
from dnnc.ir.text import verify_module


@dataclass(frozen=True)
class PipelinePass(ModulePass):
    """A named sequence of passes; subclasses set `name`, a docstring and `steps`."""

    steps: ClassVar[tuple[str, ...]]
    """Pass specs as on the command line (`"name"` or `"name{opt=value}"`), run in order."""

    def expand(self) -> tuple[ModulePass, ...]:
        """The steps as pass instances (nested pipelines not yet expanded)."""
        return parse_pipeline(",".join(self.steps))

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        run_passes(ctx, op, self.expand())


@dataclass(frozen=True)
class OptimizePipeline(PipelinePass):
    """dnn-optimize: the default graph optimizations, on the `dnn` dialect.

    Composites first (decomposed tanh-GELU, SiLU and layer norm back to one op each, attention
    to dnn.sdpa, a KV cache's concat with the step's keys or values to dnn.kv_append), then data
    movement in one form (dnn-canonicalize) and one dynamic quantization per quantized value
    (dnn-share-dynamic-quantize), then s8 activations quantized as u8
    (dnn-shift-to-u8), data movement between a dequantize and a quantize of equal parameters
    runs on the integers (dnn-keep-int8) and dequantized convolutions whose result is quantized
    become int8 ones, residual adds included (dnn-fuse-quantized) and dequantized matmuls int8
    ones (dnn-fuse-quantized-matmul), before their weights' dequantize is folded, then constants
    (batch_norm and per-channel binaries folded into weights, constant subgraphs evaluated),
    run-time per-channel factors of a convolution's input moved onto its weights
    (dnn-scale-weights) and the strides of 1x1 convolutions onto the producers of what they read
    (dnn-hoist-strides), so that fusion sees the simplified graph; then eltwise and binary
    consumers become oneDNN post-ops, and dense layers whose matmul oneDNN runs with its gemm
    fallback become inner products. Then layouts, after fusion because post-op arguments need
    layouts too: kernels chosen, layouts chosen for the whole graph, reorders inserted where a
    reader expects another layout, redundant ones removed, transposes around matmuls made views.
    Last the buffer sharing decisions, once every op, layout and post-op chain is final:
    implicit concats and slices, then in-place results (which see the fused buffers' readers).
    Lowering to the runtime dialect is the separate `dnn-to-onednn` pipeline.

    ``precision=bf16`` (as OpenVINO's INFERENCE_PRECISION_HINT) runs dnn-assign-precision
    right after the kernels are chosen: bf16 wherever this CPU computes it natively, layouts
    then chosen for the bf16 kernels; ``f32`` (the default) leaves the precision alone.
    """

    name = "dnn-optimize"
    precision: Literal["f32", "bf16"] = "f32"
    """``f32``, or a data type of dnn-assign-precision's ``dtype``."""
    steps = (
        "dnn-recover-gelu",
        "dnn-recover-swish",
        "dnn-recover-layer-norm",
        "dnn-recover-attention",
        "dnn-recover-kv-append",
        "dnn-expand-attention",
        "dnn-canonicalize",
        "dnn-share-dynamic-quantize",
        "dnn-shift-to-u8",
        "dnn-keep-int8",
        "dnn-fuse-quantized",
        "dnn-fuse-quantized-matmul",
        "dnn-fold-constants",
        "dnn-scale-weights",
        "dnn-hoist-strides",
        "dnn-fuse-post-ops",
        "dnn-dense-as-inner-product",
        "dnn-select-kernels",
        "dnn-assign-layouts",
        "dnn-insert-data-transforms",
        "dnn-remove-redundant-reorders",
        "dnn-transpose-as-view",
        "dnn-buffer-fusing",
        "dnn-inplace",
    )

    def expand(self) -> tuple[ModulePass, ...]:
        steps = list(self.steps)
        if self.precision != "f32":
            after = steps.index("dnn-select-kernels") + 1
            steps.insert(after, f"dnn-assign-precision{{dtype={self.precision}}}")
        return parse_pipeline(",".join(steps))


@dataclass(frozen=True)
class ToOnednnPipeline(PipelinePass):
    """dnn-to-onednn: legalization, memory planning and conversion to the `onednn` dialect.

    Kept apart from `dnn-optimize` (which stays in the `dnn` dialect, so its result can be
    inspected, tested and re-optimized); `dnnc.compile` runs `dnn-optimize` then this. It
    starts by legalizing for this CPU: every op without a kernel gets one this CPU runs
    (dnn-select-kernels keeps the choices already made) and the casts that kernel needs
    (dnn-insert-data-transforms; nothing to do after `dnn-optimize`), so that whatever ran
    before, a bf16 graph runs on a CPU without bf16 kernels. Then, every kernel known, the
    inputs whose special values can reach a kernel that drops them are chosen for the
    executor's check (dnn-guard-special-values). The buffer check ends the
    pipeline, so no lowered module reaches the runtime unchecked.
    """

    name = "dnn-to-onednn"
    steps = (
        "dnn-select-kernels",
        "dnn-insert-data-transforms",
        "dnn-guard-special-values",
        "dnn-plan-memory",
        "convert-dnn-to-onednn",
        "onednn-verify-buffers",
    )


_ANCHORED = re.compile(r"\s*([\w.]+)\s*\((.*)\)\s*", re.DOTALL)


def _strip_anchor(spec: str) -> str:
    """`builtin.module(a,b)` -> `a,b` (MLIR's --pass-pipeline syntax); other specs unchanged."""
    match = _ANCHORED.fullmatch(spec)
    if match is None:
        return spec
    anchor, inner = match.groups()
    if anchor != "builtin.module":
        raise DnncError(
            f"pass pipelines anchored on '{anchor}' are not supported: dnnc passes run on "
            "the whole module, write 'builtin.module(...)'"
        )
    depth = 0
    for char in inner:
        depth += {"{": 1, "}": -1}.get(char, 0)
        if char == "(" and depth == 0:
            raise DnncError(
                f"nested pass pipelines are not supported in '{spec.strip()}': "
                "list the passes directly inside 'builtin.module(...)'"
            )
    return inner


def _without_blanks(spec: str) -> str:
    """`spec` without whitespace outside option braces (MLIR allows `a, b`; xDSL does not)."""
    kept: list[str] = []
    depth = 0
    for char in spec:
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth > 0 or not char.isspace():
            kept.append(char)
    return "".join(kept)


def _check_choices(pass_class: type[ModulePass], arg_spec: ArgSpec) -> None:
    """An error naming the valid values when an option typed ``Literal[...]`` is given another
    (xDSL refuses it too, but names the type rather than the values)."""
    hints = typing.get_type_hints(pass_class)
    for option, values in arg_spec.parameters.items():
        hint = hints.get(option.replace("-", "_"))
        if typing.get_origin(hint) is not typing.Literal:
            continue
        choices = typing.get_args(hint)
        if len(values) != 1 or values[0] not in choices:
            given = ",".join(str(v) for v in values)
            raise DnncError(
                f"invalid options for pass '{arg_spec.name}': {option}={given} is not one of "
                f"{', '.join(map(str, choices))}"
            )


def parse_pipeline(spec: str) -> tuple[ModulePass, ...]:
    """Passes from `a,b{opt=1}` or `builtin.module(a,b{opt=1})`; pass names from the registry.

    Raises `DnncError` for a malformed spec, an unknown pass or a bad option.
    """
    available = get_all_passes()
    passes_spec = _without_blanks(_strip_anchor(spec))
    try:
        specs = list(parse_xdsl_pipeline(passes_spec))
    except ArgSpecParseError as error:
        # str(error): a header line, "pass-pipeline:1:<col>", the spec, a caret, the message.
        lines = str(error).splitlines()
        snippet = "\n".join(lines[2:4])
        raise DnncError(f"malformed pass pipeline: {lines[-1].strip()}", None, snippet) from error
    passes: list[ModulePass] = []
    for arg_spec in specs:
        if arg_spec.name not in available:
            known = ", ".join(sorted(available))
            raise DnncError(f"unknown pass '{arg_spec.name}' (known: {known})")
        pass_class = available[arg_spec.name]()
        _check_choices(pass_class, arg_spec)
        try:
            passes.append(pass_class.from_spec(arg_spec))
        except ValueError as error:  # an option of another type or out of range
            raise DnncError(f"invalid options for pass '{arg_spec.name}': {error}") from error
    return tuple(passes)


def expand_pipelines(passes: Sequence[ModulePass]) -> Iterator[ModulePass]:
    """`passes` with every named pipeline replaced by its steps, recursively."""
    for module_pass in passes:
        if isinstance(module_pass, PipelinePass):
            yield from expand_pipelines(module_pass.expand())
        else:
            yield module_pass


AfterPass = Callable[[ModulePass, ModuleOp], None]
"""Called with each pass and the module once the pass has run and the module verified."""


def _check_dialect(module_pass: ModulePass, module: ModuleOp) -> None:
    """A pass of the dnn dialect (``dnn-*``, ``convert-dnn-to-onednn``) refuses a module
    whose functions are lowered already: one clear error instead of a failure inside it."""
    if not module_pass.name.startswith(("dnn-", "convert-dnn-")):
        return
    for op in module.body.block.ops:
        if isinstance(op, func.FuncOp) and is_lowered(op):
            raise DnncError(
                f"pass '{module_pass.name}' runs on the dnn dialect, but @{op.sym_name.data} "
                "is lowered to the onednn dialect already (run it with no passes: "
                "`-p ''`, `--pipeline ''`, pipeline='')"
            )


VERIFY_EACH_VARIABLE = "DNNC_VERIFY_EACH"
"""Set to 1, dnnc.compile verifies the IR after every pass (the tests do), as dnnc-opt does."""


def verify_each_pass() -> bool:
    """Whether dnnc.compile verifies after every pass rather than once at the end (the
    verifier takes 45% of compiling ResNet-50 when run after each of its 16 passes)."""
    return os.environ.get(VERIFY_EACH_VARIABLE) == "1"


def run_passes(
    ctx: Context,
    module: ModuleOp,
    passes: Sequence[ModulePass],
    *,
    after_pass: AfterPass | None = None,
    verify_each: bool = True,
) -> None:
    """Run `passes` (pipelines expanded) on `module`, verifying the module after each (as
    mlir-opt does), or with `verify_each` false once after the last.

    Remarks emitted by a pass are tagged with its name. A pass that raises an xDSL diagnostic, and
    IR that stops verifying, become a `DnncError` that names the pass (the passes, when
    verified once: DNNC_VERIFY_EACH=1 then finds which).
    """
    expanded = list(expand_pipelines(passes))
    for module_pass in expanded:
        _check_dialect(module_pass, module)
        with running_pass(module_pass.name):
            try:
                module_pass.apply(ctx, module)
            except DnncError:
                raise
            except DiagnosticException as error:
                raise DnncError(f"pass '{module_pass.name}' failed: {error}") from error
        if verify_each or after_pass is not None:
            _verify_after(module, f"pass '{module_pass.name}'")
        if after_pass is not None:
            after_pass(module_pass, module)
    if expanded and not (verify_each or after_pass is not None):
        names = ",".join(p.name for p in expanded)
        _verify_after(
            module, f"passes '{names}' (set {VERIFY_EACH_VARIABLE}=1 to verify after each)"
        )


def _verify_after(module: ModuleOp, what: str) -> None:
    """Verify, recording no guard while a dynamic function is traced (dnnc.core.symbols): a
    verifier decides nothing in the program, which is the same verified or not, so its
    comparisons of sizes (an operand's against a result's) must not narrow the signatures
    a template admits, nor make DNNC_VERIFY_EACH=1 (the tests') trace more than without."""
    try:
        with untraced():
            verify_module(module)
    except DnncError as error:
        raise error.with_note(f"the IR does not verify after {what}") from error
