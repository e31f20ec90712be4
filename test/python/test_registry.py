"""The registry is the one list of dialects, passes and pipelines; names, classes, files and lit
tests must agree with it (STYLE.md, "One name drives everything")."""

import inspect
import re
from pathlib import Path

from xdsl.ir import Dialect
from xdsl.transforms import get_all_passes as get_xdsl_passes

from dnnc.dialects import get_all_dialects
from dnnc.driver.pipelines import PipelinePass, expand_pipelines, parse_pipeline
from dnnc.driver.registry import get_all_passes, get_dnnc_passes, get_pipelines

REPO = Path(__file__).resolve().parents[2]

LIT_SUITE_OF_PACKAGE = {"dnnc/passes": "test/Passes", "dnnc/lowering": "test/Lowering"}
"""Where a pass's file may live, and the lit suite holding its `<pass-name>.mlir` test."""

PASS_NAME = re.compile(r"(dnn|onednn|convert)(-[a-z0-9]+)+")


def _pass_problems(name: str, cls: type) -> list[str]:
    """Ways in which the pass registered as `name` breaks the naming rules (empty if none)."""
    problems: list[str] = []
    if getattr(cls, "name", None) != name:
        problems.append(f"{name}: registered name differs from {cls.__name__}.name")
    if PASS_NAME.fullmatch(name) is None:
        problems.append(f"{name}: not kebab-case with a dialect prefix (dnn-, onednn-, convert-)")
    stem = re.sub(r"^(dnn|onednn)-", "", name).replace("-", "_")
    if cls.__name__.lower() != stem.replace("_", "") + "pass":
        problems.append(f"{name}: class {cls.__name__} is not the CamelCase of '{stem}' + Pass")
    path = Path(inspect.getfile(cls)).resolve().relative_to(REPO)
    suite = LIT_SUITE_OF_PACKAGE.get(path.parent.as_posix())
    if suite is None or path.stem != stem:
        problems.append(f"{name}: defined in {path}, expected dnnc/passes/{stem}.py")
    elif not (REPO / suite / f"{name}.mlir").is_file():
        problems.append(f"{name}: no lit test {suite}/{name}.mlir")
    return problems


def test_every_pass_matches_its_class_file_and_lit_test() -> None:
    problems = [
        problem
        for name, factory in get_dnnc_passes().items()
        for problem in _pass_problems(name, factory())
    ]
    assert not problems, "\n".join(problems)


def test_naming_rules_reject_misplaced_and_misnamed_passes() -> None:
    class FoldThingsPass:
        name = "dnn-fold-things"

    class Misnamed:
        name = "dnn-other-thing"

    assert _pass_problems("dnn-fold-things", FoldThingsPass) == [
        "dnn-fold-things: defined in test/python/test_registry.py, "
        "expected dnnc/passes/fold_things.py"
    ]
    problems = _pass_problems("dnn-fold-things", Misnamed)
    assert problems[:2] == [
        "dnn-fold-things: registered name differs from Misnamed.name",
        "dnn-fold-things: class Misnamed is not the CamelCase of 'fold_things' + Pass",
    ]


def test_dnnc_names_do_not_shadow_xdsl_passes() -> None:
    ours = [*get_dnnc_passes(), *get_pipelines()]
    assert not set(ours) & set(get_xdsl_passes())
    assert len(set(ours)) == len(ours)


def test_every_pipeline_expands_to_registered_passes_only() -> None:
    leaf_names = set(get_all_passes()) - set(get_pipelines())
    for name, factory in get_pipelines().items():
        cls = factory()
        assert issubclass(cls, PipelinePass) and cls.name == name
        assert cls.__doc__, f"{name} needs a docstring saying what it runs"
        steps = parse_pipeline(",".join(cls.steps))  # DnncError on an unknown name
        assert {p.name for p in expand_pipelines(steps)} <= leaf_names


def test_dnnc_dialects_load_under_their_names() -> None:
    for name in ("dnn", "onednn"):
        dialect = get_all_dialects()[name]()
        assert isinstance(dialect, Dialect) and dialect.name == name


def test_optimize_offers_the_precisions_assign_precision_takes() -> None:
    """dnn-optimize{precision=...} accepts f32 and exactly dnn-assign-precision's dtypes."""
    import typing

    from dnnc.driver.pipelines import OptimizePipeline
    from dnnc.passes.assign_precision import LowerPrecision

    precision = typing.get_type_hints(OptimizePipeline)["precision"]
    assert typing.get_args(precision) == ("f32", *typing.get_args(LowerPrecision))
