"""Layer 2, `dialects`: the `dnn` and `onednn` dialects, their element types (`types`), and the
dialect list dnnc parses and prints with: xDSL's own plus `dnn` and `onednn`.

Factories are lazy (like xDSL's `get_all_dialects()`): a dialect module is imported only when a
parser meets one of its ops. Adding a dialect is one line in `_DIALECTS`."""

from collections.abc import Callable
from importlib import import_module

from xdsl.dialects import get_all_dialects as get_xdsl_dialects
from xdsl.ir import Dialect

_DIALECTS: dict[str, str] = {
    "dnn": "dnnc.dialects.dnn:DNN",
    "onednn": "dnnc.dialects.onednn:ONEDNN",
}
"""dnnc's dialects: name -> `module:Dialect`."""


def load_target(target: str) -> object:
    """The object a `module:attribute` registry entry names, imported now."""
    module_name, attribute = target.split(":")
    return getattr(import_module(module_name), attribute)


def _dialect_factory(target: str) -> Callable[[], Dialect]:
    """A factory importing the dialect `module:NAME` when called."""

    def load() -> Dialect:
        dialect = load_target(target)
        if not isinstance(dialect, Dialect):
            raise TypeError(f"registry entry {target} is not a Dialect")
        return dialect

    return load


def get_all_dialects() -> dict[str, Callable[[], Dialect]]:
    """xDSL's dialects (builtin, func, arith, ...) plus dnnc's own."""
    dialects = dict(get_xdsl_dialects())
    dialects.update({name: _dialect_factory(target) for name, target in _DIALECTS.items()})
    return dialects
