"""The documents stay true: every path and dnnc module they name exists, and the pass reference
is what the pass docstrings generate."""

import importlib.util
import re
from pathlib import Path

import pytest

from dnnc.tools.pass_reference import pass_reference

REPO = Path(__file__).resolve().parents[2]
DOCUMENTS = sorted([REPO / "README.md", REPO / "CONTRIBUTING.md", *(REPO / "docs").glob("*.md")])
PATH = re.compile(r"(?<![\w/.-])((?:dnnc|docs|test|bench|examples|\.ci)/[\w./-]*[\w/])")
MODULE = re.compile(r"(?<![\w.])(dnnc(?:\.[a-z_][a-z0-9_]*)+)")
GENERATED_ELSEWHERE = ("out/", "test/Output")


def named_paths(text: str) -> set[str]:
    return {p.rstrip("/.") for p in PATH.findall(text) if not p.startswith(GENERATED_ELSEWHERE)}


def module_exists(name: str) -> bool:
    """A module, or an attribute of one (`dnnc.compile`, `dnnc.ir.text.parse_module`)."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        module = ".".join(parts[:end])
        try:
            found = importlib.util.find_spec(module) is not None
        except ModuleNotFoundError:  # a parent is a module, not a package
            found = False
        if found:
            value: object = importlib.import_module(module)
            for attribute in parts[end:]:
                if not hasattr(value, attribute):
                    return False
                value = getattr(value, attribute)
            return True
    return False


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: p.name)
def test_named_paths_exist(document: Path) -> None:
    missing = sorted(p for p in named_paths(document.read_text()) if not (REPO / p).exists())
    assert not missing, f"{document.name} names paths that do not exist: {missing}"


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: p.name)
def test_named_modules_exist(document: Path) -> None:
    names = set(MODULE.findall(document.read_text()))
    missing = sorted(name for name in names if not module_exists(name))
    assert not missing, f"{document.name} names modules that do not exist: {missing}"


def test_the_checks_can_fail() -> None:
    assert named_paths("see dnnc/no_such_file.py and `bench/models.py`.") == {
        "dnnc/no_such_file.py",
        "bench/models.py",
    }
    assert not module_exists("dnnc.no_such_module")
    assert not module_exists("dnnc.api.no_such_function")
    assert module_exists("dnnc.ir.text.parse_module")


def test_the_pass_reference_is_generated() -> None:
    """docs/passes.md is `dnnc-opt --list-passes`: regenerate it when a pass changes."""
    assert (REPO / "docs" / "passes.md").read_text() == pass_reference()
