"""Every test compiles with the IR verified after each pass (DNNC_VERIFY_EACH=1), so that a
pass that breaks the IR is named where it does, not found at the end of dnnc.compile."""

import os

from dnnc.driver.pipelines import VERIFY_EACH_VARIABLE

os.environ.setdefault(VERIFY_EACH_VARIABLE, "1")
