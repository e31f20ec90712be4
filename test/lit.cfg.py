"""lit configuration for every suite under test/ (Dialect, Passes, Lowering, Integration, CLI).

Tools (dnnc-opt, filecheck, not) come from the Python environment running lit, so
`.venv/bin/lit -sv test` needs no activated venv. oneDNN's and dnnc's environment variables
(`ONEDNN_MAX_CPU_ISA` above all) reach the tests, so that a whole run can be held to an ISA;
so does `PYTHONPATH`, so that a checkout on it is the dnnc the tools import.
Substitutions: `%python`; `%bf16-prefix`, the FileCheck prefix of this target's bf16 path:
`BF16` where oneDNN computes natively in bf16 (dnnc.target.computes_in), else `NOBF16`.
Features: `libdnnl` when the oneDNN library can be loaded (`// REQUIRES: libdnnl`),
`onednn-bf16` where bf16 compute is native.
"""

import glob
import importlib
import os
import shutil
import sys
import tempfile

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
for name, value in os.environ.items():
    if name.startswith(("ONEDNN_", "DNNL_", "DNNC_")) or name == "PYTHONPATH":
        config.environment[name] = value
# Layout decisions checked here are the analytic model's: measured times differ by machine
# and run (a RUN line asks for `cost=measured` itself); measured times go to a private cache.
config.environment["DNNC_TUNE"] = "off"
config.environment.setdefault("DNNC_CACHE_DIR", tempfile.mkdtemp(prefix="dnnc-lit-cache-"))


def _have_libdnnl() -> bool:
    """Whether dnnc's oneDNN bindings load, or a libdnnl is installed in this environment."""
    try:
        importlib.import_module("dnnc.dnnl.capi")
        return True
    except (ImportError, OSError):
        return bool(glob.glob(os.path.join(sys.prefix, "lib", "libdnnl.so*")))


def _bf16_compute() -> bool:
    """Whether oneDNN computes natively in bf16 on this target (as dnn-assign-precision asks)."""
    try:
        from dnnc.core.kinds import DataType
        from dnnc.target import computes_in

        return computes_in(DataType.BF16)
    except (ImportError, OSError):
        return False


if _have_libdnnl():
    config.available_features.add("libdnnl")
bf16 = _bf16_compute()
if bf16:
    config.available_features.add("onednn-bf16")
config.substitutions.append(("%bf16-prefix", "BF16" if bf16 else "NOBF16"))
