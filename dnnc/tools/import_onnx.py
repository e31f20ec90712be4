"""dnnc-import: an ONNX model as dnn IR (``dnnc-import model.onnx -o model.mlir``).

With ``-o out.mlir`` the large weights go to ``out.npz`` beside it, referenced by file name
(``dnn.weight "out.npz", "<initializer>"``: dnn.weight paths are relative to the IR file);
without ``-o`` the IR goes to stdout with every weight inline. User errors are one
``error: ...`` line on stderr and exit status 1.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from dnnc.core.diagnostics import DnncError
from dnnc.frontend.onnx import convert, import_onnx
from dnnc.ir.text import print_module
from dnnc.ir.weights import save_weights


def run(model: str, output: str | None, symbolic: bool = False) -> None:
    """Import ``model``; write the IR (and its weights) to ``output`` or print it. With
    ``symbolic``, sizes computed from ``?`` input dimensions keep their expressions
    (``import_onnx(..., symbolic=True)``; weights inline)."""
    if symbolic:
        text = print_module(import_onnx(model, symbolic=True))
        if output is None:
            sys.stdout.write(text)
        else:
            Path(output).write_text(text)
        return
    if output is None:
        module, _ = convert(model)
        sys.stdout.write(print_module(module))
        return
    out = Path(output)
    weights_path = out.with_suffix(".npz")
    module, weights = convert(model, weights_path.name)
    if weights:
        save_weights(weights_path, weights)
    out.write_text(print_module(module))


def main(args: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="dnnc-import", description=__doc__.splitlines()[0])
    parser.add_argument("model", help="the .onnx file")
    parser.add_argument(
        "-o",
        "--output",
        help="the .mlir file to write (weights beside it as .npz); "
        "default: print to stdout with the weights inline",
    )
    parser.add_argument(
        "--symbolic",
        action="store_true",
        help="write sizes computed from ? input dimensions as expressions over them "
        "(dnn.symbols, dnn.dims, dnn.guards, dnn.shape_function; weights inline)",
    )
    options = parser.parse_args(args)
    try:
        run(options.model, options.output, options.symbolic)
    except DnncError as error:
        print(error, file=sys.stderr)
        sys.exit(1)
    except OSError as error:
        print(f"error: cannot write {error.filename}: {error.strerror}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
