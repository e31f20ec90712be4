"""Executables compiled at 2 threads with dnnc.runtime.step_threads' rule or without it."""

from __future__ import annotations

from pathlib import Path

import dnnc
import dnnc.runtime.plan as plan_module
from dnnc.dnnl.threads import running_on
from dnnc.runtime.cache import PrimitiveCache
from dnnc.runtime.executor import Executable


def compiled_at_two_threads(
    source: str | Path, *, rule: bool = True, cache: PrimitiveCache | None = None
) -> Executable:
    """``source`` (IR text or a model file) compiled at 2 threads, with the rule or with every
    step on the caller's count, its primitives in a cache of its own unless ``cache`` is
    given (none shared with the other variant)."""
    original = plan_module.runs_alone
    if not rule:
        plan_module.runs_alone = lambda *_: False
    try:
        with running_on(2):
            executable = dnnc.compile(
                str(source) if isinstance(source, Path) else source, cache=cache or PrimitiveCache()
            )
    finally:
        plan_module.runs_alone = original
    assert isinstance(executable, Executable)  # a static graph
    return executable
