"""lit configuration for every suite under test/ (Dialect, Passes, Lowering, Integration, CLI).

Tools (dnnc-opt, filecheck, not) come from the Python environment running lit, so
`.venv/bin/lit -sv test` needs no activated venv. Substitutions: `%python`. Features:
`libdnnl` when the oneDNN library can be loaded (`// REQUIRES: libdnnl`).
"""

import glob
import importlib
import os
import shutil
import sys

import lit.formats

config.name = "dnnc"
config.test_format = lit.formats.ShTest()
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.excludes = ["python", "lit.cfg.py"]

tool_dir = os.path.dirname(sys.executable)
config.environment["PATH"] = os.pathsep.join([tool_dir, os.environ.get("PATH", "")])
for tool in ("dnnc-opt", "filecheck"):
    if shutil.which(tool, path=config.environment["PATH"]) is None:
        lit_config.fatal(f"'{tool}' not found next to {sys.executable}: run `make install`")
config.substitutions.append(("%python", sys.executable))


def _have_libdnnl() -> bool:
    """Whether dnnc's oneDNN bindings load, or a libdnnl is installed in this environment."""
    try:
        importlib.import_module("dnnc.runtime.capi")
        return True
    except (ImportError, OSError):
        return bool(glob.glob(os.path.join(sys.prefix, "lib", "libdnnl.so*")))


if _have_libdnnl():
    config.available_features.add("libdnnl")
