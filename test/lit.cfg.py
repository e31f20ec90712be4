"""lit configuration: every suite under test/ runs with the venv's tools on PATH."""

import os

import lit.formats

config.name = "dnnc"
config.test_format = lit.formats.ShTest()
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.excludes = ["python", "lit.cfg.py"]
config.environment["PATH"] = os.environ["PATH"]
