"""Every test compiles with the IR verified after each pass (DNNC_VERIFY_EACH=1), so that a
pass that breaks the IR is named where it does, not found at the end of dnnc.compile.

Layouts come from the analytic cost model (DNNC_TUNE=off, also the default, set here against a
DNNC_TUNE=on in the caller's environment): what the tests check must not depend on how fast
this machine ran a kernel a moment ago. The measured model has its own
tests (test/python/passes/test_measured_layouts.py); measured times go to a private cache,
never the user's."""

import os
import tempfile

from dnnc.driver.pipelines import VERIFY_EACH_VARIABLE
from dnnc.target.timings import CACHE_VARIABLE, TUNE_VARIABLE

os.environ.setdefault(VERIFY_EACH_VARIABLE, "1")
os.environ[TUNE_VARIABLE] = "off"
os.environ.setdefault(CACHE_VARIABLE, tempfile.mkdtemp(prefix="dnnc-test-cache-"))
