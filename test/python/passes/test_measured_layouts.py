"""dnn-assign-layouts{cost=measured}: the layouts follow the measured times (set here, so that
the test does not depend on this CPU), compute what the analytic model's layouts compute,
and the times are kept on disk so that a second compile measures nothing; the default
pipeline measures only under DNNC_TUNE=on."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import dnnc
from dnnc.api import find_function, load_module
from dnnc.dialects.dnn import Conv2DOp, LayoutAttr
from dnnc.dnnl.objects import PrimitiveDesc
from dnnc.dnnl.primitives.base import PrimitiveHandler
from dnnc.driver.pipelines import OptimizePipeline, parse_pipeline, run_passes
from dnnc.ir.text import make_context
from dnnc.passes import assign_layouts
from dnnc.target import timings
from dnnc.target.host import isa_includes
from dnnc.target.timings import CACHE_VARIABLE, TUNE_VARIABLE, PrimitiveTimes
from dnnc_testing.graphs import Case, inverted_residuals, residual_blocks, write

SHAPE = (1, 16, 14, 14)


def pipeline(cost: str) -> str:
    """dnn-optimize's steps with the layout cost model `cost`."""
    steps = ",".join(OptimizePipeline.steps)
    return steps.replace("dnn-assign-layouts", f"dnn-assign-layouts{{cost={cost}}}")


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "cache"
    monkeypatch.setenv(CACHE_VARIABLE, str(directory))
    return directory


@pytest.mark.parametrize(
    "case",
    [residual_blocks(2, SHAPE), inverted_residuals(2, SHAPE)],
    ids=["residual_blocks", "inverted_residuals"],
)
def test_measured_layouts_compute_what_the_analytic_ones_do(
    case: Case, tmp_path: Path, cache: Path
) -> None:
    path = write(case, tmp_path)
    measured = dnnc.compile(path, pipeline("measured")).run(case.inputs)[0]
    analytic = dnnc.compile(path, pipeline("bytes")).run(case.inputs)[0]
    np.testing.assert_allclose(measured, analytic, rtol=1e-5, atol=1e-5 * np.abs(analytic).max())


def test_times_are_kept_and_a_second_compile_measures_no_kernel(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(residual_blocks(1, SHAPE), tmp_path)
    dnnc.compile(path, pipeline("measured"))
    (kept,) = cache.glob("timings-*.json")
    assert json.loads(kept.read_text())  # primitive digest -> microseconds
    written = kept.stat().st_mtime_ns

    def measure(handler: PrimitiveHandler, desc: PrimitiveDesc) -> float:
        assert handler.kind == "reorder", f"{handler.kind} measured again"
        return 1.0  # the reorder cost is measured by every compile (dnnc.target.timings)

    monkeypatch.setattr(timings, "_measure", measure)
    dnnc.compile(path, pipeline("measured"))
    assert kept.stat().st_mtime_ns == written


@pytest.mark.parametrize(("tune", "measures"), [(None, False), ("off", False), ("on", True)])
def test_dnnc_tune_decides_what_the_default_does(
    tune: str | None, measures: bool, tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if tune is None:
        monkeypatch.delenv(TUNE_VARIABLE, raising=False)
    else:
        monkeypatch.setenv(TUNE_VARIABLE, tune)
    calls: list[str] = []

    def measure(handler: PrimitiveHandler, desc: PrimitiveDesc) -> float:
        calls.append(handler.kind)
        return 1.0

    monkeypatch.setattr(timings, "_measure", measure)
    dnnc.compile(write(residual_blocks(1, SHAPE), tmp_path))  # dnn-optimize, cost=auto
    assert bool(calls) == measures
    assert bool(list(cache.glob("timings-*.json"))) == measures


BLOCKED = "nChw16c" if isa_includes("avx512_core") else "nChw8c"
"""The channel blocks oneDNN has kernels for here (16 needs AVX-512)."""


@pytest.mark.parametrize("fast", [BLOCKED, "nhwc"])
def test_the_layout_measured_fastest_wins(
    fast: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every primitive takes 1 us in `fast` and 1 ms in any other layout (reorders included):
    every convolution runs in `fast`, whichever layout oneDNN would pick."""

    class SetTimes(PrimitiveTimes):
        def time(self, handler: PrimitiveHandler, desc: PrimitiveDesc) -> float:
            layout = handler.descs["dst"].layout()  # every primitive here writes a dst
            return 1.0 if layout is not None and layout.name == fast else 1000.0

    monkeypatch.setattr(assign_layouts, "PrimitiveTimes", lambda: SetTimes(tmp_path / "t.json"))
    module, _ = load_module(write(residual_blocks(2, SHAPE), tmp_path))
    run_passes(
        make_context(),
        module,
        parse_pipeline("dnn-fold-constants,dnn-select-kernels,dnn-assign-layouts{cost=measured}"),
    )
    convs = [op for op in find_function(module).walk() if isinstance(op, Conv2DOp)]
    layouts = {op.attributes[assign_layouts.OPERAND_LAYOUTS].data[0] for op in convs}
    assert layouts == {LayoutAttr(fast)}, layouts
