"""The one place where dnnc's dialects, passes and named pipelines are listed.

Factories are lazy (like xDSL's get_all_passes()) so that a tool pays only for what it uses.
"""

from collections.abc import Callable

from xdsl.dialects import get_all_dialects as get_xdsl_dialects
from xdsl.ir import Dialect
from xdsl.passes import ModulePass


def _dnn() -> Dialect:
    from dnnc.dialects.dnn import DNN

    return DNN


def get_all_dialects() -> dict[str, Callable[[], Dialect]]:
    """xDSL's dialects (builtin, func, arith, ...) plus dnnc's own."""
    dialects = dict(get_xdsl_dialects())
    dialects["dnn"] = _dnn
    return dialects


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """dnnc's passes by their command-line name."""
    return {}
