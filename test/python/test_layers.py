"""The layers of docs/architecture.md, enforced: a module imports only from its own layer and the
layers below it. Every import counts, including those inside functions; there is no exceptions
list. A new package must be given a layer here (and in the document) before it can land.
Within passes and lowering, a pass module (one whose `ModulePass` the registry lists) imports no
other pass module: what passes share lives in utility modules."""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "dnnc"

MAY_IMPORT: dict[str, frozenset[str]] = {
    "core": frozenset(),
    "dialects": frozenset({"core"}),
    "ir": frozenset({"core", "dialects"}),
    "dnnl": frozenset({"core"}),
    "target": frozenset({"core", "dialects", "ir", "dnnl"}),
    "reference": frozenset({"core", "dialects", "ir"}),
    "frontend": frozenset({"core", "dialects", "ir"}),
    "passes": frozenset({"core", "dialects", "ir", "target", "reference"}),
    "lowering": frozenset({"core", "dialects", "ir", "target", "reference", "passes"}),
    "runtime": frozenset({"core", "dialects", "ir", "dnnl", "target", "reference"}),
    "driver": frozenset(
        {
            "core",
            "dialects",
            "ir",
            "dnnl",
            "target",
            "reference",
            "frontend",
            "passes",
            "lowering",
            "runtime",
        }
    ),
    "api": frozenset(
        {
            "core",
            "dialects",
            "ir",
            "dnnl",
            "target",
            "reference",
            "frontend",
            "passes",
            "lowering",
            "runtime",
            "driver",
        }
    ),
}
"""Each layer and the layers it may import (its own always allowed)."""

API_MODULES = frozenset({"dnnc", "dnnc.api", "dnnc.onnx_backend"})
"""The top layer's modules outside packages; `dnnc.tools` is the rest of it."""


def layer_of(module: str) -> str:
    """The layer of a dnnc module (an AssertionError names one that has none)."""
    if module in API_MODULES or module.startswith("dnnc.tools"):
        return "api"
    parts = module.split(".")
    assert len(parts) > 1 and parts[1] in MAY_IMPORT, f"{module} belongs to no layer"
    return parts[1]


def module_name(path: Path) -> str:
    relative = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(relative.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(path: Path, module: str) -> set[str]:
    """The dnnc modules the file of `module` imports (`from a import b` counts as `a.b` when
    that is a module, else as `a`)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                is_module = (PACKAGE.parent / candidate.replace(".", "/")).with_suffix(".py")
                is_package = PACKAGE.parent / candidate.replace(".", "/") / "__init__.py"
                found.add(candidate if is_module.exists() or is_package.exists() else base)
    return {name for name in found if name == "dnnc" or name.startswith("dnnc.")}


SOURCES = sorted(PACKAGE.rglob("*.py"))


def test_every_module_has_a_layer() -> None:
    for path in SOURCES:
        layer_of(module_name(path))


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_go_down(path: Path) -> None:
    module = module_name(path)
    importer = layer_of(module)
    allowed = MAY_IMPORT[importer] | {importer}
    back_edges = sorted(
        f"{name} ({layer_of(name)})"
        for name in imported_modules(path, module)
        if layer_of(name) not in allowed
    )
    assert not back_edges, f"{module} ({importer}) imports {', '.join(back_edges)}"


def test_the_checker_sees_a_back_edge(tmp_path: Path) -> None:
    """The check itself can fail: a function-level import from a higher layer is found."""
    source = tmp_path / "probe.py"
    source.write_text("def f():\n    from ..runtime.executor import Executable\n")
    imported = imported_modules(source, "dnnc.core.probe")
    assert imported == {"dnnc.runtime.executor"}
    assert layer_of("dnnc.runtime.executor") not in MAY_IMPORT[layer_of("dnnc.core.probe")]


def pass_modules() -> frozenset[str]:
    """The pass modules: those defining a `ModulePass` registered in `dnnc.driver.registry`
    (the other modules of `dnnc/passes` and `dnnc/lowering` are utilities passes share)."""
    from dnnc.driver.registry import get_dnnc_passes

    return frozenset(factory().__module__ for factory in get_dnnc_passes().values())


PASS_SOURCES = [path for path in SOURCES if module_name(path) in pass_modules()]


def test_pass_modules_are_known() -> None:
    """The rule below sees the passes of both packages, and the shared utilities are not passes."""
    modules = {module_name(path) for path in PASS_SOURCES}
    assert {"dnnc.passes.fuse_post_ops", "dnnc.lowering.plan_memory"} <= modules
    assert not modules & {"dnnc.passes.matching", "dnnc.passes.buffer_classes"}


@pytest.mark.parametrize("path", PASS_SOURCES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_pass_imports_another(path: Path) -> None:
    """A pass module imports no other pass module: what two passes share lives in a utility
    module (`dnnc.passes.matching`, `dnnc.passes.constants`, `dnnc.ir.decisions`, ...)."""
    module = module_name(path)
    others = sorted(pass_modules() & imported_modules(path, module) - {module})
    assert not others, f"pass module {module} imports pass modules {', '.join(others)}"


def test_the_checker_sees_a_pass_import(tmp_path: Path) -> None:
    """The pass rule can fail: an import of another pass module is found as one."""
    source = tmp_path / "probe.py"
    source.write_text("def f():\n    from dnnc.passes.fuse_post_ops import FusePostOpsPass\n")
    imported = imported_modules(source, "dnnc.passes.probe")
    assert imported & pass_modules() == {"dnnc.passes.fuse_post_ops"}
