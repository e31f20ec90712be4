"""Tests and benchmarks import shared code from the installed `dnnc_testing` package: none of
them edits sys.path (a path edit hides a missing dependency and breaks on another layout)."""

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EDIT = re.compile(r"\bsys\." + r"path\.(insert|append|extend)\(")


def path_edits(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if EDIT.search(line)]


def test_no_test_or_benchmark_edits_sys_path() -> None:
    sources = [p for d in ("test", "bench", "examples") for p in (REPO / d).rglob("*.py")]
    offenders = {
        str(p.relative_to(REPO)): path_edits(p.read_text())
        for p in sources
        if "Output" not in p.parts
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_the_check_sees_an_edit() -> None:
    line = "sys." + "path.insert(0, str(ROOT))"
    assert path_edits(f"import sys\n{line}\n") == [line]
